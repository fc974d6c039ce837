// Tensor factories: zeros, ones, full, iota and the seeded, portable uniform.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "dimgraph/detail/mt19937_64.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/tensor.hpp"

// The compile-time checks of a factory's shape arguments, one message per mistake.
#define DIMGRAPH_CHECK_EXTENTS(OP)                                                   \
  DIMGRAPH_CHECK_SHAPE_ARGS(OP, Ds, Es);                                             \
  static_assert(element<T>, "dimgraph: " OP                                          \
                            ": the element type must be bool, an 8-64-bit integer, " \
                            "float, double or dg::index<D>")

namespace dimgraph {
namespace detail {

// A value-initialised tensor of the given extents. After a reported error it is still a
// tensor (missing extents at their dims' lower bounds, a float stand-in for a non-element
// T), so that one mistake gives one message.
template <class T, class... Ds, detail::shape_arg... Es>
auto new_tensor(const char* op, const Es&... e) {
  using elem = std::conditional_t<element<T>, T, float>;
  return tensor<elem, Ds...>(shape_from<Ds...>(op, e...));
}

// The element that is the integer v (index<D> is made explicitly).
template <class T>
constexpr T element_from_integer(std::int64_t v) {
  if constexpr (is_index_v<T>) return T(v);
  else return static_cast<T>(v);
}

// The bounds uniform takes: T itself, or the integer of an index.
template <class T>
using uniform_bound_t = std::conditional_t<is_index_v<T>, std::int64_t, T>;

// A uniform integer in [0, count) from the generator, unbiased by rejection, or the raw
// 64 bits when count is 0 (meaning 2^64). Fully specified: the same on every platform.
inline std::uint64_t uniform_below(mt19937_64& gen, std::uint64_t count) {
  if (count == 0) return gen();
  const std::uint64_t reject_below = (0 - count) % count;  // 2^64 mod count
  std::uint64_t x = gen();
  while (x < reject_below) x = gen();
  return x % count;
}

// A uniform value in [lo, hi) from the top bits of one draw: k / 2^p for p = the
// mantissa width (24 or 53), which is exact, then lo + (hi - lo) * u in T with one
// rounding per step (separate statements: no fused multiply-add), clamped below hi.
template <class T>
T uniform_real(mt19937_64& gen, T lo, T hi) {
  constexpr int bits = std::numeric_limits<T>::digits;
  const T u =
      static_cast<T>(gen() >> (64 - bits)) * (T(1) / static_cast<T>(std::uint64_t{1} << bits));
  const T span = hi - lo;
  const T scaled = span * u;
  const T r = lo + scaled;
  return r < hi ? r : std::nextafter(hi, lo);
}

}  // namespace detail

// A tensor of zeros: dg::zeros<float, Batch, Feature>(dg::extent<Batch>(2)). Extents by
// tag in any order; static dims need none. Errors: a missing, repeated or foreign
// extent (compile time); an extent outside its dim's interval (shape_error, "zeros").
template <class T, class... Ds, detail::shape_arg... Es>
auto zeros(const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("zeros");
  return detail::new_tensor<T, Ds...>("zeros", e...);
}

// A tensor of ones (true for bool, index 1 for dg::index<D>). Errors: as zeros.
template <class T, class... Ds, detail::shape_arg... Es>
auto ones(const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("ones");
  auto x = detail::new_tensor<T, Ds...>("ones", e...);
  if constexpr (element<T>) std::fill_n(x.data(), x.size(), detail::element_from_integer<T>(1));
  return x;
}

// A tensor with every element equal to value: dg::full<float, Time>(0.5f, dg::extent<Time>(4)).
// Errors: as zeros.
template <class T, class... Ds, detail::shape_arg... Es>
auto full(std::type_identity_t<T> value, const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("full");
  auto x = detail::new_tensor<T, Ds...>("full", e...);
  if constexpr (element<T>) std::fill_n(x.data(), x.size(), value);
  return x;
}

// 0, 1, 2, ... in row-major order of Ds... (converted to T: an integer type narrower than
// the count wraps around; a dg::index<D> holds the count). Errors: as zeros; a bool
// element type (compile time).
template <class T, class... Ds, detail::shape_arg... Es>
auto iota(const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("iota");
  static_assert(!std::is_same_v<T, bool>, "dimgraph: iota: counting in bool makes no sense");
  auto x = detail::new_tensor<T, Ds...>("iota", e...);
  if constexpr (element<T> && !std::is_same_v<T, bool>) {
    T* p = x.data();
    for (std::size_t i = 0, n = x.size(); i < n; ++i)
      p[i] = detail::element_from_integer<T>(static_cast<std::int64_t>(i));
  }
  return x;
}

// Pseudo-random elements, the same for a seed on every platform and standard library:
// std::mt19937_64's sequence (fully specified by the standard) seeded with `seed`, one draw per
// element in row-major order of Ds..., mapped by dimgraph itself (not by a std::
// distribution, whose output is implementation-defined):
//   float, double: uniform in [lo, hi) from the draw's top 24 or 53 bits;
//   integers, bool and dg::index<D> (bounds are then integers): uniform in [lo, hi],
//   unbiased (rejection sampling; a rejected draw takes another).
// Errors: as zeros; lo > hi, or for floating point lo >= hi or a non-finite lo, hi or
// hi - lo (dg::error, "uniform").
template <class T, class... Ds, detail::shape_arg... Es>
auto uniform(std::uint64_t seed, detail::uniform_bound_t<T> lo, detail::uniform_bound_t<T> hi,
             const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("uniform");
  using bound = detail::uniform_bound_t<T>;
  auto x = detail::new_tensor<T, Ds...>("uniform", e...);
  if constexpr (element<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!(lo < hi) || !std::isfinite(hi - lo))
        throw error("uniform", "the range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                   ") is empty or not finite");
    } else if (lo > hi) {
      throw error("uniform",
                  "the range [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is empty");
    }
    detail::mt19937_64 gen(seed);
    T* p = x.data();
    const std::size_t n = x.size();
    if constexpr (std::is_floating_point_v<T>) {
      for (std::size_t i = 0; i < n; ++i) p[i] = detail::uniform_real<T>(gen, lo, hi);
    } else {
      // In 64-bit two's complement: v = lo + k for k uniform in [0, hi - lo].
      using wide = std::conditional_t<std::is_signed_v<bound>, std::int64_t, std::uint64_t>;
      const auto lo_bits = static_cast<std::uint64_t>(static_cast<wide>(lo));
      const std::uint64_t count = static_cast<std::uint64_t>(static_cast<wide>(hi)) - lo_bits + 1;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = lo_bits + detail::uniform_below(gen, count);
        if constexpr (is_index_v<T>) p[i] = T(static_cast<std::int64_t>(v));
        else p[i] = static_cast<T>(static_cast<wide>(v));
      }
    }
  }
  return x;
}

}  // namespace dimgraph

#undef DIMGRAPH_CHECK_EXTENTS
