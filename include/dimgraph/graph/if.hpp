// dg::if_(cond, then_fn, else_fn)(inputs...): OpenVINO If-8, run eagerly on tensors and
// recorded as an "if" node with its two branches as sub-graphs when traced.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/call.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph {
namespace detail {

// A compile-time condition: std::bool_constant<B> (std::true_type, std::false_type) or the
// constant dims dg::c<true> and dg::c<false> (which are dg::c<1> and dg::c<0>).
template <class C>
struct static_condition {
  static constexpr bool is_constant = false;
};
template <bool B>
struct static_condition<std::integral_constant<bool, B>> {
  static constexpr bool is_constant = true;
  static constexpr bool value = B;
};
template <std::size_t K>
  requires(K <= 1)
struct static_condition<const_dim<K>> {
  static constexpr bool is_constant = true;
  static constexpr bool value = K == 1;
};

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

// The run-time condition: a bool, or the one element of a boolean tensor (shape_error when
// it has another number of elements).
template <class C>
bool condition_value(const C& c) {
  if constexpr (std::is_same_v<C, bool>) {
    return c;
  } else {
    const auto t = eval(c);
    if (t.size() != 1)
      throw shape_error("if_",
                        "the condition must have one element, it has " + std::to_string(t.size()));
    return t.data()[0];
  }
}

template <class C>
constexpr bool run_time_condition() {
  if constexpr (expression<C>) return std::is_same_v<value_t<C>, bool>;
  else return std::is_same_v<C, bool>;
}

// A branch result holds a symbol: the branch used a value of the traced function.
template <class R>
inline constexpr bool has_symbol_v = symbolic<R>;
template <class... Rs>
inline constexpr bool has_symbol_v<std::tuple<Rs...>> = (symbolic<Rs> || ...);
template <class A, class B>
inline constexpr bool has_symbol_v<std::pair<A, B>> = symbolic<A> || symbolic<B>;

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

// if_ is traced when its condition or an input is a symbol, or a branch returns one.
template <class Cond, class Then, class... Xs>
constexpr bool traced_if() {
  if constexpr (symbolic<Cond> || (symbolic<Xs> || ...)) return true;
  else if constexpr (!dimgraph::detail::callable_with<const Then&, const Xs&...>) return false;
  else
    return has_symbol_v<
        std::remove_cvref_t<dimgraph::detail::call_result_t<const Then&, const Xs&...>>>;
}

}  // namespace detail

// The two branches of dg::if_ with their condition (a bool, or std::bool_constant<B> when it
// is known at compile time). Call it on the inputs.
template <class Cond, class Then, class Else>
class if_fn {
 public:
  if_fn(Cond cond, Then then_fn, Else else_fn)
      : cond_(cond), then_(std::move(then_fn)), else_(std::move(else_fn)) {}

  template <class... Xs>
  DIMGRAPH_ALWAYS_INLINE auto operator()(const Xs&... xs) const {
    if constexpr (detail::any_poisoned<Xs...>) {
      // (A mistake reported before: the branches are not called, so their outputs are unknown.)
      return detail::invalid_expr{};
    } else if constexpr (detail::poisoned<Cond>) {
      return poisoned_call<Xs...>();
    } else if constexpr (detail::static_condition<Cond>::is_constant) {
      // Only the chosen branch is instantiated.
      if constexpr (detail::static_condition<Cond>::value) return run(then_, "then branch", xs...);
      else return run(else_, "else branch", xs...);
    } else if constexpr (detail::traced_if<Cond, Then, Xs...>()) {
      // Traced: the branches are checked as eagerly, on what they return traced on arguments
      // of the inputs' types.
      constexpr bool operands = ((symbolic<Xs> || expression<Xs>)&&...);
      static_assert(operands,
                    "dimgraph: if_: a traced input must be a symbol, a tensor or an "
                    "expression");
      constexpr bool callable =
          operands && detail::invocable_on_args_v<Then, detail::tensor_type_of_t<Xs>...> &&
          detail::invocable_on_args_v<Else, detail::tensor_type_of_t<Xs>...>;
      static_assert(!operands || callable,
                    "dimgraph: if_: a branch cannot be called with the inputs");
      if constexpr (!callable) {
        return detail::invalid_expr{};
      } else {
        using then_r = detail::args_result_t<Then, detail::tensor_type_of_t<Xs>...>;
        using else_r = detail::args_result_t<Else, detail::tensor_type_of_t<Xs>...>;
        constexpr detail::branches_check check = detail::check_branches<then_r, else_r>();
        detail::report_branches<check, then_r, else_r>();
        if constexpr (check != detail::branches_check::ok)
          return detail::poisoned_outputs<then_r, else_r>();
        else return traced<then_r, else_r>(xs...);
      }
    } else {
      constexpr bool callable = dimgraph::detail::callable_with<const Then&, const Xs&...> &&
                                dimgraph::detail::callable_with<const Else&, const Xs&...>;
      static_assert(callable, "dimgraph: if_: a branch cannot be called with the inputs");
      if constexpr (!callable) {
        return detail::invalid_expr{};
      } else {
        using then_r = dimgraph::detail::call_result_t<const Then&, const Xs&...>;
        using else_r = dimgraph::detail::call_result_t<const Else&, const Xs&...>;
        constexpr detail::branches_check check = detail::check_branches<then_r, else_r>();
        detail::report_branches<check, then_r, else_r>();
        if constexpr (check != detail::branches_check::ok) {
          return detail::poisoned_outputs<then_r, else_r>();
        } else if constexpr (!detail::branch_keeps_inputs<Then, then_r, Xs...>() ||
                             !detail::branch_keeps_inputs<Else, else_r, Xs...>()) {
          return detail::poisoned_outputs<then_r, else_r>();
        } else {
          using outs = detail::tensors_of_outputs_t<detail::branch_outputs_t<then_r>>;
          if (cond_)
            return detail::in_call("if_", "then branch",
                                   [&] { return detail::materialize_branch<outs>(then_(xs...)); });
          return detail::in_call("if_", "else branch",
                                 [&] { return detail::materialize_branch<outs>(else_(xs...)); });
        }
      }
    }
  }

