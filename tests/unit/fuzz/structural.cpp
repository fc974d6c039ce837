// Randomized differential tests of concat, pad and slice against naive loops: operands with
// their other dims in different orders, views as operands, slices with bounds inside and
// beyond the ends and steps of either sign; extents 0 and 1 included.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "differential.hpp"

namespace dg = dimgraph;

namespace {

struct A : dg::dim<"a"> {};
struct B : dg::dim<"b"> {};
struct C : dg::dim<"c"> {};
struct F : dg::dim<"f", 3> {};

using support::generator;
using support::python_slice;
constexpr int trials = 150;

// x[D] (a view or tensor) against the positions p of x_big along D, for every other index.
template <class View, class Big>
void check_slice(const View& v, const Big& x_big, const std::vector<std::size_t>& p,
                 std::size_t nb) {
  REQUIRE(v.size() == p.size() * nb);
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t b = 0; b < nb; ++b) CHECK(v(i, b) == x_big(p[i], b));
}

}  // namespace

TEST_CASE("fuzz: concat of tensors and views in any dim order matches a naive loop") {
  generator r(0x5eed0301);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na = r.extent(), nc = r.extent(), nb = r.extent(), na2 = r.extent();
    CAPTURE(t);
    CAPTURE(na);
    CAPTURE(nc);
    CAPTURE(nb);
    CAPTURE(na2);
    dg::tensor<float, A, B> x(dg::extent<A>(na), dg::extent<B>(nb));
    dg::tensor<float, B, C> y(dg::extent<B>(nb), dg::extent<C>(nc));
    dg::tensor<int, A, B> z(dg::extent<A>(na), dg::extent<B>(nb));
    dg::tensor<float, B, A> w(dg::extent<B>(nb), dg::extent<A>(na2));
    support::fill(x, r);
    support::fill(y, r);
    support::fill(z, r);
    support::fill(w, r);

    // [a + c + a... ]: the result dim at x's a, x's other dims in x's order.
    const auto xyz = dg::concat(dg::along<A>(x), dg::along<C>(y), dg::along<A>(z * 2));
    using abc = dg::concat_dim_t<A, C, A>;
    REQUIRE(xyz.extent<abc>() == 2 * na + nc);
    REQUIRE(xyz.extent<B>() == nb);
    for (std::size_t i = 0; i < 2 * na + nc; ++i)
      for (std::size_t b = 0; b < nb; ++b) {
        const float want = i < na        ? x(i, b)
                           : i < na + nc ? y(b, i - na)
                                         : static_cast<float>(z(i - na - nc, b) * 2);
        CHECK(xyz(i, b) == want);
      }
    // A tag after itself is 2 * a when the extents agree; views of another order as operands.
    if (na2 == na) {
      const auto xx = dg::concat(dg::along<A>(dg::permute<B, A>(x)), dg::along<A>(w));
      REQUIRE(xx.extent<dg::concat_dim_t<A, A>>() == 2 * na);
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t i = 0; i < 2 * na; ++i)
          CHECK(xx(b, i) == (i < na ? x(i, b) : w(b, i - na)));
    } else {
      CHECK_THROWS_AS((void)dg::concat(dg::along<A>(x), dg::along<A>(dg::permute<A, B>(w))),
                      dg::shape_error);
    }
  }
}

TEST_CASE("fuzz: pad of tensors, views and expressions matches a naive loop") {
  generator r(0x5eed0302);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na = r.extent(), nb = r.extent();
    CAPTURE(t);
    CAPTURE(na);
    CAPTURE(nb);
    dg::tensor<float, A, B> x(dg::extent<A>(na), dg::extent<B>(nb));
    support::fill(x, r);
    const float value = static_cast<float>(r.between(-9, 9));

    const auto p = dg::pad<A, 2, 1>(x, value);              // [2 + a + 1, b]
    const auto q = dg::pad<B, 0, 3>(dg::permute<B, A>(x));  // [b + 3, a]
    const auto e = dg::pad<A, 1, 0>(x * 2.0f, value);       // [1 + a, b]
    REQUIRE(p.extent<dg::pad_dim_t<A, 2, 1>>() == na + 3);
    REQUIRE(q.extent<dg::pad_dim_t<B, 0, 3>>() == nb + 3);
    REQUIRE(e.extent<dg::pad_dim_t<A, 1, 0>>() == na + 1);
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t i = 0; i < na + 3; ++i) {
        CHECK(p(i, b) == (i >= 2 && i < na + 2 ? x(i - 2, b) : value));
        if (i < na + 1) CHECK(e(i, b) == (i >= 1 ? x(i - 1, b) * 2.0f : value));
      }
    for (std::size_t i = 0; i < nb + 3; ++i)
      for (std::size_t a = 0; a < na; ++a) CHECK(q(i, a) == (i < nb ? x(a, i) : 0.0f));
  }
}

