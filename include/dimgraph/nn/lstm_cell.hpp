// dg::nn::lstm_cell: one LSTM step (gates i, f, g, o as in PyTorch), separate or fused weights.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/contract.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/nn/parameter_struct.hpp"
#include "dimgraph/ops/concat.hpp"
#include "dimgraph/ops/contract.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/reshape.hpp"

namespace dimgraph::nn {

// What lstm_cell returns: the new hidden state h and cell state c. An aggregate, so
// `auto [h, c] = dg::nn::lstm_cell(...)` works as well as `s.h` and `s.c`.
template <class H, class C = H>
struct lstm_state {
  H h;
  C c;
};

namespace detail {

// The LSTM's gate dim for hidden dim H: c<4> * H, the gates i, f, g, o one after the other.
template <class H>
using lstm_gate_t = gate_dim_t<4, H>;

// The separate-weights checks: W [4H, I], R [4H, H], b [4H].
template <class X, class H, class C, class W, class R, class B>
constexpr cell_check check_lstm() {
  if constexpr (constexpr auto s = check_state<X, H, C>(); s != cell_check::ok) {
    return s;
  } else {
    using d = cell_dims<X, H>;
    using gate = lstm_gate_t<typename d::hidden>;
    if (!has_dims_v<W, gate, typename d::input>) return cell_check::w_dims;
    if (!has_dims_v<R, gate, typename d::hidden>) return cell_check::r_dims;
    if (!has_dims_v<B, gate>) return cell_check::b_dims;
    return cell_check::ok;
  }
}

// The checks with PyTorch's two biases: as above, and b_hh [4H] too.
template <class X, class H, class C, class W, class R, class BI, class BH>
constexpr cell_check check_lstm_two_biases() {
  constexpr cell_check s = check_lstm<X, H, C, W, R, BI>();
  if constexpr (s == cell_check::ok) {
    if (!has_dims_v<BH, lstm_gate_t<typename cell_dims<X, H>::hidden>>) return cell_check::b2_dims;
  }
  return s;
}

// The fused-weights checks: W [4H, I + H], b [4H].
template <class X, class H, class C, class W, class B>
constexpr cell_check check_fused_lstm() {
  if constexpr (constexpr auto s = check_state<X, H, C>(); s != cell_check::ok) {
    return s;
  } else {
    using d = cell_dims<X, H>;
    using gate = lstm_gate_t<typename d::hidden>;
    using both = decltype(typename d::input{} + typename d::hidden{});
    if (!has_dims_v<W, gate, both>) return cell_check::w_dims;
    if (!has_dims_v<B, gate>) return cell_check::b_dims;
    return cell_check::ok;
  }
}

// (B2: b_hh's type, or void without it. A check that holds instantiates nothing.)
template <cell_check Check, bool Fused, class X, class H, class C, class W, class R, class B,
          class B2 = void>
void report_lstm() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using h = dimgraph::detail::operand_role_t<"h", H>;
  using w = dimgraph::detail::operand_role_t<"W", W>;
  DIMGRAPH_REQUIRE(Check != cell_check::input_dim,
                   "dimgraph: lstm_cell: x must have exactly one dim that h lacks (the input dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::hidden_dim,
                   "dimgraph: lstm_cell: h must have exactly one dim that x lacks (the hidden dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::state_dims,
                   "dimgraph: lstm_cell: c must have the same dims as h", h,
                   dimgraph::detail::operand_role_t<"c", C>);
  DIMGRAPH_REQUIRE(Fused || Check != cell_check::w_dims,
                   "dimgraph: lstm_cell: W must have the dims [c<4> * hidden, input]", x, h, w);
  DIMGRAPH_REQUIRE(!Fused || Check != cell_check::w_dims,
                   "dimgraph: lstm_cell: the fused W must have the dims [c<4> * hidden, input + "
                   "hidden]",
                   x, h, w);
  DIMGRAPH_REQUIRE(Check != cell_check::r_dims,
                   "dimgraph: lstm_cell: R must have the dims [c<4> * hidden, hidden]", h,
                   dimgraph::detail::operand_role_t<"R", R>);
  DIMGRAPH_REQUIRE(Check != cell_check::b_dims,
                   "dimgraph: lstm_cell: b (b_ih) must have the one dim c<4> * hidden", h,
                   dimgraph::detail::operand_role_t<"b", B>);
  DIMGRAPH_REQUIRE(Check != cell_check::b2_dims,
                   "dimgraph: lstm_cell: b_hh must have the one dim c<4> * hidden", h,
                   dimgraph::detail::operand_role_t<"b_hh", B2>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class H, class... Members>
void report_lstm_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) >= 2 && sizeof...(Members) <= 4,
                   "dimgraph: lstm_cell: a parameter struct must hold W, R and b; W, R, b_ih and "
                   "b_hh; or the fused W and b (its tensor members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>,
                   dimgraph::detail::operand_role_t<"h", H>, Members...);
}

