// The vectorised math functions: error in ulp against libm in a wider type (double for float,
// long double for double) over 2^20 (float) or 2^18 (double) samples each, special values, and L ==
// 1 agreeing bit for bit with the widest vector.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <vector>

#include <dimgraph.hpp>

#include "ulp.hpp"

namespace {

namespace simd = dimgraph::detail::simd;
using wide = long double;

// 2^20 samples per float function; 2^18 per double function (long double libm is slow).
template <class T>
constexpr std::size_t samples = std::size_t(1) << (sizeof(T) == 4 ? 20 : 18);

template <class T>
using limits = std::numeric_limits<T>;

// Bits as a signed integer that orders the values as the reals they stand for (-0 == +0).
template <class T>
std::int64_t ordinal(T x) {
  if constexpr (sizeof(T) == 4) {
    std::int32_t b;
    std::memcpy(&b, &x, 4);
    return b < 0 ? -std::int64_t(b & 0x7fffffff) : b;
  } else {
    std::int64_t b;
    std::memcpy(&b, &x, 8);
    return b < 0 ? -(b & 0x7fffffffffffffff) : b;
  }
}
template <class T>
T from_ordinal(std::int64_t o) {
  T x;
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t b = o < 0 ? std::uint32_t(-o) | 0x80000000u : std::uint32_t(o);
    std::memcpy(&x, &b, 4);
  } else {
    const std::uint64_t b = o < 0 ? std::uint64_t(-o) | (std::uint64_t(1) << 63) : std::uint64_t(o);
    std::memcpy(&x, &b, 8);
  }
  return x;
}

// `samples` values evenly spaced in bit pattern from lo to hi: every binade (subnormals
// included) gets its share, unlike a uniform draw.
template <class T>
std::vector<T> spread(T lo, T hi, std::size_t count = samples<T>) {
  std::vector<T> v(count);
  const std::int64_t a = ordinal(lo);
  const auto span = static_cast<long double>(std::uint64_t(ordinal(hi)) - std::uint64_t(a));
  for (std::size_t i = 0; i < count; ++i) {
    const auto step = static_cast<std::uint64_t>(span * static_cast<long double>(i) / (count - 1));
    v[i] = from_ordinal<T>(static_cast<std::int64_t>(std::uint64_t(a) + step));
  }
  return v;
}
// `samples` values uniform in [lo, hi) from a fixed-seed 64-bit LCG.
template <class T>
std::vector<T> uniform(T lo, T hi, std::uint64_t seed, std::size_t count = samples<T>) {
  std::vector<T> v(count);
  for (auto& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * T(double(seed >> 11) * 0x1p-53);
  }
  return v;
}

using support::ulp_error;

template <class T>
constexpr std::size_t widest = simd::lanes_for(sizeof(T));

// f over xs as vectors of L lanes.
template <std::size_t L, class T, class F>
std::vector<T> apply_lanes(F f, const std::vector<T>& xs, const std::vector<T>& ys) {
  std::vector<T> out(xs.size());
  for (std::size_t i = 0; i + L <= xs.size(); i += L)
    simd::store<L>(out.data() + i, f(simd::load<L>(xs.data() + i), simd::load<L>(ys.data() + i)));
  return out;
}
// f over xs as the widest vectors, as 2-lane vectors and as L == 1 vectors: all must agree bit
// for bit (the sample counts are multiples of every L).
template <class T, class F>
std::vector<T> apply(F f, const std::vector<T>& xs, const std::vector<T>& ys) {
  const std::vector<T> one = apply_lanes<1>(f, xs, ys);
  for (const std::vector<T>& other :
       {apply_lanes<widest<T>>(f, xs, ys), apply_lanes < widest<T> < 2 ? 1 : 2 > (f, xs, ys)}) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < xs.size(); ++i)
      differ += std::memcmp(&other[i], &one[i], sizeof(T)) != 0;
    CHECK_MESSAGE(differ == 0, "vector lanes and L == 1 differ for ", differ, " inputs");
  }
  return one;
}

