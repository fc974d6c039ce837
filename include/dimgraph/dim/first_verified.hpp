// first_verified: the result of a split, the first of its rules' guesses that the op it
// inverts confirms.
#pragma once

#include <type_traits>

#include "dimgraph/detail/type_list.hpp"

namespace dimgraph::detail {

// The guess of a rule that does not apply.
struct no_guess {};

// A split of X by B (X / B, div_left(B, X), X - B, sub_left(B, X)) tries its rules in order.
// A rule is a type whose guess<X, B>() is std::type_identity<Q> for a guessed result Q, or
// no_guess. A guess is kept only if the op the split inverts gives X back exactly
// (MultiplyBack::back<Q> == X: Q * B, B * Q, Q + B or B + Q), so a split is never claimed that
// the layout does not have; when no guess is kept the result is the opaque form
// MultiplyBack::opaque (dim_quotient<X, B>, ...). MultiplyBack also names X (input) and B
// (part). rule is the rule whose guess was kept (void when none was); the guesses of the rules
// after it are never instantiated.
template <class Rule, class Q>
struct split_result {
  using rule = Rule;
  using type = Q;
  static constexpr bool opaque = std::is_void_v<Rule>;
};

template <class MultiplyBack, class Guess>
inline constexpr bool gives_back_v = false;  // no_guess
template <class MultiplyBack, class Q>
inline constexpr bool gives_back_v<MultiplyBack, std::type_identity<Q>> =
    std::is_same_v<typename MultiplyBack::template back<Q>, typename MultiplyBack::input>;

template <class MultiplyBack, class Rule, class... Rules>
constexpr auto first_split_result() {
  using guess =
      decltype(Rule::template guess<typename MultiplyBack::input, typename MultiplyBack::part>());
  if constexpr (gives_back_v<MultiplyBack, guess>)
    return split_result<Rule, typename guess::type>{};
  else if constexpr (sizeof...(Rules) == 0)
    return split_result<void, typename MultiplyBack::opaque>{};
  else return first_split_result<MultiplyBack, Rules...>();
}

template <class Rules, class MultiplyBack>
struct first_verified;
template <class... Rules, class MultiplyBack>
struct first_verified<type_list<Rules...>, MultiplyBack>
    : decltype(first_split_result<MultiplyBack, Rules...>()) {};

}  // namespace dimgraph::detail
