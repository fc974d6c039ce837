// What the nn layers share: their operands, and the dims and gates of a recurrent cell's step.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/dim/list.hpp"
#include "dimgraph/dim/operators.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/graph/symbol.hpp"
#include "dimgraph/ops/reshape.hpp"

namespace dimgraph::nn {

// An operand of an nn layer: a tensor, a view, a lazy expression, or a symbol of a traced
// graph (so that the same layer runs eagerly and traces). The stand-in for a mistake reported
// before is taken too, and passed on without a second message (see dimgraph::detail::poisoned).
template <class X>
concept layer_operand = expression<X> || symbolic<X> || dimgraph::detail::poisoned<X>;

namespace detail {

// The dims of an operand (for symbols too, unlike dims_t).
template <class X>
using dims_of_t = typename std::remove_cvref_t<X>::dims;

// The element type of an operand.
template <class X>
using value_of_t = typename std::remove_cvref_t<X>::value_type;

// An operand that is read more than once: a tensor, view or symbol as it is, a lazy
// expression evaluated once (a const reference, or the tensor it gives).
template <class X>
decltype(auto) read_once(const X& x) {
  if constexpr (symbolic<X> || requires { x.data(); }) return (x);
  else return dimgraph::eval(x);
}

// The first dim of a dim list (void for an empty one).
template <class L>
struct first_dim {
  using type = void;
};
template <class D, class... Ds>
struct first_dim<dim_list<D, Ds...>> {
  using type = D;
};
template <class L>
using first_dim_t = typename first_dim<L>::type;

// Whether x has exactly the dims Ds... (in any order).
template <class X, class... Ds>
inline constexpr bool has_dims_v = list_same_set_v<dims_of_t<X>, dim_list<Ds...>>;

// The dims of one step of a recurrent cell, from x [batch..., input] and h [batch...,
// hidden]: the batch dims are the ones x and h share (any number, also none), the input
// dim is x's only other dim, the hidden dim h's only other dim.
template <class X, class H>
struct cell_dims {
  using x_only = list_difference_t<dims_of_t<X>, dims_of_t<H>>;
  using h_only = list_difference_t<dims_of_t<H>, dims_of_t<X>>;
  static constexpr bool one_input = x_only::size == 1;
  static constexpr bool one_hidden = h_only::size == 1;
  using input = first_dim_t<x_only>;   // (void unless one_input)
  using hidden = first_dim_t<h_only>;  // (void unless one_hidden)
};

// K copies of the hidden dim one after the other: the gate dim c<K> * hidden (void while
// the hidden dim is not known).
template <std::size_t K, class Hidden>
struct gate_dim {
  using type = void;
};
template <std::size_t K, dimension Hidden>
struct gate_dim<K, Hidden> {
  using type = decltype(c<K> * Hidden{});
};
template <std::size_t K, class Hidden>
using gate_dim_t = typename gate_dim<K, Hidden>::type;

// Gate I of a gate tensor g [.., c<K> * hidden, ..]: the dim algebra splits c<K> * hidden
// into c<K> and hidden (split_dims, a view), and gate I is position I along c<K> (a view
// [.., hidden, ..]; no index arithmetic). Works on tensors, views and symbols alike.
template <std::size_t K, class Hidden, std::size_t I, class G>
auto gate(const G& g) {
  return dimgraph::split_dims<const_dim<K>, Hidden>(g)[dimgraph::at<const_dim<K>>(I)];
}

// The pre-activation of gate I: the sum of gate I of every source (products and biases).
template <std::size_t K, class Hidden, std::size_t I, class... Sources>
auto gate_sum(const Sources&... sources) {
  return (... + gate<K, Hidden, I>(sources));
}

// The same over a tuple of sources.
template <std::size_t K, class Hidden, std::size_t I, class Tuple>
auto gate_sum_of(const Tuple& sources) {
  return std::apply([](const auto&... s) { return gate_sum<K, Hidden, I>(s...); }, sources);
}

// acc plus gate I of every source, added onto acc one after the other. (With acc or the
// first source the one that depends on the recurrent state, a scan that hoists the other
// sources reads them in the loop's pass: no partial sum of them is a node of its own.)
// (acc is taken by value and moved into the sum, which holds it: it is a lazy temporary.)
template <std::size_t K, class Hidden, std::size_t I, class Acc, class Tuple>
auto gate_sum_onto(Acc acc, const Tuple& sources) {
  return std::apply(
      [&](const auto&... s) { return (std::move(acc) + ... + gate<K, Hidden, I>(s)); }, sources);
}

// The gate sources of a product and its bias: the two, split separately and summed in the
// fused pass (a bias that is a lazy expression is evaluated first: views are made of it).
// While tracing, a captured bias is the symbol of its constant (a view made of the tensor
// itself would be a temporary, and a graph lists a captured tensor by its address), so that a
// scan that hoists the product reads the bias in the loop's pass, with no sum stored for every
// step; a lazy one is added to the product as one node.
template <class P, class B>
auto with_bias(const P& product, const B& bias) {
  if constexpr (symbolic<P> && symbolic<B>) return std::tuple<const P&, const B&>{product, bias};
  else if constexpr (symbolic<P> && dimgraph::detail::memory_operand<B>)
    return std::tuple{product, dimgraph::detail::constant_symbol(product, bias)};
  else if constexpr (symbolic<P> || symbolic<B>) return std::tuple{dimgraph::eval(product + bias)};
  else if constexpr (requires { bias.data(); })
    return std::tuple<const P&, const B&>{product, bias};
  else return std::tuple<const P&, decltype(dimgraph::eval(bias))>{product, dimgraph::eval(bias)};
}

// Why a recurrent cell rejects its operands (checked in this order: one message per mistake).
enum class cell_check { ok, input_dim, hidden_dim, state_dims, w_dims, r_dims, b_dims, b2_dims };

// The checks every cell shares: x, h and c (the LSTM's cell state; h again for the GRU).
template <class X, class H, class C>
constexpr cell_check check_state() {
  using d = cell_dims<X, H>;
  if (!d::one_input) return cell_check::input_dim;
  if (!d::one_hidden) return cell_check::hidden_dim;
  if (!list_same_set_v<dims_of_t<C>, dims_of_t<H>>) return cell_check::state_dims;
  return cell_check::ok;
}

}  // namespace detail
}  // namespace dimgraph::nn
