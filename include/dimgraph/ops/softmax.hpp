// Composite reductions evaluated eagerly: logsumexp, softmax, log_softmax.
#pragma once

#include <limits>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/softmax.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/reduce.hpp"

namespace dimgraph {

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite; an infinite m is taken as 0 (as PyTorch), so a row holding +inf
// gives +inf and a row of only -inf gives -inf. Integers compute in float. Shape rule: as
// sum. Over no elements (a reduced extent of 0, or a ragged row of length 0) it is
// log(0) = -inf; over a ragged dim or its batch dim, padding is left out.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, detail::expression_or_poisoned X>
auto logsumexp(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, Rs...>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<Rs...>, detail::has_role_t<X>);
    if constexpr (ok) {
      using T = detail::fn::float_of_t<value_t<X>>;
      // (Over a ragged dim, a row of length 0 has no max: its max is taken as -inf, the identity.)
      using max_op =
          std::conditional_t<detail::ragged_over_v<dims_t<X>, dim_list<Rs...>>,
                             detail::fn::extreme_reduce<true, false>, detail::fn::max_reduce>;
      const auto xf = eval(cast<T>(x));
      const bool empty = ((x.template extent<Rs>() == 0) || ...);
      if (empty) return eval(log(sum<Rs...>(exp(xf))));
      const auto m = eval(reduce_expr<max_op, const decltype(xf)&, Rs...>(xf));
      const auto shift = eval(where(equal(abs(m), std::numeric_limits<T>::infinity()), T(0), m));
      return eval(shift + log(sum<Rs...>(exp(xf - shift))));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// exp(x) / sum(exp(x)) over D, with the max subtracted first. Shape rule: x's dims. Over a
// ragged dim D (or D the batch dim of a ragged dim of x) only valid positions count: padding
// gets probability exactly 0, and a row of length 0 is all 0.
template <class D, detail::expression_or_poisoned X>
DIMGRAPH_ALWAYS_INLINE inline auto softmax(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, D>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: softmax: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<D>, detail::has_role_t<X>);
    if constexpr (ok) {
      if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {
        if constexpr (detail::memory_operand<X>) return detail::softmax_ragged<D, false>(x);
        else return detail::softmax_ragged<D, false>(detail::materialize(x));
      } else if constexpr (detail::memory_operand<X>) return detail::softmax_rows<D, false>(x);
      else return detail::softmax_rows<D, false>(detail::materialize(x));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// x - logsumexp(x) over D, row by row as softmax. Shape rule: x's dims. Over a ragged dim,
// as softmax: padding gets -inf (log 0), and a row of length 0 is all -inf.
template <class D, detail::expression_or_poisoned X>
DIMGRAPH_ALWAYS_INLINE inline auto log_softmax(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, D>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: log_softmax: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<D>, detail::has_role_t<X>);
    if constexpr (ok) {
      if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {
        if constexpr (detail::memory_operand<X>) return detail::softmax_ragged<D, true>(x);
        else return detail::softmax_ragged<D, true>(detail::materialize(x));
      } else if constexpr (detail::memory_operand<X>) return detail::softmax_rows<D, true>(x);
      else return detail::softmax_rows<D, true>(detail::materialize(x));
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
