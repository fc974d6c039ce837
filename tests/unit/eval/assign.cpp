// Assignment through the hook: with the headers of the layers used and the evaluator's
// eval/assign.hpp (not the umbrella), expressions evaluate into tensors and views; every kind
// of expression (element-wise, reduction, product) takes the same path; a tensor that a
// product reads gets the product through new memory. Checked against hand-written loops.
#if __has_include(<dimgraph/eval/assign.hpp>)
#include <dimgraph/eval/assign.hpp>
#include <dimgraph/ops/contract.hpp>
#include <dimgraph/ops/elementwise.hpp>
#include <dimgraph/ops/reduce.hpp>
#include <dimgraph/tensor/tensor.hpp>
#else  // (built against the single header, which is all of them)
#include <dimgraph.hpp>
#endif

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 4> {};
struct Rows : dg::dim<"rows", 3> {};
struct Inner : dg::dim<"inner", 3> {};
struct Cols : dg::dim<"cols", 3> {};
struct M : dg::dim<"m"> {};
struct K : dg::dim<"k"> {};
struct N : dg::dim<"n"> {};

// Element i of x becomes first + i * step (not the library's own fill).
template <class X>
void ramp(X& x, float first, float step) {
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = first + step * static_cast<float>(i);
}
}  // namespace

TEST_CASE(
    "assign: with the tensor, expression and evaluator headers, a tensor is made from x + x") {
  dg::tensor<float, Feature> x;
  ramp(x, 1.0f, 0.5f);
  dg::tensor<float, Feature> y = x + x;
  for (std::size_t i = 0; i < 4; ++i) CHECK(y(i) == 2.0f * (1.0f + 0.5f * static_cast<float>(i)));

  dg::tensor<float, Time, Feature> a(dg::extent<Time>(3));
  ramp(a, -2.0f, 0.25f);
  dg::tensor<float, Time, Feature> b = a + a;
  REQUIRE(b.extent<Time>() == 3);
  for (std::size_t i = 0; i < b.size(); ++i) CHECK(b.data()[i] == 2.0f * a.data()[i]);
  // Assigned: takes the expression's extents; a view keeps its own.
  dg::tensor<float, Time, Feature> c(dg::extent<Time>(5));
  ramp(c, 9.0f, 1.0f);
  c = a * 3.0f;
  REQUIRE(c.extent<Time>() == 3);
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c.data()[i] == 3.0f * a.data()[i]);
  c.view() = a - 1.0f;
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c.data()[i] == a.data()[i] - 1.0f);
}

TEST_CASE("assign: reductions and products evaluate through the same header") {
  dg::tensor<float, Time, Feature> a(dg::extent<Time>(3));
  ramp(a, 1.0f, 1.0f);
  dg::tensor<float, Feature> s = dg::sum<Time>(a);
  for (std::size_t f = 0; f < 4; ++f) CHECK(s(f) == a(0, f) + a(1, f) + a(2, f));

  dg::tensor<float, Feature, Cols> w;
  ramp(w, -1.0f, 0.5f);
  dg::tensor<float, Time, Cols> p = dg::dot<Feature>(a, w);
  REQUIRE(p.extent<Time>() == 3);
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t j = 0; j < 3; ++j) {
      float want = 0;
      for (std::size_t f = 0; f < 4; ++f) want += a(t, f) * w(f, j);
      CHECK(p(t, j) == doctest::Approx(want));
    }
}

TEST_CASE("assign: a tensor that a product reads gets the product through new memory") {
  // Static: out [rows, cols] and, over the same memory, the operand [rows, inner].
  dg::tensor<float, Rows, Cols> out;
  ramp(out, 0.5f, 0.25f);
  dg::tensor<float, Inner, Cols> w;
  ramp(w, -1.0f, 0.125f);
  const std::vector<float> before(out.data(), out.data() + out.size());
  auto as_operand = dg::view<float, Rows, Inner>(out.data());
  out = dg::dot<Inner>(as_operand, w);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < 3; ++c) {
      float want = 0;
      for (std::size_t k = 0; k < 3; ++k) want += before[r * 3 + k] * w(k, c);
      CHECK(out(r, c) == doctest::Approx(want));
    }

  // Run-time extents, unchanged by the assignment.
  dg::tensor<float, M, N> sq(dg::extent<M>(4), dg::extent<N>(4));
  ramp(sq, 1.0f, -0.25f);
  dg::tensor<float, K, N> v(dg::extent<K>(4), dg::extent<N>(4));
  ramp(v, 0.5f, 0.5f);
  const std::vector<float> old(sq.data(), sq.data() + sq.size());
  auto as_mk = dg::view<float, M, K>(sq.data(), dg::extent<M>(4), dg::extent<K>(4));
  sq = dg::dot<K>(as_mk, v);
  REQUIRE(sq.extent<M>() == 4);
  for (std::size_t m = 0; m < 4; ++m)
    for (std::size_t n = 0; n < 4; ++n) {
      float want = 0;
      for (std::size_t k = 0; k < 4; ++k) want += old[m * 4 + k] * v(k, n);
      CHECK(sq(m, n) == doctest::Approx(want));
    }
}
