// The lazy node of reductions over named dims (reduce_expr) and the ops it runs: sum, mean,
// prod, max, min, any, all.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "dimgraph/expr/evaluator.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/node.hpp"

namespace dimgraph {
namespace detail::fn {

// How a reduction starts (identity) and combines lanes (combine, on lane vectors of Acc).
// result<T>: the element type it gives for elements of type T; acc<T>: the type it
// accumulates in. Sums and products of integers and bools accumulate in int64 (torch.sum's
// rule) and wrap; float sums and means accumulate in double, so that 2^25 ones sum exactly
// and long sums keep their precision. Over no elements (a reduced extent of 0) a reduction
// gives its identity (sum 0, prod 1, any false, all true; mean 0 / 0, i.e. NaN), except where
// empty_is_error: max and min of nothing have no value, and evaluating them throws
// dg::shape_error. max and min propagate NaN (a NaN anywhere gives NaN, as torch.max).
// Over a ragged dim (or its batch dim) only valid positions count: padding is read as the
// identity, a mean divides by the number of valid positions, and a max or min over a row
// with no valid position (length 0) throws as over an empty extent.
template <class T>
using sum_type_t = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;

struct sum_reduce {
  static constexpr const char* name = "sum";
  static constexpr bool empty_is_error = false;
  template <class T>
  using result = sum_type_t<T>;
  template <class T>
  using acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
  template <class Acc>
  static constexpr Acc identity() {
    return Acc(0);
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    return add{}.template apply<simd::value_t<V>, simd::value_t<V>>(a, b);
  }
};
struct prod_reduce {
  static constexpr const char* name = "prod";
  static constexpr bool empty_is_error = false;
  template <class T>
  using result = sum_type_t<T>;
  template <class T>
  using acc = sum_type_t<T>;
  template <class Acc>
  static constexpr Acc identity() {
    return Acc(1);
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    return mul{}.template apply<simd::value_t<V>, simd::value_t<V>>(a, b);
  }
};
// mean: a sum, divided by the count afterwards.
struct mean_reduce : sum_reduce {
  static constexpr const char* name = "mean";
  template <class T>
  using result = std::conditional_t<std::is_floating_point_v<T>, T, float>;
  template <class T>
  using acc = double;
};
// (EmptyIsError false: the identity, -inf for max, over no elements; what logsumexp needs.)
template <bool Max, bool EmptyIsError = true>
struct extreme_reduce {
  static constexpr const char* name = Max ? "max" : "min";
  static constexpr bool empty_is_error = EmptyIsError;
  template <class T>
  using result = T;
  template <class T>
  using acc = T;
  template <class Acc>
  static constexpr Acc identity() {
    constexpr Acc sign = Max ? Acc(-1) : Acc(1);
    if constexpr (std::numeric_limits<Acc>::has_infinity)
      return sign * std::numeric_limits<Acc>::infinity();
    else if constexpr (Max) return std::numeric_limits<Acc>::lowest();
    else return std::numeric_limits<Acc>::max();
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    return lanes::extreme<Max>(a, b);
  }
  // The max (min) instruction's combine, which keeps a and drops a NaN in b: for a caller
  // that finds NaNs otherwise.
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine_numbers(V a, V b) {
    if constexpr (Max) return b > a ? b : a;
    else return b < a ? b : a;
  }
};
using max_reduce = extreme_reduce<true>;
using min_reduce = extreme_reduce<false>;
template <bool All>
struct logical_reduce {
  static constexpr const char* name = All ? "all" : "any";
  static constexpr bool empty_is_error = false;
  template <class T>
  using result = bool;
  template <class T>
  using acc = bool;
  template <class Acc>
  static constexpr Acc identity() {
    return All;
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    if constexpr (All) return a & b;
    else return a | b;
  }
};
using any_reduce = logical_reduce<false>;
using all_reduce = logical_reduce<true>;

}  // namespace detail::fn

namespace detail {
// Whether an op over the dims Over (reduced, contracted, or the softmax dim) of an operand with
// the dims L must respect the lengths of D: D carries lengths in L (it is ragged and L has its
// batch dim), and D or its batch dim is in Over. (Over the batch dim alone, the positions past
// each row's length are padding too.)
template <class D, class L, class Over>
constexpr bool respects_lengths_of() {
  if constexpr (carries_lengths_v<D, L>)
    return list_contains_v<Over, D> || list_contains_v<Over, ragged_batch_t<D>>;
  else return false;
}
template <class L, class Over>
struct respects_lengths {
  template <class D>
  struct pred : std::bool_constant<respects_lengths_of<D, L, Over>()> {};
};
// masked_dims_t<L, Over>: the dims of L, in L's order, whose lengths an op over Over respects
// (an empty list for every operand without ragged dims).
template <class L, class Over>
using masked_dims_t = dims_of_t<filter_t<respects_lengths<L, Over>::template pred, types_of_t<L>>>;
// Whether an op over Over reads a position of an operand with the dims L that may be padding.
template <class L, class Over>
inline constexpr bool ragged_over_v = masked_dims_t<L, Over>::size > 0;
}  // namespace detail

// Op over the dims Rs... of X. Shape rule: [x dims] -> [x dims without Rs...], in x's order.
template <class Op, class X, class... Rs>
class reduce_expr : public expr_node_base {
 public:
  using reduced = dim_list<Rs...>;
  using dims = list_difference_t<dims_t<X>, reduced>;
  using value_type = typename Op::template result<value_t<X>>;
  using op = Op;

  template <class Arg>
  explicit reduce_expr(Arg&& x) : x_(std::forward<Arg>(x)) {}

  template <class D>
  std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return x_.template extent<D>();
  }
  // The lengths of a kept ragged dim: the operand's.
  template <class D>
  lengths_ref lengths() const {
    return detail::lengths_in<std::remove_cvref_t<D>>(x_);
  }
  const std::remove_cvref_t<X>& source() const { return x_; }
  // The number of elements reduced into each result element.
  std::size_t count() const { return (std::size_t{1} * ... * x_.template extent<Rs>()); }

 private:
  static_assert(detail::evaluator_of<X>::program::size > 0);  // (instantiated now)
  X x_;
};

// As the operand of an element-wise op, a reduction is evaluated into a tensor first.
template <class Op, class X, class... Rs>
struct detail::evaluator<reduce_expr<Op, X, Rs...>>
    : detail::temporary_evaluator<reduce_expr<Op, X, Rs...>> {};

}  // namespace dimgraph
