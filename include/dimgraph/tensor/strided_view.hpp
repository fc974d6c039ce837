// dg::strided_view: strided tensor views over memory the caller owns (no copy), checked.
#pragma once

#include <algorithm>
#include <utility>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <ranges>
#include <string>
#include <type_traits>

#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph {

// A step along dim D in elements, for dg::strided_view: dg::stride<Row>(8).
template <class D>
struct stride_arg {
  std::ptrdiff_t value;
};
template <dimension D>
constexpr stride_arg<std::remove_cvref_t<D>> stride(std::ptrdiff_t s) {
  return {s};
}

// Permissions for the layout checks of dg::strided_view, given among its arguments.
struct allow_negative_strides_t {};
inline constexpr allow_negative_strides_t allow_negative_strides{};
struct allow_overlap_t {};
inline constexpr allow_overlap_t allow_overlap{};

namespace detail {

// The dims of the extent_arg / stride_arg arguments among Args.
template <class X>
struct extent_dims_of : std::type_identity<type_list<>> {};
template <class E>
struct extent_dims_of<extent_arg<E>> : std::type_identity<type_list<E>> {};
template <class X>
struct stride_dims_of : std::type_identity<type_list<>> {};
template <class E>
struct stride_dims_of<stride_arg<E>> : std::type_identity<type_list<E>> {};
template <class X>
inline constexpr bool is_view_arg_v =
    std::is_same_v<X, allow_negative_strides_t> || std::is_same_v<X, allow_overlap_t>;
template <class E>
inline constexpr bool is_view_arg_v<extent_arg<E>> = true;
template <class E>
inline constexpr bool is_view_arg_v<stride_arg<E>> = true;

// The value given for D by an argument of kind Arg, or fallback.
template <template <class> class Arg, class D, class V, class... Xs>
constexpr V given_value(V fallback, const Xs&... xs) {
  V v = fallback;
  (
      [&] {
        if constexpr (std::is_same_v<Xs, Arg<D>>) v = xs.value;
      }(),
      ...);
  return v;
}

// The range [lo, hi] of offsets of a strided layout, checked. Errors (shape_error naming `op`
// and the dims with their extents and strides): a negative stride without allow_negative; two
// dims whose elements can share memory without allow_overlap (a stride not above the span of
// the dims with smaller strides: conservative, as NumPy's and ATen's overlap checks are); offsets
// that do not fit a std::ptrdiff_t.
struct offset_range {
  std::ptrdiff_t lo = 0, hi = 0;
  bool empty = false;
};
template <class... Ds>
std::string layout_text(const shape<Ds...>& s, const strides_t<sizeof...(Ds)>& str) {
  std::string out = to_string(s) + " with strides [";
  for (std::size_t i = 0; i < sizeof...(Ds); ++i) out += (i ? ", " : "") + std::to_string(str[i]);
  return out + "]";
}
template <class... Ds>
offset_range check_layout(const char* op, const shape<Ds...>& s,
                          const strides_t<sizeof...(Ds)>& str, bool allow_negative,
                          bool allow_overlap) {
  constexpr std::size_t r = sizeof...(Ds);
  const std::array<std::string (*)(), r + 1> names{&describe<Ds>..., nullptr};
  for (std::size_t i = 0; i < r; ++i)
    if (str[i] < 0 && !allow_negative)
      throw shape_error(op, "dim '" + names[i]() + "' has the negative stride " +
                                std::to_string(str[i]) + " (" + layout_text(s, str) +
                                "); pass dg::allow_negative_strides to permit it");
  offset_range out;
  for (std::size_t i = 0; i < r; ++i) out.empty = out.empty || s.extent(i) == 0;
  if (out.empty) return out;
  // span[i] = |stride| * (extent - 1): how far dim i reaches.
  std::array<std::size_t, r + 1> mag{}, span{};
  std::size_t total = 0;
  for (std::size_t i = 0; i < r; ++i) {
    mag[i] = str[i] < 0 ? std::size_t{0} - static_cast<std::size_t>(str[i])
                        : static_cast<std::size_t>(str[i]);
    if (mul_overflows(mag[i], s.extent(i) - 1, span[i]) || add_overflows(total, span[i], total) ||
        total > static_cast<std::size_t>(PTRDIFF_MAX))
      throw shape_error(op,
                        "the offsets of " + layout_text(s, str) + " do not fit a std::ptrdiff_t");
    if (str[i] < 0) out.lo -= static_cast<std::ptrdiff_t>(span[i]);
    else out.hi += static_cast<std::ptrdiff_t>(span[i]);
  }
  if (!allow_overlap) {
    std::array<std::size_t, r + 1> order{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < r; ++i)
      if (s.extent(i) > 1) order[n++] = i;
    // By stride magnitude: an insertion sort of at most r dims (std::sort here makes GCC -O3
    // warn of out-of-bounds reads it cannot rule out past n).
    for (std::size_t k = 1; k < n; ++k)
      for (std::size_t j = k; j > 0 && mag[order[j]] < mag[order[j - 1]]; --j)
        std::swap(order[j], order[j - 1]);
    std::size_t reach = 0;  // the span of the dims with smaller strides
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = order[k];
      if (mag[i] <= reach || mag[i] == 0)
        throw shape_error(op, "dim '" + names[i]() + "' (stride " + std::to_string(str[i]) + ") " +
                                  (k == 0 ? std::string("steps by 0")
                                          : "overlaps dim '" + names[order[k - 1]]() + "'") +
                                  ": elements at different positions would share memory (" +
                                  layout_text(s, str) + "); pass dg::allow_overlap to permit it");
      reach += span[i];
    }
  }
  return out;
}

