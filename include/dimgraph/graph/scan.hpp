// dg::scan<D>(body)(inputs...): OpenVINO TensorIterator-1, run eagerly on tensors and
// recorded as a "scan" node with its body as a sub-graph when traced.
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
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/step.hpp"

namespace dimgraph {

namespace detail {

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

}  // namespace detail

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

// dg::scan<D>(body)(inputs...) is TensorIterator-1 over the dim D.
//  inputs   dg::sliced<D, S>(x) is sliced along D (see dg::slicing for the walk); any other
//           tensor or expression is a carry, its initial value the input; tensors the body
//           captures are invariant (read whole every iteration).
//  body     called once per iteration with (slices and carries...) in the order the inputs
//           were passed (const views of the slices, const references to the carries). It
//           returns dg::step(dg::carry(next carries...), dg::emit(values...)); a next carry
//           has its input's element type and dim set (any order: it is evaluated into the
//           input's order).
//  result   a std::tuple: the stacked emitted outputs, then the carries' last values
//           (auto [ys, h, c] = ...). Emitted value k of dims [E...] gives an output of dims
//           stacked_dims_t<iteration_dim_t<D, S>, p, [E...]>: the iteration dim is inserted at
//           p, the position of D in the first sliced input (clamped to the rank); it is D
//           itself when the walk reads every position of D once (else trip_dim<D, S>), S
//           being the first sliced input's slicing. Outputs are in original order: iteration i
//           fills slot slice_walk::slot(i), so a backward walk (start -1, end 0, stride -1) gives
//           S[N-1] ... S[0] for its N iterations S[0] ... S[N-1]. Its other extents are those
//           of iteration 0's value.
//  no iteration  the body is not called; the carries are the inputs, and each stacked
//           output has extent 0 along the iteration dim and, along every other dim, the
//           extent the body's value would have had: static dims their size, a non-static
//           dim the extent it has in the first input that has it (the sliced inputs,
//           whole, then the carries, in the order passed), so [Batch, Time, Hidden] over a
//           batch of 32 is [32, 0, Hidden], as the shape inference of OpenVINO's body or
//           JAX's lax.scan gives. A dim no input has (it comes from a tensor the body
//           captures, or an op in it) is not known without running the body: it gets its
//           smallest extent (0 for a dynamic dim).
//  Options  dg::unroll<K> (default 1), or dg::unroll_all for a trip count known at compile time;
//           dg::hoist: the body is traced once on symbols and each node that depends on no carry
//           and holds a contraction (graph/hoist.hpp) is computed before the loop for every
//           iteration at once (the same ops over the whole sliced input, D a batch dim), then
//           read back by position: equal results, one GEMM instead of a GEMV per step. Needs a
//           traceable body (dg ops on its arguments and captured tensors); used when every
//           sliced input walks D alike one position at a time, not for ragged scans.
//           dg::no_hoist: the naive schedule (the default unless DIMGRAPH_CONFIG_SCAN_HOIST).
// Traced (an input is a symbol of dg::trace, or the body yields one): one "scan<D>" node over
// the inputs, with the slicings, carries and unroll as attributes, holding the body traced on
// arguments of the slices' and carries' tensor types as a sub-graph; the result is a
// std::tuple of symbols of the types above. The checks are the same.
// Ragged  when D is ragged (dg::ragged<Batch>) and the sliced inputs carry its lengths (they
//          have Batch), each row b runs for its own length len[b], as PyTorch's packed
//          sequences: iteration i is active for row b while i < len[b]. A forward walk reads
//          position i; a backward walk (start -1, end 0, stride -1) reads len[b] - 1 - i, so it
//          starts at the row's own last step. A carry stops changing after the row's last step
//          (its final value is the row's state at its own end); emitted outputs are zero past
//          the row's length and carry the lengths along D; a finished row's slices read as
//          zeros (the body never sees padding). The body still runs on the whole batch,
//          max(len) times; no row runs when every length is 0. Needs (compile time): every
//          sliced input walks the whole of D one position at a time, a backward one has Batch,
//          every carry and emitted value has Batch. Errors (run time): sliced inputs with
//          different lengths; a sliced input, carry or emitted value whose Batch extent is not
//          the number of lengths (shape_error). Without lengths (null: every row full) the
//          scan is the plain one. Traced, the scan node says ", ragged over batch"; the graph
//          runs the same way.
// Errors (compile time): see graph/scan_check.hpp (no sliced input, a sliced input without D,
// static trip counts that differ, a carry that changes type, ...). Errors (run time, before
// the first iteration): a slicing outside its dim or past its end, trip counts that differ
// (shape_error). Errors (run time, during iteration i): an emitted value whose extents differ
// from the first iteration's (shape_error "dimgraph: scan: at iteration i: emitted value k
// ..."); any dg::error the body throws keeps its class and gets the scan and the iteration
// before the op that threw it: "dimgraph: scan: at iteration i: add: ...", or with a layer
// between, "dimgraph: scan: at iteration i: nn::lstm_cell: add: ..." (dg::error::add_context).
// After a mistake in the body (reported where it was made) or one of these, the result is the
// stand-in of a reported mistake, one per result when the body's step says how many, which
// later ops and structured bindings take silently.
namespace detail {
template <class O>
inline constexpr bool is_unroll_option_v = std::is_same_v<O, unroll_all> || requires { O::factor; };
// The unroll option among Options (unroll<1> without one).
template <class... Options>
struct unroll_option {
  using type = unroll<1>;
};
template <class O, class... Options>
struct unroll_option<O, Options...> {
  using type =
      std::conditional_t<is_unroll_option_v<O>, O, typename unroll_option<Options...>::type>;
};
template <class... Options>
inline constexpr bool hoist_option_v =
    (std::is_same_v<Options, hoist> || ...) ||
    (DIMGRAPH_CONFIG_SCAN_HOIST && !(std::is_same_v<Options, no_hoist> || ...));
}  // namespace detail

template <dimension D, class... Options, class Body>
auto scan(Body body) {
  static_assert(((detail::is_unroll_option_v<Options> || std::is_same_v<Options, hoist> ||
                  std::is_same_v<Options, no_hoist>)&&...),
                "dimgraph: scan: an option must be dg::unroll<K>, dg::unroll_all, dg::hoist or "
                "dg::no_hoist");
  static_assert(
      !((std::is_same_v<Options, hoist> || ...) && (std::is_same_v<Options, no_hoist> || ...)),
      "dimgraph: scan: dg::hoist and dg::no_hoist both given");
  return scan_fn<std::remove_cvref_t<D>, typename detail::unroll_option<Options...>::type, Body,
                 detail::hoist_option_v<Options...>>(std::move(body));
}

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
