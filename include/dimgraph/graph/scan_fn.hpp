// scan_fn: a scan over a dim with its body, run eagerly on tensors or traced on symbols.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/call.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/eval/matmul.hpp"
#include "dimgraph/graph/hoist.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/scan_check.hpp"
#include "dimgraph/graph/scan_ragged.hpp"
#include "dimgraph/graph/scan_run.hpp"
#include "dimgraph/graph/scan_trace.hpp"
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/step.hpp"

namespace dimgraph {

// A scan over D: call it on the inputs. See dg::scan. Hoist: compute the nodes of the body that
// depend on no carry before the loop (dg::hoist).
template <class D, class Unroll, class Body, bool Hoist = false>
class scan_fn {
 public:
  explicit scan_fn(Body body) : body_(std::move(body)) {}

  // The nodes of the body's graph a call on inputs of the types Xs computes once, before the
  // loop (a detail::type_list of node types; empty when the scan does not hoist them).
  template <class... Xs>
  using hoisted_nodes = typename detail::hoisted_nodes_of<
      D, Body, Hoist, detail::scan_run<D, Body, false, detail::scan_stand_in_t<Xs>...>>::type;

  template <class... Xs>
  auto operator()(Xs&&... xs) const {
    using check_t = detail::scan_input_check;
    constexpr auto check = detail::check_scan_inputs<D, detail::scan_stand_in_t<Xs>...>();
    if constexpr (check == check_t::poisoned || check == check_t::no_sliced ||
                  check == check_t::other_dim || check == check_t::not_input) {
      return poisoned_from_body(std::make_index_sequence<sizeof...(Xs)>{});
    } else {
      constexpr bool traced = detail::traced_scan<D, Body, Xs...>;
      using run = detail::scan_run<D, Body, traced, detail::scan_stand_in_t<Xs>...>;
      if constexpr (check != check_t::ok) return poisoned_results<run>();
      else if constexpr (!valid<run>()) return poisoned_results<run>();
      else if constexpr (!detail::check_scan_values<typename run::iter, typename run::carried,
                                                    typename run::result,
                                                    typename run::ragged_batch>(
                             std::make_index_sequence<run::carried::size>{},
                             std::make_index_sequence<std::tuple_size_v<typename run::emitted>>{}))
        return poisoned_results<run>();
      else if constexpr (traced) return trace<run, std::remove_cvref_t<Xs>...>(xs...);
      else return execute<run>(std::forward_as_tuple(xs...));
    }
  }

 private:
  // The compile-time checks of a run up to the form of the step its body returns (inputs
  // checked already; the step's values are checked by the caller), each reported once.
  template <class Run>
  static constexpr bool valid() {
    constexpr slicing s = Run::first::slicing_value;
    constexpr bool unroll_ok = !std::is_same_v<Unroll, unroll_all> || static_trip_v<D, s>;
    static_assert(unroll_ok,
                  "dimgraph: scan: unroll_all needs a trip count known at compile "
                  "time (a static dim, or start and end both from the front)");
    if constexpr (!unroll_ok) {
      return false;
    } else if constexpr (!Run::invocable) {
      static_assert(Run::invocable,
                    "dimgraph: scan: the body cannot be called with the slices "
                    "and carries, in the order of the inputs");
      return false;
    } else {
      return detail::check_scan_step<typename Run::carried, typename Run::result>();
    }
  }

  // An input rejected (and reported): the body, called on one stand-in per input where it
  // can be, says how many results there would be, so that `auto [ys, h] = ...` says nothing
  // more; else one stand-in.
  template <std::size_t... Is>
  static auto poisoned_from_body(std::index_sequence<Is...>) {
    using stand_in = detail::invalid_expr;
    if constexpr (dimgraph::detail::callable_with<const Body&,
                                                  decltype((void(Is), stand_in{}))...>) {
      using r = dimgraph::detail::call_result_t<const Body&, decltype((void(Is), stand_in{}))...>;
      if constexpr (detail::is_scan_step_v<r>) {
        return []<class... Cs, class... Es>(
                   std::type_identity<scan_step<carry_values<Cs...>, emit_values<Es...>>>) {
          return detail::poisoned_tuple_t<sizeof...(Es) + sizeof...(Cs)>{};
        }(std::type_identity<r>{});
      } else {
        return stand_in{};
      }
    } else {
      return stand_in{};
    }
  }

