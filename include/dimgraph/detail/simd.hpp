// SIMD vectors: the target's vector width, fixed-lane vector types, loads, stores, casts.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"

// Vectors are GCC/Clang vector extensions: one source for every target (SSE2, AVX2,
// AVX-512, NEON, or the compiler's generic lowering elsewhere). Every kernel works on
// vectors of L lanes chosen so that the widest element type of the kernel fills one
// register (no vector is wider than a register, so no ABI notes); L == 1 is the scalar
// form of the same code, so a remainder computes bit-for-bit what the vector body does.
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd {

// The target's widest vector register in bytes, capped by DIMGRAPH_CONFIG_SIMD_MAX_BYTES.
#if defined(__AVX512F__)
inline constexpr std::size_t target_bytes = 64;
#elif defined(__AVX__)
inline constexpr std::size_t target_bytes = 32;
#else
inline constexpr std::size_t target_bytes = 16;
#endif
inline constexpr std::size_t bytes =
    target_bytes < DIMGRAPH_CONFIG_SIMD_MAX_BYTES ? target_bytes : DIMGRAPH_CONFIG_SIMD_MAX_BYTES;
static_assert(bytes >= 1 && (bytes & (bytes - 1)) == 0,
              "dimgraph: DIMGRAPH_CONFIG_SIMD_MAX_BYTES must be a power of two");

// The arithmetic type a lane holds for element type T: itself for numbers; bool lanes are
// masks (0 or all ones, as comparisons give them) of one byte.
template <class T>
struct lane {
  using type = T;
};
template <>
struct lane<bool> {
  using type = std::int8_t;
};
template <class T>
using lane_t = typename lane<T>::type;

// vec<T, L>: L lanes of T (T an arithmetic lane type).
template <class T, std::size_t L>
struct vec_of {
  typedef T type __attribute__((vector_size(sizeof(T) * L)));
};
template <class T, std::size_t L>
using vec = typename vec_of<T, L>::type;

// The same aligned only as T: for loads and stores at any element. An access through it is
// an access to T's (a store of floats cannot change a pointer, so the compiler keeps pointers
// in registers across it; a store through memcpy may change anything).
template <class T, std::size_t L>
struct unaligned_vec_of {
  typedef T type __attribute__((vector_size(sizeof(T) * L), aligned(alignof(T))));
};
template <class T, std::size_t L>
using unaligned_vec = typename unaligned_vec_of<T, L>::type;

// The lane type and count of a vector.
template <class V>
struct traits;
template <class V>
  requires requires(V v) { v[0]; }
struct traits<V> {
  using value_type = std::remove_cvref_t<decltype(std::declval<V>()[0])>;
  static constexpr std::size_t lanes = sizeof(V) / sizeof(value_type);
};
template <class V>
using value_t = typename traits<V>::value_type;
template <class V>
inline constexpr std::size_t lanes_v = traits<V>::lanes;

// Lanes per vector for a kernel whose widest lane type has `widest` bytes.
constexpr std::size_t lanes_for(std::size_t widest) {
  return bytes / widest ? bytes / widest : 1;
}

// The signed integer type of a lane's width (what a comparison of such lanes gives).
template <std::size_t Bytes>
struct int_of_size;
template <>
struct int_of_size<1> {
  using type = std::int8_t;
};
template <>
struct int_of_size<2> {
  using type = std::int16_t;
};
template <>
struct int_of_size<4> {
  using type = std::int32_t;
};
template <>
struct int_of_size<8> {
  using type = std::int64_t;
};
template <class T>
using mask_lane_t = typename int_of_size<sizeof(T)>::type;

// Reinterpret the bits of a vector as another of the same size.
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline To bits(V v) {
  static_assert(sizeof(To) == sizeof(V));
  To r;
  std::memcpy(&r, &v, sizeof(V));
  return r;
}

// Lane-wise conversion between vectors of the same lane count (value conversion).
// (GCC 12 converts 4 floats to 4 doubles as two halves, through a shuffle, and 2 floats from
// memory one at a time: on x86 its conversion builtins take them directly.)
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline vec<To, lanes_v<V>> convert(V v) {
  constexpr std::size_t L = lanes_v<V>;
  if constexpr (std::is_same_v<value_t<V>, To>) {
    return v;
  } else if constexpr (std::is_same_v<value_t<V>, float> && std::is_same_v<To, double> &&
                       (L == 2 || L == 4)) {
#if defined(__SSE2__) && defined(__GNUC__) && !defined(__clang__)  // (Clang's are fine)
    if constexpr (L == 2) {
      vec<long long, 2> low{};
      std::memcpy(&low, &v, sizeof(v));
      return __builtin_ia32_cvtps2pd(bits<vec<float, 4>>(low));
    }
#if defined(__AVX__)
    else {
      return __builtin_ia32_cvtps2pd256(v);
    }
#endif
#endif
    return __builtin_convertvector(v, vec<To, L>);
  } else {
    return __builtin_convertvector(v, vec<To, L>);
  }
}

// All lanes equal to x.
template <class T, std::size_t L>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> splat(T x) {
  return vec<T, L>{} + x;
}

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
namespace mask_detail {
using chunk = vec<long long, 2>;  // one 16-byte register

// Chunks of lanes W bytes wide as chunks of lanes W / 2 bytes wide: chunks 2k and 2k + 1 packed
// with saturation (exact on 0 and -1) into chunk k (the last one with itself when N is odd).
template <std::size_t W, std::size_t N, std::size_t... K>
DIMGRAPH_ALWAYS_INLINE inline std::array<chunk, (N + 1) / 2> narrow_step(
    const std::array<chunk, N>& c, std::index_sequence<K...>) {
  const auto pack = [](chunk a, chunk b) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (W == 8)  // the low half of each lane
      return bits<chunk>(
          __builtin_ia32_shufps(bits<vec<float, 4>>(a), bits<vec<float, 4>>(b), 0x88));
    else if constexpr (W == 4)
      return bits<chunk>(__builtin_ia32_packssdw128(bits<vec<int, 4>>(a), bits<vec<int, 4>>(b)));
    else
      return bits<chunk>(
          __builtin_ia32_packsswb128(bits<vec<short, 8>>(a), bits<vec<short, 8>>(b)));
  };
  return {pack(c[2 * K], c[2 * K + 1 < N ? 2 * K + 1 : 2 * K])...};
}
template <std::size_t W, std::size_t To, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline auto narrow(const std::array<chunk, N>& c) {
  if constexpr (W == To) return c;
  else return narrow<W / 2, To>(narrow_step<W>(c, std::make_index_sequence<(N + 1) / 2>{}));
}

// Chunk a of lanes W bytes wide with each lane of its low (or high) half repeated: the lanes
// of that half, twice as wide (punpckl / punpckh of a with itself).
template <std::size_t W, bool High, std::size_t... I>
DIMGRAPH_ALWAYS_INLINE inline chunk unpack_half(chunk a, std::index_sequence<I...>) {
  using V = vec<typename int_of_size<W>::type, 16 / W>;
  const V x = bits<V>(a);
  return bits<chunk>(__builtin_shufflevector(x, x, (High ? 8 / W : 0) + I / 2 ...));
}

// Chunks of lanes W bytes wide as chunks of lanes 2 W bytes wide: chunk k becomes chunks 2k
// (its low half) and 2k + 1.
template <std::size_t W, std::size_t N, std::size_t... K>
DIMGRAPH_ALWAYS_INLINE inline std::array<chunk, 2 * N> widen_step(const std::array<chunk, N>& c,
                                                                  std::index_sequence<K...>) {
  constexpr auto lanes = std::make_index_sequence<16 / W>{};
  return {
      (K % 2 ? unpack_half<W, true>(c[K / 2], lanes) : unpack_half<W, false>(c[K / 2], lanes))...};
}
template <std::size_t W, std::size_t To, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline auto widen(const std::array<chunk, N>& c) {
  if constexpr (W == To) return c;
  else return widen<W * 2, To>(widen_step<W>(c, std::make_index_sequence<2 * N>{}));
}
}  // namespace mask_detail
#endif

