// The element-wise ops: + - * /, math functions, comparisons, logic, where, cast, map.
#pragma once

#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/expr/elementwise.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/map.hpp"
#include "dimgraph/expr/op_table.hpp"

namespace dimgraph {
namespace detail {

// Values of a later layer that stand for tensors without being expressions (graph/: the
// symbols a traced function sees) are operands of the op table's ops (expr/op_table.hpp)
// through one hook, which that layer specialises for them:
//   template <class N> inline constexpr bool is_deferred_v<symbol<N>> = true;
//   template <class N> struct deferred_elementwise<symbol<N>> {
//     template <class F, class... Xs>
//     static auto make(Xs&&... xs);  // the result of op F (fn::add, ...) on xs
//   };
// A deferred value V stands for a tensor of element type V::value_type over V::dims: the op
// checks its operands as such, with the same messages as for tensors, then gives
// deferred_elementwise<V>::make<F>(xs...) (V: the first deferred operand) where it gives
// make_elementwise<F>(xs...) for expressions and scalars.
template <class X>
inline constexpr bool is_deferred_v = false;
template <class X>
concept deferred = is_deferred_v<std::remove_cvref_t<X>>;
template <class X>
struct deferred_elementwise;

template <class... Xs>
concept any_deferred = (deferred<Xs> || ...);
template <class X, class... Xs>
struct first_deferred {
  using type = typename first_deferred<Xs...>::type;
};
template <deferred X, class... Xs>
struct first_deferred<X, Xs...> {
  using type = std::remove_cvref_t<X>;
};
template <class... Xs>
using first_deferred_t = typename first_deferred<Xs...>::type;

// What an element-wise op takes in place of a tensor: an expression or a deferred value.
template <class X>
concept tensor_operand = expression<X> || deferred<X>;

// Operands of a binary op: two tensor operands, or a tensor operand and a C++ scalar.
template <class A, class B>
concept binary_operands = (tensor_operand<A> && tensor_operand<B>) ||
                          (tensor_operand<A> && scalar<B>) || (scalar<A> && tensor_operand<B>);

template <class A, class B>
concept binary_operands_or_poisoned = binary_operands<A, B> || poisoned<A> || poisoned<B>;

template <class X>
concept unary_operand_or_poisoned = tensor_operand<X> || poisoned<X>;

template <class X>
struct operand_elem {
  using type = std::remove_cvref_t<X>;
};
template <tensor_operand X>
struct operand_elem<X> {
  using type = typename std::remove_cvref_t<X>::value_type;
};
template <class X>
using operand_elem_t = typename operand_elem<X>::type;

template <class X>
struct operand_dims {
  using type = dim_list<>;
};
template <tensor_operand X>
struct operand_dims<X> {
  using type = typename std::remove_cvref_t<X>::dims;
};
template <class X>
using operand_dims_t = typename operand_dims<X>::type;

// Why a binary op is rejected (checked in this order, so one mistake gives one message).
enum class binary_check {
  ok,
  outer_broadcast,
  index_arithmetic,
  bool_arithmetic,
  not_bool,
  no_common_type
};

template <class A, class B>
constexpr bool dims_nest() {
  using la = operand_dims_t<A>;
  using lb = operand_dims_t<B>;
  return list_is_subset_v<la, lb> || list_is_subset_v<lb, la>;
}

template <class A, class B, fn::operand_rule Rule>
constexpr binary_check check_binary() {
  using ea = operand_elem_t<A>;
  using eb = operand_elem_t<B>;
  constexpr bool arithmetic = Rule == fn::operand_rule::arithmetic;
  if (!dims_nest<A, B>()) return binary_check::outer_broadcast;
  if (Rule == fn::operand_rule::logical)
    return std::is_same_v<ea, bool> && std::is_same_v<eb, bool> ? binary_check::ok
                                                                : binary_check::not_bool;
  if (arithmetic && (is_index_v<ea> || is_index_v<eb>)) return binary_check::index_arithmetic;
  if (arithmetic && std::is_same_v<ea, bool> && std::is_same_v<eb, bool>)
    return binary_check::bool_arithmetic;
  if constexpr (tensor_operand<A> && tensor_operand<B>) {
    if (!has_promotion_v<ea, eb>) return binary_check::no_common_type;
  }
  return binary_check::ok;
}

// Why a unary op is rejected.
enum class unary_check { ok, index_or_bool, not_bool };

template <class X, fn::operand_rule Rule>
constexpr unary_check check_unary() {
  using e = operand_elem_t<X>;
  if (Rule == fn::operand_rule::logical)
    return std::is_same_v<e, bool> ? unary_check::ok : unary_check::not_bool;
  return is_index_v<e> || std::is_same_v<e, bool> ? unary_check::index_or_bool : unary_check::ok;
}

}  // namespace detail

// The ops of the op table (expr/op_table.hpp), one public function each.
//
// Binary ops. Shape rule: operands align by tag; one operand's dim set must contain the
// other's, and the result has that operand's order (the left one's when the sets are
// equal). Types promote as in PyTorch; C++ scalars are wrapped numbers. Comparisons and
// logical ops give bool. (operator== on tensors compares whole values; element-wise
// comparison is always spelled out.)
// Errors (compile time): an implicit outer broadcast ([B,T,F] + [B,T,H]); arithmetic on
// dg::index<D> or on two bools; a logical op on operands that are not bool; element types
// with no common type.
// Errors (run time): a shared dynamic dim with different extents (shape_error).
#define DIMGRAPH_BINARY_OP(PUBLIC, OP, KIND, LANES)                                            \
  template <class A, class B>                                                                  \
    requires detail::binary_operands_or_poisoned<A, B>                                         \
  auto PUBLIC(A&& a, B&& b) {                                                                  \
    if constexpr (detail::any_poisoned<A, B>) return detail::invalid_expr{};                   \
    else {                                                                                     \
      constexpr auto check = detail::check_binary<A, B, detail::fn::OP::operands>();           \
      using lhs_dims = detail::as_role_t<::dimgraph::lhs, detail::operand_dims_t<A>>;          \
      using rhs_dims = detail::as_role_t<::dimgraph::rhs, detail::operand_dims_t<B>>;          \
      DIMGRAPH_REQUIRE(check != detail::binary_check::outer_broadcast,                         \
                       "dimgraph: " #OP                                                        \
                       ": neither operand's dims contain the other's (an implicit outer "      \
                       "broadcast); use dg::broadcast_to<...> or dg::outer",                   \
                       lhs_dims, rhs_dims);                                                    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::index_arithmetic,                        \
                       "dimgraph: " #OP                                                        \
                       ": arithmetic on dg::index<D> makes no sense; dg::cast it first",       \
                       lhs_dims, rhs_dims);                                                    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::bool_arithmetic,                         \
                       "dimgraph: " #OP                                                        \
                       ": arithmetic on two bool operands makes no sense; use a logical "      \
                       "op or dg::cast",                                                       \
                       lhs_dims, rhs_dims);                                                    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::not_bool,                                \
                       "dimgraph: " #OP ": the operands must be bool", lhs_dims, rhs_dims);    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::no_common_type,                          \
                       "dimgraph: " #OP                                                        \
                       ": the element types have no common type; dg::cast one operand",        \
                       lhs_dims, rhs_dims);                                                    \
      if constexpr (check != detail::binary_check::ok) return detail::invalid_expr{};          \
      else if constexpr (detail::any_deferred<A, B>)                                           \
        return detail::deferred_elementwise<detail::first_deferred_t<A, B>>::template make<    \
            detail::fn::OP>(std::forward<A>(a), std::forward<B>(b));                           \
      else return detail::make_binary<detail::fn::OP>(std::forward<A>(a), std::forward<B>(b)); \
    }                                                                                          \
  }

