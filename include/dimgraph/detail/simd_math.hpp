// Math functions on SIMD vectors (and plain float and double): exp, expm1, log, log1p, tanh,
// sigmoid, erf, gelu, sqrt, rsqrt, pow, sin, cos.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"

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
namespace dimgraph::detail::simd {

template <class V>
concept float_vec = requires(V v) { v[0]; } &&
                    (std::is_same_v<value_t<V>, float> || std::is_same_v<value_t<V>, double>);

namespace math {

template <class V>
using int_t = vec<mask_lane_t<value_t<V>>, lanes_v<V>>;
template <class V>
using uint_t = vec<std::make_unsigned_t<mask_lane_t<value_t<V>>>, lanes_v<V>>;

// The binary layout of float and double.
template <class T>
struct layout {
  using bits_type = std::make_unsigned_t<mask_lane_t<T>>;
  static constexpr bool is_float = std::is_same_v<T, float>;
  static constexpr int mantissa = is_float ? 23 : 52;
  static constexpr int bias = is_float ? 127 : 1023;
  static constexpr bits_type sign = bits_type(1) << (sizeof(T) * 8 - 1);
  static constexpr bits_type one = bits_type(bias) << mantissa;
  // sqrt(1/2) rounded down: the lower end of the mantissa range [sqrt(1/2), sqrt(2)) of log.
  static constexpr bits_type sqrt_half = is_float ? 0x3f3504f3u : 0x3fe6a09e667f3bccull;
  static constexpr T infinity = is_float ? __builtin_inff() : __builtin_inf();
  static constexpr T nan = is_float ? __builtin_nanf("") : __builtin_nan("");
  // Adding 1.5 * 2^mantissa rounds to an integer that the low bits of the sum hold.
  static constexpr T round_magic = is_float ? 0x1.8p23f : 0x1.8p52;
};

template <class V>
DIMGRAPH_ALWAYS_INLINE inline V fill(value_t<V> c) {
  return V{} + c;
}

template <class V>
DIMGRAPH_ALWAYS_INLINE inline V abs(V x) {
  using U = uint_t<V>;
  return bits<V>(bits<U>(x) & ~layout<value_t<V>>::sign);
}

// min(x, c) and max(x, c) for a constant c, a NaN lane of x kept (c < x ? c : x, as the x86
// min and max instructions compare). GCC writes a vector ?: as a compare and a blend (three
// instructions without SSE4.1; with AVX-512 a compare into a mask and a masked move), so the
// instruction is asked for.
template <bool Max, class V>
DIMGRAPH_ALWAYS_INLINE inline V bound(V x, value_t<V> c) {
  const V cv = fill<V>(c);
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
  constexpr bool is_float = std::is_same_v<value_t<V>, float>;
  if constexpr (sizeof(V) == 16) {
    if constexpr (is_float) return Max ? __builtin_ia32_maxps(cv, x) : __builtin_ia32_minps(cv, x);
    else return Max ? __builtin_ia32_maxpd(cv, x) : __builtin_ia32_minpd(cv, x);
  }
#if defined(__AVX__)
  if constexpr (sizeof(V) == 32) {
    if constexpr (is_float)
      return Max ? __builtin_ia32_maxps256(cv, x) : __builtin_ia32_minps256(cv, x);
    else return Max ? __builtin_ia32_maxpd256(cv, x) : __builtin_ia32_minpd256(cv, x);
  }
#endif
#if defined(__AVX512F__)
  // (GCC's builtins take a merge source and a mask, Clang's do not.)
  if constexpr (sizeof(V) == 64) {
#if defined(__clang__)
    if constexpr (is_float)
      return Max ? __builtin_ia32_maxps512(cv, x, 4) : __builtin_ia32_minps512(cv, x, 4);
    else return Max ? __builtin_ia32_maxpd512(cv, x, 4) : __builtin_ia32_minpd512(cv, x, 4);
#else
    if constexpr (is_float)
      return Max ? __builtin_ia32_maxps512_mask(cv, x, cv, -1, 4)
                 : __builtin_ia32_minps512_mask(cv, x, cv, -1, 4);
    else
      return Max ? __builtin_ia32_maxpd512_mask(cv, x, cv, 0xff, 4)
                 : __builtin_ia32_minpd512_mask(cv, x, cv, 0xff, 4);
#endif
  }
#endif
#endif
  if constexpr (Max) return cv > x ? cv : x;
  else return cv < x ? cv : x;
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V at_most(V x, value_t<V> c) {
  return bound<false>(x, c);
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V at_least(V x, value_t<V> c) {
  return bound<true>(x, c);
}

// |magnitude| with the sign of `sign` (magnitude has its sign bit clear).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V with_sign_of(V magnitude, V sign) {
  using U = uint_t<V>;
  return bits<V>(bits<U>(magnitude) | (bits<U>(sign) & layout<value_t<V>>::sign));
}

// x with its low `Drop` mantissa bits cleared: exact, and products of two such halves are exact.
template <int Drop, class V>
DIMGRAPH_ALWAYS_INLINE inline V high_part(V x) {
  using U = uint_t<V>;
  using B = typename layout<value_t<V>>::bits_type;
  return bits<V>(bits<U>(x) & B(~B(0) << Drop));
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V high_half(V x) {
  return high_part < layout<value_t<V>>::is_float ? 12 : 27 > (x);
}

// c0 + x * (c1 + x * (c2 + ...)), evaluated as (c0 + c1 x) + x^2 ((c2 + c3 x) + x^2 (...)):
// the pairs are independent, so the chain of dependent multiply-adds is half as long (a
// kernel's loop keeps fewer iterations in flight than a chain this long needs, most of all
// without FMA), for one more product.
template <class V, class... C>
DIMGRAPH_ALWAYS_INLINE inline V horner_pairs(V x, V x2, value_t<V> c0, value_t<V> c1, C... c) {
  if constexpr (sizeof...(C) == 0) return x * c1 + c0;
  else if constexpr (sizeof...(C) == 1) return x2 * fill<V>(c...) + (x * c1 + c0);
  else return x2 * horner_pairs<V>(x, x2, c...) + (x * c1 + c0);
}
template <class V, class... C>
DIMGRAPH_ALWAYS_INLINE inline V horner_serial(V x, value_t<V> c0, C... c) {
  if constexpr (sizeof...(C) == 0) return fill<V>(c0);
  else return horner_serial<V>(x, c...) * x + c0;
}
template <class V, class... C>
DIMGRAPH_ALWAYS_INLINE inline V horner(V x, value_t<V> c0, C... c) {
  if constexpr (sizeof...(C) < 3) return horner_serial<V>(x, c0, c...);
  else return horner_pairs<V>(x, x * x, c0, c...);
}

// The nearest integer to x (|x| < 2^(mantissa - 1)) as a float lane and as an integer lane.
template <class V>
struct rounded {
  V value;
  int_t<V> integer;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline rounded<V> round_to_int(V x) {
  constexpr auto magic = layout<value_t<V>>::round_magic;
  const V t = x + magic;
  return {t - magic, bits<int_t<V>>(t) - bits<int_t<V>>(fill<V>(magic))};
}

// 2^k for integer lanes k in the normal exponent range.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow2i(int_t<V> k) {
  using L = layout<value_t<V>>;
  return bits<V>((k + L::bias) << L::mantissa);
}

// a + b as a rounded sum and its exact rounding error (Knuth's two-sum: additions only).
template <class V>
struct pair {
  V hi, lo;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline pair<V> two_sum(V a, V b) {
  const V s = a + b;
  const V bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// ln 2 split so that k * ln2_hi is exact for every exponent k.
template <class T>
inline constexpr T ln2_hi = layout<T>::is_float ? T(0x1.62ep-1f) : T(0x1.62e42feep-1);
template <class T>
inline constexpr T ln2_lo = layout<T>::is_float ? T(0x1.0bfbe8p-15f) : T(0x1.a39ef35793c76p-33);
template <class T>
inline constexpr T log2e = layout<T>::is_float ? T(0x1.715476p+0f) : T(0x1.71547652b82fep+0);

// (expm1(r) - r) / r^2 for |r| <= ln2 / 2. (One chain: evaluated in pairs, float exp's
// largest error over all floats grows from 0.96 to 1.002 ulp.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V expm1_poly(V r) {
  if constexpr (layout<value_t<V>>::is_float)
    return horner_serial(r, 0x1p-1f, 0x1.555556p-3f, 0x1.5554e4p-5f, 0x1.1110ep-7f, 0x1.6d492p-10f,
                         0x1.a12a42p-13f);
  else
    return horner_serial(r, 0x1p-1, 0x1.5555555555557p-3, 0x1.5555555555556p-5,
                         0x1.111111110ff87p-7, 0x1.6c16c16c16212p-10, 0x1.a01a01aca0134p-13,
                         0x1.a01a01a741b3cp-16, 0x1.71ddffef9e7b1p-19, 0x1.27e4da1a3bf04p-22,
                         0x1.af52906239de4p-26, 0x1.1f75aba0b1e2ep-29);
}

// exp(hi + lo) as exp_sum below, for lanes whose result is a normal number (|hi| below
// normal_exp_limit): the power of two is added to the exponent field, the same value as
// exp_sum's two products.
template <class T>
inline constexpr T normal_exp_limit = layout<T>::is_float ? T(86) : T(700);
template <bool Lo, class V>
DIMGRAPH_ALWAYS_INLINE inline V exp_sum_normal(V hi, V lo) {
  using T = value_t<V>;
  using L = layout<T>;
  const auto k = round_to_int(hi * log2e<T>);
  V r = (hi - k.value * ln2_hi<T>)-k.value * ln2_lo<T>;
  if constexpr (Lo) r = r + lo;
  const V e = T(1) + (r + r * r * expm1_poly(r));
  return bits<V>(bits<int_t<V>>(e) + (k.integer << L::mantissa));
}

// exp(hi + lo) for |lo| much smaller than ulp(hi); hi is clamped to where exp is 0 or inf.
// The power of two is applied in two halves so that a subnormal result is rounded once. A
// vector whose lanes all have normal results (the common case) takes exp_sum_normal (Lo: lo
// may be nonzero).
template <class V, bool Lo = true>
DIMGRAPH_ALWAYS_INLINE inline V exp_sum(V hi, V lo, std::bool_constant<Lo> = {}) {
  using T = value_t<V>;
  if (all_lanes_less(abs(hi), fill<V>(normal_exp_limit<T>))) [[likely]]
    return exp_sum_normal<Lo>(hi, lo);
  constexpr T lowest = layout<T>::is_float ? T(-104) : T(-746);
  constexpr T highest = layout<T>::is_float ? T(89) : T(710);
  const int_t<V> clamped = (hi < lowest) | (hi > highest);
  hi = at_most(at_least(hi, lowest), highest);  // NaN stays NaN
  lo = clamped ? V{} : lo;
  const auto k = round_to_int(hi * log2e<T>);
  const V r = (hi - k.value * ln2_hi<T>)-k.value * ln2_lo<T> + lo;
  const V e = T(1) + (r + r * r * expm1_poly(r));
  const int_t<V> k1 = k.integer >> 1;
  return e * pow2i<V>(k1) * pow2i<V>(k.integer - k1);
}

// x = k ln2 + r with |r| <= ln2 / 2, and expm1(r), for |x| within the exponent range.
template <class V>
struct expm1_split {
  V p;
  int_t<V> k;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline expm1_split<V> expm1_reduce(V x) {
  using T = value_t<V>;
  const auto k = round_to_int(x * log2e<T>);
  const V r = (x - k.value * ln2_hi<T>)-k.value * ln2_lo<T>;
  return {r + r * r * expm1_poly(r), k.integer};
}

// expm1(x) without the sign of zero: 2^k expm1(r) + (2^k - 1), k capped at the largest finite
// power of two and the rest applied after.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V expm1_unsigned_zero(V x) {
  using T = value_t<V>;
  using L = layout<T>;
  constexpr T lowest = L::is_float ? T(-17.5) : T(-38);  // expm1 rounds to -1 below
  constexpr T highest = L::is_float ? T(89) : T(710);
  x = at_most(at_least(x, lowest), highest);
  const expm1_split<V> e = expm1_reduce(x);
  const int_t<V> max_exponent = int_t<V>{} + L::bias;
  const int_t<V> kc = e.k > max_exponent ? max_exponent : e.k;
  const V s = pow2i<V>(kc);
  return (s * e.p + (s - T(1))) * pow2i<V>(e.k - kc);
}

// R(z) = (2 atanh(s) - 2 s) / s / z with z = s^2, s in [-(3 - 2 sqrt2), 3 - 2 sqrt2].
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V log_poly(V z) {
  if constexpr (layout<value_t<V>>::is_float)
    return horner(z, 0x1.555556p-1f, 0x1.9999eep-2f, 0x1.245b28p-2f, 0x1.de0b02p-3f);
  else
    return horner(z, 0x1.5555555555558p-1, 0x1.9999999994e76p-2, 0x1.2492492e6dfddp-2,
                  0x1.c71c6247410e3p-3, 0x1.7462e17b4cdd0p-3, 0x1.39f8963ccbdc2p-3,
                  0x1.2b9f7fb3de73fp-3);
}

// The small integer lanes k as floating-point lanes (|k| < 2^22).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V int_to_float(int_t<V> k) {
  constexpr auto magic = layout<value_t<V>>::round_magic;
  return bits<V>(bits<int_t<V>>(fill<V>(magic)) + k) - magic;
}

// k ln2 + log(1 + f) + c for 1 + f in [sqrt(1/2), sqrt(2)) and a small correction c
// (fdlibm's log: s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V log_reduced(V f, int_t<V> k, V c) {
  using T = value_t<V>;
  const V s = f / (T(2) + f);
  const V z = s * s;
  const V hfsq = T(0.5) * f * f;
  const V dk = int_to_float<V>(k);
  return s * (hfsq + z * log_poly(z)) + (dk * ln2_lo<T> + c) - hfsq + f + dk * ln2_hi<T>;
}

// x = 2^k m with m in [sqrt(1/2), sqrt(2)), for positive finite x (subnormals included).
template <class V>
struct log_split {
  V m;
  int_t<V> k;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline log_split<V> split_exponent(V x) {
  using T = value_t<V>;
  using L = layout<T>;
  using I = int_t<V>;
  using U = uint_t<V>;
  constexpr int shift = L::mantissa + 2;
  constexpr T min_normal = static_cast<T>(L::is_float ? 0x1p-126 : 0x1p-1022);  // (exact in T)
  const I subnormal = x < min_normal;
  x = subnormal ? x * T(L::is_float ? 0x1p25f : 0x1p54) : x;
  const U u = bits<U>(x) + (L::one - L::sqrt_half);
  const I k = bits<I>(u >> L::mantissa) - L::bias - (subnormal & shift);
  const U mantissa_mask = U{} + ((typename L::bits_type(1) << L::mantissa) - 1);
  return {bits<V>((u & mantissa_mask) + L::sqrt_half), k};
}

// erf(x) / x - 1 as a polynomial in x^2 for |x| < 0.75.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erf_small_poly(V s) {
  if constexpr (layout<value_t<V>>::is_float)
    return horner(s, 0x1.06ebbp-3f, -0x1.812746p-2f, 0x1.ce2efep-4f, -0x1.b82706p-6f,
                  0x1.55e334p-8f, -0x1.b624cap-11f, 0x1.8d385p-14f);
  else
    return horner(s, 0x1.06eba8214db68p-3, -0x1.812746b0379e7p-2, 0x1.ce2f21a042bc6p-4,
                  -0x1.b82ce31287ce6p-6, 0x1.565bcd0e2c679p-8, -0x1.c02db3ec9fd99p-11,
                  0x1.f9a32306e0932p-14, -0x1.f4d1d6286861cp-17, 0x1.b9dae461077e7p-20,
                  -0x1.5ec0e0bec99f7p-23, 0x1.ef41d2b29a3a8p-27, -0x1.05364c48fa2d3p-30);
}

// erfc(z) * scale for z >= 0.75: exp(-z^2) (R(t) scale) with R(t) = erfc(z) exp(z^2),
// t = 1 / (1 + c z), given z^2 as hi + lo; a subnormal result is rounded once. Fitted up to
// z = 10.5 (float) and 28 (double), where erfc underflows.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erfc_tail(V z, pair<V> z2, V scale) {
  using T = value_t<V>;
  if constexpr (layout<T>::is_float) {
    z = at_most(z, T(10.5));
    const V t = T(1) / (T(1) + T(0.5) * z);
    const V r = horner(t, 0x1.28ed7ep-19f, 0x1.20cb34p-2f, 0x1.21d898p-2f, 0x1.ea032ep-3f,
                       0x1.b6b2cap-3f, -0x1.4f18eap-5f, 0x1.0d778cp-2f, -0x1.a1bfbep-2f,
                       0x1.57906ap-3f, 0x1.5bfc76p-6f, -0x1.6664f6p-6f);
    return exp_sum(-z2.hi, -z2.lo) * (r * scale);
  } else {
    z = at_most(z, T(28));
    const V t = T(1) / (T(1) + T(0.25) * z);
    const V r = horner(
        t, 0x1.286e97734a393p-39, 0x1.20dd74ff288adp-3, 0x1.20dd75a5c35aap-3, 0x1.17d67cb21ea95p-3,
        0x1.05c96333ec8d2p-3, 0x1.d70accdd15916p-4, 0x1.9619e52dd4137p-4, 0x1.4934dc18a0c9ep-4,
        0x1.0e63ee3dc2a39p-4, 0x1.ef8341ade6d3dp-6, 0x1.4053da8bed8eep-4, -0x1.ea4ef400761e7p-4,
        0x1.462ab5847f73cp-2, -0x1.293a52c8b5e2ep-1, 0x1.c5f308ebabde8p-1, -0x1.175a0a3bb90c3p+0,
        0x1.0e4338aee5a67p+0, -0x1.938bf4f3525fdp-1, 0x1.b918e093e5276p-2, -0x1.464e1f2cdd3adp-3,
        0x1.21826f347c18ap-5, -0x1.d0a1582df1cffp-9);
    return exp_sum(-z2.hi, -z2.lo) * (r * scale);
  }
}

// x^2 * scale as hi + lo (scale a power of two): hi exact, lo rounded once.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline pair<V> scaled_square(V x, value_t<V> scale) {
  const V h = high_half(x);
  return {h * h * scale, (x - h) * (x + h) * scale};
}

// sin(r) and cos(r) for |r| <= pi/4 (double), r = hi + lo.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V sin_poly(V r, V lo) {
  const V z = r * r;
  const V s = horner(z, -0x1.5555555555555p-3, 0x1.1111111110b23p-7, -0x1.a01a019e620eep-13,
                     0x1.71de376b644ccp-19, -0x1.ae5fde7f12068p-26, 0x1.5dfb39c3139b6p-33);
  return r + (r * z * s + lo * (1.0 - 0.5 * z));
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V cos_poly(V r, V lo) {
  const V z = r * r;
  const V c = horner(z, 0x1.5555555555555p-5, -0x1.6c16c16c1691fp-10, 0x1.a01a019f3dde1p-16,
                     -0x1.27e4fa0241f7cp-22, 0x1.1eeb52a201da3p-29, -0x1.906dbf4fda044p-37);
  const V hz = 0.5 * z;
  const V w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * z * c - r * lo));
}

