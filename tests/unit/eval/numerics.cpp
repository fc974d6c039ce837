// IEEE and PyTorch semantics of the kernels: NaN, infinities, wrapping integers, summation
// accuracy, 0-dim promotion, exact overlap rules.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct N : dg::dim<"n"> {};
struct F : dg::dim<"f"> {};
struct R : dg::dim<"r"> {};
struct C4 : dg::dim<"c", 4> {};
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

template <class T>
dg::tensor<T, N> vec(std::initializer_list<T> values) {
  dg::tensor<T, N> t(dg::extent<N>(values.size()));
  std::size_t i = 0;
  for (T v : values) t.data()[i++] = v;
  return t;
}
// A [R, F] tensor of the given rows (all of the same length).
template <class T>
dg::tensor<T, R, F> rows(std::initializer_list<std::initializer_list<T>> values) {
  dg::tensor<T, R, F> t(dg::extent<R>(values.size()), dg::extent<F>(values.begin()->size()));
  std::size_t i = 0;
  for (auto row : values)
    for (T v : row) t.data()[i++] = v;
  return t;
}
}  // namespace

TEST_CASE("numerics: max and min propagate NaN wherever it is in the row") {
  // Long enough rows that NaN falls in the vector body, in a later lane and in the remainder.
  for (std::size_t n : {3u, 17u, 67u}) {
    for (std::size_t at = 0; at < n; at += 5) {
      dg::tensor<float, N> x(dg::extent<N>(n));
      for (std::size_t i = 0; i < n; ++i) x.data()[i] = float(i);
      x.data()[at] = nan_f;
      const dg::tensor<float> mx = dg::max<N>(x), mn = dg::min<N>(x);
      CHECK(std::isnan(mx.data()[0]));
      CHECK(std::isnan(mn.data()[0]));
    }
  }
  // max([NaN, 1, 2]) is NaN (PyTorch), not 2
  const dg::tensor<float> m = dg::max<N>(vec<float>({nan_f, 1, 2}));
  CHECK(std::isnan(m.data()[0]));
}

// max and min of a row take the max (min) instruction and find NaNs by a sum of the row beside
// it; a row whose sum is NaN (a NaN, both infinities, or sums that overflow both ways) is
// reduced again. Each case against a hand loop, at lengths that cover the chained, single and
// remainder loops of every vector width, for float and double.
template <class T>
void check_extremes_with(std::size_t n, std::size_t at, T a, std::size_t at2, T b) {
  dg::tensor<T, R, F> x(dg::extent<R>(2), dg::extent<F>(n));
  for (std::size_t i = 0; i < 2 * n; ++i) x.data()[i] = T(std::sin(double(i)) * 100);
  x.data()[at] = a;  // row 0 only: row 1 stays finite
  x.data()[at2] = b;
  const dg::tensor<T, R> mx = dg::max<F>(x), mn = dg::min<F>(x);
  for (std::size_t r = 0; r < 2; ++r) {
    T want_max = x.data()[r * n], want_min = x.data()[r * n];
    bool nan = false;
    for (std::size_t i = 0; i < n; ++i) {
      const T v = x.data()[r * n + i];
      nan = nan || std::isnan(v);
      want_max = std::max(want_max, v);
      want_min = std::min(want_min, v);
    }
    INFO("n = " << n << ", at " << at << ", " << at2 << ", row " << r);
    if (nan) {
      CHECK(std::isnan(mx.data()[r]));
      CHECK(std::isnan(mn.data()[r]));
    } else {
      CHECK(mx.data()[r] == want_max);
      CHECK(mn.data()[r] == want_min);
    }
  }
}
template <class T>
void check_extremes() {
  constexpr T nan = std::numeric_limits<T>::quiet_NaN();
  constexpr T inf = std::numeric_limits<T>::infinity();
  constexpr T big = std::numeric_limits<T>::max();
  for (std::size_t n : {1u, 2u, 5u, 16u, 33u, 64u, 127u, 128u, 131u, 300u}) {
    for (std::size_t at = 0; at < n; at += 1 + n / 40) {
      const std::size_t other = (at * 7 + 3) % n;
      check_extremes_with<T>(n, at, nan, at, nan);      // one NaN
      check_extremes_with<T>(n, at, inf, other, -inf);  // both infinities: no NaN
      check_extremes_with<T>(n, at, inf, at, inf);      // +inf only
      check_extremes_with<T>(n, at, -inf, other, nan);  // -inf and a NaN
      check_extremes_with<T>(n, at, big, other, big);   // sums overflow to +inf
      check_extremes_with<T>(n, at, -big, other, big);  // ... or cancel
    }
  }
  // Sums that overflow both ways (a NaN sum without a NaN element): the max is exact.
  dg::tensor<T, R, F> x(dg::extent<R>(1), dg::extent<F>(200));
  for (std::size_t i = 0; i < 200; ++i) x.data()[i] = i < 100 ? big : -big;
  x.data()[150] = T(-1);
  const dg::tensor<T, R> mx = dg::max<F>(x), mn = dg::min<F>(x);
  CHECK(mx.data()[0] == big);
  CHECK(mn.data()[0] == -big);
}

