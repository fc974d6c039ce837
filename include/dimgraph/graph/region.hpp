// Nodes that hold sub-graphs (the branches of if_, the body of scan) and their results.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/call.hpp"
#include "dimgraph/graph/symbol.hpp"

namespace dimgraph {

// The I-th argument of a sub-graph: element type T, dims Ds.
template <std::size_t I, class T, class... Ds>
struct arg_node {
  using value_type = T;
  using dims = dim_list<Ds...>;
  static constexpr std::size_t index = I;
};

// A traced sub-graph: the nodes it yields (a tuple), under a name ("then", "body", ...);
// Args is the std::tuple of its arg_node types; Hoisted the detail::type_list of the node
// types a scan that hoists computes before its loop (the listing shows them first).
template <class Outs, class Args, class Hoisted = detail::type_list<>>
struct body_graph {
  using outputs = Outs;
  using args = Args;
  using hoisted = Hoisted;
  Outs yields;
  std::string name;
  std::string yield_text;  // how the yielded values are grouped, e.g. "carry 2, emit 1"
};

// Op with sub-graphs Bodies over operands Children; its results are Results, a std::tuple
// of tensor types, each reached through a result_node.
template <class Op, class Results, class Bodies, class... Children>
struct region_node {
  using op = Op;
  using results = Results;
  std::tuple<Children...> children;
  Bodies bodies;
  std::string attributes{};
};

// The K-th result of a region node.
template <std::size_t K, class Region>
struct result_node {
  using value_type = value_t<std::tuple_element_t<K, typename Region::results>>;
  using dims = dims_t<std::tuple_element_t<K, typename Region::results>>;
  static constexpr std::size_t index = K;
  Region region;
};

namespace detail {

// poisoned_tuple_t<N>: N stand-ins for a reported mistake, what an op with several results
// (if_, scan) gives after one, so that `auto [a, b] = ...` binds each name to the stand-in
// without a second message.
template <class Is>
struct poisoned_tuple;
template <std::size_t... Is>
struct poisoned_tuple<std::index_sequence<Is...>> {
  template <std::size_t>
  using stand_in = invalid_expr;
  using type = std::tuple<stand_in<Is>...>;
};
template <std::size_t N>
using poisoned_tuple_t = typename poisoned_tuple<std::make_index_sequence<N>>::type;

// std::tuple<Ts...> of a type_list<Ts...>.
template <class L>
struct tuple_of;
template <class... Ts>
struct tuple_of<type_list<Ts...>> {
  using type = std::tuple<Ts...>;
};

template <class Arg, std::size_t I>
struct arg_symbol;
template <class T, class... Ds, std::size_t I>
struct arg_symbol<tensor<T, Ds...>, I> {
  using type = symbol<arg_node<I, T, Ds...>>;
};

// fn called on const lvalue symbols of arguments of the tensor types Args (as the eager
// code calls it on const tensors, so `const auto&` and `auto&` parameters both bind).
template <class... Args, class Fn>
auto call_on_args(const Fn& fn) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    const std::tuple<typename arg_symbol<Args, Is>::type...> args{};
    return std::apply(fn, args);
  }(std::index_sequence_for<Args...>{});
}
// The arg_node types of a sub-graph over arguments of the tensor types Args (declared only:
// for decltype).
template <class... Args, std::size_t... Is>
std::tuple<typename arg_symbol<Args, Is>::type::node_type...> arg_nodes_of(
    std::index_sequence<Is...>);
template <class... Args>
using arg_nodes_t = decltype(arg_nodes_of<Args...>(std::index_sequence_for<Args...>{}));

template <class Fn, class... Args>
inline constexpr bool invocable_on_args_v = []<std::size_t... Is>(std::index_sequence<Is...>) {
  return dimgraph::detail::callable_with<const Fn&, const typename arg_symbol<Args, Is>::type&...>;
}(std::index_sequence_for<Args...>{});
template <class Fn, class... Args>
using args_result_t = decltype(call_on_args<Args...>(std::declval<const Fn&>()));

// fn traced on arguments of the tensor types Args: its outputs as a tuple of nodes (fn
// returns one symbol or a tuple/pair of them; see traced_outputs).
template <class... Args, class Fn>
auto trace_body(const Fn& fn, std::string name) {
  using outs = traced_outputs<std::remove_cvref_t<args_result_t<Fn, Args...>>>;
  static_assert(outs::valid || outs::poisoned,
                "dimgraph: trace: a branch or body must return values computed from its "
                "arguments, or a std::tuple or std::pair of them");
  if constexpr (outs::valid) {
    auto nodes = outs::get(call_on_args<Args...>(fn));
    return body_graph<typename outs::nodes, arg_nodes_t<Args...>>{
        std::move(nodes), std::move(name), {}};
  } else {
    return invalid_expr{};
  }
}

// The symbols of a region node's results: one symbol when Tuple is false and there is one
// result, else a std::tuple of them.
template <bool Tuple, class Region>
auto region_results(const Region& r) {
  constexpr std::size_t n = std::tuple_size_v<typename Region::results>;
  if constexpr (n == 1 && !Tuple) {
    return symbol<result_node<0, Region>>{{r}};
  } else {
    return with_indices<n>([&]<std::size_t... Ks>(index_constant<Ks>...) {
      return std::tuple{symbol<result_node<Ks, Region>>{{r}}...};
    });
  }
}

}  // namespace detail
}  // namespace dimgraph