// sin(x + Quarter * pi/2) for double lanes: Cody-Waite reduction by pi/2 in four parts, the
// first three of 33 bits so that k * part is exact for |k| < 2^20, i.e. |x| < 1.6e6.
template <int Quarter, class V>
DIMGRAPH_ALWAYS_INLINE inline V sin_quarter(V x) {
  using I = int_t<V>;
  using U = uint_t<V>;
  const auto k = round_to_int(x * 0x1.45f306dc9c883p-1);
  const V kf = k.value;
  const V r1 = x - kf * 0x1.921fb544p+0;
  const pair<V> r2 = two_sum(r1, -(kf * 0x1.0b4611a6p-34));
  const V tail = r2.lo - kf * 0x1.3198a2ep-69 - kf * 0x1.b839a252049c1p-104;
  const pair<V> r = two_sum(r2.hi, tail);
  // Beyond 2^51 the quadrant is lost: keep the result finite and within [-1, 1].
  const I lost = abs(r.hi) > 2.0;
  const V rh = lost ? V{} : r.hi;
  const V rl = lost ? V{} : r.lo;
  const I q = k.integer + Quarter;
  const V y = (q & 1) != 0 ? cos_poly(rh, rl) : sin_poly(rh, rl);
  const U flip = bits<U>((q & 2) << 62);
  return bits<V>(bits<U>(y) ^ flip);
}

