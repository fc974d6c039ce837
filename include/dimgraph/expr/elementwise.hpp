// The element-wise nodes the public ops make once their checks pass: binary ops on expressions
// and scalars, and where's select (unchecked builders, also what eval/'s machinery makes).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/map.hpp"

namespace dimgraph::detail {

// A rank-0 tensor next to a tensor with dims combines as PyTorch's 0-dim tensors do: within
// the other's category it does not raise the other's type (float[4] * double{} is float);
// from a higher category it promotes as a tensor would (int[4] * double{} is double).
template <class Other, class X>
decltype(auto) rank0_as_scalar(X&& x) {
  using other = value_t<Other>;
  using own = value_t<X>;
  if constexpr (dims_t<X>::size == 0 && dims_t<Other>::size > 0 && !is_index_v<own> &&
                !is_index_v<other> && !std::is_same_v<own, other>) {
    if constexpr (element_category_v<own> <= element_category_v<other>)
      return make_map(fn::cast_to<other>{}, std::forward<X>(x));
    else return std::forward<X>(x);
  } else {
    return std::forward<X>(x);
  }
}

template <class F, class A, class B>
auto make_binary(A&& a, B&& b) {
  if constexpr (expression<A> && expression<B>) {
    if constexpr (dims_t<A>::size > 0 && dims_t<B>::size > 0)
      return make_map(F{}, std::forward<A>(a), std::forward<B>(b));  // (no call per operand)
    else
      return make_map(F{}, rank0_as_scalar<B>(std::forward<A>(a)),
                      rank0_as_scalar<A>(std::forward<B>(b)));
  } else if constexpr (expression<A>)
    return make_map(F{}, std::forward<A>(a), as_operand<A>(std::forward<B>(b)));
  else return make_map(F{}, as_operand<B>(std::forward<A>(a)), std::forward<B>(b));
}

// The expression of the table's op F on expressions and scalars that passed its checks.
template <class F, class... Xs>
auto make_elementwise(Xs&&... xs) {
  if constexpr (sizeof...(Xs) == 2) return make_binary<F>(std::forward<Xs>(xs)...);
  else return make_map(F{}, std::forward<Xs>(xs)...);
}

// Whether E is a comparison node (its operands then feed a where directly).
template <class E>
inline constexpr bool is_compared_v = false;
template <class F, class Ds, class P, class Q>
inline constexpr bool is_compared_v<map_expr<F, Ds, P, Q>> = fn::is_comparison_v<F>;

// Operand K of node c as an operand of a new node: a reference where c holds one, or where c
// is itself held by reference (c outlives the new node then); a copy of what a temporary c
// holds by value.
template <std::size_t K, class C, class Node = std::remove_cvref_t<C>>
decltype(auto) operand_of(C&& c) {
  using held = std::tuple_element_t<K, typename Node::operand_types>;
  if constexpr (std::is_lvalue_reference_v<C> || std::is_reference_v<held>)
    return c.template operand<K>();
  else return std::remove_cvref_t<held>(c.template operand<K>());
}

// where(c, a, b) for a comparison c = Cmp(p, q): one node select_compared<Cmp>(p, q, a, b).
template <class C, class A, class B>
auto compared_where(C&& c, A&& a, B&& b) {
  using cmp = std::remove_cvref_t<decltype(c.fn())>;
  return make_map(fn::select_compared<cmp>{}, operand_of<0>(std::forward<C>(c)),
                  operand_of<1>(std::forward<C>(c)), std::forward<A>(a), std::forward<B>(b));
}

// where(c, a, b) on a bool c and branches whose dims nest (checked by dg::where): a select
// node, or, for a comparison c, the select of the comparison's operands.
template <class C, class A, class B>
auto make_where(C&& c, A&& a, B&& b) {
  // A scalar branch takes the other branch's element type (both scalars: their common one).
  auto&& a_op = [&]() -> decltype(auto) {
    if constexpr (expression<A>) return std::forward<A>(a);
    else if constexpr (expression<B>) return as_operand<std::remove_cvref_t<B>>(std::forward<A>(a));
    else return scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, a};
  }();
  auto&& b_op = [&]() -> decltype(auto) {
    if constexpr (expression<B>) return std::forward<B>(b);
    else if constexpr (expression<A>) return as_operand<std::remove_cvref_t<A>>(std::forward<B>(b));
    else return scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, b};
  }();
  if constexpr (is_compared_v<std::remove_cvref_t<C>>)
    // where(p OP q, a, b): the comparison's operands go straight into the select.
    return compared_where(std::forward<C>(c), std::forward<decltype(a_op)>(a_op),
                          std::forward<decltype(b_op)>(b_op));
  else
    return make_map(fn::select{}, std::forward<C>(c), std::forward<decltype(a_op)>(a_op),
                    std::forward<decltype(b_op)>(b_op));
}

}  // namespace dimgraph::detail
