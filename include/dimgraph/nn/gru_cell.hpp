// dg::nn::gru_cell: one step of a GRU (gates r, z, n as in PyTorch's GRUCell).
#pragma once

#include <cstddef>
#include <tuple>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/contract.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/nn/parameter_struct.hpp"
#include "dimgraph/ops/contract.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/reshape.hpp"

namespace dimgraph::nn {
namespace detail {

// The GRU's gate dim for hidden dim H: c<3> * H, the gates r, z, n one after the other.
template <class H>
using gru_gate_t = gate_dim_t<3, H>;

// W [3H, I], R [3H, H], b_ih [3H], b_hh [3H].
template <class X, class H, class W, class R, class BI, class BH>
constexpr cell_check check_gru() {
  if constexpr (constexpr auto s = check_state<X, H, H>(); s != cell_check::ok) {
    return s;
  } else {
    using d = cell_dims<X, H>;
    using gate = gru_gate_t<typename d::hidden>;
    if (!has_dims_v<W, gate, typename d::input>) return cell_check::w_dims;
    if (!has_dims_v<R, gate, typename d::hidden>) return cell_check::r_dims;
    if (!has_dims_v<BI, gate>) return cell_check::b_dims;
    if (!has_dims_v<BH, gate>) return cell_check::b2_dims;
    return cell_check::ok;
  }
}

template <cell_check Check, class X, class H, class W, class R, class BI, class BH>
void report_gru() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using h = dimgraph::detail::operand_role_t<"h", H>;
  DIMGRAPH_REQUIRE(Check != cell_check::input_dim,
                   "dimgraph: gru_cell: x must have exactly one dim that h lacks (the input dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::hidden_dim,
                   "dimgraph: gru_cell: h must have exactly one dim that x lacks (the hidden dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::w_dims,
                   "dimgraph: gru_cell: W must have the dims [c<3> * hidden, input]", x, h,
                   dimgraph::detail::operand_role_t<"W", W>);
  DIMGRAPH_REQUIRE(Check != cell_check::r_dims,
                   "dimgraph: gru_cell: R must have the dims [c<3> * hidden, hidden]", h,
                   dimgraph::detail::operand_role_t<"R", R>);
  DIMGRAPH_REQUIRE(Check != cell_check::b_dims,
                   "dimgraph: gru_cell: b_ih must have the one dim c<3> * hidden", h,
                   dimgraph::detail::operand_role_t<"b_ih", BI>);
  DIMGRAPH_REQUIRE(Check != cell_check::b2_dims,
                   "dimgraph: gru_cell: b_hh must have the one dim c<3> * hidden", h,
                   dimgraph::detail::operand_role_t<"b_hh", BH>);
}

// The step on checked operands: both products, then one fused pass over views of the gates.
template <class X, class H, class W, class R, class BI, class BH>
auto gru_step(const X& x, const H& h, const W& w, const R& r, const BI& b_ih, const BH& b_hh) {
  using d = cell_dims<X, H>;
  using input = typename d::input;
  using hidden = typename d::hidden;
  const auto from_x = dimgraph::eval(dimgraph::dot<input>(x, w));
  const auto from_h = dimgraph::eval(dimgraph::dot<hidden>(h, r));
  const auto xs = with_bias(from_x, b_ih);
  const auto hs = with_bias(from_h, b_hh);
  const auto all = std::tuple_cat(hs, xs);  // (h's first: see gate_sum_onto)
  const auto reset = dimgraph::sigmoid(gate_sum_of<3, hidden, 0>(all));
  const auto update = dimgraph::sigmoid(gate_sum_of<3, hidden, 1>(all));
  const auto candidate =
      dimgraph::tanh(gate_sum_onto<3, hidden, 2>(reset * gate_sum_of<3, hidden, 2>(hs), xs));
  return dimgraph::eval(h + (1.0f - update) * (candidate - h));
}

}  // namespace detail

// One GRU step, as PyTorch's GRUCell:
//   W [3H, I], R [3H, H], b_ih [3H], b_hh [3H]; gate dim c<3> * hidden, parts r, z, n
//   r = sigmoid(W_r x + b_ir + R_r h + b_hr),  z = sigmoid(W_z x + b_iz + R_z h + b_hz)
//   n = tanh(W_n x + b_in + r * (R_n h + b_hn)),  h' = (1 - z) * n + z * h
// x is [batch..., input] and h [batch..., hidden] (the batch dims are those they share,
// possibly none). Returns h' as a tensor with h's dims in h's order (a symbol when traced).
// Work: one product per weight matrix, then one fused pass over views of the gates that
// computes every gate once (h' is evaluated as h + (1 - z) * (n - h)).
// Errors (compile time): x or h has not exactly one dim of its own; W, R, b_ih or b_hh do
// not have the dims above. Errors (run time): extents that disagree (shape_error from the
// op that meets them, dot, split_dims, add or mul, after the layer's name: "dimgraph:
// nn::gru_cell: add: ...").
template <layer_operand X, layer_operand H, layer_operand W, layer_operand R, layer_operand BI,
          layer_operand BH>
auto gru_cell(const X& x, const H& h, const W& w, const R& r, const BI& b_ih, const BH& b_hh) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, W, R, BI, BH>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::cell_check check = detail::check_gru<X, H, W, R, BI, BH>();
    detail::report_gru<check, X, H, W, R, BI, BH>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call("nn::gru_cell",
                                       [&] { return detail::gru_step(x, h, w, r, b_ih, b_hh); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// gru_cell(x, h, p) with the weights as one struct (see parameter_struct): p's operand
// members are (W, R, b_ih, b_hh) in declaration order, PyTorch's weight_ih, weight_hh,
// bias_ih and bias_hh; then as above. Error (compile time): p has not four operand members.
template <layer_operand X, layer_operand H, parameter_struct P>
auto gru_cell(const X& x, const H& h, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  static_assert(n == 4,
                "dimgraph: gru_cell: a parameter struct must hold W, R, b_ih and b_hh (its "
                "tensor members, in declaration order)");
  if constexpr (n == 4) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::gru_cell(a...); }, x, h);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