// Unary ops. Shape rule: the operand's dims. Math functions of integers compute in float.
// Errors: a logical op on an operand that is not bool; any other op on dg::index<D> or bool.
#define DIMGRAPH_UNARY_OP(PUBLIC, OP, KIND, LANES)                                                \
  template <detail::unary_operand_or_poisoned X>                                                  \
  auto PUBLIC(X&& x) {                                                                            \
    if constexpr (detail::poisoned<X>) return detail::invalid_expr{};                             \
    else {                                                                                        \
      constexpr auto check = detail::check_unary<X, detail::fn::OP::operands>();                  \
      using dims = detail::as_role_t<::dimgraph::has, detail::operand_dims_t<X>>;                 \
      DIMGRAPH_REQUIRE(check != detail::unary_check::index_or_bool,                               \
                       "dimgraph: " #OP ": the op makes no sense on dg::index<D> or bool", dims); \
      DIMGRAPH_REQUIRE(check != detail::unary_check::not_bool,                                    \
                       "dimgraph: " #OP ": the operand must be bool", dims);                      \
      if constexpr (check != detail::unary_check::ok) return detail::invalid_expr{};              \
      else if constexpr (detail::deferred<X>)                                                     \
        return detail::deferred_elementwise<std::remove_cvref_t<X>>::template make<               \
            detail::fn::OP>(std::forward<X>(x));                                                  \
      else return detail::make_map(detail::fn::OP{}, std::forward<X>(x));                         \
    }                                                                                             \
  }

DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_BINARY_OP, DIMGRAPH_UNARY_OP)
#undef DIMGRAPH_BINARY_OP
#undef DIMGRAPH_UNARY_OP

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
      return detail::make_where(std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
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
