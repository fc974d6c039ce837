// The element-wise ops: + - * /, math functions, comparisons, logic, where, cast, map.
#pragma once

#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/map.hpp"

namespace dimgraph {
namespace detail {

// Operands of a binary op: two expressions, or an expression and a C++ scalar.
template <class A, class B>
concept binary_operands = (expression<A> && expression<B>) || (expression<A> && scalar<B>) ||
                          (scalar<A> && expression<B>);

template <class A, class B>
concept binary_operands_or_poisoned = binary_operands<A, B> || poisoned<A> || poisoned<B>;

template <class X>
struct operand_elem {
  using type = std::remove_cvref_t<X>;
};
template <expression X>
struct operand_elem<X> {
  using type = value_t<X>;
};
template <class X>
using operand_elem_t = typename operand_elem<X>::type;

template <class X>
struct operand_dims {
  using type = dim_list<>;
};
template <expression X>
struct operand_dims<X> {
  using type = dims_t<X>;
};
template <class X>
using operand_dims_t = typename operand_dims<X>::type;

// Why a binary op is rejected (checked in this order, so one mistake gives one message).
enum class binary_check { ok, outer_broadcast, index_arithmetic, bool_arithmetic, no_common_type };

template <class A, class B>
constexpr bool dims_nest() {
  using la = operand_dims_t<A>;
  using lb = operand_dims_t<B>;
  return list_is_subset_v<la, lb> || list_is_subset_v<lb, la>;
}

template <class A, class B, bool Arithmetic>
constexpr binary_check check_binary() {
  using ea = operand_elem_t<A>;
  using eb = operand_elem_t<B>;
  if (!dims_nest<A, B>()) return binary_check::outer_broadcast;
  if (Arithmetic && (is_index_v<ea> || is_index_v<eb>)) return binary_check::index_arithmetic;
  if (Arithmetic && std::is_same_v<ea, bool> && std::is_same_v<eb, bool>)
    return binary_check::bool_arithmetic;
  if constexpr (expression<A> && expression<B>) {
    if (!has_promotion_v<ea, eb>) return binary_check::no_common_type;
  }
  return binary_check::ok;
}

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

}  // namespace detail

// Element-wise binary ops. Shape rule: operands align by tag; one operand's dim set
// must contain the other's, and the result has that operand's order (the left one's
// when the sets are equal). Types promote as in PyTorch; C++ scalars are wrapped numbers.
// Errors (compile time): an implicit outer broadcast ([B,T,F] + [B,T,H]); arithmetic on
// dg::index<D> or on two bools; element types with no common type.
// Errors (run time): a shared dynamic dim with different extents (shape_error).
#define DIMGRAPH_BINARY_OP(DECL, NAME, FUNCTOR, ARITH)                                    \
  template <class A, class B>                                                             \
    requires detail::binary_operands_or_poisoned<A, B>                                    \
  auto DECL(A&& a, B&& b) {                                                               \
    if constexpr (detail::any_poisoned<A, B>) return detail::invalid_expr{};              \
    else {                                                                                \
      constexpr auto check = detail::check_binary<A, B, ARITH>();                         \
      using lhs_dims = detail::as_role_t<::dimgraph::lhs, detail::operand_dims_t<A>>;     \
      using rhs_dims = detail::as_role_t<::dimgraph::rhs, detail::operand_dims_t<B>>;     \
      DIMGRAPH_REQUIRE(check != detail::binary_check::outer_broadcast,                    \
                       "dimgraph: " NAME                                                  \
                       ": neither operand's dims contain the other's (an implicit outer " \
                       "broadcast); use dg::broadcast_to<...> or dg::outer",              \
                       lhs_dims, rhs_dims);                                               \
      DIMGRAPH_REQUIRE(check != detail::binary_check::index_arithmetic,                   \
                       "dimgraph: " NAME                                                  \
                       ": arithmetic on dg::index<D> makes no sense; dg::cast it first",  \
                       lhs_dims, rhs_dims);                                               \
      DIMGRAPH_REQUIRE(check != detail::binary_check::bool_arithmetic,                    \
                       "dimgraph: " NAME                                                  \
                       ": arithmetic on two bool operands makes no sense; use a logical " \
                       "op or dg::cast",                                                  \
                       lhs_dims, rhs_dims);                                               \
      DIMGRAPH_REQUIRE(check != detail::binary_check::no_common_type,                     \
                       "dimgraph: " NAME                                                  \
                       ": the element types have no common type; dg::cast one operand",   \
                       lhs_dims, rhs_dims);                                               \
      if constexpr (check == detail::binary_check::ok)                                    \
        return detail::make_binary<FUNCTOR>(std::forward<A>(a), std::forward<B>(b));      \
      else return detail::invalid_expr{};                                                 \
    }                                                                                     \
  }

DIMGRAPH_BINARY_OP(operator+, "add", detail::fn::add, true)
DIMGRAPH_BINARY_OP(operator-, "sub", detail::fn::sub, true)
DIMGRAPH_BINARY_OP(operator*, "mul", detail::fn::mul, true)
DIMGRAPH_BINARY_OP(operator/, "div", detail::fn::div, true)
DIMGRAPH_BINARY_OP(pow, "pow", detail::fn::pow, true)
DIMGRAPH_BINARY_OP(min, "min", detail::fn::minimum, true)
DIMGRAPH_BINARY_OP(max, "max", detail::fn::maximum, true)
// Comparisons give bool. (operator== on tensors compares whole values; element-wise
// comparison is always spelled out.)
DIMGRAPH_BINARY_OP(equal, "equal", detail::fn::equal, false)
DIMGRAPH_BINARY_OP(not_equal, "not_equal", detail::fn::not_equal, false)
DIMGRAPH_BINARY_OP(less, "less", detail::fn::less, false)
DIMGRAPH_BINARY_OP(less_equal, "less_equal", detail::fn::less_equal, false)
DIMGRAPH_BINARY_OP(greater, "greater", detail::fn::greater, false)
DIMGRAPH_BINARY_OP(greater_equal, "greater_equal", detail::fn::greater_equal, false)
#undef DIMGRAPH_BINARY_OP

// Logical ops on bool operands.
#define DIMGRAPH_LOGICAL_OP(DECL, NAME, FUNCTOR)                                             \
  template <class A, class B>                                                                \
    requires detail::binary_operands_or_poisoned<A, B>                                       \
  auto DECL(A&& a, B&& b) {                                                                  \
    if constexpr (detail::any_poisoned<A, B>) return detail::invalid_expr{};                 \
    else {                                                                                   \
      constexpr bool nest = detail::dims_nest<A, B>();                                       \
      constexpr bool bools = std::is_same_v<detail::operand_elem_t<A>, bool> &&              \
                             std::is_same_v<detail::operand_elem_t<B>, bool>;                \
      static_assert(nest, "dimgraph: " NAME                                                  \
                          ": neither operand's dims contain the other's (an implicit outer " \
                          "broadcast)");                                                     \
      static_assert(!nest || bools, "dimgraph: " NAME ": the operands must be bool");        \
      if constexpr (nest && bools)                                                           \
        return detail::make_binary<FUNCTOR>(std::forward<A>(a), std::forward<B>(b));         \
      else return detail::invalid_expr{};                                                    \
    }                                                                                        \
  }
DIMGRAPH_LOGICAL_OP(logical_and, "logical_and", detail::fn::logical_and)
DIMGRAPH_LOGICAL_OP(logical_or, "logical_or", detail::fn::logical_or)
DIMGRAPH_LOGICAL_OP(logical_xor, "logical_xor", detail::fn::logical_xor)
#undef DIMGRAPH_LOGICAL_OP

template <detail::expression_or_poisoned X>
auto logical_not(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = std::is_same_v<value_t<X>, bool>;
    static_assert(ok, "dimgraph: logical_not: the operand must be bool");
    if constexpr (ok) return detail::make_map(detail::fn::logical_not{}, std::forward<X>(x));
    else return detail::invalid_expr{};
  }
}

