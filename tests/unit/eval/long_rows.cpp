// Reductions down an outer dim into rows long enough to be reduced row by row (2 KiB of
// accumulators or more): contiguous inputs, read as one stream, and sliced ones, read a block
// of rows at a time; row counts around the float sum's flush into double every 256 rows; row
// lengths that end in a whole chunk of vectors, a whole vector or a piece of one. Against
// hand-written loops: exact for max, min and integer sums, within the float bound for sums.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct Time : dg::dim<"time"> {};
struct Len : dg::dim<"len"> {};

template <class T>
dg::tensor<T, B, Time, Len> make(std::size_t nb, std::size_t nt, std::size_t n, unsigned seed) {
  dg::tensor<T, B, Time, Len> x(dg::extent<B>(nb), dg::extent<Time>(nt), dg::extent<Len>(n));
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>)
      x.data()[i] = static_cast<T>(static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
    else x.data()[i] = static_cast<T>(static_cast<std::int64_t>(gen() % 2000001) - 1000000);
  }
  return x;
}

// A float sum of nt terms of magnitude at most 1, against the exact (double) sum: float
// partial sums of at most 256 terms each, within 256 roundings of nt.
bool close(double got, double want, std::size_t nt) {
  return std::abs(got - want) <= 256 * 0x1p-24 * static_cast<double>(nt) + 1e-30;
}
}  // namespace

TEST_CASE("long rows: float sum, mean, max and min down the middle dim equal the hand loop") {
  for (std::size_t nt : {1u, 17u, 255u, 256u, 257u, 600u})
    for (std::size_t n : {512u, 513u, 520u, 575u, 1000u}) {
      const std::size_t nb = 2;
      const auto x = make<float>(nb, nt, n, static_cast<unsigned>(nt * 7919 + n));
      const dg::tensor<float, B, Len> s = dg::sum<Time>(x), m = dg::mean<Time>(x),
                                      hi = dg::max<Time>(x), lo = dg::min<Time>(x);
      std::size_t bad = 0;
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t i = 0; i < n; ++i) {
          double want = 0;
          float h = x(b, 0, i), l = x(b, 0, i);
          for (std::size_t t = 0; t < nt; ++t) {
            want += x(b, t, i);
            h = std::max(h, x(b, t, i));
            l = std::min(l, x(b, t, i));
          }
          bad += std::size_t{!close(s(b, i), want, nt)} +
                 std::size_t{!close(m(b, i) * double(nt), want, nt)} + std::size_t{hi(b, i) != h} +
                 std::size_t{lo(b, i) != l};
        }
      INFO("rows " << nt << ", length " << n);
      CHECK(bad == 0);
    }
}

TEST_CASE("long rows: double and int32 sums down the middle dim equal the hand loop") {
  for (std::size_t nt : {3u, 300u})
    for (std::size_t n : {256u, 300u, 1024u}) {
      const auto x = make<double>(2, nt, n, static_cast<unsigned>(nt + n));
      const auto k = make<std::int32_t>(2, nt, n, static_cast<unsigned>(nt * n));
      const dg::tensor<double, B, Len> s = dg::sum<Time>(x);
      const dg::tensor<std::int64_t, B, Len> ks = dg::sum<Time>(k);
      const dg::tensor<std::int32_t, B, Len> khi = dg::max<Time>(k);
      std::size_t bad = 0;
      for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < n; ++i) {
          double want = 0;
          std::int64_t kwant = 0;
          std::int32_t kh = k(b, 0, i);
          for (std::size_t t = 0; t < nt; ++t) {
            want += x(b, t, i);
            kwant += k(b, t, i);
            kh = std::max(kh, k(b, t, i));
          }
          bad += std::size_t{std::abs(s(b, i) - want) > 1e-12 * double(nt)} +
                 std::size_t{ks(b, i) != kwant} + std::size_t{khi(b, i) != kh};
        }
      INFO("rows " << nt << ", length " << n);
      CHECK(bad == 0);
    }
}

TEST_CASE("long rows: a sliced input and an expression reduce as the hand loop does") {
  const std::size_t nb = 2, nt = 270, n = 1030;
  const auto x = make<float>(nb, nt, n, 5);
  // Every other element of each row: rows that do not follow each other.
  const auto v = dg::slice<Len>(x, 0, static_cast<std::ptrdiff_t>(n), 2);
  using Sl = dg::sliced_dim<Len>;
  const dg::tensor<float, B, Sl> s = dg::sum<Time>(v);
  const dg::tensor<float, B, Len> e = dg::sum<Time>(x * x + 1.0f);
  // A longer kernel, which reduce_stream_rows takes two rows at a time.
  const dg::tensor<float, B, Len> p = dg::sum<Time>(((x * 0.5f + 1.0f) * x + 2.0f) * x - 1.0f);
  const dg::tensor<float, Len> all = dg::max<B, Time>(x);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float h = x(0, 0, i);
    for (std::size_t b = 0; b < nb; ++b) {
      double want = 0, want_e = 0, want_p = 0;
      for (std::size_t t = 0; t < nt; ++t) {
        const float xi = x(b, t, i);
        want += xi;
        const float sq = xi * xi;
        want_e += double(sq + 1.0f);
        want_p += double(((xi * 0.5f + 1.0f) * xi + 2.0f) * xi - 1.0f);
        h = std::max(h, xi);
      }
      if (i % 2 == 0) bad += std::size_t{!close(s(b, i / 2), want, nt)};
      bad += std::size_t{std::abs(e(b, i) - want_e) > 256 * 0x1p-24 * 2 * double(nt)};
      // (|p(x)| <= 4.5 on [-1, 1]; a contracted multiply-add differs by an ulp or two.)
      bad += std::size_t{std::abs(p(b, i) - want_p) > 256 * 0x1p-24 * 8 * double(nt)};
    }
    bad += std::size_t{all(i) != h};
  }
  CHECK(bad == 0);
}

TEST_CASE("long rows: NaN and infinities down the middle dim follow IEEE and PyTorch") {
  const std::size_t nt = 300, n = 600;
  auto x = make<float>(1, nt, n, 11);
  const float inf = std::numeric_limits<float>::infinity();
  x(0, 7, 3) = std::numeric_limits<float>::quiet_NaN();  // column 3: NaN everywhere
  x(0, 290, 599) = inf;                                  // column 599 (the last piece): +inf
  x(0, 10, 100) = inf;                                   // column 100: inf - inf = NaN sum
  x(0, 280, 100) = -inf;
  const dg::tensor<float, B, Len> s = dg::sum<Time>(x), hi = dg::max<Time>(x),
                                  lo = dg::min<Time>(x);
  CHECK(std::isnan(s(0, 3)));
  CHECK(std::isnan(hi(0, 3)));
  CHECK(std::isnan(lo(0, 3)));
  CHECK(s(0, 599) == inf);
  CHECK(hi(0, 599) == inf);
  CHECK(std::isnan(s(0, 100)));
  CHECK(hi(0, 100) == inf);
  CHECK(lo(0, 100) == -inf);
  CHECK(std::isfinite(s(0, 4)));
  CHECK(std::isfinite(hi(0, 598)));
}