// The error of a layout that reaches outside its range of `size` elements.
template <class... Ds>
void check_within(const char* op, const shape<Ds...>& s, const strides_t<sizeof...(Ds)>& str,
                  offset_range r, std::size_t size) {
  if (r.empty) return;
  if (r.lo < 0 || static_cast<std::size_t>(r.hi) >= size)
    throw shape_error(op, layout_text(s, str) + " reaches offsets " + std::to_string(r.lo) +
                              " to " + std::to_string(r.hi) + " of a range of " +
                              std::to_string(size) + " elements");
}

}  // namespace detail

// A strided view over memory the caller owns: every dim's extent (static dims need none) and
// every dim's stride in elements, by tag in any order, then optionally
// dg::allow_negative_strides and dg::allow_overlap:
//   dg::strided_view<Row, Col>(ptr, dg::extent<Row>(3), dg::stride<Row>(8), dg::stride<Col>(1))
// From a contiguous range instead of a pointer, every element the view reaches must be inside
// the range (offsets from its first element). Errors: a missing, repeated or foreign extent or
// stride (compile time); an extent outside its dim's interval, a negative stride or
// overlapping dims not permitted, offsets that do not fit a std::ptrdiff_t, offsets outside the
// range (shape_error naming the dims, extents and strides).
template <dimension D0, class... Ds, class P, class... Args>
  requires(std::is_pointer_v<std::remove_cvref_t<P>> || std::ranges::contiguous_range<P>) &&
          (detail::is_view_arg_v<Args> && ...)
auto strided_view(P&& memory, Args... args) {
  using extent_dims = detail::concat_t<typename detail::extent_dims_of<Args>::type...>;
  using stride_dims = detail::concat_t<typename detail::stride_dims_of<Args>::type...>;
  constexpr auto ext_check = detail::check_extents(detail::type_list<D0, Ds...>{}, extent_dims{});
  static_assert(ext_check != detail::extents_check::unknown_dim,
                "dimgraph: strided_view: an extent is given for a dim the view does not have");
  static_assert(ext_check != detail::extents_check::repeated,
                "dimgraph: strided_view: an extent is given twice");
  static_assert(ext_check != detail::extents_check::missing,
                "dimgraph: strided_view: a non-static dim has no extent");
  constexpr auto str_check = detail::check_extents(detail::type_list<D0, Ds...>{}, stride_dims{});
  static_assert(str_check != detail::extents_check::unknown_dim,
                "dimgraph: strided_view: a stride is given for a dim the view does not have");
  static_assert(str_check != detail::extents_check::repeated,
                "dimgraph: strided_view: a stride is given twice");
  static_assert(stride_dims::size == 1 + sizeof...(Ds),
                "dimgraph: strided_view: every dim needs a stride (dg::stride<D>(n))");
  constexpr bool negative_ok = (std::is_same_v<Args, allow_negative_strides_t> || ...);
  constexpr bool overlap_ok = (std::is_same_v<Args, allow_overlap_t> || ...);

  const auto s = shape<D0, Ds...>::from_extents(
      {detail::given_value<extent_arg, D0>(bounds_v<D0>.lo, args...),
       detail::given_value<extent_arg, Ds>(bounds_v<Ds>.lo, args...)...},
      "strided_view");
  const detail::strides_t<1 + sizeof...(Ds)> str{
      detail::given_value<stride_arg, D0>(std::ptrdiff_t{0}, args...),
      detail::given_value<stride_arg, Ds>(std::ptrdiff_t{0}, args...)...};
  const auto reached = detail::check_layout("strided_view", s, str, negative_ok, overlap_ok);
  if constexpr (std::is_pointer_v<std::remove_cvref_t<P>>) {
    using elem = std::remove_pointer_t<std::remove_cvref_t<P>>;
    static_assert(element<std::remove_const_t<elem>>,
                  "dimgraph: strided_view: the pointer's element type is not a tensor element");
    return tensor_view<elem, D0, Ds...>(memory, s, str);
  } else {
    static_assert(std::ranges::borrowed_range<P>,
                  "dimgraph: strided_view: the range is a temporary and the view would dangle");
    using elem = std::remove_reference_t<std::ranges::range_reference_t<P>>;
    detail::check_within("strided_view", s, str, reached,
                         static_cast<std::size_t>(std::ranges::size(memory)));
    return tensor_view<elem, D0, Ds...>(std::ranges::data(memory), s, str);
  }
}

}  // namespace dimgraph
