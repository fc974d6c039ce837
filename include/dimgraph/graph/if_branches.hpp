// The branches of dg::if_: their outputs, the check that they match, and whether one may dangle.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/call.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/region.hpp"

namespace dimgraph::detail {

// The outputs of a branch as a type_list: one value, or the elements of a tuple or pair.
template <class R>
struct branch_outputs {
  static constexpr bool several = false;
  using list = type_list<R>;
};
template <class... Rs>
struct branch_outputs<std::tuple<Rs...>> {
  static constexpr bool several = true;
  using list = type_list<Rs...>;
};
template <class A, class B>
struct branch_outputs<std::pair<A, B>> {
  static constexpr bool several = true;
  using list = type_list<A, B>;
};
template <class R>
using branch_outputs_t = typename branch_outputs<std::remove_cvref_t<R>>::list;

// Why what the branches return does not match (checked in this order; output by output, the
// first output that does not match is the one reported).
enum class branches_check { ok, poisoned, output_counts, not_tensor, element_types, dims };

// Output k of both branches (its tensor types, or what a branch returned that is not an
// expression or symbol).
template <class Then, class Else>
constexpr branches_check check_output() {
  using check = branches_check;
  if constexpr (!expression<Then> || !expression<Else>) return check::not_tensor;
  else if constexpr (!std::is_same_v<value_t<Then>, value_t<Else>>) return check::element_types;
  else if constexpr (!list_same_set_v<dims_t<Then>, dims_t<Else>>) return check::dims;
  else return check::ok;
}

// The first output at which the branches' outputs (type_lists of one length) do not match, or
// their number.
template <class... Ts, class... Es>
constexpr std::size_t first_mismatch(type_list<Ts...>, type_list<Es...>) {
  const bool match[] = {
      (check_output<tensor_type_of_t<Ts>, tensor_type_of_t<Es>>() == branches_check::ok)..., false};
  std::size_t k = 0;
  while (match[k]) ++k;
  return k;
}

// Whether a branch's outputs (a type_list) hold the stand-in for a mistake made in it.
template <class... Rs>
constexpr bool outputs_poisoned(type_list<Rs...>) {
  return any_poisoned<Rs...>;
}

// What the branches return (ThenR, ElseR) matches: as many outputs, output k of both
// expressions of the same element type and dim set. (A poisoned output was reported where it
// was made.)
template <class ThenR, class ElseR>
constexpr branches_check check_branches() {
  using ts = branch_outputs_t<ThenR>;
  using es = branch_outputs_t<ElseR>;
  if constexpr (outputs_poisoned(ts{}) || outputs_poisoned(es{})) {
    return branches_check::poisoned;
  } else if constexpr (ts::size != es::size) {
    return branches_check::output_counts;
  } else {
    constexpr std::size_t k = first_mismatch(ts{}, es{});
    if constexpr (k == ts::size) return branches_check::ok;
    else return check_output<tensor_type_of_t<at_t<k, ts>>, tensor_type_of_t<at_t<k, es>>>();
  }
}

// The report of check_branches, called where if_ is called (a check that holds instantiates
// nothing): the error line shows the output's dims in both branches (and its element types).
template <branches_check Check, class ThenR, class ElseR>
void report_branches() {
  using check = branches_check;
  using ts = branch_outputs_t<ThenR>;
  using es = branch_outputs_t<ElseR>;
  if constexpr (Check == check::output_counts) {
    static_assert(ts::size == es::size,
                  "dimgraph: if_: branches return different numbers of outputs");
  } else if constexpr (Check == check::not_tensor || Check == check::element_types ||
                       Check == check::dims) {
    constexpr std::size_t k = first_mismatch(ts{}, es{});
    using then_t = tensor_type_of_t<at_t<k, ts>>;
    using else_t = tensor_type_of_t<at_t<k, es>>;
    using then_role = detail::operand_role_t<"then", then_t>;
    using else_role = detail::operand_role_t<"else", else_t>;
    if constexpr (Check == check::not_tensor)
      static_assert(sizeof(then_t) == 0,
                    "dimgraph: if_: a branch must return tensors or expressions (or a std::tuple "
                    "or std::pair of them)");
    DIMGRAPH_REQUIRE(Check != check::element_types,
                     "dimgraph: if_: branches return different element types", then_role, else_role,
                     value_t<then_t>, value_t<else_t>);
    DIMGRAPH_REQUIRE(Check != check::dims, "dimgraph: if_: branches return different dims",
                     then_role, else_role);
  }
}

// What if_ gives after a reported mistake in or about its branches: one stand-in per output
// (as many as the first branch that returns a tuple or pair has), so that
// `auto [a, b] = dg::if_(...)(...)` says nothing more.
template <class ThenR, class ElseR>
auto poisoned_outputs() {
  using then_outputs = branch_outputs<std::remove_cvref_t<ThenR>>;
  using else_outputs = branch_outputs<std::remove_cvref_t<ElseR>>;
  if constexpr (then_outputs::several) return poisoned_tuple_t<then_outputs::list::size>{};
  else if constexpr (else_outputs::several) return poisoned_tuple_t<else_outputs::list::size>{};
  else return invalid_expr{};
}

// A branch's result as tensors of the types Outs (a type_list): one tensor, or a std::tuple.
template <class Outs, class R>
DIMGRAPH_ALWAYS_INLINE inline auto materialize_branch(R&& r) {
  return [&]<class... Os>(type_list<Os...>) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (!branch_outputs<std::remove_cvref_t<R>>::several) {
      return front_t<Outs>(std::forward<R>(r));
    } else {
      return std::apply([](auto&&... e) { return std::tuple<Os...>(Os(std::move(e))...); },
                        std::forward<R>(r));
    }
  }(Outs{});
}