// Max ulp error of f against ref over xs (and ys for two arguments), checked against bound.
template <class T, class F, class R>
void check_error(F f, R ref, const std::vector<T>& xs, double bound,
                 const std::vector<T>& ys = {}) {
  const std::vector<T>& second = ys.empty() ? xs : ys;
  const std::vector<T> out = apply<T>(f, xs, second);
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double e = ulp_error(out[i], ref(wide(xs[i]), wide(second[i])));
    if (e > worst) worst = e, at = i;
  }
  INFO("worst at x = ", double(xs[at]), ", y = ", double(second[at]), ": got ", double(out[at]),
       ", expected ", double(ref(wide(xs[at]), wide(second[at]))));
  CHECK(worst <= bound);
}

// The reference in the wider type: double's libm for float, long double's for double.
template <class T, class D, class LD>
auto reference(D d, LD ld) {
  return [=](wide x, wide y) -> wide {
    if constexpr (std::is_same_v<T, float>) return d(double(x), double(y));
    else return ld(x, y);
  };
}

// Equal as values, including NaN == NaN and the sign of zero.
template <class T>
bool same(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

template <class T>
struct special {
  T x, y, expected;
};
template <class T, std::size_t L>
simd::vec<T, L> lanes_of(T x) {
  simd::vec<T, L> v;
  for (std::size_t l = 0; l < L; ++l) v[l] = x;
  return v;
}
template <class T, class F>
void check_specials(F f, std::initializer_list<special<T>> cases) {
  for (const special<T>& c : cases) {
    const T one = f(simd::vec<T, 1>{c.x}, simd::vec<T, 1>{c.y})[0];
    const T lanes = f(lanes_of<T, widest<T>>(c.x), lanes_of<T, widest<T>>(c.y))[0];
    INFO("x = ", double(c.x), ", y = ", double(c.y), ": got ", double(one), " and ", double(lanes),
         ", expected ", double(c.expected));
    CHECK(same(one, c.expected));
    CHECK(same(lanes, c.expected));
  }
}

// Unary functions as binary ones (the second argument is ignored), vector and scalar.
#define UNARY(NAME) [](auto x, auto) { return simd::NAME(x); }
#define REF(DOUBLE_EXPR, LONG_EXPR)                                             \
  reference<T>([](double x, [[maybe_unused]] double y) { return DOUBLE_EXPR; }, \
               [](wide x, [[maybe_unused]] wide y) { return LONG_EXPR; })

template <class T>
constexpr T inf = limits<T>::infinity();
template <class T>
constexpr T nan = limits<T>::quiet_NaN();
template <class T>
constexpr T tiny = limits<T>::denorm_min();
template <class T>
constexpr T big = limits<T>::max();
template <class T>
constexpr bool is_float = std::is_same_v<T, float>;

TEST_CASE_TEMPLATE(
    "simd_math: exp within 1 ulp, overflow to inf, subnormal results, underflow to 0", T, float,
    double) {
  const T hi = is_float<T> ? T(89) : T(710), lo = is_float<T> ? T(-104) : T(-746);
  check_error<T>(UNARY(exp), REF(std::exp(x), std::exp(x)), spread<T>(lo, hi), 1);
  check_specials<T>(UNARY(exp), {{nan<T>, 0, nan<T>},
                                 {inf<T>, 0, inf<T>},
                                 {-inf<T>, 0, 0},
                                 {0, 0, 1},
                                 {-T(0), 0, 1},
                                 {tiny<T>, 0, 1},
                                 {-tiny<T>, 0, 1},
                                 {hi, 0, inf<T>},
                                 {lo, 0, 0},
                                 {big<T>, 0, inf<T>},
                                 {-big<T>, 0, 0}});
  // The largest finite result and the smallest subnormal one.
  const T top = is_float<T> ? T(88.72283f) : T(709.782712893384);
  const T bottom = is_float<T> ? T(-103.2789f) : T(-744.44007192138);
  CHECK(simd::exp(top) < inf<T>);
  CHECK(simd::exp(bottom) == tiny<T>);
}

TEST_CASE_TEMPLATE("simd_math: expm1 within 2 ulp and keeps the sign of zero", T, float, double) {
  check_error<T>(UNARY(expm1), REF(std::expm1(x), std::expm1(x)),
                 spread<T>(is_float<T> ? T(-20) : T(-40), is_float<T> ? T(89) : T(710)), 2);
  check_specials<T>(UNARY(expm1), {{nan<T>, 0, nan<T>},
                                   {inf<T>, 0, inf<T>},
                                   {-inf<T>, 0, -1},
                                   {0, 0, 0},
                                   {-T(0), 0, -T(0)},
                                   {tiny<T>, 0, tiny<T>},
                                   {-tiny<T>, 0, -tiny<T>},
                                   {big<T>, 0, inf<T>},
                                   {-big<T>, 0, -1}});
}

TEST_CASE_TEMPLATE("simd_math: log within 1 ulp over all positive values, -inf at zero", T, float,
                   double) {
  check_error<T>(UNARY(log), REF(std::log(x), std::log(x)), spread<T>(tiny<T>, big<T>), 1);
  check_specials<T>(UNARY(log), {{nan<T>, 0, nan<T>},
                                 {inf<T>, 0, inf<T>},
                                 {-inf<T>, 0, nan<T>},
                                 {0, 0, -inf<T>},
                                 {-T(0), 0, -inf<T>},
                                 {-1, 0, nan<T>},
                                 {-tiny<T>, 0, nan<T>},
                                 {1, 0, 0}});
}

TEST_CASE_TEMPLATE("simd_math: log1p within 1 ulp and keeps the sign of zero", T, float, double) {
  check_error<T>(UNARY(log1p), REF(std::log1p(x), std::log1p(x)),
                 spread<T>(std::nextafter(T(-1), T(0)), big<T>), 1);
  check_specials<T>(UNARY(log1p), {{nan<T>, 0, nan<T>},
                                   {inf<T>, 0, inf<T>},
                                   {-inf<T>, 0, nan<T>},
                                   {-1, 0, -inf<T>},
                                   {-2, 0, nan<T>},
                                   {0, 0, 0},
                                   {-T(0), 0, -T(0)},
                                   {tiny<T>, 0, tiny<T>},
                                   {-tiny<T>, 0, -tiny<T>}});
}

// One form of a function (math::NAME), called as the public function calls it: a vector
// narrower than 16 bytes is computed in a wider one.
#define FORM(NAME)                                                               \
  [](auto x, auto) {                                                             \
    if constexpr (sizeof(x) < 16)                                                \
      return simd::math::widened([](auto v) { return simd::math::NAME(v); }, x); \
    else return simd::math::NAME(x);                                             \
  }

template <class T, class F>
void check_tanh(F f, double bound) {
  const T sat = is_float<T> ? T(9.1) : T(19.1);  // from here on tanh rounds to 1
  check_error<T>(f, REF(std::tanh(x), std::tanh(x)), spread<T>(-2 * sat, 2 * sat), bound);
  // Where the rational form's error peaks (float): near saturation.
  check_error<T>(f, REF(std::tanh(x), std::tanh(x)), spread<T>(T(5), T(9.1)), bound);
  check_specials<T>(f, {{nan<T>, 0, nan<T>},
                        {inf<T>, 0, 1},
                        {-inf<T>, 0, -1},
                        {0, 0, 0},
                        {-T(0), 0, -T(0)},
                        {tiny<T>, 0, tiny<T>},
                        {-tiny<T>, 0, -tiny<T>},
                        {sat, 0, 1},
                        {-sat, 0, -1},
                        {big<T>, 0, 1},
                        {-big<T>, 0, -1}});
}

TEST_CASE_TEMPLATE("simd_math: tanh's expm1 form within 2.5 ulp and saturates to exactly 1", T,
                   float, double) {
  check_tanh<T>(FORM(tanh_expm1), 2.5);
}

// (Over all floats: 5.3 ulp with fused multiply-adds, 6.3 without.)
TEST_CASE("simd_math: float tanh's rational form within 6.3 ulp and saturates to exactly 1") {
  check_tanh<float>(FORM(tanh_rational), 6.3);
  // Never above 1 (the fit's value at the clamp rounds to 1 exactly).
  CHECK(simd::math::tanh_rational(simd::vec<float, 4>{} + 9.03f)[0] == 1.0f);
}

// The public function against the form the configuration selects, bit for bit.
template <class T, class Public, class Fast, class Precise>
void check_selected(Public f, Fast fast, Precise precise) {
  const std::vector<T> xs = uniform<T>(T(-12), T(12), 7, 4096);
  const auto chosen = apply<T>(f, xs, xs);
  const auto expected = [&] {
    if constexpr (is_float<T> && DIMGRAPH_CONFIG_FAST_MATH) return apply<T>(fast, xs, xs);
    else return apply<T>(precise, xs, xs);
  }();
  CHECK(std::memcmp(chosen.data(), expected.data(), xs.size() * sizeof(T)) == 0);
}

TEST_CASE_TEMPLATE("simd_math: tanh, erf and gelu are the forms DIMGRAPH_CONFIG_FAST_MATH selects",
                   T, float, double) {
  check_selected<T>(UNARY(tanh), FORM(tanh_rational), FORM(tanh_expm1));
  check_selected<T>(UNARY(erf), FORM(erf_rational), FORM(erf_erfc));
  check_selected<T>(UNARY(gelu), FORM(gelu_rational), FORM(gelu_erfc));
}

TEST_CASE_TEMPLATE("simd_math: sigmoid within 2.7 ulp down to subnormal results", T, float,
                   double) {
  const T far = is_float<T> ? T(110) : T(750);
  check_error<T>(UNARY(sigmoid), REF(1 / (1 + std::exp(-x)), 1 / (1 + std::exp(-x))),
                 spread<T>(-far, far), 2.7);
  check_specials<T>(UNARY(sigmoid), {{nan<T>, 0, nan<T>},
                                     {inf<T>, 0, 1},
                                     {-inf<T>, 0, 0},
                                     {0, 0, T(0.5)},
                                     {-T(0), 0, T(0.5)},
                                     {far, 0, 1},
                                     {-far, 0, 0},
                                     {big<T>, 0, 1},
                                     {-big<T>, 0, 0}});
  // Large negative x: e^x, subnormal but not zero.
  const T deep = is_float<T> ? T(-100) : T(-740);
  CHECK(simd::sigmoid(deep) > 0);
  CHECK(simd::sigmoid(deep) < limits<T>::min());
}

template <class T, class F>
void check_erf(F f, double bound) {
  const T lim = is_float<T> ? T(4) : T(6);
  check_error<T>(f, REF(std::erf(x), std::erf(x)), spread<T>(-2 * lim, 2 * lim), bound);
  check_specials<T>(f, {{nan<T>, 0, nan<T>},
                        {inf<T>, 0, 1},
                        {-inf<T>, 0, -1},
                        {0, 0, 0},
                        {-T(0), 0, -T(0)},
                        {tiny<T>, 0, tiny<T>},
                        {lim, 0, 1},
                        {-lim, 0, -1},
                        {big<T>, 0, 1},
                        {-big<T>, 0, -1}});
}

// (Float over all floats: 2.5 ulp without fused multiply-adds, 2.0 with; double, sampled
// densely: 3.2; the largest just above 0.75.)
TEST_CASE_TEMPLATE("simd_math: erf's erfc form within 2.5 ulp (double 3.2), exactly +-1 beyond", T,
                   float, double) {
  const double bound = is_float<T> ? 2.5 : 3.2;
  check_erf<T>(FORM(erf_erfc), bound);
  check_error<T>(FORM(erf_erfc), REF(std::erf(x), std::erf(x)), spread<T>(T(0.75), T(0.8)), bound);
}

// (Over all floats: 6.1 ulp with fused multiply-adds, 7.4 without.)
TEST_CASE("simd_math: float erf's rational form within 7.4 ulp, exactly +-1 in the tails") {
  check_erf<float>(FORM(erf_rational), 7.4);
  // Where its error peaks: before saturation.
  check_error<float>(
      FORM(erf_rational), [](wide x, wide) { return wide(std::erf(double(x))); },
      spread<float>(3.0f, 4.0f), 7.4);
}

// x / 2 erfc(-x / sqrt2): gelu without the cancellation of 1 + erf.
#define GELU_REF \
  REF(x / 2 * std::erfc(-x / std::sqrt(2.0)), x / 2 * std::erfc(-x / std::sqrt(wide(2))))

template <class T, class F>
void check_gelu_specials(F f) {
  const T lim = is_float<T> ? T(16) : T(41);
  check_specials<T>(f, {{nan<T>, 0, nan<T>},
                        {inf<T>, 0, inf<T>},
                        {-inf<T>, 0, -T(0)},
                        {0, 0, 0},
                        {-T(0), 0, -T(0)},
                        {big<T>, 0, big<T>},
                        {-big<T>, 0, -T(0)},
                        {lim, 0, lim},
                        {-lim, 0, -T(0)}});
}

// (The tail: float 7.1 ulp over every float, double 9.5 sampled densely, both near -1.33.)
TEST_CASE_TEMPLATE("simd_math: gelu's erfc form within 3.5 ulp, 7.5 (double 10) in the tail", T,
                   float, double) {
  const double tail_bound = is_float<T> ? 7.5 : 10;
  const T lim = is_float<T> ? T(16) : T(41);
  // The negative tail x / sqrt2 <= -0.75 (x / 2 erfc there) and the rest.
  const T tail_from = -T(0.75) * std::sqrt(T(2));
  check_error<T>(FORM(gelu_erfc), GELU_REF, spread<T>(-lim, std::nextafter(tail_from, T(0))),
                 tail_bound);
  check_error<T>(FORM(gelu_erfc), GELU_REF, spread<T>(T(-1.6), T(-1.2)), tail_bound);
  check_error<T>(FORM(gelu_erfc), GELU_REF, spread<T>(tail_from, lim), 3.5);
  check_gelu_specials<T>(FORM(gelu_erfc));
}

TEST_CASE("simd_math: float gelu's rational form: 3.5 ulp for x >= 0, 2^-22 |x| below") {
  using T = float;
  check_error<T>(FORM(gelu_rational), GELU_REF, spread<T>(0, 16), 3.5);
  check_error<T>(FORM(gelu_rational), GELU_REF, spread<T>(-1, 0), 5.5);
  // The negative tail: absolute error, as PyTorch's and Eigen's 1 + erf form have it (normal
  // x: halving a subnormal x rounds, as in every form).
  const std::vector<T> xs = spread<T>(-16, -limits<T>::min());
  const std::vector<T> out = apply<T>(FORM(gelu_rational), xs, xs);
  double worst = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double exact = double(xs[i]) / 2 * std::erfc(-double(xs[i]) / std::sqrt(2.0));
    worst =
        std::max(worst, std::fabs(double(out[i]) - exact) / (std::fabs(double(xs[i])) * 0x1p-22));
  }
  CHECK(worst <= 1);
  check_gelu_specials<T>(FORM(gelu_rational));
}

