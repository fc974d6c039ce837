// Nodes that hold sub-graphs (the branches of if_, the body of scan) and their results.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/graph/symbol.hpp"

namespace dimgraph {

// The I-th argument of a sub-graph: element type T, dims Ds.
template <std::size_t I, class T, class... Ds>
struct arg_node {
  using value_type = T;
  using dims = dim_list<Ds...>;
  static constexpr std::size_t index = I;
};

// A traced sub-graph: the nodes it yields (a tuple), under a name ("then", "body", ...).
template <class Outs>
struct body_graph {
  using outputs = Outs;
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

template <class Arg, std::size_t I>
struct arg_symbol;
template <class T, class... Ds, std::size_t I>
struct arg_symbol<tensor<T, Ds...>, I> {
  using type = symbol<arg_node<I, T, Ds...>>;
};

// fn traced on arguments of the tensor types Args: its outputs as a tuple of nodes (fn
// returns one symbol or a tuple/pair of them; see traced_outputs).
template <class... Args, class Fn>
auto trace_body(const Fn& fn, std::string name) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    using outs =
        traced_outputs<std::remove_cvref_t<decltype(fn(typename arg_symbol<Args, Is>::type{}...))>>;
    static_assert(outs::valid || outs::poisoned,
                  "dimgraph: trace: a branch or body must return values computed from its "
                  "arguments, or a std::tuple or std::pair of them");
    if constexpr (outs::valid) {
      auto nodes = outs::get(fn(typename arg_symbol<Args, Is>::type{}...));
      return body_graph<typename outs::nodes>{std::move(nodes), std::move(name), {}};
    } else {
      return invalid_expr{};
    }
  }(std::index_sequence_for<Args...>{});
}

// The symbols of a region node's results: one symbol, or a std::tuple of them.
template <class Region>
auto region_results(const Region& r) {
  constexpr std::size_t n = std::tuple_size_v<typename Region::results>;
  if constexpr (n == 1) {
    return symbol<result_node<0, Region>>{{r}};
  } else {
    return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return std::tuple{symbol<result_node<Ks, Region>>{{r}}...};
    }(std::make_index_sequence<n>{});
  }
}

}  // namespace detail
}  // namespace dimgraph
