// Loop-invariant hoisting for dg::scan: the plan of one scan call from its body traced on
// symbols, and the staged arguments of its two passes (graph/hoist_plan.hpp, graph/staged.hpp).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/graph/hoist_plan.hpp"
#include "dimgraph/graph/scan_run.hpp"
#include "dimgraph/graph/staged.hpp"
#include "dimgraph/graph/symbol.hpp"
#include "dimgraph/graph/trace.hpp"

namespace dimgraph::detail {

// The hoisting of the eager scan Run over D of Body: its plan from the body traced on symbols,
// and the staged arguments of its two passes.
template <class D, class Body, class Run, class Is = std::make_index_sequence<Run::input_count>>
struct scan_hoisting;
template <class D, class Body, class Run, std::size_t... Ks>
struct scan_hoisting<D, Body, Run, std::index_sequence<Ks...>> {
  // (A sliced input's index is replaced by one no argument has.)
  template <std::size_t K>
  static constexpr std::size_t carried_index = Run::is_sliced[K] ? Run::input_count : K;
  using facts = scan_facts<D, carried_index<Ks>...>;
  using traced = body_call<true, Body, typename Run::args, std::index_sequence<Ks...>>;
  template <class R>
  struct plan_of {
    static constexpr bool valid = false;
    using frontier = type_list<>;
  };
  template <class... Cs, class... Es>
    requires((symbolic<Cs> && ...) && (symbolic<Es> && ...))
  struct plan_of<scan_step<carry_values<Cs...>, emit_values<Es...>>> {
    using plan = hoist_plan<facts, typename Cs::node_type..., typename Es::node_type...>;
    static constexpr bool valid = plan::useful;
    using frontier = typename plan::frontier;
  };
  using plan = plan_of<typename traced::result>;
  static constexpr bool enabled = traced::invocable && plan::valid && Run::same_plain_walks;
  using frontier = typename plan::frontier;
  using hoist_context = stage_context<true, facts, frontier>;
  using loop_context = stage_context<false, facts, frontier>;
  using store_type = typename hoist_context::store_type;

  template <std::size_t K>
  using node_t =
      typename arg_symbol<tensor_type_of_t<at_t<K, typename Run::args>>, K>::type::node_type;

  template <class X>
  static auto const_view_of(const X& x) {
    if constexpr (is_tensor_v<X>) return x.view();
    else return x;
  }

  // Before the loop: a sliced input is its whole operand; a carry is not there.
  template <std::size_t K, class Inputs>
  static auto hoist_arg(hoist_context* ctx, const Inputs& in) {
    if constexpr (Run::is_sliced[K])
      return make_staged<node_t<K>, hoist_context, stage_hold::ready>(
          ctx, const_view_of(std::get<K>(in).operand));
    else return absent_staged<node_t<K>>(ctx);
  }
  // In the loop: the slice, or a view of the carry.
  template <std::size_t K, class Slices, class State>
  static auto loop_arg(loop_context* ctx, const Slices& slices, const State& state) {
    if constexpr (Run::is_sliced[K])
      return make_staged<node_t<K>, loop_context, stage_hold::ready>(
          ctx, std::get<Run::group_index[K]>(slices));
    else
      return make_staged<node_t<K>, loop_context, stage_hold::ready>(
          ctx, const_view_of(std::get<Run::group_index[K]>(state)));
  }
};

// The nodes a scan over D of Body, run as Run, computes before its loop (none unless Hoist).
template <class D, class Body, bool Hoist, class Run>
struct hoisted_nodes_of {
  using type = type_list<>;
};
template <class D, class Body, class Run>
  requires(!Run::ragged && scan_hoisting<D, Body, Run>::enabled)
struct hoisted_nodes_of<D, Body, true, Run> {
  using type = typename scan_hoisting<D, Body, Run>::frontier;
};

}  // namespace dimgraph::detail