  // What a run with a reported mistake gives: one stand-in per result (the stacked outputs,
  // then the carries) when the body said how many values it emits, so that
  // `auto [ys, h] = ...` says nothing more; else one.
  template <class Run>
  static auto poisoned_results() {
    if constexpr (Run::invocable && detail::is_scan_step_v<typename Run::result>)
      return detail::poisoned_tuple_t<std::tuple_size_v<typename Run::emitted> +
                                      Run::carried::size>{};
    else return detail::invalid_expr{};
  }

  template <class Run, class Inputs>
  auto execute(const Inputs& in) const;

  // Traced: one "scan" node over the inputs' nodes, its body traced on arguments of the
  // slices' and carries' tensor types; its results are the stacked outputs, then the
  // carries' last values (always a std::tuple, as eagerly).
  template <class Run, class... Xs>
  auto trace(const Xs&... xs) const {
    using emitted = typename Run::emitted;
    auto body = detail::trace_scan_body<
        typename detail::hoisted_nodes_of<D, Body, Hoist, Run>::type,
        detail::tensor_type_of_t<typename Run::template arg_of<detail::scan_stand_in_t<Xs>>>...>(
        body_);
    using results = decltype(detail::scan_results<Run>(
        std::make_index_sequence<std::tuple_size_v<emitted>>{}, typename Run::carried{}));
    using region = region_node<op_tag<"scan", D>, results, std::tuple<decltype(body)>,
                               decltype(detail::scan_input_node(xs))...>;
    return detail::region_results<true>(
        region{{detail::scan_input_node(xs)...},
               {std::move(body)},
               detail::scan_attributes<Unroll, typename Run::ragged_batch, Xs...>()});
  }

