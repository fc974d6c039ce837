// Math functions on SIMD vectors (and plain float and double): exp, expm1, log, log1p, tanh,
// sigmoid, erf, gelu, sqrt, rsqrt, pow, sin, cos.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/simd_float_bits.hpp"
#include "dimgraph/detail/simd_math_reductions.hpp"

// Each function works on vec<float, L> and vec<double, L> for any L, lane by lane with the same
// operations whatever L is, so a lane's result is bit-for-bit the same in a vector body and in
// its L == 1 remainder (and in the plain float and double overloads at the end). No libm: range
// reduction and polynomials (coefficients fitted for these reductions), with special values as
// C's <math.h> gives them (NaN, infinities, signed zeros, subnormals, overflow and underflow).
// Accuracy does not rely on the compiler fusing a * b + c: exact products come from operands cut
// to half width by masking bits, and exact sums from two-sum sequences of additions.
// Error bounds are in ulp of the result, measured against libm in the next wider type (double
// for float, long double for double); tests/unit/detail/simd_math.cpp checks each of them.
// IEEE arithmetic as C++ has it by default is assumed: -ffast-math (-fassociative-math folds
// the rounding and two-sum steps, -ffinite-math-only the NaN and infinity checks) breaks them.
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd {

template <class V>
concept float_vec = requires(V v) { v[0]; } &&
                    (std::is_same_v<value_t<V>, float> || std::is_same_v<value_t<V>, double>);

// exp(x). Max error: float 1 ulp, double 1 ulp (subnormal results included).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V exp(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return exp(v); }, x);
  } else {
    return math::exp_sum(x, V{}, std::false_type{});
  }
}

// expm1(x) = exp(x) - 1, accurate near 0. Max error: float 2 ulp, double 2 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V expm1(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return expm1(v); }, x);
  } else {
    const V y = math::expm1_unsigned_zero(x);
    return x == 0 ? x : y;
  }
}

// log(x): -inf at +-0, NaN below 0. Max error: float 1 ulp, double 1 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V log(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return log(v); }, x);
  } else {
    using L = math::layout<value_t<V>>;
    const math::log_split<V> sp = math::split_exponent(x);
    V y = math::log_reduced(sp.m - value_t<V>(1), sp.k, V{});
    y = x < 0 ? math::fill<V>(L::nan) : y;
    y = x == 0 ? math::fill<V>(-L::infinity) : y;
    return x < L::infinity ? y : x;  // +inf and NaN
  }
}

// log1p(x) = log(1 + x), accurate near 0: -inf at -1, NaN below. Max error: float 1 ulp,
// double 1 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V log1p(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return log1p(v); }, x);
  } else {
    using T = value_t<V>;
    using L = math::layout<T>;
    using I = math::int_t<V>;
    // u = 1 + x rounds; c = (1 + x - u) / u puts the rounding error back (fdlibm's log1p).
    // Where 1 + x is within [sqrt(1/2), sqrt(2)), f = x is exact and no correction is needed.
    const V u = T(1) + x;
    const math::log_split<V> sp = math::split_exponent(u);
    const V c = (sp.k >= 2 ? T(1) - (u - x) : x - (u - T(1))) / u;
    const I near_zero = sp.k == 0;
    V y = math::log_reduced(near_zero ? x : sp.m - T(1), sp.k, near_zero ? V{} : c);
    y = x < T(-1) ? math::fill<V>(L::nan) : y;
    y = x == T(-1) ? math::fill<V>(-L::infinity) : y;
    y = x == 0 ? x : y;
    return x < L::infinity ? y : x;
  }
}

namespace math {

// tanh(x) = expm1(2|x|) / (expm1(2|x|) + 2) with the sign of x; exactly +-1 from |x| = 10
// (float) or 20 (double) on. Max error: float 2.5 ulp, double 2.5 ulp.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V tanh_expm1(V x) {
  using T = value_t<V>;
  constexpr T saturated = layout<T>::is_float ? T(10) : T(20);
  const V a = at_most(abs(x), saturated);
  // expm1(2a) = 2^k expm1(r) + (2^k - 1), 2^k within range as 2a <= 2 saturated.
  const expm1_split<V> em = expm1_reduce<2, true>(a);
  const V s = times_pow2(fill<V>(T(1)), em.kf, em.kfield);
  const V e = s * em.p + (s - T(1));
  return with_sign_of(e / (e + T(2)), x);
}