TEST_CASE("numerics: max and min of rows with NaN, infinities and overflowing sums") {
  check_extremes<float>();
  check_extremes<double>();
}

TEST_CASE("numerics: argmax and argmin give the first NaN's position, inside the dim") {
  const auto x = rows<float>(
      {{nan_f, 1, 2, 3}, {0, 5, nan_f, nan_f}, {nan_f, nan_f, nan_f, nan_f}, {1, 3, 3, 2}});
  const auto amax = dg::argmax<F>(x);
  const auto amin = dg::argmin<F>(x);
  const std::int64_t want_max[] = {0, 2, 0, 1}, want_min[] = {0, 2, 0, 0};
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(amax.data()[r].value() == want_max[r]);
    CHECK(amin.data()[r].value() == want_min[r]);
  }
  // A long row: the first NaN wins over a later one in another lane.
  dg::tensor<float, N> y(dg::extent<N>(100));
  for (std::size_t i = 0; i < 100; ++i) y.data()[i] = float(i % 7);
  y.data()[37] = nan_f;
  y.data()[70] = nan_f;
  CHECK(dg::argmax<N>(y).data()[0].value() == 37);
  y.data()[37] = 1;
  y.data()[70] = 1;
  CHECK(dg::argmax<N>(y).data()[0].value() == 6);  // ties: the first 6
  CHECK(dg::argmin<N>(y).data()[0].value() == 0);
}

TEST_CASE("numerics: element-wise max, min and relu propagate NaN from either side") {
  const auto a = vec<float>({nan_f, 1, -0.5f, nan_f});
  const auto b = vec<float>({1, nan_f, 2, nan_f});
  const dg::tensor<float, N> mx = dg::max(a, b), mx2 = dg::max(b, a), mn = dg::min(a, b);
  for (std::size_t i = 0; i < 4; ++i) {
    const bool want_nan = i != 2;
    CHECK(std::isnan(mx.data()[i]) == want_nan);
    CHECK(std::isnan(mx2.data()[i]) == want_nan);
    CHECK(std::isnan(mn.data()[i]) == want_nan);
  }
  CHECK(mx.data()[2] == 2.0f);
  CHECK(mn.data()[2] == -0.5f);
  const dg::tensor<float, N> r = dg::relu(vec<float>({nan_f, -1, 2, -inf_f}));
  CHECK(std::isnan(r.data()[0]));
  CHECK(r.data()[1] == 0.0f);
  CHECK(r.data()[2] == 2.0f);
  CHECK(r.data()[3] == 0.0f);
}

TEST_CASE("numerics: relu keeps the sign of zero and NaN in vector lanes and the rest") {
  // PyTorch's relu is clamp_min(x, 0): x < 0 ? 0 : x, so relu(-0) is -0 and relu(NaN) is NaN.
  // 43 elements: whole vectors at every width, then a partial piece.
  const float specials[] = {-0.0f,  0.0f,    nan_f,  -nan_f, inf_f,
                            -inf_f, -1e-45f, 1e-45f, -3.5f,  2.25f};
  dg::tensor<float, N> x(dg::extent<N>(43));
  dg::tensor<double, N> xd(dg::extent<N>(43));
  for (std::size_t i = 0; i < 43; ++i) {
    x.data()[i] = specials[(i * 7) % std::size(specials)];
    xd.data()[i] = static_cast<double>(x.data()[i]);
  }
  const dg::tensor<float, N> r = dg::relu(x);
  const dg::tensor<double, N> rd = dg::relu(xd);
  for (std::size_t i = 0; i < 43; ++i) {
    const float v = x.data()[i];
    const float want = v < 0.0f ? 0.0f : v;
    CAPTURE(i);
    CAPTURE(v);
    if (std::isnan(v)) {
      CHECK(std::isnan(r.data()[i]));
      CHECK(std::isnan(rd.data()[i]));
    } else {
      CHECK(r.data()[i] == want);
      CHECK(std::signbit(r.data()[i]) == std::signbit(want));
      CHECK(rd.data()[i] == static_cast<double>(want));
      CHECK(std::signbit(rd.data()[i]) == std::signbit(want));
    }
  }
}

