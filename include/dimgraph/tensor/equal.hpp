// operator== / != between tensors and views: equal extents and elements, aligned by tag.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph {
namespace detail {

// Two tensors or views with the same element type and the same set of dims.
template <class A, class B>
concept same_dims_and_element = memory_operand<A> && memory_operand<B> &&
                                std::is_same_v<typename A::value_type, typename B::value_type> &&
                                list_same_set_v<typename A::dims, typename B::dims>;

// Compares the elements below `level` (positions in a's dim order), at a and b.
template <std::size_t R, class P, class Q>
bool equal_elements(std::size_t level, const std::array<std::size_t, R>& extent,
                    const std::array<std::ptrdiff_t, R>& a_stride,
                    const std::array<std::ptrdiff_t, R>& b_stride, P a, Q b) {
  if (level == R) return *a == *b;
  for (std::size_t i = 0; i < extent[level]; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    if (!equal_elements<R>(level + 1, extent, a_stride, b_stride, a + k * a_stride[level],
                           b + k * b_stride[level]))
      return false;
  }
  return true;
}

template <class... Ds, class A, class B>
bool equal_by_tag(dim_list<Ds...>, const A& a, const B& b) {
  if (((a.template extent<Ds>() != b.template extent<Ds>()) || ...)) return false;
  constexpr std::size_t rank = sizeof...(Ds);
  return equal_elements<rank>(0, {a.template extent<Ds>()...}, {a.template stride<Ds>()...},
                              {b.template stride<Ds>()...}, a.data(), b.data());
}

}  // namespace detail

// a == b for tensors and views (any mix) with the same element type and the same dim
// set, in any order: true when every dim has the same extent in both and every element,
// aligned by tag, compares equal (so NaN makes tensors unequal). A tensor equals its
// permuted views. Different dim sets or element types: no operator (compile error, not
// a silent false). a != b is !(a == b).
template <class A, class B>
  requires detail::same_dims_and_element<A, B>
bool operator==(const A& a, const B& b) {
  return detail::equal_by_tag(typename A::dims{}, a, b);
}

}  // namespace dimgraph