TEST_CASE("fuzz: slices with run-time bounds and steps of either sign match Python's rule") {
  generator r(0x5eed0303);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na = r.extent(7), nb = r.extent(3);
    const support::slice_bounds s = support::random_slice(r, na);
    const support::slice_bounds s2 = support::random_slice(r, na);
    CAPTURE(t);
    CAPTURE(na);
    CAPTURE(nb);
    CAPTURE(s.text());
    CAPTURE(s2.text());
    dg::tensor<float, A, B> x(dg::extent<A>(na), dg::extent<B>(nb));
    support::fill(x, r);
    const auto p = python_slice(na, s.start, s.stop, s.step);
    const auto v = dg::slice<A>(x, support::slice_arg(s.start), support::slice_arg(s.stop), s.step);
    check_slice(v, x, p, nb);
    // A slice of a slice: positions of positions.
    const auto v_a = dg::rename<dg::sliced_dim<A>, A>(v);
    const auto p2 = python_slice(p.size(), s2.start, s2.stop, s2.step);
    std::vector<std::size_t> pp;
    for (std::size_t i : p2) pp.push_back(p[i]);
    check_slice(
        dg::slice<A>(v_a, support::slice_arg(s2.start), support::slice_arg(s2.stop), s2.step), x,
        pp, nb);
    // Evaluated into a tensor, and along the inner dim of a permuted view.
    const dg::tensor<float, dg::sliced_dim<A>, B> copy = v;
    check_slice(copy, x, p, nb);
    const auto inner = dg::slice<A>(dg::permute<B, A>(x), support::slice_arg(s.start),
                                    support::slice_arg(s.stop), s.step);
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t i = 0; i < p.size(); ++i) CHECK(inner(b, i) == x(p[i], b));
  }
}

TEST_CASE("fuzz: slices with compile-time bounds match Python's rule on static and dynamic dims") {
  generator r(0x5eed0304);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na = r.extent(7), nb = r.extent(3);
    CAPTURE(t);
    CAPTURE(na);
    CAPTURE(nb);
    dg::tensor<float, A, B> x(dg::extent<A>(na), dg::extent<B>(nb));
    dg::tensor<float, F, B> f(dg::extent<B>(nb));
    support::fill(x, r);
    support::fill(f, r);
    using support::bound;
    const bound none;
    check_slice(dg::slice<A, 1, dg::none, 2>(x), x, python_slice(na, 1, none, 2), nb);
    check_slice(dg::slice<A, -1, dg::none, -1>(x), x, python_slice(na, -1, none, -1), nb);
    check_slice(dg::slice<A, dg::none, dg::none, -2>(x), x, python_slice(na, none, none, -2), nb);
    check_slice(dg::slice<A, 2, -1>(x), x, python_slice(na, 2, -1, 1), nb);
    check_slice(dg::slice<A, -3>(x), x, python_slice(na, -3, none, 1), nb);
    check_slice(dg::slice<A, 1, 3>(x), x, python_slice(na, 1, 3, 1), nb);
    check_slice(dg::slice<A, 5, 1, -3>(x), x, python_slice(na, 5, 1, -3), nb);
    check_slice(dg::slice<F, dg::none, dg::none, -1>(f), f, python_slice(3, none, none, -1), nb);
    check_slice(dg::slice<F, 1, dg::none, 2>(f), f, python_slice(3, 1, none, 2), nb);
    check_slice(dg::slice<F, -5, 7>(f), f, python_slice(3, -5, 7, 1), nb);
    check_slice(dg::slice<F, 2, 0, -1>(f), f, python_slice(3, 2, 0, -1), nb);
  }
}