// The update from the gate pre-activations, each the sum of its part of every source (a
// tuple of [batch..., 4H] products and [4H] biases): c' = f * c + i * g and
// h' = o * tanh(c'), two fused element-wise passes over views of the sources.
template <class Hidden, class C, class Sources>
auto lstm_update(const C& c, const Sources& sources) {
  auto c_new = dimgraph::eval(c * dimgraph::sigmoid(gate_sum_of<4, Hidden, 1>(sources)) +
                              dimgraph::sigmoid(gate_sum_of<4, Hidden, 0>(sources)) *
                                  dimgraph::tanh(gate_sum_of<4, Hidden, 2>(sources)));
  auto h_new =
      dimgraph::eval(dimgraph::tanh(c_new) * dimgraph::sigmoid(gate_sum_of<4, Hidden, 3>(sources)));
  return lstm_state<decltype(h_new), decltype(c_new)>{std::move(h_new), std::move(c_new)};
}

// The step with separate weights: x . W and h . R, each evaluated once, and the biases (b_ih;
// PyTorch's second bias b_hh when given) as the sources of the update, h's first (see
// gate_sum_onto).
template <class X, class H, class C, class W, class R, class BI, class... BH>
auto lstm_separate(const X& x, const H& h, const C& c, const W& w, const R& r, const BI& b_ih,
                   const BH&... b_hh) {
  using d = cell_dims<X, H>;
  const auto from_x = dimgraph::eval(dimgraph::dot<typename d::input>(x, w));
  const auto from_h = dimgraph::eval(dimgraph::dot<typename d::hidden>(h, r));
  if constexpr (sizeof...(BH) == 0)
    return lstm_update<typename d::hidden>(
        c, std::tuple_cat(std::forward_as_tuple(from_h), with_bias(from_x, b_ih)));
  else
    return lstm_update<typename d::hidden>(
        c, std::tuple_cat(with_bias(from_h, b_hh...), with_bias(from_x, b_ih)));
}

// The step with fused weights W [4H, I + H] (see the lstm_cell that takes them): W's input and
// hidden columns as two views, so x . W_x depends on no carry (a scan that hoists computes it
// once for every step); else one product of concat(x, h).
template <class X, class H, class C, class W, class B>
auto lstm_fused(const X& x, const H& h, const C& c, const W& w, const B& b) {
  using d = cell_dims<X, H>;
  using input = typename d::input;
  using hidden = typename d::hidden;
  using both = decltype(input{} + hidden{});
  constexpr bool memory_w = symbolic<W> || dimgraph::detail::memory_operand<W>;
  if constexpr (memory_w && (is_static_v<input> || is_static_v<hidden>)) {
    const auto [w_x, w_h] = dimgraph::split<input, hidden>(w);
    return lstm_separate(x, h, c, w_x, w_h, b);
  } else if constexpr (memory_w && requires { x.template extent<input>(); }) {
    const auto [w_x, w_h] =
        dimgraph::split<input, hidden>(w, dimgraph::extent<input>(x.template extent<input>()));
    return lstm_separate(x, h, c, w_x, w_h, b);
  } else {
    const auto gates = dimgraph::eval(dimgraph::dot<both>(
        dimgraph::concat(dimgraph::along<input>(x), dimgraph::along<hidden>(h)), w));
    return lstm_update<hidden>(c, with_bias(gates, b));
  }
}

}  // namespace detail