// A mask (every lane 0 or all ones) as a mask of To lanes (To a signed integer type), lane for
// lane. __builtin_convertvector would do, but GCC 12 turns a narrowing conversion (a float
// comparison's 32-bit mask to bool's 8 bits) into one lane at a time, and without SSE4.1 a
// widening one too; on x86 the lanes are packed with saturation, two 16-byte registers into one,
// or unpacked against themselves.
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline vec<To, lanes_v<V>> mask_cast(V m) {
  using From = value_t<V>;
  constexpr std::size_t L = lanes_v<V>;
  static_assert(std::is_integral_v<To> && std::is_signed_v<To> && std::is_integral_v<From>);
  if constexpr (sizeof(To) == sizeof(From)) {
    return bits<vec<To, L>>(m);
  } else {
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    using mask_detail::chunk;
    constexpr std::size_t in_chunks = (sizeof(V) + 15) / 16;
#if defined(__SSE4_1__)
    constexpr bool unpack = false;  // (pmovsx)
#else
    constexpr bool unpack = sizeof(To) > sizeof(From);
#endif
    if constexpr (sizeof(To) < sizeof(From) || unpack) {
      std::array<chunk, in_chunks> c;
      if constexpr (sizeof(V) < 16) {
        // (In the low lanes of a zeroed register: a memcpy would go through the stack.)
        using S = typename int_of_size<sizeof(V)>::type;
        vec<S, 16 / sizeof(V)> low{};
        low[0] = bits<S>(m);
        c[0] = bits<chunk>(low);
      } else {
        std::memcpy(c.data(), &m, sizeof(V));
      }
      const auto r = [&] {
        if constexpr (sizeof(To) < sizeof(From))
          return mask_detail::narrow<sizeof(From), sizeof(To)>(c);
        else return mask_detail::widen<sizeof(From), sizeof(To)>(c);
      }();
      vec<To, L> out;
      static_assert(sizeof(r) >= sizeof(out));
      std::memcpy(&out, r.data(), sizeof(out));
      return out;
    } else {
      return __builtin_convertvector(m, vec<To, L>);
    }
#else
    return __builtin_convertvector(m, vec<To, L>);
#endif
  }
}

