// softmax's row-by-row evaluator against hand loops: the dim innermost or not, views with
// permuted strides, expression and integer operands, empty extents.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct T : dg::dim<"t", dg::range{1, 9}> {};
struct F : dg::dim<"f", 5> {};

using btf = dg::tensor<float, B, T, F>;

// Seeded values in [-3, 3] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] =
        static_cast<typename X::value_type>(static_cast<double>(gen() % 6001) / 1000.0 - 3.0);
}

btf make_btf(std::size_t b, std::size_t t, unsigned seed) {
  btf x(dg::extent<B>(b), dg::extent<T>(t));
  fill(x, seed);
  return x;
}

// The hand loop: softmax over the dim `over` (0, 1 or 2) of a row-major [nb, nt, nf] array
// given by element function at(b, t, f); result in row-major [nb, nt, nf].
template <class At>
std::vector<double> hand_softmax(std::size_t nb, std::size_t nt, std::size_t nf, int over, At at) {
  std::vector<double> out(nb * nt * nf);
  const std::size_t n[3] = {nb, nt, nf};
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t f = 0; f < nf; ++f) {
        std::size_t pos[3] = {b, t, f};
        double m = -INFINITY;
        for (std::size_t k = 0; k < n[over]; ++k) {
          pos[over] = k;
          m = std::fmax(m, at(pos[0], pos[1], pos[2]));
        }
        double s = 0;
        for (std::size_t k = 0; k < n[over]; ++k) {
          pos[over] = k;
          s += std::exp(at(pos[0], pos[1], pos[2]) - m);
        }
        out[(b * nt + t) * nf + f] = std::exp(at(b, t, f) - m) / s;
      }
  return out;
}

template <class X>
void check_against(const X& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  const std::size_t nt = got.template extent<T>(), nf = got.template extent<F>();
  for (std::size_t b = 0; b < got.template extent<B>(); ++b)
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t f = 0; f < nf; ++f)
        CHECK(std::fabs(got.at(dg::at<B>(b), dg::at<T>(t), dg::at<F>(f)) -
                        want[(b * nt + t) * nf + f]) < 1e-6);
}
}  // namespace

TEST_CASE("softmax: over the innermost dim equals the hand loop") {
  const btf x = make_btf(3, 4, 1);
  const btf y = dg::softmax<F>(x);
  check_against(
      y, hand_softmax(3, 4, 5, 2, [&](auto b, auto t, auto f) { return double(x(b, t, f)); }));
}

TEST_CASE("softmax: over an outer dim (strided rows) equals the hand loop") {
  const btf x = make_btf(2, 7, 2);
  const btf over_t = dg::softmax<T>(x);
  check_against(
      over_t, hand_softmax(2, 7, 5, 1, [&](auto b, auto t, auto f) { return double(x(b, t, f)); }));
  const btf over_b = dg::softmax<B>(x);
  check_against(
      over_b, hand_softmax(2, 7, 5, 0, [&](auto b, auto t, auto f) { return double(x(b, t, f)); }));
}

TEST_CASE("softmax: of a permuted view keeps the view's dim order") {
  const btf x = make_btf(3, 2, 3);
  const auto v = dg::permute<F, B, T>(x);
  const auto y = dg::softmax<F>(v);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(y)>, dg::tensor<float, F, B, T>>);
  const btf back = y;  // assigned by tag
  check_against(
      back, hand_softmax(3, 2, 5, 2, [&](auto b, auto t, auto f) { return double(x(b, t, f)); }));
}

TEST_CASE("softmax: of an expression, and in place into a tensor of another dim order") {
  const btf x = make_btf(2, 3, 4);
  dg::tensor<float, T, F, B> y = dg::softmax<T>(x * 0.5f + 1.0f);
  const btf back = y;
  check_against(back, hand_softmax(2, 3, 5, 1, [&](auto b, auto t, auto f) {
                  return double(x(b, t, f) * 0.5f + 1.0f);
                }));
}

TEST_CASE("softmax: an integer tensor gives float, and every row sums to 1") {
  dg::tensor<std::int32_t, B, F> x(dg::extent<B>(4));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<std::int32_t>(i % 7) - 3;
  const auto y = dg::softmax<F>(x);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(y)>, dg::tensor<float, B, F>>);
  for (std::size_t b = 0; b < 4; ++b) {
    double m = -INFINITY, s = 0, total = 0;
    for (std::size_t f = 0; f < 5; ++f) m = std::fmax(m, x(b, f));
    for (std::size_t f = 0; f < 5; ++f) s += std::exp(x(b, f) - m);
    for (std::size_t f = 0; f < 5; ++f) {
      CHECK(std::fabs(y(b, f) - std::exp(x(b, f) - m) / s) < 1e-6);
      total += y(b, f);
    }
    CHECK(std::fabs(total - 1.0) < 1e-6);
  }
}

