// Randomized differential tests of reductions (sum, mean, max, min, prod) over various dims
// of tensors and of permuted and sliced views, against naive loops; extents 0 and 1
// included. Elements are small integers, so every sum and product is exact.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "differential.hpp"

namespace dg = dimgraph;

namespace {

struct A : dg::dim<"a"> {};
struct B : dg::dim<"b"> {};
struct C : dg::dim<"c"> {};
struct S : dg::dim<"s", 2> {};

using support::generator;
constexpr int trials = 150;

// The naive reduction of x(a, b, c) over the dims flagged in `over`, at the kept position
// (a, b, c) (reduced positions ignored): the values visited in a, b, c order.
template <class Get>
std::vector<float> group(const Get& x, const std::size_t (&n)[3], const bool (&over)[3],
                         std::size_t a, std::size_t b, std::size_t c) {
  std::vector<float> v;
  for (std::size_t i = over[0] ? 0 : a; i < (over[0] ? n[0] : a + 1); ++i)
    for (std::size_t j = over[1] ? 0 : b; j < (over[1] ? n[1] : b + 1); ++j)
      for (std::size_t k = over[2] ? 0 : c; k < (over[2] ? n[2] : c + 1); ++k)
        v.push_back(x(i, j, k));
  return v;
}

float sum_of(const std::vector<float>& v) {
  float s = 0;
  for (float e : v) s += e;
  return s;
}
float prod_of(const std::vector<float>& v) {
  float p = 1;
  for (float e : v) p *= e;
  return p;
}

}  // namespace

TEST_CASE("fuzz: reductions over any dims of a tensor match a naive loop") {
  generator r(0x5eed0101);
  for (int t = 0; t < trials; ++t) {
    // Every fourth trial has a long inner dim, so that vectorised loops run bodies and tails.
    const std::size_t n[3] = {r.extent(), r.extent(), r.extent(t % 4 == 3 ? 37 : 5)};
    CAPTURE(t);
    CAPTURE(n[0]);
    CAPTURE(n[1]);
    CAPTURE(n[2]);
    dg::tensor<float, A, B, C> x(dg::extent<A>(n[0]), dg::extent<B>(n[1]), dg::extent<C>(n[2]));
    support::fill(x, r, -2, 2);
    auto at = [&](std::size_t a, std::size_t b, std::size_t c) { return x(a, b, c); };

    const auto s_a = dg::eval(dg::sum<A>(x));          // [B, C]
    const auto s_ac = dg::eval(dg::sum<C, A>(x));      // [B]
    const auto s_all = dg::eval(dg::sum<A, B, C>(x));  // rank 0
    const auto p_b = dg::eval(dg::prod<B>(x));         // [A, C]
    const auto m_bc = dg::eval(dg::mean<B, C>(x));     // [A]
    constexpr bool over_a[3] = {true, false, false}, over_ac[3] = {true, false, true};
    constexpr bool over_b[3] = {false, true, false}, over_bc[3] = {false, true, true};
    constexpr bool over_all[3] = {true, true, true};
    for (std::size_t b = 0; b < n[1]; ++b) {
      for (std::size_t c = 0; c < n[2]; ++c)
        CHECK(s_a(b, c) == sum_of(group(at, n, over_a, 0, b, c)));
      CHECK(s_ac(b) == sum_of(group(at, n, over_ac, 0, b, 0)));
    }
    CHECK(s_all() == sum_of(group(at, n, over_all, 0, 0, 0)));
    for (std::size_t a = 0; a < n[0]; ++a) {
      for (std::size_t c = 0; c < n[2]; ++c)
        CHECK(p_b(a, c) == prod_of(group(at, n, over_b, a, 0, c)));
      const auto g = group(at, n, over_bc, a, 0, 0);
      if (g.empty()) CHECK(m_bc(a) != m_bc(a));  // 0 / 0
      else CHECK(m_bc(a) == doctest::Approx(sum_of(g) / static_cast<float>(g.size())));
    }

    // max and min: over a nonempty group the extreme; over an empty one a shape_error.
    if (n[2] > 0) {
      const auto mx_c = dg::eval(dg::max<C>(x));  // [A, B]
      constexpr bool over_c[3] = {false, false, true};
      for (std::size_t a = 0; a < n[0]; ++a)
        for (std::size_t b = 0; b < n[1]; ++b) {
          const auto g = group(at, n, over_c, a, b, 0);
          CHECK(mx_c(a, b) == *std::max_element(g.begin(), g.end()));
        }
    } else if (n[0] * n[1] > 0) {
      CHECK_THROWS_AS((void)dg::eval(dg::max<C>(x)), dg::shape_error);
    }
    if (n[0] > 0 && n[1] > 0) {
      const auto mn_ab = dg::eval(dg::min<B, A>(x));  // [C]
      constexpr bool over_ab[3] = {true, true, false};
      for (std::size_t c = 0; c < n[2]; ++c) {
        const auto g = group(at, n, over_ab, 0, 0, c);
        CHECK(mn_ab(c) == *std::min_element(g.begin(), g.end()));
      }
    }

    // Integers sum in int64.
    dg::tensor<int, C, A> xi(dg::extent<C>(n[2]), dg::extent<A>(n[0]));
    support::fill(xi, r, -100, 100);
    const auto si = dg::eval(dg::sum<C>(xi));
    static_assert(std::is_same_v<decltype(si), const dg::tensor<std::int64_t, A>>);
    for (std::size_t a = 0; a < n[0]; ++a) {
      std::int64_t s = 0;
      for (std::size_t c = 0; c < n[2]; ++c) s += xi(c, a);
      CHECK(si(a) == s);
    }
  }
}

