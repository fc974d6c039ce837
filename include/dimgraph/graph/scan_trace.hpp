// What a traced scan needs: its stand-in inputs, its body traced as a sub-graph, its attributes.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/call.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/scan_run.hpp"
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/step.hpp"

namespace dimgraph::detail {

// An input of a traced scan: a symbol, or a symbol given as dg::sliced.
template <class X>
inline constexpr bool traced_scan_input_v = symbolic<X>;
template <class D, slicing S, class N>
inline constexpr bool traced_scan_input_v<sliced_input<D, S, symbol<N>>> = true;

// What a scan input is checked as: a symbol stands in as a tensor of its type.
template <class X>
struct scan_stand_in {
  using type = X;
};
template <class N>
struct scan_stand_in<symbol<N>> {
  using type = tensor_type_of_t<symbol<N>>;
};
template <class D, slicing S, class N>
struct scan_stand_in<sliced_input<D, S, symbol<N>>> {
  using type = sliced_input<D, S, tensor_type_of_t<symbol<N>>>;
};
template <class X>
using scan_stand_in_t = typename scan_stand_in<std::remove_cvref_t<X>>::type;

// Whether a step R carries or emits a symbol.
template <class R>
inline constexpr bool yields_symbols_v = false;
template <class... Cs, class... Es>
inline constexpr bool yields_symbols_v<scan_step<carry_values<Cs...>, emit_values<Es...>>> =
    (symbolic<Cs> || ...) || (symbolic<Es> || ...);

// A scan over inputs of the types Xs is traced when an input is a symbol, or the body, called
// eagerly, yields one (it captured a value of the traced function). (A concept: its parts are
// checked in order, only as far as needed, and the body is called first where the scan is
// called, so a mistake inside it is reported through the scan's one frame.)
template <class D, class Body, class... Xs>
concept traced_scan =
    (traced_scan_input_v<std::remove_cvref_t<Xs>> || ...) ||
    (callable_with<const Body&, const typename scan_arg_type<scan_stand_in_t<Xs>>::type&...> &&
     yields_symbols_v<typename scan_run<D, Body, false, scan_stand_in_t<Xs>...>::result>);

// The node an input of a traced scan contributes: its operand's.
template <class X>
auto scan_input_node(const X& x) {
  if constexpr (is_sliced_v<X>) return node_of(x.operand);
  else return node_of(x);
}

// The body traced on arguments of the tensor types Args: the next carries' nodes, then the
// emitted values' nodes.
template <class Hoisted, class... Args, class Body>
auto trace_scan_body(const Body& body) {
  const auto r = call_on_args<Args...>(body);
  auto nodes = [&]<class... Cs, class... Es>(const carry_values<Cs...>& c,
                                             const emit_values<Es...>& e) {
    return std::apply(
        [&](const auto&... cs) {
          return std::apply(
              [&](const auto&... es) {
                return std::tuple{node_of(cs)..., node_of(es)...};
              },
              e.values);
        },
        c.values);
  }(r.carries, r.emits);
  return body_graph<decltype(nodes), arg_nodes_t<Args...>, Hoisted>{
      std::move(nodes), "body",
      "carry " + std::to_string(std::tuple_size_v<decltype(r.carries.values)>) + ", emit " +
          std::to_string(std::tuple_size_v<decltype(r.emits.values)>)};
}

// The results of a traced scan: the stacked outputs, then the carries (declared only: for
// decltype).
template <class Run, std::size_t... Ks, class... Cs>
std::tuple<typename Run::template output_t<Ks>..., Cs...> scan_results(std::index_sequence<Ks...>,
                                                                       type_list<Cs...>);

// How a traced scan reads its inputs, for the listing: "sliced 0 [start=0, end=-1, stride=1,
// part_size=1], carried 1, 2" (and ", unroll=K" or ", unroll=all"; ", ragged over batch" when
// RaggedBatch, the batch dim of a ragged scan, is not void).
template <class Unroll, class RaggedBatch, class... Xs>
std::string scan_attributes() {
  std::string sliced, carried;
  std::size_t k = 0;
  auto one = [&]<class X>(std::type_identity<X>) {
    if constexpr (is_sliced_v<X>) {
      constexpr slicing s = X::slicing_value;
      sliced += (sliced.empty() ? "sliced " : ", sliced ") + std::to_string(k) +
                " [start=" + std::to_string(s.start) + ", end=" + std::to_string(s.end) +
                ", stride=" + std::to_string(s.stride) +
                ", part_size=" + std::to_string(s.part_size) + "]";
    } else {
      carried += (carried.empty() ? "carried " : ", ") + std::to_string(k);
    }
    ++k;
  };
  (one(std::type_identity<Xs>{}), ...);
  std::string out = sliced + (carried.empty() ? "" : ", " + carried);
  if constexpr (std::is_same_v<Unroll, unroll_all>) out += ", unroll=all";
  else if constexpr (Unroll::factor > 1) out += ", unroll=" + std::to_string(Unroll::factor);
  if constexpr (!std::is_void_v<RaggedBatch>) out += ", ragged over " + describe<RaggedBatch>();
  return out;
}

}  // namespace dimgraph::detail
