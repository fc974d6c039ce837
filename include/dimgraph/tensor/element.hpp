// Element types: the arithmetic types, dg::index<D>, the element concept and categories.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <type_traits>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/dim/tag.hpp"

namespace dimgraph {

// An integer that names a position along dim D: a class label, a token id
// (dg::index<Vocab>). Not arithmetic: it is made explicitly from an integer, read
// with value(), compared only with the same index<D>, and prints as the integer.
// A value-initialised index is 0. Error: D is not a dim (compile time).
template <class D>
class index {
  static_assert(dimension<D> && std::is_same_v<D, std::remove_cvref_t<D>>,
                "dimgraph: index: the parameter must be a dim tag (not cv-qualified)");

 public:
  using dim_type = D;

  constexpr index() = default;
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  constexpr explicit index(I i) noexcept : value_(static_cast<std::int64_t>(i)) {}

  constexpr std::int64_t value() const noexcept { return value_; }

  friend constexpr bool operator==(index, index) = default;
  friend constexpr std::strong_ordering operator<=>(index, index) = default;

  template <class Char, class Traits>
  friend std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& os,
                                                      index i) {
    return os << i.value_;
  }

 private:
  std::int64_t value_ = 0;
};

// In SIMD kernels an index is its int64 value.
template <class D>
struct detail::simd::lane<index<D>> {
  using type = std::int64_t;
};

namespace detail {

template <class T, class... Us>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Us> || ...);

// The standard integer types: every std::intN_t / std::uintN_t is one of them. The
// character types (char, wchar_t, char8_t, ...) are not elements: they would print as
// characters and their signedness varies.
template <class T>
inline constexpr bool is_integer_element_v =
    is_one_of_v<T, signed char, short, int, long, long long, unsigned char, unsigned short,
                unsigned, unsigned long, unsigned long long>;

template <class T>
struct index_traits {
  static constexpr bool is_index = false;
};
template <class D>
struct index_traits<index<D>> {
  static constexpr bool is_index = true;
  using dim = D;
};

}  // namespace detail

// T is dg::index<D> for some dim D (cv-qualifiers ignored).
template <class T>
inline constexpr bool is_index_v = detail::index_traits<std::remove_cv_t<T>>::is_index;

// The dim of an index type: index_dim_t<dg::index<Vocab>> is Vocab. Ill-formed otherwise.
template <class T>
using index_dim_t = typename detail::index_traits<std::remove_cv_t<T>>::dim;

// A tensor element type: bool, a 8-64-bit signed or unsigned integer, float, double or
// dg::index<D> (not cv-qualified).
template <class T>
concept element = std::is_same_v<T, bool> || detail::is_integer_element_v<T> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double> || is_index_v<T>;

// The category of an element type. Promotion never lowers the category, and
// boolean < integral < floating in that order; index is apart (it mixes with nothing).
enum class element_category { boolean, integral, floating, index };

template <element T>
inline constexpr element_category element_category_v =
    std::is_same_v<T, bool>       ? element_category::boolean
    : std::is_floating_point_v<T> ? element_category::floating
    : is_index_v<T>               ? element_category::index
                                  : element_category::integral;

}  // namespace dimgraph
