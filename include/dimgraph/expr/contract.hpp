// dot<Ks...>(a, b): contraction over named shared dims (an einsum by tags).
#pragma once

#include <utility>

#include "dimgraph/expr/broadcast.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph {

// sum over Ks... of a * b, aligned by tag. Dims in both operands but not in Ks...
// are batch dims (aligned, kept once). Shape rule:
//   [a dims] . [b dims] -> [a dims without Ks..., then b's other dims without Ks...]
// It is the reduction of the operands' outer product, evaluated without forming it:
// the loop nest runs over all dims and accumulates into the result (GEMM as rank-1
// updates with the result's last dim innermost; GEMV as one dot product per row).
// Error (compile time): an operand lacks a contracted dim; a dim contracted twice.
template <class... Ks, expression A, expression B>
auto dot(A&& a, B&& b) {
  constexpr bool in_a = (list_contains_v<dims_t<A>, Ks> && ...);
  constexpr bool in_b = (list_contains_v<dims_t<B>, Ks> && ...);
  constexpr bool distinct = detail::first_duplicate_v<detail::type_list<Ks...>> == sizeof...(Ks);
  static_assert(in_a && in_b, "dimgraph: dot: an operand does not have a contracted dim");
  static_assert(!(in_a && in_b) || distinct, "dimgraph: dot: a dim is contracted twice");
  if constexpr (in_a && in_b && distinct) {
    constexpr bool numbers = !is_index_v<value_t<A>> && !is_index_v<value_t<B>>;
    static_assert(numbers, "dimgraph: dot: the op makes no sense on dg::index<D>");
    return sum<Ks...>(outer(std::forward<A>(a), std::forward<B>(b)));
  } else {
    return detail::invalid_expr{};
  }
}

}  // namespace dimgraph
