// dg::nn::linear: x times a weight matrix over the one dim they share, plus an optional bias.
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/contract.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/nn/parameter_struct.hpp"
#include "dimgraph/ops/contract.hpp"
#include "dimgraph/ops/elementwise.hpp"

namespace dimgraph::nn {
namespace detail {

// Why linear rejects its operands (checked in this order: one message per mistake).
enum class linear_check { ok, w_rank, no_shared_dim, ambiguous, b_dims };

template <class X, class W>
using linear_shared_t = list_intersection_t<dims_of_t<X>, dims_of_t<W>>;

template <class X, class W, class... B>
constexpr linear_check check_linear() {
  using shared = linear_shared_t<X, W>;
  if (dims_of_t<W>::size != 2) return linear_check::w_rank;
  if (shared::size == 0) return linear_check::no_shared_dim;
  if (shared::size > 1) return linear_check::ambiguous;
  if constexpr (sizeof...(B) == 1) {
    using out = first_dim_t<list_difference_t<dims_of_t<W>, shared>>;
    if (!(has_dims_v<B, out> && ...)) return linear_check::b_dims;
  }
  return linear_check::ok;
}

// (B: b's type, or void without it. A check that holds instantiates nothing.)
template <linear_check Check, class X, class W, class B = void>
void report_linear() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using w = dimgraph::detail::operand_role_t<"W", W>;
  DIMGRAPH_REQUIRE(Check != linear_check::w_rank,
                   "dimgraph: linear: W must have exactly two dims [out, in]", x, w);
  DIMGRAPH_REQUIRE(Check != linear_check::no_shared_dim,
                   "dimgraph: linear: x and W share no dim, so there is no feature dim to contract",
                   x, w);
  DIMGRAPH_REQUIRE(Check != linear_check::ambiguous,
                   "dimgraph: linear: x and W share more than one dim, so the feature dim is "
                   "ambiguous; contract it by name with dg::dot<Feature>(x, W)",
                   x, w);
  DIMGRAPH_REQUIRE(Check != linear_check::b_dims,
                   "dimgraph: linear: b must have exactly one dim, W's output dim", x, w,
                   dimgraph::detail::operand_role_t<"b", B>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class... Members>
void report_linear_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1 || sizeof...(Members) == 2,
                   "dimgraph: linear: a parameter struct must hold W, or W and b (its tensor "
                   "members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}

}  // namespace detail

// linear(x, W) = sum over the feature dim of x * W, where W is [out, in] (in any order)
// and the feature dim is the one dim x and W share:
//   linear([.., in, ..], [out, in]) -> [x's other dims in x's order, out]
// Evaluated now (a tensor; a symbol when traced). Errors (compile time): W does not have
// exactly two dims; x and W share no dim, or more than one (ambiguous). Error (run time):
// the feature dim's extents differ (shape_error "dimgraph: nn::linear: dot: ...").
template <layer_operand X, layer_operand W>
auto linear(const X& x, const W& w) {
  if constexpr (dimgraph::detail::any_poisoned<X, W>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::linear_check check = detail::check_linear<X, W>();
    detail::report_linear<check, X, W>();
    if constexpr (check == detail::linear_check::ok) {
      using feature = detail::first_dim_t<detail::linear_shared_t<X, W>>;
      return dimgraph::detail::in_call(
          "nn::linear", [&] { return dimgraph::eval(dimgraph::dot<feature>(x, w)); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// linear(x, W, b) = linear(x, W) + b, with b [out] broadcast over x's other dims (one
// element-wise pass over the product). Errors: as linear(x, W); b's dims are
// not exactly W's output dim (compile time); b's extent is not W's output extent (run time,
// shape_error "dimgraph: nn::linear: add: ...").
template <layer_operand X, layer_operand W, layer_operand B>
auto linear(const X& x, const W& w, const B& b) {
  if constexpr (dimgraph::detail::any_poisoned<X, W, B>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::linear_check check = detail::check_linear<X, W, B>();
    detail::report_linear<check, X, W, B>();
    if constexpr (check == detail::linear_check::ok) {
      using feature = detail::first_dim_t<detail::linear_shared_t<X, W>>;
      return dimgraph::detail::in_call(
          "nn::linear", [&] { return dimgraph::eval(dimgraph::dot<feature>(x, w) + b); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// linear(x, p) with the weights as one struct (see parameter_struct): p's operand members are
// (W) or (W, b) in declaration order; then as above. Error (compile time): p has not one or
// two operand members.
template <layer_operand X, parameter_struct P>
auto linear(const X& x, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_linear_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 1 || n == 2) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::linear(a...); }, x);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