// tanh(x) for float lanes as x P(x^2) / Q(x^2), |x| capped: a rational minimax fit
// (relative error 7e-9) on |x| <= 9.03, from where tanh rounds to 1 (and so does the fit).
// Max error over all floats: 5.3 ulp with fused multiply-adds, 6.3 without, most of it the
// rounding of P and Q near saturation (Eigen's fast tanh, the same form: 4.9 and 6.7).
// Thirteen vector instructions and a division, about 3/4 of tanh_expm1's time. (P, Q:
// tools/fit_rational.py tanh 6 3 81.5, rounded to float.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V tanh_rational(V x) {
  static_assert(layout<value_t<V>>::is_float);
  const V a = clamped(x, -9.03f, 9.03f);  // (x's sign carries through: P, Q are even)
  const V s = a * a;
  const V p = horner_serial(s, 1.0f, 0x1.0bf95ap-3f, 0x1.96eec2p-9f, 0x1.767afap-17f,
                            -0x1.5bc4aep-26f, 0x1.d0a912p-35f, -0x1.7e6776p-44f);
  const V q = horner_serial(s, 1.0f, 0x1.db52p-2f, 0x1.91604cp-6f, 0x1.0b14d2p-12f);
  return a * p / q;
}

}  // namespace math

// tanh(x): float lanes as math::tanh_rational (5.3-6.3 ulp) with DIMGRAPH_CONFIG_FAST_MATH
// (the default), else and for double as math::tanh_expm1 (2.5 ulp).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V tanh(V x) {
  if constexpr (sizeof(V) < 16)
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return tanh(v); }, x);
  else if constexpr (math::layout<value_t<V>>::is_float && DIMGRAPH_CONFIG_FAST_MATH)
    return math::tanh_rational(x);
  else return math::tanh_expm1(x);
}

namespace math {

// sigmoid(x) for |x| < normal_exp_limit. With -x = k ln2 + r (exp's reduction, |r| <= ln2 / 2)
// and e^r = P(r) / P(-r), P the numerator of e^r's [n/n] Pade approximant (n = 3 for float,
// 6 for double: relative error 6e-9 and 2e-19 on |r| <= ln2 / 2), sigmoid(x) =
// 1 / (1 + 2^k e^r) = P(-r) / (2^k P(r) + P(-r)). P(+-r) = E(r^2) +- r O(r^2) with E ~ 1 and
// |r O| < 0.18, so nothing cancels; 2^k P(r) is exact, and the denominator rounds once. 2^k
// is the rounding sum's bits shifted: the magic number adds the exponent bias to k's low
// bits. Twelve vector instructions and a division for float, where 1 / (1 + exp(-x)) takes
// nineteen (W8.sigmoid on a Zen 3, g++ -O3 -march=native: 0.67x the time).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V sigmoid_normal(V x) {
  using T = value_t<V>;
  using L = layout<T>;
  constexpr T magic = L::round_magic + T(L::bias);
  const V t = x * -log2e<T> + magic;
  const V k = t - magic;
  const V r = (-x - k * ln2_hi<T>)-k * ln2_lo<T>;
  const V r2 = r * r;
  V even, odd;
  if constexpr (L::is_float) {
    even = horner_serial(r2, 1.0f, 1.0f / 10);
    odd = r * horner_serial(r2, 0.5f, 1.0f / 120);
  } else {
    even = horner_serial(r2, 1.0, 5.0 / 44, 1.0 / 792, 1.0 / 665280);
    odd = r * horner_serial(r2, 0.5, 1.0 / 66, 1.0 / 15840);
  }
  const V p_minus = even - odd;
  const V s = bits<V>(bits<int_t<V>>(t) << L::mantissa);
  return p_minus / (s * (even + odd) + p_minus);
}

}  // namespace math