TEST_CASE("numerics: logsumexp of integers computes in float, infinite rows as PyTorch") {
  const dg::tensor<float> i8 = dg::logsumexp<N>(vec<std::int8_t>({-128, 127}));
  // log(exp(-128) + exp(127)) = 127 + log1p(exp(-255))
  CHECK(i8.data()[0] == doctest::Approx(127.0));
  const dg::tensor<float> i64 =
      dg::logsumexp<N>(vec<std::int64_t>({std::numeric_limits<std::int64_t>::min(), 3}));
  CHECK(i64.data()[0] == doctest::Approx(3.0));
  const auto x =
      rows<float>({{-inf_f, -inf_f, -inf_f}, {1, inf_f, 2}, {-inf_f, 0, -inf_f}, {nan_f, 0, 1}});
  const dg::tensor<float, R> l = dg::logsumexp<F>(x);
  CHECK(l.data()[0] == -inf_f);
  CHECK(l.data()[1] == inf_f);
  CHECK(l.data()[2] == doctest::Approx(0.0));
  CHECK(std::isnan(l.data()[3]));
}

TEST_CASE("numerics: softmax of infinite rows gives NaN as PyTorch, finite rows exact") {
  const auto x = rows<float>({{-inf_f, -inf_f}, {inf_f, 1}, {-inf_f, 0}});
  const auto s = dg::softmax<F>(x);
  // [-inf, -inf]: 0 / 0; [inf, 1]: the sum is exp(inf - inf) = NaN; [-inf, 0]: exactly [0, 1]
  for (std::size_t k = 0; k < 4; ++k) CHECK(std::isnan(s.data()[k]));
  CHECK(s.data()[4] == 0.0f);
  CHECK(s.data()[5] == 1.0f);
}

TEST_CASE("numerics: a NaN or +inf anywhere in a row makes its softmax and log_softmax NaN") {
  // Rows long enough that the value falls in each of the unrolled vector chains, a later lane
  // and the remainder; the other row stays finite.
  for (std::size_t n : {3u, 17u, 67u, 200u}) {
    for (const float bad : {nan_f, inf_f}) {
      for (std::size_t at = 0; at < n; at += 7) {
        dg::tensor<float, R, F> x(dg::extent<R>(2), dg::extent<F>(n));
        for (std::size_t i = 0; i < 2 * n; ++i) x.data()[i] = float(i % 11) - 5.0f;
        x.data()[at] = bad;
        const auto s = dg::softmax<F>(x);
        const auto l = dg::log_softmax<F>(x);
        INFO("n = ", n, ", at = ", at, ", value ", bad);
        for (std::size_t i = 0; i < n; ++i) {
          CHECK(std::isnan(s.data()[i]));
          CHECK(std::isnan(l.data()[i]));
        }
        for (std::size_t i = n; i < 2 * n; ++i) {
          CHECK(std::isfinite(s.data()[i]));
          CHECK(std::isfinite(l.data()[i]));
        }
      }
    }
  }
}

TEST_CASE("numerics: reductions over the inner dim, at lengths around every loop boundary") {
  // Small integers: every float sum is exact, so the result is the integer sum whatever the
  // order. Lengths cover one vector, the unrolled chains, the float blocks of a sum (1024
  // elements and more with 16 lanes) and remainders of each.
  for (std::size_t n : {1u, 5u, 16u, 31u, 64u, 100u, 255u, 1024u, 1100u, 4133u}) {
    dg::tensor<float, R, F> x(dg::extent<R>(3), dg::extent<F>(n));
    double want[3] = {0, 0, 0};
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t i = 0; i < n; ++i) {
        const auto v = float((i * 7 + r) % 13) - 6.0f;
        x.data()[r * n + i] = v;
        want[r] += double(v);
      }
    const dg::tensor<float, R> s = dg::sum<F>(x);
    const dg::tensor<double, R> sd = dg::sum<F>(dg::cast<double>(x));
    const dg::tensor<float, R> mx = dg::max<F>(x), mn = dg::min<F>(x);
    INFO("n = ", n);
    for (std::size_t r = 0; r < 3; ++r) {
      CHECK(double(s.data()[r]) == want[r]);
      CHECK(sd.data()[r] == want[r]);
      float hi = -1e9f, lo = 1e9f;
      for (std::size_t i = 0; i < n; ++i) {
        hi = std::max(hi, x.data()[r * n + i]);
        lo = std::min(lo, x.data()[r * n + i]);
      }
      CHECK(mx.data()[r] == hi);
      CHECK(mn.data()[r] == lo);
    }
  }
}