// Whether every lane of the mask m (lanes 0 or all ones) is set.
template <class M>
DIMGRAPH_ALWAYS_INLINE inline bool all_lanes(M m) {
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(M) == 16) {
    return __builtin_ia32_pmovmskb128(bits<vec<char, 16>>(m)) == 0xffff;
  }
#if defined(__AVX2__)
  else if constexpr (sizeof(M) == 32) {
    return __builtin_ia32_pmovmskb256(bits<vec<char, 32>>(m)) == -1;
  }
#endif
#if defined(__AVX512F__)
  // A lane compare into a mask register tested at once (the compiler folds it into the compare
  // that made m), instead of folding four 16-byte quarters.
  else if constexpr (sizeof(M) == 64 && sizeof(m[0]) == 4) {
    return __builtin_ia32_cmpd512_mask(bits<vec<int, 16>>(m), vec<int, 16>{}, 4, 0xffff) == 0xffff;
  } else if constexpr (sizeof(M) == 64 && sizeof(m[0]) == 8) {
    return __builtin_ia32_cmpq512_mask(bits<vec<long long, 8>>(m), vec<long long, 8>{}, 4, 0xff) ==
           0xff;
  }
#endif
  else if constexpr (sizeof(M) % 16 == 0) {
    vec<char, 16> c[sizeof(M) / 16];
    std::memcpy(c, &m, sizeof(M));
    vec<char, 16> both = c[0];
    for (std::size_t k = 1; k < sizeof(M) / 16; ++k) both &= c[k];
    return __builtin_ia32_pmovmskb128(both) == 0xffff;
  }
#endif
  bool all = true;
  for (std::size_t l = 0; l < lanes_v<M>; ++l) all = all && m[l] != 0;
  return all;
}

// The lanes of v folded into one as a tree: f(lower half, upper half) lane by lane, then the
// same on that, down to one lane: log2 L steps on the vector unit, where folding in lane order
// is L dependent scalar steps, each after a lane extract. (For a sum the order of additions
// differs from lane order.)
template <class V, class F>
DIMGRAPH_ALWAYS_INLINE inline vec<value_t<V>, 1> fold_lanes(V v, F f) {
  if constexpr (lanes_v<V> == 1) {
    return v;
  } else {
    // Halves by shuffles, so that v stays in registers (a copy through memory would make the
    // compiler keep the loop's accumulator on the stack).
    return [&]<std::size_t... I>(std::index_sequence<I...>) DIMGRAPH_ALWAYS_INLINE {
      return fold_lanes(f(__builtin_shufflevector(v, v, I...),
                          __builtin_shufflevector(v, v, (I + sizeof...(I))...)),
                        f);
    }(std::make_index_sequence<lanes_v<V> / 2>{});
  }
}

