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
#include "dimgraph/graph/if_branches.hpp"
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