// NaNs with other payloads than the default one, and with the sign bit: the result is a NaN
// (functions that do arithmetic on exponent bits must not turn one into a number).
template <class T, class F>
void check_nan_payloads(F f, const char* name) {
  using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr bits_t exponent = sizeof(T) == 4 ? bits_t(0x7f800000u) : bits_t(0x7ff0000000000000u);
  constexpr bits_t sign = bits_t(1) << (8 * sizeof(T) - 1);
  constexpr int mantissa = sizeof(T) == 4 ? 23 : 52;
  for (const bits_t payload : {bits_t(1), bits_t(0x1234), bits_t(1) << (mantissa - 1),
                               (bits_t(1) << mantissa) - 1, bits_t(0x5a5a5) << 3}) {
    for (const bits_t s : {bits_t(0), sign}) {
      const bits_t b = s | exponent | payload;
      T x;
      std::memcpy(&x, &b, sizeof(T));
      INFO(name, " of the NaN with bits ", static_cast<unsigned long long>(b));
      CHECK(std::isnan(f(simd::vec<T, 1>{x}, simd::vec<T, 1>{x})[0]));
      CHECK(std::isnan(f(lanes_of<T, widest<T>>(x), lanes_of<T, widest<T>>(x))[0]));
    }
  }
}

TEST_CASE_TEMPLATE("simd_math: every function gives NaN for NaNs of any payload and sign", T, float,
                   double) {
  check_nan_payloads<T>(UNARY(exp), "exp");
  check_nan_payloads<T>(UNARY(expm1), "expm1");
  check_nan_payloads<T>(UNARY(log), "log");
  check_nan_payloads<T>(UNARY(log1p), "log1p");
  check_nan_payloads<T>(FORM(tanh_expm1), "tanh_expm1");
  check_nan_payloads<T>(UNARY(sigmoid), "sigmoid");
  check_nan_payloads<T>(FORM(erf_erfc), "erf_erfc");
  check_nan_payloads<T>(FORM(gelu_erfc), "gelu_erfc");
  check_nan_payloads<T>(UNARY(sqrt), "sqrt");
  check_nan_payloads<T>(UNARY(rsqrt), "rsqrt");
  check_nan_payloads<T>(UNARY(sin), "sin");
  check_nan_payloads<T>(UNARY(cos), "cos");
  if constexpr (is_float<T>) {
    check_nan_payloads<T>(FORM(tanh_rational), "tanh_rational");
    check_nan_payloads<T>(FORM(erf_rational), "erf_rational");
    check_nan_payloads<T>(FORM(gelu_rational), "gelu_rational");
  }
}