// float lanes computed as double lanes, half a vector at a time (so no vector is wider; the
// public functions pass at least 16 bytes, so a half is at least two lanes).
template <class F, class V, class... A>
DIMGRAPH_ALWAYS_INLINE inline V via_double(F f, V x, A... y) {
  using H = vec<float, lanes_v<V> / 2>;
  V out;
  for (std::size_t half = 0; half < 2; ++half) {
    const auto part = [half](V v) DIMGRAPH_ALWAYS_INLINE {
      H h;
      std::memcpy(&h, reinterpret_cast<const char*>(&v) + half * sizeof(H), sizeof(H));
      return convert<double>(h);
    };
    const H r = convert<float>(f(part(x), part(y)...));
    std::memcpy(reinterpret_cast<char*>(&out) + half * sizeof(H), &r, sizeof(H));
  }
  return out;
}

// log(a) as hi + lo for positive finite double lanes, to about 2^-70 relative (for pow), after
// fdlibm's pow: with s = f / (2 + f), log(1 + f) = 2/3 s (3 + s^2 + r), r = 3/2 s^4 Q2(s^2),
// where s, 3 + s^2 + r and their product are carried as a half-width high part plus the rest.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline pair<V> log_double_word(V a) {
  const log_split<V> sp = split_exponent(a);
  const V f = sp.m - 1.0;
  const V den = sp.m + 1.0;
  const V den_h = high_half(den);
  const V den_l = sp.m - (den_h - 1.0);
  const V s = f / den;
  const V s_h = high_half(s);
  const V s_l = (f - s_h * den_h - s_h * den_l) / den;
  const V z = s * s;
  const V q2 = horner(z, 0x1.999999999999fp-2, 0x1.249249248e146p-2, 0x1.c71c71d8c53b5p-3,
                      0x1.745d09640eef7p-3, 0x1.3b18e0ae3818bp-3, 0x1.10138b989b9b4p-3,
                      0x1.08b7b3fabc5b2p-3);
  const V s2_h = s_h * s_h;
  const V r = 1.5 * z * z * q2 + s_l * (s_h + s);
  const V t_h = high_half(3.0 + s2_h + r);
  const V t_l = r - ((t_h - 3.0) - s2_h);
  const V u = s_h * t_h;
  const V v = s_l * t_h + t_l * s;
  const V p_h = high_half(u + v);
  const V p_l = v - (p_h - u);
  constexpr double two_thirds_h = 0x1.555555p-1, two_thirds_l = 0x1.5555555555555p-27;
  const V m_h = two_thirds_h * p_h;
  const V m_l = two_thirds_l * p_h + p_l * (2.0 / 3.0);
  const V dk = int_to_float<V>(sp.k);
  const pair<V> h = two_sum(dk * ln2_hi<double>, m_h);
  const V lo = h.lo + (m_l + dk * ln2_lo<double>);
  const V hi = h.hi + lo;
  return {hi, lo - (hi - h.hi)};
}