// sigmoid(x) = 1 / (1 + exp(-x)), which does not cancel for either sign: for x < 0, 1 + exp(-x)
// is large and has exp's relative error. Below -normal_exp_limit, where exp(-x) would overflow
// and sigmoid is tiny or subnormal, it is exp(x) (1 + exp(x) rounds to 1); a vector with such
// a lane computes both, so every lane's bits are those of the first form. Max error: float
// 2.7 ulp (over all floats: 2.68 without fused multiply-adds, 2.49 with), double 2.7 (sampled:
// 2.50 and 2.44), the most near x = -1.1, where the result is just below 1/4.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sigmoid(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sigmoid(v); }, x);
  } else {
    using T = value_t<V>;
    constexpr T limit = math::normal_exp_limit<T>;
    if (all_lanes_less(math::abs(x), math::fill<V>(limit))) [[likely]]
      return math::sigmoid_normal(x);
    // (A NaN lane is given back as it is: the exponent arithmetic may turn it into a number.)
    const V y = x < -limit ? exp(x) : math::sigmoid_normal(math::clamped(x, -limit, limit));
    return x == x ? y : x;
  }
}

namespace math {

// erf(x): x + x P(x^2) below |x| = 0.75, 1 - erfc(|x|) above. Max error: float 2.5 ulp over
// all floats (2.0 with fused multiply-adds), double 3.2 (sampled densely), the largest just
// above 0.75, where erfc's fit is least accurate.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erf_erfc(V x) {
  using T = value_t<V>;
  constexpr T one_from = layout<T>::is_float ? T(4) : T(6);  // erf rounds to 1 beyond
  const V a = at_most(abs(x), one_from);
  const V small = x + x * erf_small_poly(x * x);
  const V large = T(1) - erfc_tail(a, scaled_square(a, T(1)), fill<V>(T(1)));
  return a < T(0.75) ? small : with_sign_of(large, x);
}

// erf(x) for float lanes as x P(x^2) / Q(x^2): a rational minimax fit (relative error 6e-8)
// on |x| <= 3.94, from where erf rounds to +-1. Beyond, x^2 is capped at 4.3^2 (the fit rises
// monotonically from 3.93 on and is 185 ulp above 1 there) and the result at +-1. Max error
// over all floats: 6.1 ulp with fused multiply-adds, 7.4 without (Eigen's fast erf, the same
// form: 5.5 with). (P, Q: tools/fit_rational.py erf 6 4 15.5, rounded to float.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erf_rational(V x) {
  static_assert(layout<value_t<V>>::is_float);
  const V s = at_most(x * x, 18.49f);
  const V p = horner_serial(s, 0x1.20dd76p+0f, 0x1.996cap-3f, 0x1.9e4156p-5f, 0x1.e455ecp-9f,
                            0x1.28208ep-13f, -0x1.0502fep-19f, 0x1.5316d4p-26f);
  const V q =
      horner_serial(s, 1.0f, 0x1.056076p-1f, 0x1.d6ff52p-4f, 0x1.d621eep-7f, 0x1.f38cccp-11f);
  return clamped(x * p / q, -1.0f, 1.0f);
}

// gelu(x) = x / 2 (1 + erf(x / sqrt2)) (PyTorch's exact GELU). For x / sqrt2 <= -0.75 it is
// x / 2 erfc(|x| / sqrt2), with exp(-x^2 / 2) from x^2 carried in two parts, so the negative
// tail keeps its relative accuracy down to the subnormal range. Max error: 3.5 ulp for
// x > -0.75 sqrt2; in the negative tail 7.1 ulp (float, every float) and 10 (double, 9.5
// sampled densely near -1.33), where the rounding of t = 1 / (1 + c z) in erfc's fit is
// amplified about twofold.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V gelu_erfc(V x) {
  using T = value_t<V>;
  // Below -limit gelu rounds to -0; above +limit it is x (and w below is 2).
  constexpr T limit = layout<T>::is_float ? T(15) : T(40);
  x = at_least(x, -limit);
  const V xw = at_most(x, limit);
  const V z = xw * T(0x1.6a09e667f3bcdp-1);
  const V a = abs(z);
  const V half_x = T(0.5) * x;
  const V small = half_x * (T(1) + (z + z * erf_small_poly(z * z)));
  // x / 2 erfc(|z|): subtracted from x for positive x, the result itself for negative x.
  const V tail = erfc_tail(a, scaled_square(xw, T(0.5)), T(0.5) * xw);
  return a < T(0.75) ? small : (x > 0 ? x - tail : tail);
}

