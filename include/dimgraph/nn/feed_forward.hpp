// dg::nn::feed_forward: linear, activation, linear (a transformer's position-wise block).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/activation.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/nn/linear.hpp"
#include "dimgraph/nn/parameter_struct.hpp"

namespace dimgraph::nn {
namespace detail {

// Why feed_forward rejects its operands (checked in this order: one message per mistake).
enum class ff_check {
  ok,
  w1_rank,
  w1_no_shared_dim,
  w1_ambiguous,
  b1_dims,
  w2_rank,
  w2_no_hidden_dim,
  w2_ambiguous,
  b2_dims
};

// The dims of a feed-forward block over x [.., model, ..]: model is the one dim x and W1
// share, hidden W1's other dim, out W2's dim other than hidden (void until known).
template <class X, class W1, class W2>
struct ff_dims {
  using model = first_dim_t<list_intersection_t<dims_of_t<X>, dims_of_t<W1>>>;
  using hidden = first_dim_t<list_difference_t<dims_of_t<W1>, dims_of_t<X>>>;
  using h_dims = list_difference_t<dims_of_t<X>, dims_of_t<W1>>;  // h: these, then hidden
};

// Whether the bias B (void: none) has exactly the dims of the list L.
template <class B, class L>
constexpr bool bias_fits() {
  if constexpr (std::is_void_v<B>) return true;
  else return list_same_set_v<dims_of_t<B>, L>;
}

// B1 and B2 are void when there are no biases.
template <class X, class W1, class B1, class W2, class B2>
constexpr ff_check check_feed_forward() {
  using d = ff_dims<X, W1, W2>;
  if constexpr (dims_of_t<W1>::size != 2) {
    return ff_check::w1_rank;
  } else if constexpr (list_intersection_t<dims_of_t<X>, dims_of_t<W1>>::size == 0) {
    return ff_check::w1_no_shared_dim;
  } else if constexpr (list_intersection_t<dims_of_t<X>, dims_of_t<W1>>::size > 1) {
    return ff_check::w1_ambiguous;
  } else if constexpr (!bias_fits<B1, dim_list<typename d::hidden>>()) {
    return ff_check::b1_dims;
  } else if constexpr (dims_of_t<W2>::size != 2) {
    return ff_check::w2_rank;
  } else if constexpr (!list_contains_v<dims_of_t<W2>, typename d::hidden>) {
    return ff_check::w2_no_hidden_dim;
  } else if constexpr (list_intersection_t<typename d::h_dims, dims_of_t<W2>>::size != 0) {
    return ff_check::w2_ambiguous;
  } else if constexpr (!bias_fits<
                           B2, list_difference_t<dims_of_t<W2>, dim_list<typename d::hidden>>>()) {
    return ff_check::b2_dims;
  } else {
    return ff_check::ok;
  }
}

// (B1 and B2: the biases' types, or void without them. A check that holds instantiates
// nothing.)
template <ff_check Check, class X, class W1, class B1, class W2, class B2>
void report_feed_forward() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using w1 = dimgraph::detail::operand_role_t<"W1", W1>;
  using w2 = dimgraph::detail::operand_role_t<"W2", W2>;
  DIMGRAPH_REQUIRE(Check != ff_check::w1_rank,
                   "dimgraph: nn::feed_forward: W1 must have exactly two dims [hidden, model]", x,
                   w1);
  DIMGRAPH_REQUIRE(Check != ff_check::w1_no_shared_dim,
                   "dimgraph: nn::feed_forward: x and W1 share no dim, so there is no model dim to "
                   "contract",
                   x, w1);
  DIMGRAPH_REQUIRE(Check != ff_check::w1_ambiguous,
                   "dimgraph: nn::feed_forward: x and W1 share more than one dim, so the model "
                   "dim is ambiguous",
                   x, w1);
  DIMGRAPH_REQUIRE(Check != ff_check::b1_dims,
                   "dimgraph: nn::feed_forward: b1 must have exactly one dim, W1's hidden dim", x,
                   w1, dimgraph::detail::operand_role_t<"b1", B1>);
  DIMGRAPH_REQUIRE(Check != ff_check::w2_rank,
                   "dimgraph: nn::feed_forward: W2 must have exactly two dims [out, hidden]", x, w1,
                   w2);
  DIMGRAPH_REQUIRE(Check != ff_check::w2_no_hidden_dim,
                   "dimgraph: nn::feed_forward: W2 lacks W1's hidden dim (W2 is [out, hidden])", x,
                   w1, w2);
  DIMGRAPH_REQUIRE(Check != ff_check::w2_ambiguous,
                   "dimgraph: nn::feed_forward: W2's output dim is one of x's other dims", x, w1,
                   w2);
  DIMGRAPH_REQUIRE(Check != ff_check::b2_dims,
                   "dimgraph: nn::feed_forward: b2 must have exactly one dim, W2's output dim", w1,
                   w2, dimgraph::detail::operand_role_t<"b2", B2>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class... Members>
void report_feed_forward_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 2 || sizeof...(Members) == 4,
                   "dimgraph: nn::feed_forward: a parameter struct must hold W1, b1, W2 and b2, or "
                   "W1 and W2 (its tensor members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}

}  // namespace detail

// feed_forward<A>(x, W1, b1, W2, b2) = linear(A(linear(x, W1, b1)), W2, b2), two
// torch.nn.Linear with the activation A between them (activation::relu, the default as in
// torch.nn.TransformerEncoderLayer; activation::gelu, activation::gelu_tanh):
//   W1 [hidden, model], b1 [hidden], W2 [out, hidden], b2 [out]  (out is usually model again)
//   feed_forward([.., model, ..]) -> [x's other dims in x's order, out]
// model is the one dim x and W1 share, hidden W1's other dim. Work: the first product with its
// bias, one pass for the activation, the second product with its bias. Evaluated now (a
// tensor; a symbol when traced). Errors (compile time): a weight has not two dims; x and W1
// share no dim or more than one; W2 lacks the hidden dim, or its output dim is one of x's
// other dims; a bias whose dims are not its weight's output dim. Error (run time): extents
// that disagree (shape_error "dimgraph: nn::feed_forward: nn::linear: dot: ...").
template <activation A = activation::relu, layer_operand X, layer_operand W1, layer_operand B1,
          layer_operand W2, layer_operand B2>
auto feed_forward(const X& x, const W1& w1, const B1& b1, const W2& w2, const B2& b2) {
  if constexpr (dimgraph::detail::any_poisoned<X, W1, B1, W2, B2>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::ff_check check = detail::check_feed_forward<X, W1, B1, W2, B2>();
    detail::report_feed_forward<check, X, W1, B1, W2, B2>();
    if constexpr (check == detail::ff_check::ok) {
      return dimgraph::detail::in_call("nn::feed_forward", [&] {
        const auto h = dimgraph::eval(detail::activate<A>(nn::linear(x, w1, b1)));
        return nn::linear(h, w2, b2);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// feed_forward<A>(x, W1, W2): as above without biases (torch.nn.Linear with bias=False).
template <activation A = activation::relu, layer_operand X, layer_operand W1, layer_operand W2>
auto feed_forward(const X& x, const W1& w1, const W2& w2) {
  if constexpr (dimgraph::detail::any_poisoned<X, W1, W2>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::ff_check check = detail::check_feed_forward<X, W1, void, W2, void>();
    detail::report_feed_forward<check, X, W1, void, W2, void>();
    if constexpr (check == detail::ff_check::ok) {
      return dimgraph::detail::in_call("nn::feed_forward", [&] {
        const auto h = dimgraph::eval(detail::activate<A>(nn::linear(x, w1)));
        return nn::linear(h, w2);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// feed_forward<A>(x, p) with the weights as one struct (see parameter_struct): p's operand
// members are (W1, b1, W2, b2) or (W1, W2) in declaration order, the two torch.nn.Linear's
// weight and bias. Error (compile time): p has not two or four operand members.
template <activation A = activation::relu, layer_operand X, parameter_struct P>
auto feed_forward(const X& x, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_feed_forward_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 2 || n == 4) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::feed_forward<A>(a...); }, x);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
