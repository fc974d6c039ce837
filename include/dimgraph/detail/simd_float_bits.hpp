// The SIMD math functions' tools: float layout, exact splits and sums, polynomials, wider lanes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"

DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd::math {

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
// x within [lo, hi]; NaN stays NaN.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V clamped(V x, value_t<V> lo, value_t<V> hi) {
  return at_most(at_least(x, lo), hi);
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

// The nearest integer k to x (|x| < 2^(mantissa - 1)) as a float lane, as an integer lane,
// and as k << mantissa, the field that adds k to a float's exponent. (The sum's low bits are
// magic's, all zero, plus k: shifted left they are k's own, so the field is one shift, no
// subtraction.)
template <class V>
struct rounded {
  V value;
  int_t<V> integer;
  int_t<V> exponent_field;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline rounded<V> round_to_int(V x) {
  using L = layout<value_t<V>>;
  constexpr auto magic = L::round_magic;
  static_assert(typename L::bits_type(std::bit_cast<typename L::bits_type>(magic) << L::mantissa) ==
                0);
  const V t = x + magic;
  return {t - magic, bits<int_t<V>>(t) - bits<int_t<V>>(fill<V>(magic)),
          bits<int_t<V>>(t) << L::mantissa};
}

// 2^k for integer lanes k in the normal exponent range.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow2i(int_t<V> k) {
  using L = layout<value_t<V>>;
  return bits<V>((k + L::bias) << L::mantissa);
}

// x * 2^k for integer lanes k, given as float lanes kf and as k << mantissa (kfield, see
// rounded), with x * 2^k a normal number: one instruction with AVX-512 (scalef), else kfield
// added to x's bits. (Exact either way, so the bits are the same.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V times_pow2(V x, [[maybe_unused]] V kf, int_t<V> kfield) {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(V) == 64) {
    // (The mask is unsigned in Clang's builtin, signed in GCC's: all lanes either way.)
#if defined(__clang__)
    constexpr unsigned short all = 0xffff;
#else
    constexpr short all = -1;
#endif
    if constexpr (std::is_same_v<value_t<V>, float>)
      return __builtin_ia32_scalefps512_mask(x, kf, V{}, all, 4);
    else return __builtin_ia32_scalefpd512_mask(x, kf, V{}, 0xff, 4);
  }
#endif
  return bits<V>(bits<int_t<V>>(x) + kfield);
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

}  // namespace dimgraph::detail::simd::math
DIMGRAPH_WIDE_END