// One LSTM step with separate weights, as PyTorch's LSTMCell (with one bias):
//   gates = x . W + h . R + b          W [4H, I], R [4H, H], b [4H]; gate dim c<4> * hidden
//   i, f, g, o = the four hidden-dim parts of gates, in this order
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),  h' = sigmoid(o) * tanh(c')
// x is [batch..., input] and h, c are [batch..., hidden]: the batch dims are those x and h
// share (none for one unbatched step), input is x's other dim and hidden h's. Returns
// lstm_state{h', c'}, both tensors with c's dims in c's order (symbols when traced). Work:
// one product per weight matrix, two fused element-wise passes over views of the gates.
// Errors (compile time): x or h has not exactly one dim of its own; c's dims are not h's;
// W, R or b do not have the dims above. Errors (run time): extents that disagree
// (shape_error from the op that meets them, dot, split_dims, add or mul, after the layer's
// name: "dimgraph: nn::lstm_cell: add: ...").
template <layer_operand X, layer_operand H, layer_operand C, layer_operand W, layer_operand R,
          layer_operand B>
auto lstm_cell(const X& x, const H& h, const C& c, const W& w, const R& r, const B& b) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, C, W, R, B>) {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  } else {
    constexpr detail::cell_check check = detail::check_lstm<X, H, C, W, R, B>();
    detail::report_lstm<check, false, X, H, C, W, R, B>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call("nn::lstm_cell",
                                       [&] { return detail::lstm_separate(x, h, c, w, r, b); });
    } else {
      return lstm_state<dimgraph::detail::invalid_expr>{};
    }
  }
}

// One LSTM step with PyTorch's two biases, as its LSTMCell and LSTM (weight_ih, weight_hh,
// bias_ih, bias_hh): gates = x . W + h . R + b_ih + b_hh, then as above (the biases are two
// more sources of the fused gate pass; nothing is added beforehand). Errors: as above, with
// b_ih and b_hh both [c<4> * hidden].
template <layer_operand X, layer_operand H, layer_operand C, layer_operand W, layer_operand R,
          layer_operand BI, layer_operand BH>
auto lstm_cell(const X& x, const H& h, const C& c, const W& w, const R& r, const BI& b_ih,
               const BH& b_hh) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, C, W, R, BI, BH>) {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  } else {
    constexpr detail::cell_check check = detail::check_lstm_two_biases<X, H, C, W, R, BI, BH>();
    detail::report_lstm<check, false, X, H, C, W, R, BI, BH>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call(
          "nn::lstm_cell", [&] { return detail::lstm_separate(x, h, c, w, r, b_ih, b_hh); });
    } else {
      return lstm_state<dimgraph::detail::invalid_expr>{};
    }
  }
}

// One LSTM step with fused weights, as in the OpenVINO opset's LSTMCell example:
//   gates = concat(x, h) . W + b       W [4H, I + H] (input columns first), b [4H]
// then as above. W is split into its input and hidden columns (views: the dim algebra splits
// input + hidden), so the gates are x . W_x + h . W_h + b with no copy of concat(x, h); for a W
// that is a lazy expression, or input and hidden both dynamic with no extent to read from x,
// x and h are concatenated and the gates are one product.
// Errors: as above, with W [c<4> * hidden, input + hidden].
template <layer_operand X, layer_operand H, layer_operand C, layer_operand W, layer_operand B>
auto lstm_cell(const X& x, const H& h, const C& c, const W& w, const B& b) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, C, W, B>) {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  } else {
    constexpr detail::cell_check check = detail::check_fused_lstm<X, H, C, W, B>();
    detail::report_lstm<check, true, X, H, C, W, void, B>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call("nn::lstm_cell",
                                       [&] { return detail::lstm_fused(x, h, c, w, b); });
    } else {
      return lstm_state<dimgraph::detail::invalid_expr>{};
    }
  }
}

// lstm_cell(x, h, c, p) with the weights as one struct (see parameter_struct): p's operand
// members, in declaration order, are (W, R, b), (W, R, b_ih, b_hh) as PyTorch's state dict
// has them, or the fused (W, b); then as the overload with those operands. Error (compile
// time): p has not two, three or four operand members.
template <layer_operand X, layer_operand H, layer_operand C, parameter_struct P>
auto lstm_cell(const X& x, const H& h, const C& c, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_lstm_members<X, H>(detail::member_roles_t<P>{});
  if constexpr (n >= 2 && n <= 4) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::lstm_cell(a...); }, x, h, c);
  } else {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  }
}

}  // namespace dimgraph::nn
