// Reductions over named dims: sum, mean, prod, max, min, any, all (lazy nodes).
#pragma once

#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph {
namespace detail {
// Whether X has the dims Rs... and numbers for elements (neither dg::index<D> nor bool): the
// check of the reductions that compute on the values (logsumexp, softmax, argmax, ...).
template <class X, class... Rs>
constexpr bool numeric_over() {
  return (list_contains_v<dims_t<X>, Rs> && ...) && !is_index_v<value_t<X>> &&
         !std::is_same_v<value_t<X>, bool>;
}
}  // namespace detail

// The public reductions. Result element type: sum and prod of bool or integers give int64,
// of floats the same type; mean of bool or integers gives float; max and min keep the type;
// any and all give bool. Errors (compile time): a reduced dim the tensor does not have, a dim
// given twice, or the op on dg::index<D> (any/all: on a non-bool). Over a ragged dim or its
// batch dim, padding never counts (see fn::sum_reduce). Error (run time, when evaluated): max
// or min over a reduced extent of 0 (shape_error naming the dims), or over a ragged row of
// length 0 (shape_error naming the row and the lengths), before anything is written.
#define DIMGRAPH_REDUCTION(NAME, OP, ALLOWED, WHAT)                                         \
  template <class... Rs, detail::expression_or_poisoned X>                                  \
  auto NAME(X&& x) {                                                                        \
    if constexpr (detail::poisoned<X>) {                                                    \
      return detail::invalid_expr{};                                                        \
    } else {                                                                                \
      constexpr bool has = (list_contains_v<dims_t<X>, Rs> && ...);                         \
      constexpr bool distinct =                                                             \
          detail::first_duplicate_v<detail::type_list<Rs...>> == sizeof...(Rs);             \
      constexpr bool allowed = ALLOWED;                                                     \
      using asked_dims = ::dimgraph::asked<Rs...>;                                          \
      using x_dims = detail::has_role_t<X>;                                                 \
      DIMGRAPH_REQUIRE(has, "dimgraph: " #NAME ": the tensor has no such dim", asked_dims,  \
                       x_dims);                                                             \
      DIMGRAPH_REQUIRE(!has || distinct, "dimgraph: " #NAME ": a dim is reduced twice",     \
                       asked_dims);                                                         \
      DIMGRAPH_REQUIRE(!has || !distinct || allowed, "dimgraph: " #NAME ": " WHAT, x_dims); \
      if constexpr (has && distinct && allowed)                                             \
        return reduce_expr<OP, operand_t<X&&>, Rs...>(std::forward<X>(x));                  \
      else return detail::invalid_expr{};                                                   \
    }                                                                                       \
  }
#define DIMGRAPH_NUMERIC (!is_index_v<value_t<X>>)
#define DIMGRAPH_BOOLEAN (std::is_same_v<value_t<X>, bool>)
DIMGRAPH_REDUCTION(sum, detail::fn::sum_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(prod, detail::fn::prod_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(mean, detail::fn::mean_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(max, detail::fn::max_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(min, detail::fn::min_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(any, detail::fn::any_reduce, DIMGRAPH_BOOLEAN, "the operand must be bool")
DIMGRAPH_REDUCTION(all, detail::fn::all_reduce, DIMGRAPH_BOOLEAN, "the operand must be bool")
#undef DIMGRAPH_NUMERIC
#undef DIMGRAPH_BOOLEAN
#undef DIMGRAPH_REDUCTION

}  // namespace dimgraph