TEST_CASE_TEMPLATE("simd_math: sqrt correctly rounded, rsqrt within 1.5 ulp", T, float, double) {
  const auto xs = spread<T>(tiny<T>, big<T>);
  check_error<T>(UNARY(sqrt), REF(std::sqrt(x), std::sqrt(x)), xs, 0.5);
  check_error<T>(UNARY(rsqrt), REF(1 / std::sqrt(x), 1 / std::sqrt(x)), xs, 1.5);
  check_specials<T>(UNARY(sqrt), {{nan<T>, 0, nan<T>},
                                  {inf<T>, 0, inf<T>},
                                  {-inf<T>, 0, nan<T>},
                                  {0, 0, 0},
                                  {-T(0), 0, -T(0)},
                                  {-1, 0, nan<T>},
                                  {4, 0, 2}});
  check_specials<T>(UNARY(rsqrt), {{nan<T>, 0, nan<T>},
                                   {inf<T>, 0, 0},
                                   {0, 0, inf<T>},
                                   {-T(0), 0, -inf<T>},
                                   {-1, 0, nan<T>},
                                   {4, 0, T(0.5)}});
}

TEST_CASE_TEMPLATE("simd_math: sin and cos within 1 ulp for |x| up to 1e5", T, float, double) {
  constexpr std::size_t half = samples<T> / 2;
  const auto near = spread<T>(T(-1e5), T(1e5), half);     // dense near 0
  const auto far = uniform<T>(T(-1e5), T(1e5), 7, half);  // uniform over the range
  check_error<T>(UNARY(sin), REF(std::sin(x), std::sin(x)), near, 1);
  check_error<T>(UNARY(sin), REF(std::sin(x), std::sin(x)), far, 1);
  check_error<T>(UNARY(cos), REF(std::cos(x), std::cos(x)), near, 1);
  check_error<T>(UNARY(cos), REF(std::cos(x), std::cos(x)), far, 1);
  check_specials<T>(UNARY(sin), {{nan<T>, 0, nan<T>},
                                 {inf<T>, 0, nan<T>},
                                 {-inf<T>, 0, nan<T>},
                                 {0, 0, 0},
                                 {-T(0), 0, -T(0)},
                                 {tiny<T>, 0, tiny<T>},
                                 {-tiny<T>, 0, -tiny<T>}});
  check_specials<T>(
      UNARY(cos),
      {{nan<T>, 0, nan<T>}, {inf<T>, 0, nan<T>}, {-inf<T>, 0, nan<T>}, {0, 0, 1}, {-T(0), 0, 1}});
  // Huge arguments lose accuracy but stay finite and within [-1, 1].
  for (T x : {T(1e10), T(-3e15), T(1e30), big<T>, -big<T>}) {
    const T s = simd::sin(x), c = simd::cos(x);
    CHECK((s >= -1 && s <= 1));
    CHECK((c >= -1 && c <= 1));
  }
}

