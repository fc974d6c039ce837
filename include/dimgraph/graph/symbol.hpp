// Symbolic values and the nodes of a traced graph: inputs, captured constants, scalars, ops.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/fixed_string.hpp"
#include "dimgraph/expr/node.hpp"

namespace dimgraph {

// The I-th input of a traced graph: element type T, dims Ds.
template <std::size_t I, class T, class... Ds>
struct input_node {
  using value_type = T;
  using dims = dim_list<Ds...>;
  static constexpr std::size_t index = I;
};

// A tensor the traced function captured: a constant of the graph. `address` tells two
// captured tensors of the same type apart.
template <class T, class Dims>
struct constant_node {
  using value_type = T;
  using dims = Dims;
  const void* address = nullptr;
};

// A C++ scalar operand (x * 2.0f): a rank-0 constant with its value.
template <class T>
struct scalar_node {
  using value_type = T;
  using dims = dim_list<>;
  T value{};
};

// The name of an op and its compile-time attributes (dims, printed by name).
template <detail::fixed_string Name, class... Attrs>
struct op_tag {
  static constexpr auto name = Name;
};

// Op applied to Children, giving element type T over Dims (the types the op gives on
// tensors: the graph's shape facts are the eager ops' own).
template <class Op, class T, class Dims, class... Children>
struct op_node {
  using value_type = T;
  using dims = Dims;
  using op = Op;
  std::tuple<Children...> children;
  std::string attributes{};  // run-time attributes as text ("start=1, end=-1"), may be empty
};

// A symbolic value: what a traced function sees instead of a tensor. It has the value
// type and dims of the tensor it stands for and no data; every public op on it returns
// the symbol of a new node.
template <class Node>
struct symbol {
  using node_type = Node;
  using value_type = typename Node::value_type;
  using dims = typename Node::dims;
  Node node;