  Body body_;
};

template <class D, class Unroll, class Body, bool Hoist>
template <class Run, class Inputs>
auto scan_fn<D, Unroll, Body, Hoist>::execute(const Inputs& in) const {
  using iter = typename Run::iter;
  constexpr std::size_t slice_count = Run::sliced::size;
  constexpr std::size_t carry_count = Run::carried::size;
  constexpr std::size_t emit_count = std::tuple_size_v<typename Run::emitted>;
  constexpr auto pos = Run::positions;
  using state_t = typename detail::tuple_of<typename Run::carried>::type;
  using outputs_t =
      typename detail::optional_outputs<Run, std::make_index_sequence<emit_count>>::type;

  const auto walks =
      detail::with_indices<slice_count>([&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
        return detail::scan_walks(std::get<pos[Ss]>(in)...);
      });
  const std::size_t n = walks[0].count;
  if constexpr (Run::ragged) {
    const lengths_ref lens =
        detail::with_indices<slice_count>([&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
          return detail::scan_lengths<D>(std::get<pos[Ss]>(in)...);
        });
    if (lens) return detail::run_ragged_scan<D, Unroll, Run>(body_, in, lens, n);
  }
  state_t state =
      detail::with_indices<carry_count>([&]<std::size_t... Cs>(detail::index_constant<Cs>...) {
        return state_t(std::get<pos[slice_count + Cs]>(in)...);
      });
  outputs_t outs;

  // The step r of iteration i: its emitted values into the outputs, its carries into the state.
  auto consume = [&](std::size_t i, auto& r) {
    const std::size_t slot = walks[0].slot(i);
    // (Inlined: the check of the emitted extents would make GCC call it out of line.)
    detail::for_each_index<emit_count>(
        [&]<std::size_t K>(detail::index_constant<K>) DIMGRAPH_ALWAYS_INLINE {
          auto& out = std::get<K>(outs);
          const auto& e = std::get<K>(r.emits.values);
          if (!out) {
            // (Uninitialised: iteration i writes slot(i), and the slots are 0 .. n - 1.)
            auto fresh = detail::stacked_output<typename Run::template output_t<K>, iter>(
                n, [&]<class X>(std::type_identity<X>) { return e.template extent<X>(); });
            out.emplace(detail::tensor_internals::hand_over(fresh));
          } else {
            detail::check_emitted(*out, e, K, i);
          }
          (*out)[at<iter>(slot)] = e;
        });
    // Every next carry is computed (from the old ones) before any is replaced. Values of the
    // state's own types are their own tensors: each replaces its carry (no refill of what it
    // leaves, which r drops); others are converted into a new state first.
    detail::with_indices<carry_count>([&]<std::size_t... Cs>(detail::index_constant<Cs>...) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(r.carries.values)>, state_t>)
        (detail::tensor_internals::replace(std::get<Cs>(state), std::get<Cs>(r.carries.values)),
         ...);
      else state = state_t(std::move(std::get<Cs>(r.carries.values))...);
    });
  };
  auto slices_at = [&](std::size_t i) {
    return detail::with_indices<slice_count>([&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
      return std::tuple{detail::slice_at(std::get<pos[Ss]>(in), walks[Ss], i)...};
    });
  };
  auto once = [&](std::size_t i) {
    const auto slices = slices_at(i);
    auto r = detail::at_iteration(i, [&] {
      return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        return body_(detail::scan_arg<Ks, Run>(slices, state)...);
      }(std::make_index_sequence<Run::input_count>{});
    });
    consume(i, r);
  };
  constexpr slicing s = Run::first::slicing_value;
  bool done = false;
  if constexpr (Hoist && !Run::ragged) {
    using hoisting = detail::scan_hoisting<D, Body, Run>;
    if constexpr (hoisting::enabled) {
      // Hoisted when every sliced input walks the same positions of D.
      bool same_walks = n > 0;
      const std::size_t extent0 = std::get<pos[0]>(in).operand.template extent<D>();
      detail::for_each_index<slice_count>([&]<std::size_t S>(detail::index_constant<S>) {
        same_walks = same_walks && std::get<pos[S]>(in).operand.template extent<D>() == extent0;
      });
      if (same_walks) {
        detail::stage_lease<typename hoisting::store_type> lease;
        auto& store = lease.store();
        auto& arena = lease.arena();
        // The pass before the loop: the body on the whole sliced inputs.
        {
          // (Its tensors live as long as the store: the hoisted views read them.)
          typename hoisting::hoist_context ctx{&store, &store.tensors, 0};
          // (What it returns holds nothing: dg::carry and dg::emit stored what they took.)
          [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
            static_cast<void>(body_(hoisting::template hoist_arg<Ks>(&ctx, in)...));
          }(std::make_index_sequence<Run::input_count>{});
        }
        auto staged_once = [&](std::size_t i) {
          const auto slices = slices_at(i);
          typename hoisting::loop_context ctx{&store, &arena, walks[0].window(i)};
          store.taken = {};
          // (dg::carry and dg::emit computed the step's values: it holds tensors and views.)
          auto r = detail::at_iteration(i, [&] {
            return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
              return body_(hoisting::template loop_arg<Ks>(&ctx, slices, state)...);
            }(std::make_index_sequence<Run::input_count>{});
          });
          consume(i, r);
          arena.reset();
        };
        store.weights.expect_uses(n);
        const detail::weight_cache_scope packing(store.weights);
        detail::scan_loop<Unroll, (static_trip_v<D, s> ? static_walk<D, s>().count : 0)>(
            n, staged_once);
        done = true;
      }
    }
  }
  if (!done)
    detail::scan_loop<Unroll, (static_trip_v<D, s> ? static_walk<D, s>().count : 0)>(n, once);

  // No iteration: the extents of the other dims come from the inputs (see dg::scan).
  detail::for_each_index<emit_count>([&]<std::size_t K>(detail::index_constant<K>) {
    auto& out = std::get<K>(outs);
    if (out) return;
    auto no_rows = detail::stacked_output<typename Run::template output_t<K>, iter>(
        n, [&]<class X>(std::type_identity<X>) {
          return detail::with_indices<slice_count>(
              [&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
                return std::apply(
                    [&](const auto&... carries) {
                      return detail::input_extent<X>(std::get<pos[Ss]>(in).operand..., carries...);
                    },
                    state);
              });
        });
    out.emplace(detail::tensor_internals::hand_over(no_rows));
  });
  // The outputs, then the last carries (both dropped here: handed over, not moved).
  return [&]<std::size_t... Ks, std::size_t... Cs>(std::index_sequence<Ks...>,
                                                   std::index_sequence<Cs...>) {
    using result_t =
        std::tuple<typename Run::template output_t<Ks>..., std::tuple_element_t<Cs, state_t>...>;
    return result_t(detail::tensor_internals::hand_over(*std::get<Ks>(outs))...,
                    detail::tensor_internals::hand_over(std::get<Cs>(state))...);
  }(std::make_index_sequence<emit_count>{}, std::make_index_sequence<carry_count>{});
}

}  // namespace dimgraph
