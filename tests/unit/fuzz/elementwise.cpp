// Randomized differential tests of element-wise expressions against naive loops: operands
// aligned by tag in different orders and subsets, views with negative and stepped strides,
// strided destinations; extents 0 and 1 included. Fixed seeds: a failure names its trial.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "differential.hpp"

namespace dg = dimgraph;

namespace {

struct A : dg::dim<"a"> {};
struct B : dg::dim<"b"> {};
struct C : dg::dim<"c"> {};
struct S : dg::dim<"s", 3> {};

using support::generator;
constexpr int trials = 60;
// Every fourth trial has a long inner dim, so that vectorised loops run their bodies and tails.
std::size_t inner_extent(generator& r, int t) {
  return r.extent(t % 4 == 3 ? 37 : 5);
}

// The run-time slice of x along D, renamed back to D: a strided view of x's memory.
template <class D, class X>
auto slice_as(X& x, const support::slice_bounds& s) {
  return dg::rename<dg::sliced_dim<D>, D>(
      dg::slice<D>(x, support::slice_arg(s.start), support::slice_arg(s.stop), s.step));
}

}  // namespace

TEST_CASE("fuzz: element-wise broadcasting by tags matches a naive loop") {
  generator r(0x5eed0001);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na = r.extent(), nb = r.extent(), nc = inner_extent(r, t);
    CAPTURE(t);
    CAPTURE(na);
    CAPTURE(nb);
    CAPTURE(nc);
    dg::tensor<float, A, B, C> x(dg::extent<A>(na), dg::extent<B>(nb), dg::extent<C>(nc));
    dg::tensor<float, C, A> y(dg::extent<C>(nc), dg::extent<A>(na));
    dg::tensor<float, B> z(dg::extent<B>(nb));
    dg::tensor<float, B, S, A> u(dg::extent<B>(nb), dg::extent<A>(na));
    dg::tensor<float, S, B> w(dg::extent<B>(nb));
    dg::tensor<int, C, A> xi(dg::extent<C>(nc), dg::extent<A>(na));
    dg::tensor<int, A> yi(dg::extent<A>(na));
    support::fill(x, r);
    support::fill(y, r);
    support::fill(z, r);
    support::fill(u, r);
    support::fill(w, r);
    support::fill(xi, r);
    support::fill(yi, r);

    // A subset on either side, in another order; the result assigned in any order.
    const dg::tensor<float, A, B, C> r1 = (x + y) * z;
    const dg::tensor<float, C, B, A> r2 = y - x * z;
    const dg::tensor<float, A, B, C> r3 = 2.0f * x - y / 2.0f + 1.0f;
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t c = 0; c < nc; ++c) {
          CHECK(r1(a, b, c) == (x(a, b, c) + y(c, a)) * z(b));
          CHECK(r2(c, b, a) == y(c, a) - x(a, b, c) * z(b));
          CHECK(r3(a, b, c) == 2.0f * x(a, b, c) - y(c, a) / 2.0f + 1.0f);
        }
    // A static dim among dynamic ones, operands nested three deep.
    const dg::tensor<float, A, S, B> r4 = u * (w + z);
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t s = 0; s < 3; ++s)
        for (std::size_t b = 0; b < nb; ++b) CHECK(r4(a, s, b) == u(b, s, a) * (w(s, b) + z(b)));
    // Integers.
    const dg::tensor<int, A, C> r5 = xi * 3 + yi - 1;
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t c = 0; c < nc; ++c) CHECK(r5(a, c) == xi(c, a) * 3 + yi(a) - 1);
  }
}