// |x|^y for double lanes with x, y finite and x nonzero: exp(y log|x|) in double-word steps.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow_finite(V a, V y) {
  const pair<V> l = log_double_word(a);
  const V y_h = high_half(y);
  const V l_h = high_half(l.hi);
  const V p_hi = y_h * l_h;
  const V p_lo = y_h * (l.hi - l_h) + (y - y_h) * l.hi + y * l.lo;
  const V hi = p_hi + p_lo;
  return exp_sum(hi, p_lo - (hi - p_hi));
}

// C's pow(x, y) for double lanes.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow_double(V x, V y) {
  using I = int_t<V>;
  using U = uint_t<V>;
  constexpr double inf = layout<double>::infinity;
  const V a = abs(x);
  const V ay = abs(y);
  const I finite_a = (a > 0.0) & (a < inf);
  const I infinite_y = ay == inf;
  V r = pow_finite(finite_a ? a : fill<V>(1.0), ay < inf ? y : V{});
  // Zero or infinite |x|, or infinite y: 0 or inf, by whether |x|^y grows.
  const V grows = ((a > 1.0) == (y > 0.0)) ? fill<V>(inf) : V{};
  r = (~finite_a | infinite_y) ? grows : r;
  r = ((a == 1.0) & infinite_y) ? fill<V>(1.0) : r;
  // Odd integer y keeps the sign of x; negative finite x with y not an integer gives NaN.
  const V shifted = ay < 0x1p52 ? ay + 0x1p52 : ay;
  const I integer = (ay >= 0x1p52) | ((shifted - 0x1p52) == ay);
  const I odd = integer & (ay < 0x1p53) & ((bits<I>(shifted) & 1) != 0);
  const U sign = bits<U>(x) & layout<double>::sign;
  r = bits<V>(bits<U>(r) ^ (odd ? sign : U{}));
  r = ((x < 0.0) & (x > -inf) & ~integer) ? fill<V>(layout<double>::nan) : r;
  r = ((x != x) | (y != y)) ? x + y : r;
  return ((y == 0.0) | (x == 1.0)) ? fill<V>(1.0) : r;
}