// f folded over every lane of v, the result in every lane: v with each lane combined with the
// lane W / 2 away, then W / 4, ..., 1 (butterfly shuffles). Where fold_lanes halves the
// vector, this keeps its width, for an f that must not see vectors narrower than v (GCC
// compiles a NaN-propagating compare of 2- and 1-lane vectors to a branch per lane).
template <std::size_t Half, class V, class F>
DIMGRAPH_ALWAYS_INLINE inline V butterfly_fold(V v, F f) {
  if constexpr (Half == 0) {
    return v;
  } else {
    const V swapped = [&]<std::size_t... I>(std::index_sequence<I...>) DIMGRAPH_ALWAYS_INLINE {
      return __builtin_shufflevector(v, v, (I ^ Half)...);
    }(std::make_index_sequence<lanes_v<V>>{});
    return butterfly_fold<Half / 2>(f(v, swapped), f);
  }
}
template <class V, class F>
DIMGRAPH_ALWAYS_INLINE inline V fold_lanes_in_place(V v, F f) {
  return butterfly_fold<lanes_v<V> / 2>(v, f);
}

// Whether a < b in every lane (false for a NaN lane). The same as all_lanes(a < b); with
// AVX-512 the compare goes straight into a mask register (GCC would otherwise widen the mask
// into a vector and compare it again).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline bool all_lanes_less(V a, V b) {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(V) == 64 && std::is_same_v<std::remove_cvref_t<decltype(a[0])>, float>) {
    // (No lane "not less, or unordered": a test of the mask against zero, one kortest.)
    return __builtin_ia32_cmpps512_mask(a, b, 0x15 /* not less, unordered */, 0xffff, 4) == 0;
  } else if constexpr (sizeof(V) == 64 &&
                       std::is_same_v<std::remove_cvref_t<decltype(a[0])>, double>) {
    return __builtin_ia32_cmppd512_mask(a, b, 0x15, 0xff, 4) == 0;
  }
#endif
  return all_lanes(a < b);
}

// Whether no lane of v is NaN. The same as all_lanes(v == v), compared straight into a mask
// register with AVX-512.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline bool no_nan_lanes(V v) {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(V) == 64 && std::is_same_v<std::remove_cvref_t<decltype(v[0])>, float>) {
    return __builtin_ia32_cmpps512_mask(v, v, 0x07 /* ordered */, 0xffff, 4) == 0xffff;
  } else if constexpr (sizeof(V) == 64 &&
                       std::is_same_v<std::remove_cvref_t<decltype(v[0])>, double>) {
    return __builtin_ia32_cmppd512_mask(v, v, 0x07, 0xff, 4) == 0xff;
  }
#endif
  return all_lanes(v == v);
}

// L lanes from p (unaligned), from p, p + s, p + 2s, ... (strided), or one value repeated.
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> load(const T* p) {
  vec<T, L> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> load_strided(const T* p, std::ptrdiff_t s) {
  vec<T, L> v{};
  for (std::size_t l = 0; l < L; ++l) v[l] = p[static_cast<std::ptrdiff_t>(l) * s];
  return v;
}
template <std::size_t L, class V>
DIMGRAPH_ALWAYS_INLINE inline void store(value_t<V>* p, V v) {
  static_assert(lanes_v<V> == L);
  std::memcpy(p, &v, sizeof(v));
}
template <std::size_t L, class V>
DIMGRAPH_ALWAYS_INLINE inline void store_strided(value_t<V>* p, std::ptrdiff_t s, V v) {
  static_assert(lanes_v<V> == L);
  for (std::size_t l = 0; l < L; ++l) p[static_cast<std::ptrdiff_t>(l) * s] = v[l];
}

}  // namespace dimgraph::detail::simd
DIMGRAPH_WIDE_END