TEST_CASE_TEMPLATE("simd_math: pow within its bound and C's special cases", T, float, double) {
  const auto ref = REF(std::pow(x, y), std::pow(x, y));
  const auto fpow = [](auto x, auto y) { return simd::pow(x, y); };
  // Moderate results (|y log x| <= 1), then the whole range, then negative x: float within 1 ulp,
  // double within 1.5 ulp.
  const double bound = is_float<T> ? 1 : 1.5;
  constexpr std::size_t half = samples<T> / 2;  // three sets of half the samples
  const auto xs = spread<T>(T(1e-3), T(1e3), half);
  std::vector<T> ys = uniform<T>(T(-1), T(1), 11, half);
  for (std::size_t i = 0; i < ys.size(); ++i) ys[i] /= T(std::abs(std::log(double(xs[i]))) + 1e-3);
  check_error<T>(fpow, ref, xs, bound, ys);
  // Up to overflow and underflow (and subnormal results).
  const auto xw = spread<T>(tiny<T>, big<T>, half);
  const auto yw = uniform<T>(T(-2), T(2), 13, half);
  std::vector<T> yl(half);
  const T range = is_float<T> ? T(110) : T(760);
  for (std::size_t i = 0; i < half; ++i)
    yl[i] = range * yw[i] / T(std::abs(std::log(double(xw[i]))) + 1e-3);
  check_error<T>(fpow, ref, xw, bound, yl);
  // Negative x with integer y.
  const auto xn = uniform<T>(T(-30), T(0), 17, half);
  std::vector<T> yi = uniform<T>(T(-40), T(40), 19, half);
  for (auto& y : yi) y = std::round(y);
  check_error<T>(fpow, ref, xn, bound, yi);
  check_specials<T>(fpow, {{nan<T>, 0, 1},
                           {nan<T>, -T(0), 1},
                           {1, nan<T>, 1},
                           {1, inf<T>, 1},
                           {nan<T>, 1, nan<T>},
                           {2, nan<T>, nan<T>},
                           {-1, inf<T>, 1},
                           {-1, -inf<T>, 1},
                           {T(0.5), inf<T>, 0},
                           {T(0.5), -inf<T>, inf<T>},
                           {2, inf<T>, inf<T>},
                           {2, -inf<T>, 0},
                           {-2, inf<T>, inf<T>},
                           {0, -3, inf<T>},
                           {-T(0), -3, -inf<T>},
                           {-T(0), -2, inf<T>},
                           {-T(0), T(-0.5), inf<T>},
                           {0, 3, 0},
                           {-T(0), 3, -T(0)},
                           {-T(0), 2, 0},
                           {-T(0), T(0.5), 0},
                           {inf<T>, T(-0.5), 0},
                           {inf<T>, T(0.5), inf<T>},
                           {-inf<T>, -3, -T(0)},
                           {-inf<T>, -2, 0},
                           {-inf<T>, 3, -inf<T>},
                           {-inf<T>, T(0.5), inf<T>},
                           {-2, 3, -8},
                           {-2, -3, T(-0.125)},
                           {-2, 2, 4},
                           {-2, T(0.5), nan<T>},
                           {-8, T(1) / 3, nan<T>},
                           {4, T(0.5), 2},
                           {2, 10, 1024},
                           {10, is_float<T> ? T(39) : T(309), inf<T>},
                           {2, is_float<T> ? T(-149) : T(-1074), tiny<T>},
                           {2, is_float<T> ? T(-151) : T(-1076), 0},
                           {-1, big<T>, 1},
                           {-2, -big<T>, 0}});
}

}  // namespace