TEST_CASE("numerics: float sums are exact for 2^25 ones and accurate for 10^7 tenths") {
  dg::tensor<float, N> ones(dg::extent<N>(std::size_t{1} << 25));
  std::fill(ones.data(), ones.data() + ones.size(), 1.0f);
  const dg::tensor<float> s = dg::sum<N>(ones);
  CHECK(s.data()[0] == 33554432.0f);
  const dg::tensor<float> m = dg::mean<N>(ones);
  CHECK(m.data()[0] == 1.0f);
  dg::tensor<float, N> tenths(dg::extent<N>(10000000));
  std::fill(tenths.data(), tenths.data() + tenths.size(), 0.1f);
  const dg::tensor<float> t = dg::mean<N>(tenths);
  CHECK(std::abs(double(t.data()[0]) - double(0.1f)) / double(0.1f) < 1e-5);
  // A sum down a non-inner dim (one running sum per column) is as accurate.
  dg::tensor<float, N, C4> cols(dg::extent<N>(std::size_t{1} << 25));
  std::fill(cols.data(), cols.data() + cols.size(), 1.0f);
  const dg::tensor<float, C4> cs = dg::sum<N>(cols);
  for (std::size_t c = 0; c < 4; ++c) CHECK(cs.data()[c] == 33554432.0f);
}

// A vertical float sum adds blocks of consecutive rows in float before adding them in double:
// every extent around the block size, a row tail that is not a whole vector, a row too long for
// the stack staging row, and a permuted (non-unit inner stride) input, against a double loop.
TEST_CASE("numerics: vertical float sums and means match a double loop on every block shape") {
  struct B : dg::dim<"b"> {};
  for (std::size_t nt : {1u, 15u, 16u, 17u, 33u, 47u})
    for (std::size_t nf : {1u, 7u, 13u, 2100u}) {
      const std::size_t nb = 2;
      dg::tensor<float, B, N, F> x(dg::extent<B>(nb), dg::extent<N>(nt), dg::extent<F>(nf));
      for (std::size_t i = 0; i < x.size(); ++i)
        x.data()[i] = float(int((i * 2654435761u) % 2001) - 1000) / 977.0f;
      const dg::tensor<float, B, F> s = dg::sum<N>(x);
      const dg::tensor<float, B, F> m = dg::mean<N>(x);
      const dg::tensor<float, F> s2 = dg::sum<B, N>(x);
      const dg::tensor<float, F, B> sp = dg::sum<N>(dg::permute<F, N, B>(x));
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t f = 0; f < nf; ++f) {
          double want = 0, mag = 0;
          for (std::size_t t = 0; t < nt; ++t) {
            want += x.data()[(b * nt + t) * nf + f];
            mag += std::abs(x.data()[(b * nt + t) * nf + f]);
          }
          // float sums of at most 16 terms, then double: within 16 float roundings of |x|'s sum
          const double tol = mag * 16 * 0x1p-24 + 1e-30;
          CHECK(std::abs(s.data()[b * nf + f] - want) <= tol);
          CHECK(std::abs(sp.data()[f * nb + b] - want) <= tol);
          CHECK(std::abs(m.data()[b * nf + f] - want / double(nt)) <= tol / double(nt));
        }
      for (std::size_t f = 0; f < nf; ++f) {
        double want = 0, mag = 0;
        for (std::size_t b = 0; b < nb; ++b)
          for (std::size_t t = 0; t < nt; ++t) {
            want += x.data()[(b * nt + t) * nf + f];
            mag += std::abs(x.data()[(b * nt + t) * nf + f]);
          }
        CHECK(std::abs(s2.data()[f] - want) <= mag * 32 * 0x1p-24 + 1e-30);
      }
    }
  // 2.5 * 10^6 tenths down each of 4 columns: the mean within 1e-5 (a float running sum is off
  // by several percent).
  dg::tensor<float, N, C4> cols(dg::extent<N>(2500000));
  for (std::size_t i = 0; i < cols.size(); ++i) cols.data()[i] = 0.1f;
  const dg::tensor<float, C4> cm = dg::mean<N>(cols);
  for (std::size_t c = 0; c < 4; ++c)
    CHECK(std::abs(double(cm.data()[c]) - double(0.1f)) / double(0.1f) < 1e-5);
}

