// operator== / != on tensors and views: extents and elements aligned by tag.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Feat : dg::dim<"feat", 3> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Hidden : dg::dim<"hidden", 3> {};

template <class A, class B>
concept equality_comparable = requires(const A& a, const B& b) {
  a == b;
  a != b;
};

// x(t, f) = 10 t + f, filled by hand.
dg::tensor<int, Time, Feat> numbered(std::size_t steps) {
  dg::tensor<int, Time, Feat> x(dg::extent<Time>(steps));
  for (std::size_t t = 0; t < steps; ++t)
    for (std::size_t f = 0; f < 3; ++f) x(t, f) = static_cast<int>(10 * t + f);
  return x;
}
}  // namespace

TEST_CASE("equal: same extents and elements in the same order") {
  auto a = numbered(4), b = numbered(4);
  CHECK(a == b);
  CHECK_FALSE(a != b);
  b(3, 2) = -1;
  CHECK_FALSE(a == b);
  CHECK(a != b);
  b(3, 2) = 32;
  CHECK(a == b);
}

TEST_CASE("equal: different extents are unequal (no exception)") {
  CHECK(numbered(2) != numbered(3));
  CHECK(numbered(0) != numbered(1));
  CHECK(numbered(0) == numbered(0));
}

TEST_CASE("equal: aligned by tag, so a tensor equals its permuted view") {
  auto x = numbered(4);
  auto p = dg::permute<Feat, Time>(x);
  CHECK(x == p);
  CHECK(p == x);
  CHECK(p == p);
  // An independently built tensor in the other dim order with the same elements.
  dg::tensor<int, Feat, Time> y(dg::extent<Time>(4));
  for (std::size_t f = 0; f < 3; ++f)
    for (std::size_t t = 0; t < 4; ++t) y(f, t) = static_cast<int>(10 * t + f);
  CHECK(x == y);
  CHECK(y == x);
  // Equal by position is not equal by tag: the same numbers read as [Feat, Time] row-major.
  auto z = dg::view<int, Feat, Time>(x.data(), dg::extent<Time>(4));
  CHECK(x != z);
  y(2, 1) = 0;
  CHECK(x != y);
}

TEST_CASE("equal: any mix of tensors, views, const views and external memory") {
  auto x = numbered(2);
  std::vector<int> memory = {0, 1, 2, 10, 11, 12};
  auto v = dg::view<int, Time, Feat>(memory.data(), dg::extent<Time>(2));
  auto cv = dg::view<const int, Time, Feat>(memory.data(), dg::extent<Time>(2));
  CHECK(x == v);
  CHECK(v == x);
  CHECK(cv == v);
  CHECK(x.view() == cv);
  memory[4] = 0;
  CHECK(x != v);
  CHECK(cv == v);  // same memory
}

TEST_CASE("equal: strided slices compare element by element") {
  auto x = numbered(3);
  dg::tensor<int, Time> column(dg::extent<Time>(3));
  column(0) = 1;
  column(1) = 11;
  column(2) = 21;
  CHECK(x[dg::at<Feat>(1)] == column);
  CHECK(x[dg::at<Feat>(2)] != column);
  dg::tensor<int, Feat> row;
  row(0) = 20;
  row(1) = 21;
  row(2) = 22;
  CHECK(x[dg::at<Time>(2)] == row);
  CHECK(dg::permute<Feat, Time>(x)[dg::at<Time>(2)] == row);
}

TEST_CASE("equal: rank 0, static tensors, interval dims") {
  dg::tensor<double> a, b;
  a() = 1.5;
  b() = 1.5;
  CHECK(a == b);
  b() = 2.0;
  CHECK(a != b);
  auto x = numbered(2);
  CHECK(x[dg::at<Time>(1)][dg::at<Feat>(0)] == x[dg::at<Feat>(0)][dg::at<Time>(1)]);

  dg::tensor<float, Hidden, Feat> s, t;
  CHECK(s == t);
  t(2, 2) = 1;
  CHECK(s != t);

  dg::tensor<int, Beam> u(dg::extent<Beam>(2)), w(dg::extent<Beam>(2)), q(dg::extent<Beam>(3));
  CHECK(u == w);
  CHECK(u != q);
}

TEST_CASE("equal: floating point compares as ==, so NaN is unequal to itself") {
  dg::tensor<float, Feat> x;
  x(1) = std::numeric_limits<float>::quiet_NaN();
  CHECK(x != x);
  dg::tensor<double, Feat> plus, minus;
  minus(0) = -0.0;
  CHECK(plus == minus);  // 0.0 == -0.0
}

TEST_CASE("equal: no operator for different dim sets or element types") {
  using TF = dg::tensor<int, Time, Feat>;
  static_assert(equality_comparable<TF, TF>);
  static_assert(equality_comparable<TF, dg::tensor_view<int, Feat, Time>>);
  static_assert(equality_comparable<TF, dg::tensor_view<const int, Time, Feat>>);
  static_assert(!equality_comparable<TF, dg::tensor<int, Time, Hidden>>);
  static_assert(!equality_comparable<TF, dg::tensor<int, Time>>);
  static_assert(!equality_comparable<TF, dg::tensor<int, Time, Feat, Hidden>>);
  static_assert(!equality_comparable<TF, dg::tensor<float, Time, Feat>>);
  static_assert(!equality_comparable<TF, dg::tensor_view<long, Time, Feat>>);
  static_assert(!equality_comparable<TF, int>);
}
