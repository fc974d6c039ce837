// DIMGRAPH_REQUIRE: a compile-time check whose one error line says what is wrong and names
// the dims involved.
#pragma once

#include <type_traits>

#include "dimgraph/detail/fixed_string.hpp"

namespace dimgraph {

// The dims a mistake involves, by the role they play, as they appear in its error line:
// the dims a call names, the dims an operand has, the two operands of a binary op, an operand
// by its name in the op's signature.
template <class... Ds>
struct asked;
template <class... Ds>
struct has;
template <class... Ds>
struct lhs;
template <class... Ds>
struct rhs;
template <detail::fixed_string Name, class... Ds>
struct operand;  // an operand the op's signature names: operand<"W", Gate, Input>

// Declared only: a failed check instantiates it, and the compiler's error line spells it out:
//   incomplete type 'dimgraph::mistake<fixed_string<..>{"dimgraph: softmax: the tensor has no
//   such dim"}, dimgraph::asked<Hidden>, dimgraph::has<Time, Feature>>'
// (With Clang, whose error line shortens long strings in template arguments, the check is a
// static_assert whose requirement, mistake_v<...>, names the dims next to the message.)
template <detail::fixed_string Message, class... Involved>
struct mistake;
template <class... Involved>
inline constexpr bool mistake_v = false;

namespace detail {

// (A variable, not a function: its use is a constant expression, so a check may stand in a
// constexpr function evaluated at compile time and still give one error.)
template <fixed_string Message, class... Involved>
inline constexpr bool reported = sizeof(mistake<Message, Involved...>) != 0;

// For DIMGRAPH_REQUIRE_DECL: a complete class, whose body names the mistake when Ok is false.
// (Named here, not where the check is written: GCC adds a note for each macro it is written in.)
template <bool Ok, fixed_string Message, class... Involved>
struct reported_unless {};
template <fixed_string Message, class... Involved>
struct reported_unless<false, Message, Involved...> {
  static_assert(sizeof(mistake<Message, Involved...>) != 0);
};

// Role<Ds...> for a dim_list<Ds...> (or any L<Ds...>).
template <template <class...> class Role, class L>
struct as_role {
  using type = Role<>;
};
template <template <class...> class Role, template <class...> class L, class... Ds>
struct as_role<Role, L<Ds...>> {
  using type = Role<Ds...>;
};
template <template <class...> class Role, class L>
using as_role_t = typename as_role<Role, L>::type;

// operand<Name, Ds...> for the dims Ds... of X (X::dims, a dim_list; none when X has no dims,
// as a value that is not a tensor).
template <fixed_string Name, class L>
struct named_operand {
  using type = operand<Name>;
};
template <fixed_string Name, template <class...> class L, class... Ds>
struct named_operand<Name, L<Ds...>> {
  using type = operand<Name, Ds...>;
};
template <class X>
struct dims_member {
  using type = void;
};
template <class X>
  requires requires { typename X::dims; }
struct dims_member<X> {
  using type = typename X::dims;
};
// has<Ds...> for X's dims (none when X has no dims).
template <class X>
using has_role_t = typename as_role<has, typename dims_member<std::remove_cvref_t<X>>::type>::type;

// X's element type (X::value_type), or X itself when it is not a tensor.
template <class X>
struct element_of {
  using type = X;
};
template <class X>
  requires requires { typename X::value_type; }
struct element_of<X> {
  using type = typename X::value_type;
};
template <class X>
using element_of_t = typename element_of<std::remove_cvref_t<X>>::type;

template <fixed_string Name, class X>
using operand_role_t =
    typename named_operand<Name, typename dims_member<std::remove_cvref_t<X>>::type>::type;

}  // namespace detail
}  // namespace dimgraph

// In a function template: when `ok` is false, one error whose line holds `message` (a string
// literal starting "dimgraph: <op>: ") and the roles given after it (asked<...>, has<...>,
// lhs<...>, rhs<...>), each dependent on the template's parameters. Nothing is instantiated
// when ok holds. (A macro: a static_assert's message must be a literal where it is written.
// The error is reported from a variable template, not from the expansion: GCC would add a
// note for each macro the check is written in. A condition with a comma outside parentheses,
// f<A, B>(), goes in parentheses.)
#if defined(__clang__)
#define DIMGRAPH_REQUIRE(ok, message, ...) \
  if constexpr (!(ok)) static_assert(::dimgraph::mistake_v<__VA_ARGS__>, message)
#else
#define DIMGRAPH_REQUIRE(ok, message, ...) \
  if constexpr (!(ok)) static_cast<void>(::dimgraph::detail::reported<message, __VA_ARGS__>)
#endif

// DIMGRAPH_REQUIRE as a declaration, for a class body (or any scope): the same one error.
#if defined(__clang__)
#define DIMGRAPH_REQUIRE_DECL(ok, message, ...) \
  static_assert((ok) || ::dimgraph::mistake_v<__VA_ARGS__>, message)
#else
#define DIMGRAPH_REQUIRE_DECL(ok, message, ...) \
  static_assert(sizeof(::dimgraph::detail::reported_unless<(ok), message, __VA_ARGS__>) != 0)
#endif