TEST_CASE(
    "fuzz: element-wise operands that are permuted, sliced and fixed views match a naive loop") {
  generator r(0x5eed0002);
  for (int t = 0; t < trials; ++t) {
    // A is a slice of a longer dim (any bounds, steps of either sign), C a reversed or stepped
    // slice, B of the operand's own.
    const std::size_t na_big = r.extent(6), nc_big = inner_extent(r, t), nb = r.extent();
    const support::slice_bounds sa = support::random_slice(r, na_big);
    const support::slice_bounds sc = support::random_slice(r, nc_big);
    const std::vector<std::size_t> pa = support::python_slice(na_big, sa.start, sa.stop, sa.step);
    const std::vector<std::size_t> pc = support::python_slice(nc_big, sc.start, sc.stop, sc.step);
    const std::size_t na = pa.size(), nc = pc.size();
    CAPTURE(t);
    CAPTURE(sa.text());
    CAPTURE(sc.text());
    CAPTURE(na_big);
    CAPTURE(nc_big);
    CAPTURE(nb);

    dg::tensor<float, A, C> y_big(dg::extent<A>(na_big), dg::extent<C>(nc));
    dg::tensor<float, B, C> v_big(dg::extent<B>(nb), dg::extent<C>(nc_big));
    dg::tensor<float, B, A, C> x(dg::extent<B>(nb), dg::extent<A>(na), dg::extent<C>(nc));
    dg::tensor<float, S, A, C> q(dg::extent<A>(na), dg::extent<C>(nc));
    support::fill(y_big, r);
    support::fill(v_big, r);
    support::fill(x, r);
    support::fill(q, r);
    const std::size_t s_at = r.below(3);

    const auto y = slice_as<A>(y_big, sa);    // [A, C]: A strided by step * nc
    const auto v = slice_as<C>(v_big, sc);    // [B, C]: C strided by step
    const auto xp = dg::permute<C, A, B>(x);  // [C, A, B]
    const auto qs = q[dg::at<S>(s_at)];       // [A, C]
    REQUIRE(y.extent<A>() == na);
    REQUIRE(v.extent<C>() == nc);

    const dg::tensor<float, A, B, C> r1 = xp + y;
    const dg::tensor<float, A, B, C> r2 = y * qs - xp * v;
    const dg::tensor<float, C, B> r3 = v * 2.0f + dg::permute<C, B>(v);
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t c = 0; c < nc; ++c) {
          const float yv = y_big(pa[a], c), vv = v_big(b, pc[c]);
          CHECK(r1(a, b, c) == x(b, a, c) + yv);
          CHECK(r2(a, b, c) == yv * q(s_at, a, c) - x(b, a, c) * vv);
        }
    for (std::size_t c = 0; c < nc; ++c)
      for (std::size_t b = 0; b < nb; ++b) CHECK(r3(c, b) == v_big(b, pc[c]) * 3.0f);
  }
}

TEST_CASE("fuzz: element-wise results written through strided views touch only their elements") {
  generator r(0x5eed0003);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na_big = r.extent(6), nc = inner_extent(r, t);
    const support::slice_bounds sa = support::random_slice(r, na_big);
    const std::vector<std::size_t> pa = support::python_slice(na_big, sa.start, sa.stop, sa.step);
    const std::size_t na = pa.size();
    CAPTURE(t);
    CAPTURE(sa.text());
    CAPTURE(na_big);
    CAPTURE(nc);

    dg::tensor<float, A, C> big(dg::extent<A>(na_big), dg::extent<C>(nc));
    dg::tensor<float, C, A> x(dg::extent<C>(nc), dg::extent<A>(na));
    dg::tensor<float, A> y(dg::extent<A>(na));
    support::fill(big, r);
    support::fill(x, r);
    support::fill(y, r);
    const dg::tensor<float, A, C> before = big;

    std::vector<bool> written(na_big, false);
    for (std::size_t p : pa) written[p] = true;
    const auto dst = slice_as<A>(big, sa);
    dst = x * y + 1.0f;
    for (std::size_t i = 0; i < na_big; ++i)
      for (std::size_t c = 0; c < nc; ++c)
        if (!written[i]) CHECK(big(i, c) == before(i, c));
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t c = 0; c < nc; ++c) CHECK(big(pa[a], c) == x(c, a) * y(a) + 1.0f);

    // The same destination seen with its dims the other way round.
    dg::permute<C, A>(dst) = x - y;
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t c = 0; c < nc; ++c) CHECK(big(pa[a], c) == x(c, a) - y(a));
  }
}