TEST_CASE("numerics: integer arithmetic and sums wrap instead of overflowing") {
  constexpr std::int32_t big = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t low = std::numeric_limits<std::int32_t>::min();
  const auto x = vec<std::int32_t>({big, low, -1, 7});
  const dg::tensor<std::int32_t, N> twice = x + x, neg = -x, mag = dg::abs(x), sq = x * x;
  CHECK(twice.data()[0] == -2);  // 2 * (2^31 - 1) mod 2^32
  CHECK(twice.data()[1] == 0);
  CHECK(neg.data()[1] == low);
  CHECK(mag.data()[1] == low);  // abs(INT_MIN) wraps to INT_MIN, as two's complement
  CHECK(mag.data()[2] == 1);
  CHECK(sq.data()[0] == 1);  // (2^31 - 1)^2 mod 2^32
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const dg::tensor<std::int64_t> s = dg::sum<N>(vec<std::int64_t>({top, 1, 1}));
  CHECK(s.data()[0] == std::numeric_limits<std::int64_t>::min() + 1);
}

TEST_CASE("numerics: a rank-0 tensor promotes as PyTorch's 0-dim tensors") {
  const auto f = vec<float>({1, 2, 3, 4});
  const dg::tensor<double> d0{};
  static_assert(std::is_same_v<dg::value_t<decltype(f * d0)>, float>);
  static_assert(std::is_same_v<dg::value_t<decltype(d0 * f)>, float>);
  const auto i = vec<std::int32_t>({1, 2, 3, 4});
  static_assert(std::is_same_v<dg::value_t<decltype(i * d0)>, double>);
  const dg::tensor<std::int64_t> l0{};
  static_assert(std::is_same_v<dg::value_t<decltype(i + l0)>, std::int32_t>);
  // Two rank-0 tensors promote as tensors.
  const dg::tensor<float> f0{};
  static_assert(std::is_same_v<dg::value_t<decltype(f0 * d0)>, double>);
  dg::tensor<double> h{};
  h.data()[0] = 0.5;
  const dg::tensor<float, N> scaled = f * h;
  for (std::size_t k = 0; k < 4; ++k) CHECK(scaled.data()[k] == 0.5f * float(k + 1));
}

TEST_CASE("numerics: disjoint interleaved views may be assigned to each other") {
  auto x = rows<float>({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}});
  x[dg::at<F>(0)] = x[dg::at<F>(1)];  // column 0 = column 1
  for (std::size_t r = 0; r < 3; ++r) CHECK(x(r, 0) == x(r, 1));
  auto y = rows<float>({{1, 2, 3, 4, 5, 6}});
  using Fs = dg::sliced_dim<F>;
  auto even = dg::slice<F>(y, 0, 6, 2), odd = dg::slice<F>(y, 1, 6, 2);
  even = odd + 0.5f;
  const float want[] = {2.5f, 2, 4.5f, 4, 6.5f, 6};
  for (std::size_t k = 0; k < 6; ++k) CHECK(y.data()[k] == want[k]);
  static_assert(dg::same_dim_v<dg::sliced_dim<F>, Fs>);
  // Overlapping shifted views are still refused before anything is written.
  auto z = rows<float>({{1, 2, 3, 4, 5, 6}});
  const auto before = z;
  auto head = dg::slice<F>(z, 0, 5), tail = dg::slice<F>(z, 1, 6);
  CHECK_THROWS_AS(head = tail, dg::overlap_error);
  CHECK(z == before);
}

TEST_CASE("numerics: a destination view that reaches an element twice is refused") {
  dg::tensor<float, F> x(dg::extent<F>(4));
  const auto repeated = dg::broadcast_to<R, F>(x, dg::extent<R>(3));  // (lazy, not memory)
  (void)repeated;
  float storage[4] = {0, 0, 0, 0};
  dg::tensor_view<float, R, F> twice(storage, dg::shape<R, F>(dg::extent<R>(2), dg::extent<F>(4)),
                                     {0, 1});
  dg::tensor<float, R, F> src(dg::extent<R>(2), dg::extent<F>(4));
  CHECK_THROWS_AS(twice = src, dg::overlap_error);
  for (float v : storage) CHECK(v == 0.0f);
}
