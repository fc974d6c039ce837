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

// tanh(x) = expm1(2|x|) / (expm1(2|x|) + 2) with the sign of x; exactly +-1 from |x| = 10
// (float) or 20 (double) on. Max error: float 2.5 ulp, double 2.5 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V tanh(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return tanh(v); }, x);
  } else {
    using T = value_t<V>;
    constexpr T saturated = math::layout<T>::is_float ? T(10) : T(20);
    V a = math::abs(x);
    a = math::at_most(a, saturated);
    // expm1(2a) = 2^k expm1(r) + (2^k - 1), 2^k within range as 2a <= 2 saturated.
    const math::expm1_split<V> em = math::expm1_reduce(a + a);
    const V s = math::pow2i<V>(em.k);
    const V e = s * em.p + (s - T(1));
    return math::with_sign_of(e / (e + T(2)), x);
  }
}

// sigmoid(x) = 1 / (1 + exp(-x)), as exp(x) / (1 + exp(x)) for x < 0 so that large negative x
// give small (subnormal, then zero) results. Max error: float 2.5 ulp, double 2.5 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sigmoid(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sigmoid(v); }, x);
  } else {
    using T = value_t<V>;
    const V e = exp(-math::abs(x));
    return (x < 0 ? e : math::fill<V>(T(1))) / (T(1) + e);
  }
}

// erf(x): x + x P(x^2) below |x| = 0.75, 1 - erfc(|x|) above. Max error: float 2 ulp,
// double 2 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V erf(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return erf(v); }, x);
  } else {
    using T = value_t<V>;
    constexpr T one_from = math::layout<T>::is_float ? T(4) : T(6);  // erf rounds to 1 beyond
    V a = math::abs(x);
    a = math::at_most(a, one_from);
    const V small = x + x * math::erf_small_poly(x * x);
    const V large = T(1) - math::erfc_tail(a, math::scaled_square(a, T(1)), math::fill<V>(T(1)));
    return a < T(0.75) ? small : math::with_sign_of(large, x);
  }
}

// gelu(x) = x / 2 (1 + erf(x / sqrt2)) (PyTorch's exact GELU). For x / sqrt2 <= -0.75 it is
// x / 2 erfc(|x| / sqrt2), with exp(-x^2 / 2) from x^2 carried in two parts, so the negative
// tail keeps its relative accuracy down to the subnormal range. Max error: 3.5 ulp for
// x > -0.75 sqrt2; 8 ulp in the negative tail (float and double), where the rounding of
// t = 1 / (1 + c z) in erfc's fit is amplified about twofold.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V gelu(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return gelu(v); }, x);
  } else {
    using T = value_t<V>;
    // Below -limit gelu rounds to -0; above +limit it is x (and w below is 2).
    constexpr T limit = math::layout<T>::is_float ? T(15) : T(40);
    x = math::at_least(x, -limit);
    const V xw = math::at_most(x, limit);
    const V z = xw * T(0x1.6a09e667f3bcdp-1);
    const V a = math::abs(z);
    const V half_x = T(0.5) * x;
    const V small = half_x * (T(1) + (z + z * math::erf_small_poly(z * z)));
    // x / 2 erfc(|z|): subtracted from x for positive x, the result itself for negative x.
    const V tail = math::erfc_tail(a, math::scaled_square(xw, T(0.5)), T(0.5) * xw);
    return a < T(0.75) ? small : (x > 0 ? x - tail : tail);
  }
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