// Element-wise unary ops. Shape rule: the operand's dims. Math functions of integers
// compute in float. Error: the op on dg::index<D> or bool.
#define DIMGRAPH_UNARY_OP(DECL, NAME, FUNCTOR)                                                \
  template <detail::expression_or_poisoned X>                                                 \
  auto DECL(X&& x) {                                                                          \
    if constexpr (detail::poisoned<X>) return detail::invalid_expr{};                         \
    else {                                                                                    \
      constexpr bool ok = !is_index_v<value_t<X>> && !std::is_same_v<value_t<X>, bool>;       \
      static_assert(ok, "dimgraph: " NAME ": the op makes no sense on dg::index<D> or bool"); \
      if constexpr (ok) return detail::make_map(FUNCTOR{}, std::forward<X>(x));               \
      else return detail::invalid_expr{};                                                     \
    }                                                                                         \
  }
DIMGRAPH_UNARY_OP(operator-, "neg", detail::fn::neg)
DIMGRAPH_UNARY_OP(abs, "abs", detail::fn::abs)
DIMGRAPH_UNARY_OP(exp, "exp", detail::fn::exp)
DIMGRAPH_UNARY_OP(log, "log", detail::fn::log)
DIMGRAPH_UNARY_OP(log1p, "log1p", detail::fn::log1p)
DIMGRAPH_UNARY_OP(sqrt, "sqrt", detail::fn::sqrt)
DIMGRAPH_UNARY_OP(rsqrt, "rsqrt", detail::fn::rsqrt)
DIMGRAPH_UNARY_OP(tanh, "tanh", detail::fn::tanh)
DIMGRAPH_UNARY_OP(sigmoid, "sigmoid", detail::fn::sigmoid)
DIMGRAPH_UNARY_OP(relu, "relu", detail::fn::relu)
DIMGRAPH_UNARY_OP(gelu, "gelu", detail::fn::gelu)
DIMGRAPH_UNARY_OP(sin, "sin", detail::fn::sin)
DIMGRAPH_UNARY_OP(cos, "cos", detail::fn::cos)
DIMGRAPH_UNARY_OP(floor, "floor", detail::fn::floor)
DIMGRAPH_UNARY_OP(ceil, "ceil", detail::fn::ceil)
#undef DIMGRAPH_UNARY_OP