// gelu(x) = x (1/2 + (Phi(x) - 1/2)) for float lanes, Phi the normal distribution, with
// Phi(x) - 1/2 = erf(x / sqrt2) / 2 as x P(x^2) / Q(x^2): erf_rational's fit with x / sqrt2 and
// the 1/2 folded into its coefficients (so two multiplications fewer than x / 2 (1 + erf(x /
// sqrt2)), the form PyTorch and Eigen write; 19 vector instructions against 21). Relative
// accuracy for x >= 0, absolute in the negative tail, where 1/2 + (Phi - 1/2) cancels. Over
// every float, without / with fused multiply-adds: 3.4 / 3.3 ulp for x >= 0, 5.1 / 4.7 on
// [-1, 0), and |error| <= 0.98 / 0.79 2^-22 |x| below (in ulp: 60 at -2, 10^3 at -3; x / 2
// erfc(-x / sqrt2) is the accurate form there). x is raised to -15 first, from where gelu is
// -0 (not -inf * 0); x^2 is capped at 6.08^2 (erf_rational's cap) and Phi - 1/2 clamped to
// +-1/2. (P, Q: tools/fit_rational.py phi 6 4 31, rounded to float.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V gelu_rational(V x) {
  static_assert(layout<value_t<V>>::is_float);
  x = at_least(x, -15.0f);
  const V s = at_most(x * x, 36.98f);
  const V p = horner_serial(s, 0x1.988454p-2f, 0x1.2181b8p-5f, 0x1.24ec34p-8f, 0x1.567a1cp-13f,
                            0x1.a2c97cp-19f, -0x1.712054p-26f, 0x1.df8b64p-34f);
  const V q =
      horner_serial(s, 1.0f, 0x1.056076p-2f, 0x1.d6ff52p-6f, 0x1.d621eep-10f, 0x1.f38cccp-15f);
  return x * (0.5f + clamped(x * p / q, -0.5f, 0.5f));
}

}  // namespace math

// erf(x): float lanes as math::erf_rational (6.1-7.4 ulp) with DIMGRAPH_CONFIG_FAST_MATH (the
// default), else and for double as math::erf_erfc (2.5 ulp; double 3.2).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V erf(V x) {
  if constexpr (sizeof(V) < 16)
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return erf(v); }, x);
  else if constexpr (math::layout<value_t<V>>::is_float && DIMGRAPH_CONFIG_FAST_MATH)
    return math::erf_rational(x);
  else return math::erf_erfc(x);
}

// gelu(x): float lanes as math::gelu_rational (absolute accuracy in the negative tail) with
// DIMGRAPH_CONFIG_FAST_MATH (the default), else and for double as math::gelu_erfc (relative
// accuracy everywhere: 7.1 ulp, double 10).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V gelu(V x) {
  if constexpr (sizeof(V) < 16)
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return gelu(v); }, x);
  else if constexpr (math::layout<value_t<V>>::is_float && DIMGRAPH_CONFIG_FAST_MATH)
    return math::gelu_rational(x);
  else return math::gelu_erfc(x);
}

// sqrt(x), correctly rounded (the hardware's square root on x86).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sqrt(V x) {
  using T = value_t<V>;
#if defined(__SSE2__)
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sqrt(v); }, x);
  } else if constexpr (sizeof(V) == 16) {
    if constexpr (std::is_same_v<T, float>) return __builtin_ia32_sqrtps(x);
    else return __builtin_ia32_sqrtpd(x);
#if defined(__AVX__)
  } else if constexpr (sizeof(V) == 32) {
    if constexpr (std::is_same_v<T, float>) return __builtin_ia32_sqrtps256(x);
    else return __builtin_ia32_sqrtpd256(x);
#endif
  } else {
    using H = vec<T, lanes_v<V> / 2>;
    H h[2];
    std::memcpy(h, &x, sizeof(V));
    h[0] = sqrt(h[0]);
    h[1] = sqrt(h[1]);
    std::memcpy(&x, h, sizeof(V));
    return x;
  }