 private:
  // Traced, the branches checked (they return ThenR and ElseR): one "if" node over the
  // condition and the inputs, holding both branches traced on arguments of the inputs' types;
  // its results are the then-branch's output types.
  template <class ThenR, class ElseR, class... Xs>
  auto traced(const Xs&... xs) const {
    auto then_body = detail::trace_body<detail::tensor_type_of_t<Xs>...>(then_, "then");
    auto else_body = detail::trace_body<detail::tensor_type_of_t<Xs>...>(else_, "else");
    if constexpr (detail::poisoned<decltype(then_body)> || detail::poisoned<decltype(else_body)>) {
      return detail::poisoned_outputs<ThenR, ElseR>();
    } else {
      using results = typename detail::tuple_of<
          detail::tensors_of_outputs_t<detail::branch_outputs_t<ThenR>>>::type;
      using region =
          region_node<op_tag<"if">, results, std::tuple<decltype(then_body), decltype(else_body)>,
                      detail::node_of_t<Cond>, detail::node_of_t<Xs>...>;
      return detail::region_results<detail::branch_outputs<ThenR>::several>(
          region{{detail::node_of(cond_), detail::node_of(xs)...},
                 {std::move(then_body), std::move(else_body)}});
    }
  }

  // The branch fn (which: "then branch" or "else branch") of a compile-time condition.
  template <class Fn, class... Xs>
  static auto run(const Fn& fn, const char* which, const Xs&... xs) {
    using r = dimgraph::detail::call_result_t<const Fn&, const Xs&...>;
    if constexpr ((symbolic<Xs> || ...) || detail::has_symbol_v<std::remove_cvref_t<r>>) {
      return fn(xs...);  // traced: the chosen branch's nodes go into the graph as they are
    } else if constexpr (detail::outputs_poisoned(detail::branch_outputs_t<r>{})) {
      return detail::poisoned_outputs<r, r>();
    } else if constexpr (!detail::branch_keeps_inputs<Fn, r, Xs...>()) {
      return detail::poisoned_outputs<r, r>();
    } else {
      using outs = detail::tensors_of_outputs_t<detail::branch_outputs_t<r>>;
      return detail::in_call("if_", which,
                             [&] { return detail::materialize_branch<outs>(fn(xs...)); });
    }
  }

  // A condition that was a reported mistake: as many stand-ins as a branch has outputs, where
  // it can be called on the inputs.
  template <class... Xs>
  static auto poisoned_call() {
    if constexpr (dimgraph::detail::callable_with<const Then&, const Xs&...>) {
      using then_r = dimgraph::detail::call_result_t<const Then&, const Xs&...>;
      return detail::poisoned_outputs<then_r, then_r>();
    } else if constexpr (dimgraph::detail::callable_with<const Else&, const Xs&...>) {
      using else_r = dimgraph::detail::call_result_t<const Else&, const Xs&...>;
      return detail::poisoned_outputs<else_r, else_r>();
    } else {
      return detail::invalid_expr{};
    }
  }

