// The compile-time checks of dg::scan: its inputs, and what its body returns.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/step.hpp"
#include "dimgraph/graph/symbol.hpp"

// Each check names what is wrong in its message and shows the types involved as template
// arguments of the mistake it reports (e.g. operand<"initial", Hidden>, operand<"next", Other>,
// float, float). The scan then stops (one message per mistake).

namespace dimgraph {
namespace detail {

// Why the inputs of scan<D> are rejected.
enum class scan_input_check {
  ok,
  poisoned,
  no_sliced,
  other_dim,
  not_input,
  outside,
  trips_differ,
  ragged_walk
};

template <class First, class Other>
constexpr bool trip_counts_agree() {
  constexpr bool agree = static_walk<typename First::dim, First::slicing_value>().count ==
                         static_walk<typename Other::dim, Other::slicing_value>().count;
  DIMGRAPH_REQUIRE(agree, "dimgraph: scan: sliced inputs iterate a different number of times",
                   ::dimgraph::asked<typename First::dim, typename Other::dim>);
  return agree;
}

template <class Sliced>
constexpr bool slicing_inside_dim() {
  using d = typename Sliced::dim;
  if constexpr (is_static_v<d>) {
    constexpr slicing_fit fit = check_slicing_fit(Sliced::slicing_value, bounds_v<d>.lo).fit;
    DIMGRAPH_REQUIRE(fit != slicing_fit::before_first && fit != slicing_fit::past_last,
                     "dimgraph: scan: the slicing's start or end lies outside the dim",
                     ::dimgraph::asked<d>);
    DIMGRAPH_REQUIRE(fit != slicing_fit::reversed,
                     "dimgraph: scan: the slicing's start is past its end in the direction of its "
                     "stride (the end is inclusive: an empty walk has start = end + 1 going "
                     "forward, end - 1 going backward)",
                     ::dimgraph::asked<d>);
    return fit == slicing_fit::ok;
  } else {
    return true;
  }
}

// The sliced inputs among Xs, in order.
template <class... Xs>
using sliced_inputs_t =
    typename joined<std::conditional_t<is_sliced_v<std::remove_cvref_t<Xs>>,
                                       type_list<std::remove_cvref_t<Xs>>, type_list<>>...>::type;

// Static trip counts of sliced inputs that know theirs, checked against the first such.
template <class... Ss>
constexpr bool static_trips_agree(type_list<Ss...>) {
  using known =
      typename joined<std::conditional_t<static_trip_v<typename Ss::dim, Ss::slicing_value>,
                                         type_list<Ss>, type_list<>>...>::type;
  if constexpr (known::size < 2) {
    return true;
  } else {
    return [&]<class F, class... Rest>(type_list<F, Rest...>) {
      return (trip_counts_agree<F, Rest>() && ...);
    }(known{});
  }
}

// Whether scan<D> over the sliced inputs Sliced (a type_list) runs each batch row for its own
// length: D is ragged and a sliced input has D's batch dim (so it carries D's lengths).
template <class D, class Sliced>
inline constexpr bool ragged_scan_v = false;
template <class D, class... Ss>
inline constexpr bool ragged_scan_v<D, type_list<Ss...>> =
    (carries_lengths_v<D, dims_t<typename Ss::operand_type>> || ...);

// A sliced input of a scan over the ragged dim D: it walks the whole dim one position at a
// time (a row's steps are its first len positions, in either direction), and backwards only
// with D's batch dim (row b's first step is its own last position, len[b] - 1).
template <class D, class Sliced>
constexpr bool ragged_walk_fits() {
  constexpr slicing s = Sliced::slicing_value;
  constexpr bool whole = walks_whole_dim<D, s>();
  DIMGRAPH_REQUIRE(whole,
                   "dimgraph: scan: over a ragged dim, a sliced input walks the whole dim one "
                   "position at a time (forwards: start 0, end -1, stride 1; backwards: start -1, "
                   "end 0, stride -1)",
                   ::dimgraph::asked<D>);
  if constexpr (!whole) {
    return false;
  } else {
    constexpr bool rows =
        s.stride > 0 || list_contains_v<dims_t<typename Sliced::operand_type>, ragged_batch_t<D>>;
    DIMGRAPH_REQUIRE(rows,
                     "dimgraph: scan: over a ragged dim, a sliced input walked backwards needs the "
                     "dim's batch dim (each row starts at its own last step)",
                     ::dimgraph::asked<D, ragged_batch_t<D>>,
                     detail::operand_role_t<"input", typename Sliced::operand_type>);
    return rows;
  }
}
template <class D, class... Ss>
constexpr bool ragged_walks_fit(type_list<Ss...>) {
  if constexpr (!ragged_scan_v<D, type_list<Ss...>>) return true;
  else return (ragged_walk_fits<D, Ss>() && ...);
}

// The inputs of scan<D>(body)(xs...): at least one sliced along D, every other one a tensor
// or an expression (a carry); static slicings inside their dims; static trip counts equal;
// over a ragged dim whose lengths they carry, walks that ragged_walk_fits.
template <class D, class... Xs>
constexpr scan_input_check check_scan_inputs() {
  using sliced = sliced_inputs_t<Xs...>;
  if constexpr ((poisoned<Xs> || ...)) {
    return scan_input_check::poisoned;
  } else if constexpr (sliced::size == 0) {
    static_assert(sliced::size != 0,
                  "dimgraph: scan: give at least one input as dg::sliced<Dim>(x)");
    return scan_input_check::no_sliced;
  } else if constexpr (![]<class... Ss>(type_list<Ss...>) {
                         return (std::is_same_v<typename Ss::dim, D> && ...);
                       }(sliced{})) {
    static_assert(sizeof(D) == 0,
                  "dimgraph: scan: a sliced input is sliced along another dim than the scan's");
    return scan_input_check::other_dim;
  } else if constexpr (!((is_sliced_v<std::remove_cvref_t<Xs>> || expression<Xs>)&&...)) {
    static_assert(sizeof(D) == 0,
                  "dimgraph: scan: an input must be dg::sliced<Dim>(x), a tensor or an expression");
    return scan_input_check::not_input;
  } else if constexpr (![]<class... Ss>(type_list<Ss...>) {
                         return (slicing_inside_dim<Ss>() && ...);
                       }(sliced{})) {
    return scan_input_check::outside;
  } else if constexpr (!static_trips_agree(sliced{})) {
    return scan_input_check::trips_differ;
  } else if constexpr (!ragged_walks_fit<D>(sliced{})) {
    return scan_input_check::ragged_walk;
  } else {
    return scan_input_check::ok;
  }
}

template <class R>
inline constexpr bool is_scan_step_v = false;
template <class... Cs, class... Es>
inline constexpr bool is_scan_step_v<scan_step<carry_values<Cs...>, emit_values<Es...>>> = true;

// A step that carries or emits the stand-in for a mistake made (and reported) in the body.
template <class R>
inline constexpr bool step_poisoned_v = false;
template <class... Cs, class... Es>
inline constexpr bool step_poisoned_v<scan_step<carry_values<Cs...>, emit_values<Es...>>> =
    any_poisoned<Cs..., Es...>;

// A carry's next value keeps the type of its initial value: the same element type and the
// same dims (in any order).
template <class Initial, class Next>
constexpr bool carry_keeps_type() {
  if constexpr (expression<Next> || symbolic<Next>)
    return std::is_same_v<value_t<Initial>, value_t<Next>> &&
           list_same_set_v<dims_t<Initial>, dims_t<Next>>;
  else return false;
}

template <std::size_t Index, class Iter, class Emitted>
constexpr bool emitted_value_fits() {
  if constexpr (!expression<Emitted> && !symbolic<Emitted>) {
    static_assert(sizeof(Emitted) == 0,
                  "dimgraph: scan: an emitted value must be a tensor or an expression");
    return false;
  } else {
    constexpr bool fresh = !list_contains_v<dims_t<tensor_type_of_t<Emitted>>, Iter>;
    DIMGRAPH_REQUIRE(fresh, "dimgraph: scan: an emitted value already has the iteration dim",
                     ::dimgraph::asked<Iter>, detail::operand_role_t<"emitted", Emitted>);
    return fresh;
  }
}

// Over a ragged dim (Batch its batch dim), a carry (Emitted false) or an emitted value
// (Emitted true) has Batch: each row keeps its carry, and gets zeros, after its last step.
template <std::size_t Index, class Batch, class Value, bool Emitted>
constexpr bool ragged_value_has_rows() {
  constexpr bool has = list_contains_v<dims_t<Value>, Batch>;
  DIMGRAPH_REQUIRE(has || Emitted,
                   "dimgraph: scan: over a ragged dim, every carry needs the dim's batch dim (each "
                   "row keeps its carry after its own last step)",
                   ::dimgraph::asked<Batch>, detail::operand_role_t<"carry", Value>);
  DIMGRAPH_REQUIRE(has || !Emitted,
                   "dimgraph: scan: over a ragged dim, every emitted value needs the dim's batch "
                   "dim (each row's outputs past its own last step are zero)",
                   ::dimgraph::asked<Batch>, detail::operand_role_t<"emitted", Value>);
  return has;
}

// What the body returned (R) against the carried inputs' types (a type_list): a scan_step
// with one carry per carried input. (A poisoned result, or a step carrying or emitting a
// poisoned value, was reported in the body: nothing more to say.)
template <class Carried, class R>
constexpr bool check_scan_step() {
  if constexpr ((poisoned<R>)) {
    return false;
  } else if constexpr (!is_scan_step_v<R>) {
    static_assert(is_scan_step_v<R>,
                  "dimgraph: scan: the body must return dg::step(dg::carry(...), dg::emit(...))");
    return false;
  } else if constexpr (std::tuple_size_v<decltype(std::declval<R>().carries.values)> !=
                       Carried::size) {
    static_assert(std::tuple_size_v<decltype(std::declval<R>().carries.values)> == Carried::size,
                  "dimgraph: scan: the body carries a different number of values than there "
                  "are carried inputs");
    return false;
  } else {
    return !step_poisoned_v<R>;
  }
}

// The values of a step R that passed check_scan_step (Is: its carries, Ks: its emitted
// values): each carry of its carried input's type (the first that is not is reported), and
// emitted expressions without the iteration dim Iter. Over a ragged dim (Batch, its batch
// dim, not void): every carry and emitted value has Batch. (Called by the scan's call
// operator itself, so that a mistake here is reported one frame from the scan's call.)
template <class Iter, class Carried, class R, class Batch, std::size_t... Is, std::size_t... Ks>
constexpr bool check_scan_values(std::index_sequence<Is...>, std::index_sequence<Ks...>) {
  using nexts = decltype(std::declval<R>().carries.values);
  using emits = decltype(std::declval<R>().emits.values);
  constexpr std::size_t changed = [] {
    const bool keeps[] = {
        carry_keeps_type<at_t<Is, Carried>, tensor_type_of_t<std::tuple_element_t<Is, nexts>>>()...,
        false};
    std::size_t i = 0;
    while (keeps[i]) ++i;
    return i;
  }();
  if constexpr (changed != Carried::size) {
    using initial = at_t<changed, Carried>;
    using next = tensor_type_of_t<std::tuple_element_t<changed, nexts>>;
    DIMGRAPH_REQUIRE(changed == Carried::size, "dimgraph: scan: a carry changes type",
                     detail::operand_role_t<"initial", initial>,
                     detail::operand_role_t<"next", next>, detail::element_of_t<initial>,
                     detail::element_of_t<next>);
    return false;
  } else if constexpr (!(emitted_value_fits<Ks, Iter, std::tuple_element_t<Ks, emits>>() && ...)) {
    return false;
  } else if constexpr (std::is_void_v<Batch>) {
    return true;
  } else {
    return (ragged_value_has_rows<Is, Batch, at_t<Is, Carried>, false>() && ...) &&
           (ragged_value_has_rows<Ks, Batch, tensor_type_of_t<std::tuple_element_t<Ks, emits>>,
                                  true>() &&
            ...);
  }
}

}  // namespace detail
}  // namespace dimgraph
