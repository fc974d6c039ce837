// contract_expr: the lazy node of dot<Ks...>(a, b), a contraction over named shared dims.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/dim/describe.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/expr/reduce.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph {

// The contraction of A and B over the dims Ks... (their sum of products). Dims in both
// operands but not in Ks... are batch dims: aligned by tag and kept once. Shape rule:
//   [a dims] . [b dims] -> [a dims without Ks..., then b's dims that are neither in Ks...
//   nor in a]
// The element type is the operands' promoted type (int64 for integers and bool, as for sum).
// Evaluated as a (batched) matrix product by eval/contract.hpp: assigning the node to a
// tensor or view runs the kernel; an element-wise op that reads the node evaluates it first.
template <class A, class B, class... Ks>
class contract_expr : public expr_node_base {
 public:
  using contracted = dim_list<Ks...>;
  using dims = list_union_t<list_difference_t<dims_t<A>, contracted>,
                            list_difference_t<dims_t<B>, contracted>>;
  using value_type = detail::fn::sum_type_t<promote_t<value_t<A>, value_t<B>>>;

  // Error: a dim the operands share (contracted or batch) with different run-time extents
  // (shape_error naming dot, the dim and both extents).
  template <class ArgA, class ArgB>
  contract_expr(ArgA&& a, ArgB&& b) : a_(std::forward<ArgA>(a)), b_(std::forward<ArgB>(b)) {
    check_shared(list_intersection_t<dims_t<A>, dims_t<B>>{});
  }

  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (list_contains_v<dims_t<A>, d>) return a_.template extent<d>();
    else return b_.template extent<d>();
  }
  // The lengths of a kept ragged dim: those of the operands that carry them (equal: checked
  // when the node is made).
  template <class D>
  lengths_ref lengths() const {
    using d = std::remove_cvref_t<D>;
    lengths_ref l = detail::lengths_in<d>(a_);
    if constexpr (detail::carries_lengths_v<d, dims_t<B>>)
      detail::merge_lengths<d>("dot", l, detail::lengths_in<d>(b_));
    return l;
  }
  const std::remove_cvref_t<A>& lhs() const { return a_; }
  const std::remove_cvref_t<B>& rhs() const { return b_; }
  // The operands. (A node with a source is evaluated into a tensor of its own before an
  // element-wise op reads it.)
  std::tuple<const std::remove_cvref_t<A>&, const std::remove_cvref_t<B>&> source() const {
    return {a_, b_};
  }

 private:
  template <class... Ss>
  void check_shared(dim_list<Ss...>) const {
    (check_one<Ss>(), ...);
  }
  template <class S>
  void check_one() const {
    if constexpr (detail::carries_lengths_v<S, dims_t<A>> &&
                  detail::carries_lengths_v<S, dims_t<B>>) {
      lengths_ref l = detail::lengths_in<S>(a_);
      detail::merge_lengths<S>("dot", l, detail::lengths_in<S>(b_));
    }
    if constexpr (!is_static_v<S>) {
      const std::size_t ea = a_.template extent<S>(), eb = b_.template extent<S>();
      if (ea != eb)
        throw shape_error("dot", "dim '" + describe<S>() + "' has extent " + std::to_string(ea) +
                                     " in the left operand and " + std::to_string(eb) +
                                     " in the right operand");
    }
  }

  A a_;
  B b_;
};

// As the operand of an element-wise op, a product is evaluated into a tensor first.
template <class A, class B, class... Ks>
struct detail::evaluator<contract_expr<A, B, Ks...>>
    : detail::temporary_evaluator<contract_expr<A, B, Ks...>> {};

}  // namespace dimgraph
