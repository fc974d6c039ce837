// dg::trace: a C++ function traced on symbolic inputs into a graph whose type is the graph.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/symbol.hpp"

namespace dimgraph {

namespace detail {

// L with N appended unless it is there already.
template <class L, class N>
struct append_unique;
template <class... Ds, class N>
struct append_unique<type_list<Ds...>, N> {
  using type =
      std::conditional_t<(std::is_same_v<Ds, N> || ...), type_list<Ds...>, type_list<Ds..., N>>;
};

// Every node type reachable from Ns, each once, operands before the nodes that use them.
template <class Acc, class... Ns>
struct topo;
template <class Acc>
struct topo<Acc> {
  using type = Acc;
};
template <class Acc, class N, class R, class... Rest>
struct topo<Acc, N, R, Rest...> {
  using type = typename topo<typename topo<Acc, N>::type, R, Rest...>::type;
};
template <class... Done, class N>
struct topo<type_list<Done...>, N> {
  using type = typename append_unique<type_list<Done...>, N>::type;
};
template <class... Done, class Op, class T, class Dims, class... Cs>
struct topo<type_list<Done...>, op_node<Op, T, Dims, Cs...>> {
  using type = typename append_unique<typename topo<type_list<Done...>, Cs...>::type,
                                      op_node<Op, T, Dims, Cs...>>::type;
};
template <class... Done, class Op, class Results, class Bodies, class... Cs>
struct topo<type_list<Done...>, region_node<Op, Results, Bodies, Cs...>> {
  using type = typename append_unique<typename topo<type_list<Done...>, Cs...>::type,
                                      region_node<Op, Results, Bodies, Cs...>>::type;
};
template <class... Done, std::size_t K, class Region>
struct topo<type_list<Done...>, result_node<K, Region>> {
  using type = typename append_unique<typename topo<type_list<Done...>, Region>::type,
                                      result_node<K, Region>>::type;
};

template <class Input, std::size_t I>
struct input_symbol;
template <class T, class... Ds, std::size_t I>
struct input_symbol<input<T, Ds...>, I> {
  using type = symbol<input_node<I, T, Ds...>>;
};

// A run-time argument fits an input when it is an expression of the same element type over
// the same set of dims.
template <class Arg, class Input>
inline constexpr bool fits_input_v =
    expression<Arg> && std::is_same_v<value_t<Arg>, typename Input::value_type> &&
    list_same_set_v<dims_t<Arg>, typename Input::dims>;

}  // namespace detail

// A traced graph. Its type is the graph:
//   inputs      std::tuple of the tensor types it takes,
//   outputs     std::tuple of the tensor types it returns (output_t<I>: one of them),
//   nodes       detail::type_list of its node types, each once, inputs first, in an order
//               where a node follows its operands (scalars and constants of one type share
//               a node type: the listing tells them apart).
// g(args...) runs the traced function on tensors (the compiled, fused kernels; the
// arguments must match the inputs' element types and dim sets) and returns its output(s)
// as tensors. `operator<<` prints the listing; dg::to_dot writes Graphviz.
template <class Fn, class Inputs, class OutputNodes>
class graph;

template <class Fn, class... Inputs, class... Outs>
class graph<Fn, std::tuple<Inputs...>, std::tuple<Outs...>> {
 public:
  using inputs =
      std::tuple<detail::tensor_of_list_t<typename Inputs::value_type, typename Inputs::dims>...>;
  using outputs =
      std::tuple<detail::tensor_of_list_t<typename Outs::value_type, typename Outs::dims>...>;
  template <std::size_t I>
  using output_t = std::tuple_element_t<I, outputs>;
  using input_nodes = std::tuple<Inputs...>;
  using output_nodes = std::tuple<Outs...>;
  using nodes = typename detail::topo<detail::type_list<Inputs...>, Outs...>::type;
  static constexpr std::size_t input_count = sizeof...(Inputs);
  static constexpr std::size_t output_count = sizeof...(Outs);

  graph(Fn fn, output_nodes outs) : fn_(std::move(fn)), outs_(std::move(outs)) {}

  // Runs the function on tensors; one output is returned as a tensor, several as a tuple.
  template <class... Args>
  auto operator()(const Args&... args) const {
    constexpr bool count_ok = sizeof...(Args) == sizeof...(Inputs);
    static_assert(count_ok, "dimgraph: graph: wrong number of arguments");
    if constexpr (count_ok) {
      constexpr bool fit = (detail::fits_input_v<Args, Inputs> && ...);
      DIMGRAPH_REQUIRE(
          fit, "dimgraph: graph: an argument's element type or dims differ from its input's",
          detail::operand_role_t<"argument", Args>..., detail::operand_role_t<"input", Inputs>...);
      if constexpr (fit) return materialize_outputs(fn_(args...));
      else return detail::invalid_expr{};
    } else {
      return detail::invalid_expr{};
    }
  }

  const output_nodes& output_node_values() const { return outs_; }

 private:
  template <class R>
  static auto materialize_outputs(R&& r) {
    if constexpr (sizeof...(Outs) == 1) {
      return output_t<0>(std::forward<R>(r));
    } else {
      return std::apply(
          [](auto&&... xs) {
            return outputs(detail::tensor_of_list_t<typename Outs::value_type, typename Outs::dims>(
                std::forward<decltype(xs)>(xs))...);
          },
          std::forward<R>(r));
    }
  }

  Fn fn_;
  output_nodes outs_;
};

// trace(fn, dg::input<T, Ds...>{}...): calls fn once on symbols of the inputs and records
// what it computes. fn must be generic (auto parameters; take them as `const auto&` so that
// the same fn, run on tensors, returns expressions over the caller's tensors) and return one
// value or a std::tuple/std::pair of values. Tensors it captures become constants; dg::if_
// and dg::scan inside it become nodes holding their branches or body as sub-graphs. As for
// any lazy expression, one over a tensor local to fn must be dg::eval'd before fn returns
// it (dg::eval of a symbol is the symbol, so the traced graph is unchanged).
template <class Fn, class... Inputs>
auto trace(Fn fn, Inputs...) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    using result = decltype(fn(typename detail::input_symbol<Inputs, Is>::type{}...));
    using outs = detail::traced_outputs<std::remove_cvref_t<result>>;
    // (A mistake inside fn was reported where it happened: no second message.)
    static_assert(outs::valid || outs::poisoned,
                  "dimgraph: trace: the function must return a value computed from its inputs, "
                  "or a std::tuple or std::pair of them");
    if constexpr (outs::valid) {
      auto nodes = outs::get(fn(typename detail::input_symbol<Inputs, Is>::type{}...));
      return graph<Fn, std::tuple<typename detail::input_symbol<Inputs, Is>::type::node_type...>,
                   typename outs::nodes>(std::move(fn), std::move(nodes));
    } else {
      return detail::invalid_expr{};
    }
  }(std::index_sequence_for<Inputs...>{});
}

}  // namespace dimgraph