template <class L>
struct tensors_of_outputs;
template <class... Rs>
struct tensors_of_outputs<type_list<Rs...>> {
  using type = type_list<tensor_type_of_t<Rs>...>;
};
// The tensor types of a branch's outputs (a type_list).
template <class L>
using tensors_of_outputs_t = typename tensors_of_outputs<L>::type;

// The parameter types of a callable, where they can be known without calling it: a function
// (pointer), a class with one call operator, or a class whose call operator is a template
// with one parameter per argument (a generic lambda such as [](auto p, const auto& q)),
// instantiated for the argument types Xs as a call deduces them (const Xs& lvalues give
// `auto` parameters the type Xs).
template <class... Ps>
struct parameter_types {
  static constexpr bool known = true;
  using list = type_list<Ps...>;
};
struct unknown_parameters {
  static constexpr bool known = false;
  using list = type_list<>;
};
template <class F>
struct signature_parameters : unknown_parameters {};
template <class R, class... Ps>
struct signature_parameters<R (*)(Ps...)> : parameter_types<Ps...> {};
template <class R, class... Ps>
struct signature_parameters<R (*)(Ps...) noexcept> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...)> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...) const> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...) noexcept> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...) const noexcept> : parameter_types<Ps...> {};

template <class Fn, class... Xs>
struct call_parameters : unknown_parameters {};
template <class Fn, class... Xs>
  requires std::is_pointer_v<Fn> || std::is_function_v<Fn>
struct call_parameters<Fn, Xs...> : signature_parameters<std::decay_t<Fn>> {};
template <class Fn, class... Xs>
  requires requires { &Fn::operator(); }
struct call_parameters<Fn, Xs...> : signature_parameters<decltype(&Fn::operator())> {};
template <class Fn, class... Xs>
  requires requires { &Fn::template operator()<Xs...>; }
struct call_parameters<Fn, Xs...>
    : signature_parameters<decltype(&Fn::template operator()<Xs...>)> {};

// What a branch result may refer to: a lazy expression, to any object it was made from (it
// holds lvalues by reference); a view, to the elements of a tensor. A tensor refers to
// nothing.
template <class R>
inline constexpr bool result_is_lazy_v = expression<R> && !memory_operand<R>;
template <class R>
inline constexpr bool result_is_view_v = is_view_v<std::remove_cvref_t<R>>;

// Whether the outputs Rs (a type_list) may refer to a parameter of the types Ps (a type_list)
// taken by value, which dies when the branch returns: a lazy output and any by-value
// parameter, or a view output and a tensor taken by value.
template <class Rs, class Ps>
struct dangling_outputs;
template <class... Rs, class... Ps>
struct dangling_outputs<type_list<Rs...>, type_list<Ps...>> {
  static constexpr bool by_value = (!std::is_reference_v<Ps> || ...);
  static constexpr bool tensor_by_value =
      ((!std::is_reference_v<Ps> && is_tensor_v<std::remove_cv_t<Ps>>) || ...);
  static constexpr bool value = (by_value && (result_is_lazy_v<Rs> || ...)) ||
                                (tensor_by_value && (result_is_view_v<Rs> || ...));
};

// A branch Fn called on const Xs&... returns R, which may dangle: it takes an input by value
// and returns a lazy expression or view that may refer to that copy.
template <class Fn, class R, class... Xs>
constexpr bool branch_may_dangle() {
  using params = call_parameters<Fn, Xs...>;
  if constexpr (!params::known) return false;
  else return dangling_outputs<branch_outputs_t<R>, typename params::list>::value;
}

// The check at the entry of if_ (one message per mistake).
template <class Fn, class R, class... Xs>
constexpr bool branch_keeps_inputs() {
  constexpr bool dangles = branch_may_dangle<Fn, R, Xs...>();
  DIMGRAPH_REQUIRE(!dangles,
                   "dimgraph: if_: a branch takes an input by value and returns a lazy expression "
                   "or a view that may refer to that copy, which dies when the branch returns; "
                   "take the inputs as const auto& (or return dg::eval(...))",
                   Fn, detail::operand_role_t<"returns", R>);
  return !dangles;
}

}  // namespace dimgraph::detail
