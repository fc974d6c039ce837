// Randomized differential tests of dg::dot against naive loops: one or two contracted dims,
// batch dims, operands in any dim order, permuted and sliced views; extents 0 and 1
// included. Elements are small integers, so every product sum is exact.
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
struct K : dg::dim<"k"> {};
struct L : dg::dim<"l"> {};

using support::generator;
constexpr int trials = 120;

}  // namespace

TEST_CASE("fuzz: dot over one or two dims with batch dims matches a naive loop") {
  generator r(0x5eed0201);
  for (int t = 0; t < trials; ++t) {
    // Now and then a size large enough for the blocked kernel.
    const std::size_t most = t % 10 == 9 ? 40 : 5;
    const std::size_t na = r.extent(most), nb = r.extent(), nc = r.extent(most),
                      nk = r.extent(most), nl = r.extent();
    CAPTURE(t);
    CAPTURE(na);
    CAPTURE(nb);
    CAPTURE(nc);
    CAPTURE(nk);
    CAPTURE(nl);
    dg::tensor<float, A, K> a(dg::extent<A>(na), dg::extent<K>(nk));
    dg::tensor<float, K, C> b(dg::extent<K>(nk), dg::extent<C>(nc));
    dg::tensor<float, K, B, A> a3(dg::extent<K>(nk), dg::extent<B>(nb), dg::extent<A>(na));
    dg::tensor<float, B, C, K> b3(dg::extent<B>(nb), dg::extent<C>(nc), dg::extent<K>(nk));
    dg::tensor<float, L, A, K> a2(dg::extent<L>(nl), dg::extent<A>(na), dg::extent<K>(nk));
    dg::tensor<float, K, C, L> b2(dg::extent<K>(nk), dg::extent<C>(nc), dg::extent<L>(nl));
    dg::tensor<int, A, K> ai(dg::extent<A>(na), dg::extent<K>(nk));
    dg::tensor<int, C, K> bi(dg::extent<C>(nc), dg::extent<K>(nk));
    support::fill(a, r);
    support::fill(b, r);
    support::fill(a3, r);
    support::fill(b3, r);
    support::fill(a2, r);
    support::fill(b2, r);
    support::fill(ai, r);
    support::fill(bi, r);

    const dg::tensor<float, A, C> ab = dg::dot<K>(a, b);
    const dg::tensor<float, C, A> ba = dg::dot<K>(b, a);  // [C, A] by the shape rule
    const dg::tensor<float, A, B, C> batched = dg::dot<K>(a3, b3);
    const dg::tensor<float, A, C> two = dg::dot<L, K>(a2, b2);
    const auto ints = dg::eval(dg::dot<K>(ai, bi));  // [A, C] of int64
    static_assert(std::is_same_v<decltype(ints), const dg::tensor<std::int64_t, A, C>>);
    for (std::size_t i = 0; i < na; ++i)
      for (std::size_t j = 0; j < nc; ++j) {
        float s = 0, s2 = 0;
        std::int64_t si = 0;
        for (std::size_t k = 0; k < nk; ++k) {
          s += a(i, k) * b(k, j);
          si += std::int64_t{ai(i, k)} * bi(j, k);
          for (std::size_t l = 0; l < nl; ++l) s2 += a2(l, i, k) * b2(k, j, l);
        }
        CHECK(ab(i, j) == s);
        CHECK(ba(j, i) == s);
        CHECK(two(i, j) == s2);
        CHECK(ints(i, j) == si);
        for (std::size_t h = 0; h < nb; ++h) {
          float sb = 0;
          for (std::size_t k = 0; k < nk; ++k) sb += a3(k, h, i) * b3(h, j, k);
          CHECK(batched(i, h, j) == sb);
        }
      }
  }
}

TEST_CASE("fuzz: dot of permuted and sliced views and of expressions matches a naive loop") {
  generator r(0x5eed0202);
  for (int t = 0; t < trials; ++t) {
    const std::size_t nk_big = r.extent(7), na = r.extent(), nc_big = r.extent(7);
    const support::slice_bounds sk = support::random_slice(r, nk_big);
    const support::slice_bounds sc = support::random_slice(r, nc_big);
    const std::vector<std::size_t> pk = support::python_slice(nk_big, sk.start, sk.stop, sk.step);
    const std::vector<std::size_t> pc = support::python_slice(nc_big, sc.start, sc.stop, sc.step);
    const std::size_t nk = pk.size(), nc = pc.size();
    CAPTURE(t);
    CAPTURE(sk.text());
    CAPTURE(sc.text());
    CAPTURE(nk_big);
    CAPTURE(nc_big);
    CAPTURE(na);
    dg::tensor<float, K, A> a_big(dg::extent<K>(nk_big), dg::extent<A>(na));
    dg::tensor<float, C, K> b_big(dg::extent<C>(nc_big), dg::extent<K>(nk));
    dg::tensor<float, A> scale(dg::extent<A>(na));
    support::fill(a_big, r);
    support::fill(b_big, r);
    support::fill(scale, r);
    // a: [A, K] with K strided by step * na (and A by 1); b: [K, C] with C strided.
    const auto a_k = dg::rename<dg::sliced_dim<K>, K>(
        dg::slice<K>(a_big, support::slice_arg(sk.start), support::slice_arg(sk.stop), sk.step));
    const auto a = dg::permute<A, K>(a_k);
    const auto b_c = dg::rename<dg::sliced_dim<C>, C>(
        dg::slice<C>(b_big, support::slice_arg(sc.start), support::slice_arg(sc.stop), sc.step));
    const auto b = dg::permute<K, C>(b_c);

    const dg::tensor<float, A, C> ab = dg::dot<K>(a, b);
    const dg::tensor<float, C, A> scaled = dg::dot<K>(b * 2.0f, a * scale);
    for (std::size_t i = 0; i < na; ++i)
      for (std::size_t j = 0; j < nc; ++j) {
        float s = 0, s2 = 0;
        for (std::size_t k = 0; k < nk; ++k) {
          const float av = a_big(pk[k], i), bv = b_big(pc[j], k);
          s += av * bv;
          s2 += bv * 2.0f * (av * scale(i));
        }
        CHECK(ab(i, j) == s);
        CHECK(scaled(j, i) == s2);
      }
  }
}