  // x[dg::at<D>(i)]: the slice at position i of D, without D.
  template <class D>
  auto operator[](at_arg<D> a) const;
};

// dg::input<T, Ds...>: declares one input of dg::trace by its element type and dims.
template <class T, class... Ds>
struct input {
  static_assert(element<T>, "dimgraph: input: not an element type");
  using value_type = T;
  using dims = dim_list<Ds...>;
};

namespace detail {

template <class X>
inline constexpr bool is_symbol_v = false;
template <class N>
inline constexpr bool is_symbol_v<symbol<N>> = true;

}  // namespace detail

// A symbolic value (cv and references ignored).
template <class X>
concept symbolic = detail::is_symbol_v<std::remove_cvref_t<X>>;

namespace detail {

// The tensor type a value stands for: a symbol's, or an expression's (its element type over
// its dims); anything else is itself (for the caller to report). (Not tensor_of_list_t: from a
// value's type, which may be no value at all, not from an element type and dims.)
template <class X>
struct tensor_type_of {
  using type = X;
};
template <class X>
  requires(expression<X> || is_symbol_v<X>)
struct tensor_type_of<X> {
  using type = tensor_of_list_t<typename X::value_type, typename X::dims>;
};
template <class X>
using tensor_type_of_t = typename tensor_type_of<std::remove_cvref_t<X>>::type;

// What an op's result type is computed from: a symbol stands in as a tensor of its type,
// anything else as itself.
template <class X>
struct stand_in {
  using type = X&&;
};
template <class N>
struct stand_in<symbol<N>> {
  using type = const tensor_of_list_t<typename N::value_type, typename N::dims>&;
};
template <class X>
using stand_in_t = typename stand_in<std::remove_cvref_t<X>>::type;
// An operand's stand-in, for decltype of the op on tensors (declared only).
template <class X>
stand_in_t<X> stand_in_of(const X&);

// The node an operand becomes: a symbol's own node, a captured constant, or a scalar.
template <class X>
auto node_of(const X& x) {
  if constexpr (is_symbol_v<X>) return x.node;
  else if constexpr (expression<X>) return constant_node<value_t<X>, dims_t<X>>{&x};
  else return scalar_node<X>{x};
}
template <class X>
using node_of_t = decltype(node_of(std::declval<const std::remove_cvref_t<X>&>()));

template <class R>
inline constexpr bool is_tuple_v = false;
template <class... Ts>
inline constexpr bool is_tuple_v<std::tuple<Ts...>> = true;

// The staged values of a scan that hoists (graph/hoist.hpp): symbols whose node holds a value.
enum class stage_hold : unsigned char;
template <class N, class Ctx, stage_hold H, class V>
struct staged;
template <class X>
inline constexpr bool is_staged_v = false;
template <class N, class Ctx, stage_hold H, class V>
inline constexpr bool is_staged_v<symbol<staged<N, Ctx, H, V>>> = true;
template <class Op, class Eager, class... Xs>
auto staged_apply(Eager eager, Xs&&... xs);
template <class X>
auto staged_held_value(const X& x);
template <class S, class X>
auto staged_constant(const S& s, const X& x);

// A tensor x that a traced function captured, as a symbol of the constant node an op would
// make of it (x's address names it), in the run of s: a symbol while tracing, a staged value
// reading x in a scan that hoists. Ops on it are nodes over the constant, as on a symbol (a
// view made of x itself while tracing would be a temporary, listed by its own address).
template <class S, class X>
auto constant_symbol(const S& s, const X& x) {
  if constexpr (is_staged_v<S>) return staged_constant(s, x);
  else return symbol<node_of_t<X>>{node_of(x)};
}

// The symbol of a node of Op over xs whose eager result has type R.
template <class Op, class R, class... Xs>
auto symbol_of(std::string attributes, const Xs&... xs) {
  using node = op_node<Op, value_t<R>, dims_t<R>, node_of_t<Xs>...>;
  return symbol<node>{node{{node_of(xs)...}, std::move(attributes)}};
}

// The outputs of a traced function as a tuple of nodes: one symbol, or a tuple/pair of them.
template <class R>
struct traced_outputs {
  static constexpr bool valid = false;
  static constexpr bool poisoned = std::is_same_v<R, invalid_expr>;
};
template <template <class...> class Tuple, class... Rs>
  requires(std::is_same_v<Tuple<Rs...>, std::tuple<Rs...>> ||
           std::is_same_v<Tuple<Rs...>, std::pair<Rs...>>)
struct traced_outputs<Tuple<Rs...>> {
  static constexpr bool valid = false;
  static constexpr bool poisoned = (std::is_same_v<Rs, invalid_expr> || ...);
};
template <class N>
struct traced_outputs<symbol<N>> {
  static constexpr bool valid = true;
  static constexpr bool poisoned = false;
  using nodes = std::tuple<N>;
  static nodes get(const symbol<N>& s) { return nodes{s.node}; }
};
template <template <class...> class Tuple, class... Ns>
  requires(std::is_same_v<Tuple<symbol<Ns>...>, std::tuple<symbol<Ns>...>> ||
           std::is_same_v<Tuple<symbol<Ns>...>, std::pair<symbol<Ns>...>>)
struct traced_outputs<Tuple<symbol<Ns>...>> {
  static constexpr bool valid = true;
  static constexpr bool poisoned = false;
  using nodes = std::tuple<Ns...>;
  static nodes get(const Tuple<symbol<Ns>...>& t) {
    return std::apply([](const auto&... s) { return nodes{s.node...}; }, t);
  }
};

// Operands of an op traced symbolically: at least one symbol, the others tensors,
// expressions or scalars.
template <class... Xs>
concept symbolic_operands =
    (symbolic<Xs> || ...) && ((symbolic<Xs> || expression<Xs> || scalar<Xs>)&&...);

// The symbol of Op applied to xs, of the type R the public op gives on tensors of the
// operands' types. The op on symbols computes R itself, as decltype of the public op on the
// operands' stand-ins (stand_in_of): shape rules and compile-time errors are the eager op's,
// checked once and reported from the op the user called. `eager` is the public op as a
// callable, which a scan that hoists runs (staged_apply); `attributes` describes the run-time
// arguments it captured.
template <class Op, class R, class Eager, class... Xs>
auto symbolic_apply_with(std::string attributes, Eager eager, Xs&&... xs) {
  if constexpr ((is_staged_v<std::remove_cvref_t<Xs>> || ...)) {
    return staged_apply<Op>(std::move(eager), std::forward<Xs>(xs)...);
  } else if constexpr (poisoned<R>) {
    return invalid_expr{};
  } else if constexpr (is_tuple_v<R>) {
    // An op with several results (split): one node per result, told apart by "part=i".
    return with_indices<std::tuple_size_v<R>>([&]<std::size_t... Is>(index_constant<Is>...) {
      return std::tuple{symbol_of<Op, std::tuple_element_t<Is, R>>(
          attributes + (attributes.empty() ? "" : ", ") + "part=" + std::to_string(Is), xs...)...};
    });
  } else {
    return symbol_of<Op, R>(std::move(attributes), xs...);
  }
}
template <class Op, class R, class Eager, class... Xs>
auto symbolic_apply(Eager eager, Xs&&... xs) {
  return symbolic_apply_with<Op, R>(std::string(), std::move(eager), std::forward<Xs>(xs)...);
}

}  // namespace detail

template <class Node>
template <class D>
auto symbol<Node>::operator[](at_arg<D> a) const {
  using result = decltype(detail::stand_in_of(*this)[a]);
  return detail::symbolic_apply_with<op_tag<"at", D>, result>(
      "index=" + std::to_string(a.value), [a](auto&& y) { return y[a]; }, *this);
}

}  // namespace dimgraph
