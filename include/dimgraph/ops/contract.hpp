// dot<Ks...>(a, b): contraction over named shared dims (an einsum by tags), a lazy node.
#pragma once

#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/expr/contract.hpp"

namespace dimgraph {

// sum over Ks... of a * b, aligned by tag (see contract_expr for the shape rule). Contracting a
// ragged dim, or its batch dim, sums only valid positions: padding is never read.
// Error (compile time): an operand lacks a contracted dim; a dim contracted twice; an
// operand of type dg::index<D>. Run time: shared dims whose extents differ (shape_error).
template <class... Ks, class A, class B>
  requires(expression<A> && expression<B>) || detail::any_poisoned<A, B>
auto dot(A&& a, B&& b) {
  if constexpr (detail::any_poisoned<A, B>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool in_a = (list_contains_v<dims_t<A>, Ks> && ...);
    constexpr bool in_b = (list_contains_v<dims_t<B>, Ks> && ...);
    constexpr bool distinct = detail::first_duplicate_v<detail::type_list<Ks...>> == sizeof...(Ks);
    constexpr bool numbers = !is_index_v<value_t<A>> && !is_index_v<value_t<B>>;
    DIMGRAPH_REQUIRE(in_a && in_b, "dimgraph: dot: an operand does not have a contracted dim",
                     ::dimgraph::asked<Ks...>, detail::as_role_t<::dimgraph::lhs, dims_t<A>>,
                     detail::as_role_t<::dimgraph::rhs, dims_t<B>>);
    DIMGRAPH_REQUIRE(!(in_a && in_b) || distinct, "dimgraph: dot: a dim is contracted twice",
                     ::dimgraph::asked<Ks...>, detail::as_role_t<::dimgraph::lhs, dims_t<A>>,
                     detail::as_role_t<::dimgraph::rhs, dims_t<B>>);
    DIMGRAPH_REQUIRE(!(in_a && in_b && distinct) || numbers,
                     "dimgraph: dot: the op makes no sense on dg::index<D>",
                     ::dimgraph::asked<Ks...>, detail::as_role_t<::dimgraph::lhs, dims_t<A>>,
                     detail::as_role_t<::dimgraph::rhs, dims_t<B>>);
    if constexpr (in_a && in_b && distinct && numbers) {
      return contract_expr<operand_t<A&&>, operand_t<B&&>, Ks...>(std::forward<A>(a),
                                                                  std::forward<B>(b));
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