#else
  // Elsewhere the compiler's square root per lane (which may call libm for a negative lane to
  // set errno unless -fno-math-errno).
  for (std::size_t l = 0; l < lanes_v<V>; ++l) x[l] = __builtin_sqrt(x[l]);
  return x;
#endif
}

// rsqrt(x) = 1 / sqrt(x): +-inf at +-0, NaN below 0. Max error: 1.5 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V rsqrt(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return rsqrt(v); }, x);
  } else {
    return value_t<V>(1) / sqrt(x);
  }
}

// pow(x, y) with C's special cases (pow(x, +-0) = 1, pow(1, y) = 1, zeros, infinities, negative
// x with integer y, NaN for negative finite x with non-integer y). float is computed in double.
// log|x| is carried to about 2^-70 and y log|x| in two parts, so the error does not grow with
// |y log x|. Max error: float 1 ulp, double 1.5 ulp. As for every function here, not covered:
// floating-point exception flags and errno, and which NaN (payload, sign) comes out.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V pow(V x, V y) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return pow(a, b); }, x, y);
  } else {
    if constexpr (std::is_same_v<value_t<V>, float>)
      return math::via_double(
          [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return math::pow_double(a, b); }, x, y);
    else return math::pow_double(x, y);
  }
}

// sin(x) and cos(x), float computed in double. Max error: float 1 ulp, double 1 ulp for
// |x| < 1.6e6; beyond, the error grows with |x| (the reduction's k * pi/2 is no longer exact),
// and past 2^51 the results are only guaranteed to be within [-1, 1]. NaN for +-inf.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sin(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sin(v); }, x);
  } else {
    if constexpr (std::is_same_v<value_t<V>, float>) {
      return math::via_double([](auto d) DIMGRAPH_ALWAYS_INLINE { return sin(d); }, x);
    } else {
      const V y = math::sin_quarter<0>(x);
      return x == 0 ? x : y;
    }
  }
}
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V cos(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return cos(v); }, x);
  } else {
    if constexpr (std::is_same_v<value_t<V>, float>)
      return math::via_double([](auto d) DIMGRAPH_ALWAYS_INLINE { return cos(d); }, x);
    else return math::sin_quarter<1>(x);
  }
}

// The same functions on plain float and double: the L == 1 vectors, so scalar and vector
// results agree bit for bit. (Templates, so that a translation unit instantiates only the
// ones it calls: as plain functions, including the library compiled all of them.)
template <class T>
concept float_or_double = std::is_same_v<T, float> || std::is_same_v<T, double>;
#define DIMGRAPH_SIMD_MATH_SCALAR(NAME)       \
  template <float_or_double T>                \
  DIMGRAPH_ALWAYS_INLINE inline T NAME(T x) { \
    return NAME(vec<T, 1>{x})[0];             \
  }
DIMGRAPH_SIMD_MATH_SCALAR(exp)
DIMGRAPH_SIMD_MATH_SCALAR(expm1)
DIMGRAPH_SIMD_MATH_SCALAR(log)
DIMGRAPH_SIMD_MATH_SCALAR(log1p)
DIMGRAPH_SIMD_MATH_SCALAR(tanh)
DIMGRAPH_SIMD_MATH_SCALAR(sigmoid)
DIMGRAPH_SIMD_MATH_SCALAR(erf)
DIMGRAPH_SIMD_MATH_SCALAR(gelu)
DIMGRAPH_SIMD_MATH_SCALAR(sqrt)
DIMGRAPH_SIMD_MATH_SCALAR(rsqrt)
DIMGRAPH_SIMD_MATH_SCALAR(sin)
DIMGRAPH_SIMD_MATH_SCALAR(cos)
#undef DIMGRAPH_SIMD_MATH_SCALAR
template <float_or_double T>
DIMGRAPH_ALWAYS_INLINE inline T pow(T x, T y) {
  return pow(vec<T, 1>{x}, vec<T, 1>{y})[0];
}

}  // namespace dimgraph::detail::simd
DIMGRAPH_WIDE_END
