// SIMD vectors: the target's vector width, fixed-lane vector types, loads, stores, casts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dimgraph/config.hpp"

// Vectors are GCC/Clang vector extensions: one source for every target (SSE2, AVX2,
// AVX-512, NEON, or the compiler's generic lowering elsewhere). Every kernel works on
// vectors of L lanes chosen so that the widest element type of the kernel fills one
// register (no vector is wider than a register, so no ABI notes); L == 1 is the scalar
// form of the same code, so a remainder computes bit-for-bit what the vector body does.
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

// Lane-wise conversion between vectors of the same lane count (value conversion).
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline vec<To, lanes_v<V>> convert(V v) {
  if constexpr (std::is_same_v<value_t<V>, To>) return v;
  else return __builtin_convertvector(v, vec<To, lanes_v<V>>);
}

// All lanes equal to x.
template <class T, std::size_t L>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> splat(T x) {
  return vec<T, L>{} + x;
}

// Reinterpret the bits of a vector as another of the same size.
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline To bits(V v) {
  static_assert(sizeof(To) == sizeof(V));
  To r;
  std::memcpy(&r, &v, sizeof(V));
  return r;
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
