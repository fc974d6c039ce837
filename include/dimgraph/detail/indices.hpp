// for_each_index<N>(f) and with_indices<N>(f): the indices 0 .. N-1 as compile-time values.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"

namespace dimgraph::detail {

// The index I as a value (f receives these; `[]<std::size_t I>(index_constant<I>)` names I).
template <std::size_t I>
using index_constant = std::integral_constant<std::size_t, I>;

// f(index_constant<0>{}, ..., index_constant<N - 1>{}): f's result. Always inlined, as are the
// kernels' own lambdas passed to it, so a kernel written with it compiles as if unrolled by hand.
template <std::size_t N, class F>
DIMGRAPH_ALWAYS_INLINE constexpr decltype(auto) with_indices(F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) DIMGRAPH_ALWAYS_INLINE -> decltype(auto) {
    return static_cast<F&&>(f)(index_constant<I>{}...);
  }(std::make_index_sequence<N>{});
}

// f(index_constant<I>{}) for I = 0 .. N - 1, in order.
template <std::size_t N, class F>
DIMGRAPH_ALWAYS_INLINE constexpr void for_each_index(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>)
      DIMGRAPH_ALWAYS_INLINE { (f(index_constant<I>{}), ...); }(std::make_index_sequence<N>{});
}

}  // namespace dimgraph::detail