  [[no_unique_address]] Cond cond_;
  Then then_;
  Else else_;
};

// dg::if_(cond, then_fn, else_fn)(inputs...) is If-8: calls then_fn(inputs...) when cond
// holds, else else_fn(inputs...); only the chosen branch runs. Take the inputs as
// `const auto&`: a branch's result is evaluated after it returns, so a lazy expression over
// an input it took by value would refer to a dead copy (a compile error, see below).
//  cond     a bool; a boolean tensor or expression with one element (of any dims); or a
//           compile-time constant: std::true_type / std::false_type (std::bool_constant<B>) or
//           dg::c<true> / dg::c<false>, in which case only the chosen branch is instantiated.
//  branches each returns one value or a std::tuple / std::pair of values; with a run-time
//           cond both must return as many outputs, output k of the same element type and the
//           same dim set (order may differ).
//  result   the chosen branch's outputs evaluated into tensors: one tensor, or a std::tuple of
//           them when the branch returns a tuple or pair. With a run-time cond their dims are
//           in the then-branch's order (the else-branch's values are permuted into it); with a
//           compile-time cond they are the chosen branch's own.
// Traced (the cond, an input or a branch's result is a symbol of dg::trace): with a run-time
// cond, one "if" node over the cond and the inputs, holding both branches traced on arguments
// of the inputs' types as sub-graphs ("then", "else"); its results are symbols (one, or a
// std::tuple as above). With a compile-time cond, the chosen branch's nodes themselves. A
// traced cond must be a bool whose dims can all have extent 1.
// Errors (compile time): a cond of another type; branches that differ in the number of
// outputs, an output's element type or its dims (the first output that differs: the error
// line names its dims in both branches, and its element types; the instantiation context both
// branches' result types); a branch that takes an input by value and returns a lazy
// expression, or a view of a tensor it took by value (see branch_may_dangle). Errors (run
// time): a tensor cond without exactly one element (shape_error); a dg::error thrown in a
// branch keeps its class and gets the branch before the op that threw it: "dimgraph: if_: then
// branch: add: ..." ("else branch"; see dg::error::add_context). After a mistake in a branch
// or the cond (reported where it was made) or one of these, the result is the stand-in of a
// reported mistake, one per output, which later ops and structured bindings take silently.
template <class Cond, class Then, class Else>
auto if_(const Cond& cond, Then then_fn, Else else_fn) {
  using c = std::remove_cvref_t<Cond>;
  if constexpr (detail::static_condition<c>::is_constant) {
    return if_fn<std::bool_constant<detail::static_condition<c>::value>, Then, Else>(
        {}, std::move(then_fn), std::move(else_fn));
  } else if constexpr (detail::poisoned<c>) {
    // (A cond computed with a reported mistake, or rejected below: calling the result on the
    // inputs says nothing more.)
    return if_fn<detail::invalid_expr, Then, Else>({}, std::move(then_fn), std::move(else_fn));
  } else if constexpr (symbolic<c>) {
    // Traced: the condition is a symbol (a graph input or a value computed from one).
    constexpr bool is_bool = std::is_same_v<typename c::value_type, bool>;
    constexpr bool one = []<class... Ds>(dim_list<Ds...>) {
      return (bounds_v<Ds>.contains(1) && ...);
    }(typename c::dims{});
    static_assert(is_bool, "dimgraph: if_: a traced condition must be a bool value");
    DIMGRAPH_REQUIRE(!is_bool || one,
                     "dimgraph: if_: the condition must have one element (a dim of it cannot have "
                     "extent 1)",
                     detail::operand_role_t<"condition", c>);
    if constexpr (is_bool && one)
      return if_fn<c, Then, Else>(cond, std::move(then_fn), std::move(else_fn));
    else return if_(detail::invalid_expr{}, std::move(then_fn), std::move(else_fn));
  } else if constexpr (detail::run_time_condition<c>()) {
    return if_fn<bool, Then, Else>(detail::condition_value(cond), std::move(then_fn),
                                   std::move(else_fn));
  } else {
    static_assert(sizeof(c) == 0,
                  "dimgraph: if_: the condition must be a bool, a one-element bool tensor, "
                  "std::true_type / std::false_type, or dg::c<true> / dg::c<false>");
    return if_(detail::invalid_expr{}, std::move(then_fn), std::move(else_fn));
  }
}

}  // namespace dimgraph