namespace detail {
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
}  // namespace detail

// where(cond, a, b): a where cond holds, else b. Shape rule: as for binary ops, over
// three operands (one must contain the others' dims). Error: cond not bool.
template <class C, class A, class B>
  requires(expression<C> && (expression<A> || scalar<A>) && (expression<B> || scalar<B>)) ||
          detail::any_poisoned<C, A, B>
auto where(C&& c, A&& a, B&& b) {
  if constexpr (detail::any_poisoned<C, A, B>) {
    return detail::invalid_expr{};
  } else {
    using la = detail::operand_dims_t<A>;
    using lb = detail::operand_dims_t<B>;
    constexpr bool nest = detail::containing_operand<dims_t<C>, la, lb>() != detail::no_operand;
    constexpr bool cond_bool = std::is_same_v<value_t<C>, bool>;
    static_assert(nest,
                  "dimgraph: where: no operand's dims contain the others' (an implicit outer "
                  "broadcast)");
    static_assert(!nest || cond_bool, "dimgraph: where: the condition must be bool");
    if constexpr (nest && cond_bool) {
      // A scalar branch takes the other branch's element type (both scalars: their common one).
      auto&& a_op = [&]() -> decltype(auto) {
        if constexpr (expression<A>) return std::forward<A>(a);
        else if constexpr (expression<B>)
          return detail::as_operand<std::remove_cvref_t<B>>(std::forward<A>(a));
        else return scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, a};
      }();
      auto&& b_op = [&]() -> decltype(auto) {
        if constexpr (expression<B>) return std::forward<B>(b);
        else if constexpr (expression<A>)
          return detail::as_operand<std::remove_cvref_t<A>>(std::forward<B>(b));
        else return scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, b};
      }();
      if constexpr (detail::is_compared_v<std::remove_cvref_t<C>>)
        // where(p OP q, a, b): the comparison's operands go straight into the select.
        return detail::compared_where(std::forward<C>(c), std::forward<decltype(a_op)>(a_op),
                                      std::forward<decltype(b_op)>(b_op));
      else
        return detail::make_map(detail::fn::select{}, std::forward<C>(c),
                                std::forward<decltype(a_op)>(a_op),
                                std::forward<decltype(b_op)>(b_op));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// cast<T>(x): x's elements converted to T (the explicit narrowing).
template <class T, detail::expression_or_poisoned X>
auto cast(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    static_assert(element<T>, "dimgraph: cast: the target is not an element type");
    if constexpr (element<T>) return detail::make_map(detail::fn::cast_to<T>{}, std::forward<X>(x));
    else return detail::invalid_expr{};
  }
}

// map(f, xs...): a user function applied element by element (fused like any other op).
// f must be a pure function of its arguments: it is called for every element, and, where a
// row ends in less than a whole vector, also for padding lanes (copies of a real element)
// whose results are discarded. Shape rule: as for where. Error: no operand contains the others'
// dims.
template <class F, class... Xs>
  requires(expression<Xs> && ...) || detail::any_poisoned<Xs...>
auto map(F f, Xs&&... xs) {
  if constexpr (detail::any_poisoned<Xs...>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool nest = detail::containing_operand<dims_t<Xs>...>() != detail::no_operand;
    static_assert(
        nest, "dimgraph: map: no operand's dims contain the others' (an implicit outer broadcast)");
    if constexpr (nest)
      return detail::make_map(detail::fn::user<F>{std::move(f)}, std::forward<Xs>(xs)...);
    else return detail::invalid_expr{};
  }
}

namespace detail {
// Argument-dependent lookup on the stand-in for a reported mistake looks in this namespace
// only: the operators named here take it outside namespace dimgraph too (`bad * 2.0f`, `-bad`).
using dimgraph::operator+;
using dimgraph::operator-;
using dimgraph::operator*;
using dimgraph::operator/;
}  // namespace detail

}  // namespace dimgraph
