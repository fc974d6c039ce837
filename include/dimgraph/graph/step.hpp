// dg::sliced, dg::carry, dg::emit, dg::step: the inputs and the body result of dg::scan.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/symbol.hpp"

namespace dimgraph {

// An input of dg::scan<D> sliced along D by the slicing S. Operand is how it is held: a
// named tensor by reference, a view or a temporary tensor by value.
template <class D, slicing S, class Operand>
struct sliced_input {
  using dim = D;
  static constexpr slicing slicing_value = S;
  using operand_type = std::remove_cvref_t<Operand>;
  Operand operand;
};

namespace detail {

template <class X>
inline constexpr bool is_sliced_v = false;
template <class D, slicing S, class Op>
inline constexpr bool is_sliced_v<sliced_input<D, S, Op>> = true;

// How sliced_input holds x: lvalue tensors by reference, views and rvalue tensors by value,
// lazy expressions evaluated.
template <class X>
using sliced_operand_t =
    std::conditional_t<is_tensor_v<std::remove_cvref_t<X>> && std::is_lvalue_reference_v<X>,
                       const std::remove_cvref_t<X>&,
                       std::conditional_t<memory_operand<X>, std::remove_cvref_t<X>,
                                          decltype(eval(std::declval<X>()))>>;

// Why sliced<D, S>(x) is rejected (one message per mistake).
enum class sliced_check { ok, not_expression, ill_formed, no_such_dim };
template <class D, slicing S, class X>
constexpr sliced_check check_sliced() {
  if constexpr (!expression<X>) return sliced_check::not_expression;
  else if constexpr (!slicing_well_formed(S)) return sliced_check::ill_formed;
  else if constexpr (!list_contains_v<dims_t<X>, D>) return sliced_check::no_such_dim;
  else return sliced_check::ok;
}

}  // namespace detail

namespace detail {
// sliced<D, S>(x) for an operand that is not a reported mistake.
template <class d, slicing S, class X>
auto make_sliced(X&& x) {
  // A symbol (traced) is checked as a tensor of its type and held by value.
  using checked = std::conditional_t<symbolic<X>, stand_in_t<X>, X>;
  constexpr auto check = check_sliced<d, S, checked>();
  using check_t = sliced_check;
  static_assert(check != check_t::not_expression,
                "dimgraph: scan: a sliced input must be a tensor, a view or an expression");
  static_assert(check != check_t::ill_formed,
                "dimgraph: scan: a slicing needs a stride other than 0 and a part_size of at "
                "least 1");
  DIMGRAPH_REQUIRE(check != check_t::no_such_dim,
                   "dimgraph: scan: the sliced input has no such dim", ::dimgraph::asked<d>,
                   detail::operand_role_t<"input", checked>);
  if constexpr (check == check_t::ok && symbolic<X>) {
    return sliced_input<d, S, std::remove_cvref_t<X>>{std::forward<X>(x)};
  } else if constexpr (check == check_t::ok) {
    using operand = sliced_operand_t<X>;
    if constexpr (memory_operand<X>) return sliced_input<d, S, operand>{std::forward<X>(x)};
    else return sliced_input<d, S, operand>{eval(std::forward<X>(x))};
  } else {
    return invalid_expr{};
  }
}
}  // namespace detail

// dg::sliced<D, S>(x): x as an input of dg::scan<D>, sliced along D by S (dg::slicing; the
// default walks D forwards one position at a time). Each iteration gets a view of x:
//   part_size 1: [.., D, ..] -> [.., ..];   part_size P > 1: [.., D, ..] -> [.., part_dim<D, P>,
//   ..]
// A lazy expression is evaluated first. Errors (compile time): x is not a tensor or
// expression; stride 0 or part_size below 1; x has no dim D ("the sliced input has no such dim").
template <dimension D, slicing S = slicing{}, class X>
auto sliced(X&& x) {
  using d = std::remove_cvref_t<D>;
  if constexpr (detail::poisoned<X>) return detail::invalid_expr{};
  else return detail::make_sliced<d, S>(std::forward<X>(x));
}

// The new values of the carried inputs, in the order the carried inputs were passed.
template <class... Xs>
struct carry_values {
  std::tuple<Xs...> values;
};
// The values one iteration emits; each is stacked along the iteration dim.
template <class... Xs>
struct emit_values {
  std::tuple<Xs...> values;
};
// What a scan body returns: dg::step(dg::carry(...), dg::emit(...)).
template <class Carries, class Emits>
struct scan_step {
  Carries carries;
  Emits emits;
};

namespace detail {
// A tuple of the contents of t's elements, handed over (t is dropped next).
template <class... Xs>
std::tuple<Xs...> hand_over_all(std::tuple<Xs...>& t) {
  return with_indices<sizeof...(Xs)>([&]<std::size_t... Is>(index_constant<Is>...) {
    return std::tuple<Xs...>(tensor_internals::hand_over(std::get<Is>(t))...);
  });
}

// What carry and emit hold: a tensor as is, any other expression evaluated at once (inside
// the body, while its arguments and locals are alive).
template <class X>
auto held_value(X&& x) {
  // (A staged value of a scan that hoists: computed, or stored, here too; graph/hoist.hpp.)
  if constexpr (is_staged_v<std::remove_cvref_t<X>>) return staged_held_value(x);
  else if constexpr (expression<X> && !is_tensor_v<std::remove_cvref_t<X>>)
    return eval(std::forward<X>(x));
  else return std::decay_t<X>(std::forward<X>(x));
}
template <class X>
using held_t = decltype(held_value(std::declval<X>()));
// The held values of xs (each computed into a temporary, which its element takes over).
template <class... Xs>
std::tuple<held_t<Xs>...> held_values(Xs&&... xs) {
  return std::tuple<held_t<Xs>...>(
      tensor_internals::hand_over(held_value(std::forward<Xs>(xs)))...);
}
}  // namespace detail

// dg::carry(h2, c2): the carried inputs' next values, in the order the carried inputs were
// passed. Lazy expressions are evaluated here, so the body may take its arguments by value
// and carry expressions over its own locals.
template <class... Xs>
carry_values<detail::held_t<Xs>...> carry(Xs&&... xs) {
  return {detail::held_values(std::forward<Xs>(xs)...)};
}
// dg::emit(y...): the values this iteration contributes to the stacked outputs (evaluated
// here, as for carry).
template <class... Xs>
emit_values<detail::held_t<Xs>...> emit(Xs&&... xs) {
  return {detail::held_values(std::forward<Xs>(xs)...)};
}
// dg::step(carry(...), emit(...)); either may be left out.
template <class... Cs, class... Es>
scan_step<carry_values<Cs...>, emit_values<Es...>> step(carry_values<Cs...> c,
                                                        emit_values<Es...> e) {
  return {{detail::hand_over_all(c.values)}, {detail::hand_over_all(e.values)}};
}
template <class... Cs>
scan_step<carry_values<Cs...>, emit_values<>> step(carry_values<Cs...> c) {
  return {{detail::hand_over_all(c.values)}, {}};
}
template <class... Es>
scan_step<carry_values<>, emit_values<Es...>> step(emit_values<Es...> e) {
  return {{}, {detail::hand_over_all(e.values)}};
}

}  // namespace dimgraph
