// The mechanics of one dg::scan: its loop (dg::unroll), the slices it reads, its trip-count
// checks, the types of the body's arguments and result, and its stacked outputs.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/call.hpp"
#include "dimgraph/detail/indices.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/scan_check.hpp"
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/step.hpp"
#include "dimgraph/ops/view.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph {

// dg::unroll<K>: run the body K times per pass of the scan loop (the rest one at a time).
template <std::size_t K>
struct unroll {
  static_assert(K >= 1, "dimgraph: scan: unroll<K> needs K of at least 1");
  static constexpr std::size_t factor = K;
};
// dg::unroll_all: no loop at all; needs a trip count known at compile time.
struct unroll_all {};

namespace detail {

// Runs the loop body once per iteration: i = 0, 1, ..., n - 1 (n static with unroll_all).
template <class Unroll, std::size_t StaticCount, class F>
void scan_loop(std::size_t n, F&& once) {
  if constexpr (std::is_same_v<Unroll, unroll_all>) {
    for_each_index<StaticCount>([&]<std::size_t I>(index_constant<I>) { once(I); });
  } else {
    constexpr std::size_t k = Unroll::factor;
    std::size_t i = 0;
    if constexpr (k > 1)
      for (; i + k <= n; i += k)
        for_each_index<k>([&]<std::size_t U>(index_constant<U>) { once(i + U); });
    for (; i < n; ++i) once(i);
  }
}

// The view iteration i of the walk w gives of a sliced input (elements const).
template <class Sliced>
auto slice_at(const Sliced& in, const slice_walk& w, std::size_t i) {
  using d = typename Sliced::dim;
  constexpr slicing s = Sliced::slicing_value;
  using x_t = typename Sliced::operand_type;
  using result = view_of_list_t<const value_t<x_t>, types_of_t<slice_dims_t<d, s, dims_t<x_t>>>>;
  constexpr std::size_t k = list_index_of_v<dims_t<x_t>, d>;
  const auto& x = in.operand;
  const std::ptrdiff_t stride = x.strides()[k];
  const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(w.window(i)) * stride;
  if constexpr (s.part_size == 1) return result(spliced_view<k, 1>(x, "scan", offset, {}, {}));
  else
    return result(spliced_view<k, 1, part_dim<d, static_cast<std::size_t>(s.part_size)>>(
        x, "scan", offset, {w.part_size}, {stride}));
}

// The walk of each sliced input, checked: inside its dim, and the same trip count for all.
// Errors (run time, before any work): shape_error saying what is wrong ("sliced input 0
// along dim 'time' of extent 5: start 3 is after end 1 for a forward slicing ...").
template <class... Ss>
std::array<slice_walk, sizeof...(Ss)> scan_walks(const Ss&... in) {
  std::array<slice_walk, sizeof...(Ss)> walks{};
  std::size_t i = 0;
  auto one = [&]<class S>(const S& x) {
    using d = typename S::dim;
    constexpr slicing s = S::slicing_value;
    const std::size_t n = x.operand.template extent<d>();
    const slice_walk w = slicing_walk(s, n);
    if (!w.valid)
      throw shape_error("scan", "sliced input " + std::to_string(i) + " along dim '" +
                                    describe<d>() + "' of extent " + std::to_string(n) + ": " +
                                    slicing_problem(s, n));
    walks[i++] = w;
  };
  (one(in), ...);
  for (std::size_t k = 1; k < walks.size(); ++k)
    if (walks[k].count != walks[0].count)
      throw shape_error("scan",
                        "sliced inputs iterate a different number of times: sliced input "
                        "0 gives " +
                            std::to_string(walks[0].count) + " iterations, sliced input " +
                            std::to_string(k) + " gives " + std::to_string(walks[k].count));
  return walks;
}

// A stacked output of n along Iter; every other non-static dim X gets
// extent_of(std::type_identity<X>{}) (its static dims their size). Its elements are left
// uninitialised: the scan writes every slot along Iter. Zeroed: zeros, for a ragged scan, which
// leaves the padding past each row's length as it finds it.
template <class Out, class Iter, bool Zeroed = false, class ExtentOf>
Out stacked_output(std::size_t n, const ExtentOf& extent_of) {
  return [&]<class... Ds>(dim_list<Ds...>) {
    auto one = [&]<class X>(std::type_identity<X>) -> std::size_t {
      if constexpr (std::is_same_v<X, Iter>) return n;
      else if constexpr (is_static_v<X>) return bounds_v<X>.lo;
      else return extent_of(std::type_identity<X>{});
    };
    const auto shape = Out::shape_type::from_extents({one(std::type_identity<Ds>{})...}, "scan");
    if constexpr (Zeroed) return Out(shape);
    else return tensor_internals::for_overwrite<Out>(shape);
  }(dims_t<Out>{});
}

// The extent of dim X for a scan that never ran its body: X's extent in the first of the
// values (the sliced inputs' operands, then the initial carries) that has X, else X's
// smallest extent (X then only comes from what the body would have computed, e.g. a tensor
// it captures; the output is empty along the iteration dim either way).
template <class X, class... Vs>
std::size_t input_extent(const Vs&... vs) {
  std::size_t extent = bounds_v<X>.lo;
  bool found = false;
  [[maybe_unused]] auto one = [&]<class V>(const V& v) {
    if constexpr (list_contains_v<dims_t<V>, X>)
      if (!found) {
        extent = v.template extent<X>();
        found = true;
      }
  };
  (one(vs), ...);
  return extent;
}

// f() run as iteration i of a scan: a dg::error it throws gets "scan: at iteration i: " after
// its "dimgraph: " and is rethrown (keeping its class; see detail::in_call).
template <class F>
decltype(auto) at_iteration(std::size_t i, F&& f) {
  return in_call(
      "scan", [i] { return "at iteration " + std::to_string(i); }, std::forward<F>(f));
}

// The error of check_emitted (out of line: the check stays small enough to inline).
template <class X>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_emitted_extent(std::size_t k, std::size_t i,
                                                                    std::size_t got,
                                                                    std::size_t want) {
  throw shape_error("scan", "at iteration " + std::to_string(i) + ": emitted value " +
                                std::to_string(k) + " has extent " + std::to_string(got) +
                                " along dim '" + describe<X>() + "', but iteration 0 emitted " +
                                "extent " + std::to_string(want) +
                                " (every iteration must emit the same extents)");
}

// The value emitted as output k at iteration i has the extents of the stacked output out
// (made from iteration 0's value) along each of its non-static dims. Error: shape_error
// naming scan, the iteration, the output, the dim and both extents.
template <class Out, class E>
void check_emitted(const Out& out, const E& e, std::size_t k, std::size_t i) {
  [&]<class... Ds>(dim_list<Ds...>) {
    [[maybe_unused]] auto one = [&]<class X>(std::type_identity<X>) {
      if constexpr (!is_static_v<X>) {
        const std::size_t want = out.template extent<X>(), got = e.template extent<X>();
        if (got != want) throw_emitted_extent<X>(k, i, got, want);
      }
    };
    (one(std::type_identity<Ds>{}), ...);
  }(dims_t<E>{});
}

// The type of the body's argument for an input X: its slice or its carry.
template <class X>
struct scan_arg_type {
  using type = tensor_type_of_t<X>;
};
template <class X>
  requires is_sliced_v<X>
struct scan_arg_type<X> {
  using type = decltype(slice_at(std::declval<const X&>(), slice_walk{}, 0));
};

// What the body returns on (const Args&...), or invalid_expr when it cannot be called so.
template <bool Invocable, class Body, class... Args>
struct body_result {
  using type = invalid_expr;
};
template <class Body, class... Args>
struct body_result<true, Body, Args...> {
  using type = dimgraph::detail::call_result_t<const Body&, const Args&...>;
};

// The values a body's result R emits, a std::tuple (none when R is not a dg::step: the checks
// say so).
template <class R>
struct emitted_of {
  using type = std::tuple<>;
};
template <class Cs, class... Es>
struct emitted_of<scan_step<Cs, emit_values<Es...>>> {
  using type = std::tuple<Es...>;
};

// The body called on its arguments (the types Args): eagerly on const references to them,
// traced on symbols of their tensor types.
template <bool Traced, class Body, class Args, class Is>
struct body_call;
template <class Body, class... Args, std::size_t... Is>
struct body_call<false, Body, type_list<Args...>, std::index_sequence<Is...>> {
  static constexpr bool invocable = requires(const Body& b, const Args&... a) { b(a...); };
  using result = typename body_result<invocable, Body, Args...>::type;
};
template <class Body, class... Args, std::size_t... Is>
struct body_call<true, Body, type_list<Args...>, std::index_sequence<Is...>> {
  template <class A, std::size_t I>
  using symbol_t = typename arg_symbol<tensor_type_of_t<A>, I>::type;
  static constexpr bool invocable =
      requires(const Body& b, const symbol_t<Args, Is>&... a) { b(a...); };
  using result = typename body_result<invocable, Body, symbol_t<Args, Is>...>::type;
};

// The facts of one scan<D>(body) over inputs of the types Xs (checked by the caller; a
// symbol stands in as a tensor of its type). Traced: the body is called on symbols of its
// arguments' types (so that values it captures from the traced function combine with them).
template <class D, class Body, bool Traced, class... Xs>
struct scan_run {
  static constexpr std::size_t input_count = sizeof...(Xs);
  static constexpr std::array<bool, input_count> is_sliced{is_sliced_v<Xs>...};
  // Position of input k among the sliced or among the carried inputs.
  static constexpr std::array<std::size_t, input_count> group_index = [] {
    std::array<std::size_t, input_count> r{};
    std::size_t s = 0, c = 0;
    for (std::size_t k = 0; k < input_count; ++k) r[k] = is_sliced[k] ? s++ : c++;
    return r;
  }();
  using sliced = sliced_inputs_t<Xs...>;
  using carried = typename joined<
      std::conditional_t<is_sliced_v<Xs>, type_list<>, type_list<tensor_type_of_t<Xs>>>...>::type;
  // The inputs' positions: the sliced ones, then the carried ones.
  static constexpr std::array<std::size_t, input_count> positions = [] {
    std::array<std::size_t, input_count> r{};
    std::size_t j = 0;
    for (bool want : {true, false})
      for (std::size_t k = 0; k < input_count; ++k)
        if (is_sliced[k] == want) r[j++] = k;
    return r;
  }();
  using first = front_t<sliced>;
  using iter = iteration_dim_t<D, first::slicing_value>;
  // Each batch row runs for its own length (see ragged_scan_v); ragged_batch is then D's
  // batch dim, else void.
  static constexpr bool ragged = ragged_scan_v<D, sliced>;
  using ragged_batch = std::conditional_t<ragged, ragged_batch_t<D>, void>;
  static constexpr std::size_t position = list_index_of_v<dims_t<typename first::operand_type>, D>;
  template <class X>
  using arg_of = typename scan_arg_type<X>::type;
  using args = type_list<arg_of<Xs>...>;
  using call = body_call<Traced, Body, args, std::index_sequence_for<Xs...>>;
  // Every sliced input walks D alike, one position at a time (hoisting needs it).
  static constexpr bool same_plain_walks = []<class... Ss>(type_list<Ss...>) {
    return ((Ss::slicing_value == first::slicing_value) && ...) &&
           first::slicing_value.part_size == 1;
  }(sliced{});
  static constexpr bool invocable = call::invocable;
  using result = typename call::result;
  using emitted = typename emitted_of<result>::type;
  template <std::size_t K>
  using output_t = tensor_of_list_t<
      value_t<tensor_type_of_t<std::tuple_element_t<K, emitted>>>,
      stacked_dims_t<iter, position, dims_t<tensor_type_of_t<std::tuple_element_t<K, emitted>>>>>;
};

// The argument of input K: its slice or its carry (both alive until the step is consumed).
template <std::size_t K, class Run, class Slices, class State>
decltype(auto) scan_arg(const Slices& slices, const State& state) {
  if constexpr (Run::is_sliced[K]) return (std::get<Run::group_index[K]>(slices));
  else return (std::get<Run::group_index[K]>(state));
}

// The stacked outputs of a run, each made at the first iteration.
template <class Run, class Is>
struct optional_outputs;
template <class Run, std::size_t... Ks>
struct optional_outputs<Run, std::index_sequence<Ks...>> {
  using type = std::tuple<std::optional<typename Run::template output_t<Ks>>...>;
};

}  // namespace detail
}  // namespace dimgraph