TEST_CASE("softmax: empty extents give an empty result of the same extents") {
  const btf none = make_btf(0, 3, 5);
  const btf y = dg::softmax<F>(none);
  CHECK(y.extent<B>() == 0);
  CHECK(y.extent<T>() == 3);
  const btf z = dg::softmax<B>(none);
  CHECK(z.size() == 0);
}

namespace {
struct G : dg::dim<"g"> {};
struct R : dg::dim<"r"> {};
struct W : dg::dim<"w"> {};
}  // namespace

TEST_CASE("softmax: over an outer dim of a contiguous inner dim, by columns, at every width") {
  // Widths around a vector of columns and past the columns' scratch on the stack (1024); the
  // softmax and the log-softmax over the middle dim R and the outer dim G against the hand
  // loop in double.
  for (std::size_t w : {1u, 3u, 8u, 16u, 17u, 33u, 1100u}) {
    dg::tensor<float, G, R, W> x(dg::extent<G>(2), dg::extent<R>(5), dg::extent<W>(w));
    fill(x, unsigned(w));
    const auto at = [&](std::size_t g, std::size_t r, std::size_t c) {
      return double(x.data()[(g * 5 + r) * w + c]);
    };
    const auto over_r = dg::softmax<R>(x);
    const auto log_over_r = dg::log_softmax<R>(x);
    const auto over_g = dg::softmax<G>(x);
    const std::vector<double> want_r = hand_softmax(2, 5, w, 1, at);
    const std::vector<double> want_g = hand_softmax(2, 5, w, 0, at);
    INFO("w = ", w);
    for (std::size_t i = 0; i < x.size(); ++i) {
      CHECK(std::fabs(over_r.data()[i] - want_r[i]) < 1e-6);
      CHECK(std::fabs(log_over_r.data()[i] - std::log(want_r[i])) < 1e-5);
      CHECK(std::fabs(over_g.data()[i] - want_g[i]) < 1e-6);
    }
  }
}

TEST_CASE("softmax: a NaN or +inf in a column makes that column NaN, by columns too") {
  for (const float bad :
       {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    dg::tensor<float, R, W> x(dg::extent<R>(4), dg::extent<W>(21));
    fill(x, 7);
    x.data()[2 * 21 + 19] = bad;  // row 2, column 19 (in the single-column remainder)
    x.data()[1 * 21 + 3] = bad;   // row 1, column 3 (in a vector of columns)
    const auto s = dg::softmax<R>(x);
    const auto l = dg::log_softmax<R>(x);
    for (std::size_t r = 0; r < 4; ++r)
      for (std::size_t c = 0; c < 21; ++c) {
        const bool poisoned = c == 19 || c == 3;
        INFO("row ", r, ", column ", c);
        CHECK(std::isnan(s.data()[r * 21 + c]) == poisoned);
        CHECK(std::isnan(l.data()[r * 21 + c]) == poisoned);
      }
  }
}

TEST_CASE("argmax and argmin over an outer dim, by columns: first extreme, first NaN") {
  // Values with many ties (so the first position must win) and NaN in two columns.
  for (std::size_t w : {1u, 3u, 8u, 17u}) {
    dg::tensor<float, R, W> x(dg::extent<R>(6), dg::extent<W>(w));
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float((i * 5) % 4);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (w > 2) {
      x.data()[3 * w + 2] = nan;  // column 2: the NaN at row 3 wins over the one at row 5
      x.data()[5 * w + 2] = nan;
    }
    const auto mx = dg::argmax<R>(x);
    const auto mn = dg::argmin<R>(x);
    INFO("w = ", w);
    for (std::size_t c = 0; c < w; ++c) {
      std::size_t hi = 0, lo = 0;
      for (std::size_t r = 1; r < 6; ++r) {
        const float v = x.data()[r * w + c];
        const float h = x.data()[hi * w + c], l = x.data()[lo * w + c];
        if ((v > h || std::isnan(v)) && !std::isnan(h)) hi = r;
        if ((v < l || std::isnan(v)) && !std::isnan(l)) lo = r;
      }
      CHECK(std::size_t(mx.data()[c].value()) == hi);
      CHECK(std::size_t(mn.data()[c].value()) == lo);
      if (w > 2 && c == 2) CHECK(hi == 3);
    }
  }
}

// Rows of 5 x n with a NaN (row 1), a +inf (row 2) and only -inf (row 3) against a double loop:
// p and lp are the softmax and log_softmax of x, row by row (row-major, n elements a row).
template <class V>
void check_softmax_rows(const std::vector<V>& x, const V* p, const V* lp, std::size_t n,
                        const char* what) {
  const double tol = std::is_same_v<V, float> ? 2e-6 : 1e-13;
  const std::size_t rows = x.size() / n;
  for (std::size_t r = 0; r < rows; ++r) {
    const V* xr = x.data() + r * n;
    double m = -std::numeric_limits<double>::infinity(), s = 0;
    bool nan = false;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(xr[i]);
      nan = nan || std::isnan(v) || v == std::numeric_limits<double>::infinity();
      m = v > m ? v : m;
    }
    nan = nan || m == -std::numeric_limits<double>::infinity();  // (PyTorch: all -inf is NaN)
    for (std::size_t i = 0; i < n; ++i) s += std::exp(static_cast<double>(xr[i]) - m);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(xr[i]);
      const V got = p[r * n + i], log_got = lp[r * n + i];
      if (nan) {
        CHECK_MESSAGE(std::isnan(got), what << " n=" << n << " r=" << r << " i=" << i);
        CHECK_MESSAGE(std::isnan(log_got), what << " n=" << n << " r=" << r << " i=" << i);
        continue;
      }
      const double want = std::exp(v - m) / s, log_want = v - m - std::log(s);
      CHECK_MESSAGE(std::abs(static_cast<double>(got) - want) <= tol * (want + 1e-30) + 1e-300,
                    what << " n=" << n << " r=" << r << " i=" << i);
      CHECK_MESSAGE(
          std::abs(static_cast<double>(log_got) - log_want) <= tol * (std::abs(log_want) + 1),
          what << " n=" << n << " r=" << r << " i=" << i);
    }
  }
}