TEST_CASE("fuzz: reductions over permuted and sliced views and expressions match a naive loop") {
  generator r(0x5eed0102);
  for (int t = 0; t < trials; ++t) {
    const std::size_t na_big = r.extent(6), nb = r.extent(t % 4 == 3 ? 37 : 5), nc = r.extent();
    const support::slice_bounds sa = support::random_slice(r, na_big);
    const std::vector<std::size_t> pa = support::python_slice(na_big, sa.start, sa.stop, sa.step);
    const std::size_t na = pa.size();
    CAPTURE(t);
    CAPTURE(sa.text());
    CAPTURE(na_big);
    CAPTURE(nb);
    CAPTURE(nc);
    dg::tensor<float, C, A, B> x_big(dg::extent<C>(nc), dg::extent<A>(na_big), dg::extent<B>(nb));
    dg::tensor<float, B, S> y(dg::extent<B>(nb));
    support::fill(x_big, r, -2, 2);
    support::fill(y, r, -2, 2);
    // [B, A, C] over x_big's memory: A strided by step * nb, C by na_big * nb.
    const auto xs = dg::rename<dg::sliced_dim<A>, A>(
        dg::slice<A>(x_big, support::slice_arg(sa.start), support::slice_arg(sa.stop), sa.step));
    const auto x = dg::permute<B, A, C>(xs);
    auto at = [&](std::size_t b, std::size_t a, std::size_t c) { return x_big(c, pa[a], b); };
    const std::size_t n[3] = {nb, na, nc};

    const auto s_b = dg::eval(dg::sum<B>(x));      // [A, C]
    const auto s_ca = dg::eval(dg::sum<C, A>(x));  // [B]
    const auto p_a = dg::eval(dg::prod<A>(x));     // [B, C]
    constexpr bool over_b[3] = {true, false, false}, over_ac[3] = {false, true, true};
    constexpr bool over_a[3] = {false, true, false};
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t c = 0; c < nc; ++c)
        CHECK(s_b(a, c) == sum_of(group(at, n, over_b, 0, a, c)));
    for (std::size_t b = 0; b < nb; ++b) {
      CHECK(s_ca(b) == sum_of(group(at, n, over_ac, b, 0, 0)));
      for (std::size_t c = 0; c < nc; ++c)
        CHECK(p_a(b, c) == prod_of(group(at, n, over_a, b, 0, c)));
    }

    // Over an element-wise expression of a view and a broadcast operand.
    const auto e_s = dg::eval(dg::sum<S, A>(dg::broadcast_to<B, A, C, S>(x) * y + 1.0f));  // [B, C]
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t c = 0; c < nc; ++c) {
        float s = 0;
        for (std::size_t k = 0; k < 2; ++k)
          for (std::size_t a = 0; a < na; ++a) s += at(b, a, c) * y(b, k) + 1.0f;
        CHECK(e_s(b, c) == s);
      }
    if (na > 0) {
      const auto mx = dg::eval(dg::max<A>(x));  // [B, C]
      const auto mn = dg::eval(dg::min<A>(x));
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t c = 0; c < nc; ++c) {
          const auto g = group(at, n, over_a, b, 0, c);
          CHECK(mx(b, c) == *std::max_element(g.begin(), g.end()));
          CHECK(mn(b, c) == *std::min_element(g.begin(), g.end()));
        }
    }
  }
}
