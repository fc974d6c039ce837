// The range reductions and polynomials behind the SIMD math functions: exp, log, erf, sin, pow.
#pragma once

#include <cstdint>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/simd_float_bits.hpp"

// (How they are accurate, and what they assume of the compiler: detail/simd_math.hpp.)
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd::math {

// (expm1(r) - r) / r^2 for |r| <= ln2 / 2. (One chain for exp: evaluated in pairs, float exp's
// largest error over all floats grows from 0.96 to 1.002 ulp. Paired: in pairs, a shorter
// chain of latencies, for callers whose bound has room.)
template <bool Paired = false, class V>
DIMGRAPH_ALWAYS_INLINE inline V expm1_poly(V r) {
  if constexpr (layout<value_t<V>>::is_float && Paired)
    return horner_pairs(r, r * r, 0x1p-1f, 0x1.555556p-3f, 0x1.5554e4p-5f, 0x1.1110ep-7f,
                        0x1.6d492p-10f, 0x1.a12a42p-13f);
  else if constexpr (layout<value_t<V>>::is_float)
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
  const auto k = round_to_int(hi * log2e<T>);
  V r = (hi - k.value * ln2_hi<T>)-k.value * ln2_lo<T>;
  if constexpr (Lo) r = r + lo;
  const V e = T(1) + (r + r * r * expm1_poly(r));
  return times_pow2(e, k.value, k.exponent_field);
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
  const int_t<V> outside = (hi < lowest) | (hi > highest);
  hi = clamped(hi, lowest, highest);  // NaN stays NaN
  lo = outside ? V{} : lo;
  const auto k = round_to_int(hi * log2e<T>);
  const V r = (hi - k.value * ln2_hi<T>)-k.value * ln2_lo<T> + lo;
  const V e = T(1) + (r + r * r * expm1_poly(r));
  const int_t<V> k1 = k.integer >> 1;
  return e * pow2i<V>(k1) * pow2i<V>(k.integer - k1);
}

// x = k ln2 + r with |r| <= ln2 / 2, and expm1(r), for |x| within the exponent range, where
// x = Scale a (1 or 2). For 2, k is rounded from a (the same product, exactly: the doubling is
// off the chain of latencies). Paired: the polynomial in pairs (a shorter chain, other bits).
template <class V>
struct expm1_split {
  V p;
  V kf;  // k as float lanes
  int_t<V> k;
  int_t<V> kfield;  // k << mantissa
};
template <int Scale = 1, bool Paired = false, class V>
DIMGRAPH_ALWAYS_INLINE inline expm1_split<V> expm1_reduce(V a) {
  static_assert(Scale == 1 || Scale == 2, "dimgraph: expm1_reduce: the scale is 1 or 2");
  using T = value_t<V>;
  const auto k = round_to_int(a * (T(Scale) * log2e<T>));
  V x = a;
  if constexpr (Scale == 2) x = a + a;
  const V r = (x - k.value * ln2_hi<T>)-k.value * ln2_lo<T>;
  return {r + r * r * expm1_poly<Paired>(r), k.value, k.integer, k.exponent_field};
}

// expm1(x) without the sign of zero: 2^k expm1(r) + (2^k - 1), k capped at the largest finite
// power of two and the rest applied after.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V expm1_unsigned_zero(V x) {
  using T = value_t<V>;
  using L = layout<T>;
  constexpr T lowest = L::is_float ? T(-17.5) : T(-38);  // expm1 rounds to -1 below
  constexpr T highest = L::is_float ? T(89) : T(710);
  x = clamped(x, lowest, highest);
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

}  // namespace dimgraph::detail::simd::math
DIMGRAPH_WIDE_END