// f(x, y...) for vectors narrower than 16 bytes (the one-lane remainder of a loop), computed
// in the first lanes of 16-byte vectors: lanes are computed as in any vector, so the results
// are the same bits, and no one-lane comparison is left for GCC 12 to expand into branches,
// around which it can drop the stack adjustments of calls in an enclosing loop (the stack
// then grows with each iteration).
template <class F, class V, class... A>
DIMGRAPH_ALWAYS_INLINE inline V widened(F f, V x, A... y) {
  using W = vec<value_t<V>, 16 / sizeof(value_t<V>)>;
  const auto widen = [](V v) DIMGRAPH_ALWAYS_INLINE {
    W w{};
    std::memcpy(&w, &v, sizeof(V));
    return w;
  };
  const W r = f(widen(x), widen(y)...);
  std::memcpy(&x, &r, sizeof(V));
  return x;
}

}  // namespace math

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
// results agree bit for bit.
#define DIMGRAPH_SIMD_MATH_SCALAR(NAME)                 \
  DIMGRAPH_ALWAYS_INLINE inline float NAME(float x) {   \
    return NAME(vec<float, 1>{x})[0];                   \
  }                                                     \
  DIMGRAPH_ALWAYS_INLINE inline double NAME(double x) { \
    return NAME(vec<double, 1>{x})[0];                  \
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
DIMGRAPH_ALWAYS_INLINE inline float pow(float x, float y) {
  return pow(vec<float, 1>{x}, vec<float, 1>{y})[0];
}
DIMGRAPH_ALWAYS_INLINE inline double pow(double x, double y) {
  return pow(vec<double, 1>{x}, vec<double, 1>{y})[0];
}

}  // namespace dimgraph::detail::simd
