// Run-time errors of element-wise work: each throws the right exception, names the op,
// the dims and the extents, and leaves the output untouched.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <string>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct T : dg::dim<"time", dg::range{1, 8}> {};
struct F : dg::dim<"f", 4> {};
using bf = dg::tensor<float, B, F>;

template <class Ex, class Fn>
std::string message_of(Fn f) {
  try {
    f();
  } catch (const Ex& e) {
    return e.what();
  }
  return "no exception";
}
bf filled(std::size_t b, float v) {
  bf x(dg::extent<B>(b));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = v + static_cast<float>(i);
  return x;
}
}  // namespace

TEST_CASE("errors: a dynamic extent mismatch is a shape_error naming op, dim and extents") {
  const bf a = filled(2, 0), b = filled(3, 0);
  CHECK(message_of<dg::shape_error>([&] { (void)(a * b); }) ==
        "dimgraph: mul: dim 'b' has extent 2 in operand 1 and 3 in operand 2");
  bf out = filled(2, 7);
  const bf before = out;
  auto v = out.view();
  CHECK(message_of<dg::shape_error>([&] { v = b + 1.0f; }) ==
        "dimgraph: assign: dim 'b' has extent 2 in the destination and 3 in the expression");
  CHECK(out == before);
}

TEST_CASE("errors: an extent outside the dim's interval is a shape_error") {
  CHECK(message_of<dg::shape_error>([] { dg::tensor<float, T, F> x(dg::extent<T>(9)); }) ==
        "dimgraph: tensor: dim 'time' cannot have extent 9: its size is [1, 8]");
  CHECK(message_of<dg::shape_error>([] { dg::tensor<float, T, F> x(dg::extent<T>(0)); }) ==
        "dimgraph: tensor: dim 'time' cannot have extent 0: its size is [1, 8]");
  dg::tensor<float, F> bias;
  CHECK(message_of<dg::shape_error>([&] {
          (void)dg::broadcast_to<T, F>(bias, dg::extent<T>(12));
        }) == "dimgraph: broadcast_to: dim 'time' cannot have extent 12: its size is [1, 8]");
}

TEST_CASE("errors: a partial overlap is an overlap_error and nothing is written") {
  bf x = filled(3, 1);
  const bf before = x;
  // The rows of x shifted by one against x itself: same memory, different elements.
  auto shifted = dg::view<float, B, F>(x.data() + 4, dg::extent<B>(2));
  auto first_rows = dg::view<float, B, F>(x.data(), dg::extent<B>(2));
  CHECK(message_of<dg::overlap_error>([&] { first_rows = shifted * 2.0f; }) ==
        "dimgraph: assign: operand 1 partially overlaps the output (same memory, different element "
        "order); "
        "evaluate it into a new tensor first");
  CHECK(x == before);
  // A transposed view of the output overlaps it element for element in another order.
  struct G : dg::dim<"g", 4> {};
  dg::tensor<float, G, F> sq;
  for (std::size_t i = 0; i < 16; ++i) sq.data()[i] = static_cast<float>(i);
  const dg::tensor<float, G, F> sq_before = sq;
  auto as_gf = [&] { return dg::view<float, G, F>(sq.data()); };
  auto swapped = dg::view<float, F, G>(sq.data());  // same memory, other dim order
  CHECK_THROWS_AS(as_gf() = swapped + 0.0f, dg::overlap_error);
  CHECK(sq == sq_before);
  // Exact aliasing (in place) is allowed.
  x = x + x;
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(x.data()[i] == 2 * before.data()[i]);
}

TEST_CASE("errors: out-of-range indices are index_errors naming the dim") {
  const bf x = filled(2, 0);
  CHECK(message_of<dg::index_error>([&] { (void)x[dg::at<B>(2)]; }) ==
        "dimgraph: at: index 2 is out of range for dim 'b' of extent 2");
}
