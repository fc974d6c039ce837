// detail::nested_init_t: the nested braced lists a static tensor is made of, their checks and copy.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/shape.hpp"

namespace dimgraph::detail {

// One innermost list of a nested initializer list: exactly as many elements of T as the size N
// of the last dim Last, so that a list of another length is a compile error (and the
// conversions are checked for narrowing).
template <class T, class Last, std::size_t N = bounds_v<Last>.lo,
          class = std::make_index_sequence<N>>
class init_row;
template <class T, class Last, std::size_t N, std::size_t... I>
class init_row<T, Last, N, std::index_sequence<I...>> {
  template <std::size_t>
  using element_t = T;

 public:
  init_row(element_t<I>... v) : elements_{v...} {}  // NOLINT: converts from a braced list
  template <class... Us>
    requires(sizeof...(Us) != N && (std::convertible_to<Us, T> && ...))
  init_row(Us...) {  // NOLINT
    DIMGRAPH_REQUIRE(sizeof...(Us) == N,
                     "dimgraph: tensor: an innermost initializer list must have as many elements "
                     "as the last dim's size",
                     ::dimgraph::has<Last>);
  }
  const T* begin() const { return elements_.data(); }
  static constexpr std::size_t size() { return N; }

 private:
  std::array<T, N> elements_{};
};

// The longest last dim whose innermost lists are checked at compile time (init_row has one
// constructor parameter per element; a longer row is a plain list, its length checked at run
// time, so that a large static dim never makes the compiler build a huge constructor).
inline constexpr std::size_t max_checked_row = 64;

// The nested initializer list of a static tensor of rank R whose last dim is Last (void for
// rank 0): plain lists outside, init_row<T, Last> innermost (a plain list when Last's size is
// above max_checked_row; rank 1: a plain list of elements).
template <class T, std::size_t R, class Last>
struct nested_init {
  using type = std::initializer_list<typename nested_init<T, R - 1, Last>::type>;
};
template <class T, class Last, bool Checked = (bounds_v<Last>.lo <= max_checked_row)>
struct innermost_list {
  using type = init_row<T, Last>;
};
template <class T, class Last>
struct innermost_list<T, Last, false> {
  using type = std::initializer_list<T>;
};
template <class T, class Last>
struct nested_init<T, 2, Last> {
  using type = std::initializer_list<typename innermost_list<T, Last>::type>;
};
template <class T, class Last>
struct nested_init<T, 1, Last> {
  using type = std::initializer_list<T>;
};
template <class T, class Last>
struct nested_init<T, 0, Last> {
  struct type {};  // (rank 0 has no initializer list)
};
template <class T, std::size_t R, class Last>
using nested_init_t = typename nested_init<T, R, Last>::type;

// Checks the lengths of a nested initializer list against ext from level `level` on. Error:
// shape_error naming the dim and the length.
template <class... Ds, class L>
void check_nested_lengths(const L& list, const std::array<std::size_t, sizeof...(Ds)>& ext,
                          std::size_t level) {
  if (list.size() != ext[level]) {
    constexpr std::array<std::string (*)(), sizeof...(Ds)> names{&describe<Ds>...};
    throw shape_error("tensor", "the initializer list has " + std::to_string(list.size()) +
                                    " entries along dim '" + names[level]() + "' of size " +
                                    std::to_string(ext[level]) + " (shape " +
                                    to_string(shape<Ds...>{}) + ")");
  }
  if constexpr (requires { list.begin()->begin(); })
    for (const auto& inner : list) check_nested_lengths<Ds...>(inner, ext, level + 1);
}

// Copies a nested initializer list (checked) to out in row-major order; returns the end.
template <class T, class L>
T* copy_nested(const L& list, T* out) {
  if constexpr (requires { list.begin()->begin(); })
    for (const auto& inner : list) out = copy_nested(inner, out);
  else out = std::copy_n(list.begin(), list.size(), out);
  return out;
}

}  // namespace dimgraph::detail
