// dg::scan<D>(body)(inputs...): OpenVINO TensorIterator-1, run eagerly on tensors and
// recorded as a "scan" node with its body as a sub-graph when traced.
#pragma once

#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"
#include "dimgraph/graph/scan_fn.hpp"
#include "dimgraph/graph/step.hpp"

namespace dimgraph {

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

}  // namespace dimgraph