// 5 rows of n: seeded values, then row 1 with a NaN, row 2 with a +inf, row 3 all -inf.
template <class V>
std::vector<V> special_rows(std::size_t n) {
  struct R : dg::dim<"r"> {};
  struct N : dg::dim<"n"> {};
  dg::tensor<V, R, N> x(dg::extent<R>(5), dg::extent<N>(n));
  fill(x, static_cast<unsigned>(n));
  std::vector<V> v(x.data(), x.data() + x.size());
  const V inf = std::numeric_limits<V>::infinity();
  v[n + n / 2] = std::numeric_limits<V>::quiet_NaN();
  v[2 * n + n - 1] = inf;
  for (std::size_t i = 0; i < n; ++i) v[3 * n + i] = -inf;
  return v;
}

// Contiguous rows of dispatch_row_from (32) elements or more run the row kernel compiled for
// the widest instruction set this CPU has (with Clang, in a build for a narrower target):
// every length from 30 to 80 and a long one, softmax and log_softmax, float and double, with a
// NaN, a +inf and an all -inf row, against a double loop.
TEST_CASE("softmax: long contiguous rows (run-time dispatched) equal a double loop, NaN and inf") {
  struct R : dg::dim<"r"> {};
  struct N : dg::dim<"n"> {};
  const auto check = [](auto zero, std::size_t n) {
    using V = decltype(zero);
    const std::vector<V> v = special_rows<V>(n);
    dg::tensor<V, R, N> x(dg::extent<R>(5), dg::extent<N>(n));
    std::copy(v.begin(), v.end(), x.data());
    const dg::tensor<V, R, N> p = dg::softmax<N>(x), lp = dg::log_softmax<N>(x);
    check_softmax_rows(v, p.data(), lp.data(), n, "softmax");
  };
  for (std::size_t n = 30; n <= 80; ++n) {
    check(0.0f, n);
    check(0.0, n);
  }
  check(0.0f, 1031);
  check(0.0, 1031);
}

// The row kernel at every instruction-set level this CPU runs, called directly: the levels
// below the CPU's own (AVX2 on an AVX-512 machine, the build's target) run only on other
// machines otherwise.
TEST_CASE("softmax: the row kernel at each instruction-set level equals a double loop") {
  using level = dg::detail::isa_level;
  const level cpu = dg::detail::cpu_isa_level();
  std::vector<level> levels{level::target};
  if (DIMGRAPH_DISPATCH_HELPERS_AVX2 && (cpu == level::avx2 || cpu == level::avx512))
    levels.push_back(level::avx2);
  if (DIMGRAPH_DISPATCH_HELPERS_AVX512 && cpu == level::avx512) levels.push_back(level::avx512);
  const auto check = [](auto zero, level at, std::size_t n) {
    using V = decltype(zero);
    const std::vector<V> x = special_rows<V>(n);
    std::vector<V> p(x.size()), lp(x.size());
    for (std::size_t r = 0; r < 5; ++r) {
      dg::detail::softmax_row_at<false>(at, p.data() + r * n, x.data() + r * n, n);
      dg::detail::softmax_row_at<true>(at, lp.data() + r * n, x.data() + r * n, n);
    }
    const std::string what = "level " + std::to_string(static_cast<int>(at));
    check_softmax_rows(x, p.data(), lp.data(), n, what.c_str());
  };
  for (const level at : levels) {
    for (std::size_t n = 1; n <= 80; ++n) {
      check(0.0f, at, n);
      check(0.0, at, n);
    }
    check(0.0f, at, 1031);
    check(0.0, at, 1031);
  }
}
