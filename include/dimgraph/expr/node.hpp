// What an expression is: tensors, views, scalars and lazy nodes, and how nodes hold operands.
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/tensor/promote.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph {

// Every lazy node derives from this.
struct expr_node_base {};

// A tensor, a view or a lazy node: anything with dims, a value type and extents.
template <class E>
concept expression =
    detail::memory_operand<E> || std::is_base_of_v<expr_node_base, std::remove_cvref_t<E>>;

template <expression E>
using value_t = typename std::remove_cvref_t<E>::value_type;
template <expression E>
using dims_t = typename std::remove_cvref_t<E>::dims;

namespace detail {
// The lengths of the ragged dim D in x (null: every entry full, or x has no lengths for D).
// Tensors and views keep them in their shape; every kind of node that can have D with its batch
// dim answers lengths<D>().
template <class D, class X>
lengths_ref lengths_in(const X& x) {
  if constexpr (!carries_lengths_v<D, typename X::dims>) return {};
  else if constexpr (memory_operand<X>) return x.shape().template lengths<D>();
  else return x.template lengths<D>();
}
}  // namespace detail

// A C++ scalar used as an operand ("wrapped number": it does not raise a tensor's
// type within its category).
template <class S>
concept scalar = element<std::remove_cvref_t<S>> && !expression<S>;

// A rank-0 operand holding one value, already converted to the type it combines in.
template <class T>
struct scalar_expr : expr_node_base {
  using value_type = T;
  using dims = dim_list<>;
  T value;
};

// How a node holds an operand: lvalues by reference, rvalues by value, so
// `auto e = dg::exp(make_tensor()) + x;` never dangles.
template <class E>
using operand_t = std::conditional_t<std::is_lvalue_reference_v<E>, const std::remove_cvref_t<E>&,
                                     std::remove_cvref_t<E>>;

namespace detail {

// tensor_of_list_t<T, L<Ds...>>: the tensor of elements T with the dims in L (a dim_list or a
// type_list). The one name for it: of an expression e, tensor_of_list_t<value_t<E>, dims_t<E>>.
template <class T, class List>
struct tensor_of_list;
template <class T, template <class...> class L, class... Ds>
struct tensor_of_list<T, L<Ds...>> {
  using type = tensor<T, Ds...>;
};
template <class T, class List>
using tensor_of_list_t = typename tensor_of_list<T, List>::type;

// The stand-in result of an op whose mistake was already reported: every op on it
// quietly gives it again, so one mistake gives one message. So do the members of a tensor
// or a graph that a program goes on to use (size, extents, elements, comparisons of an
// element, a graph's output count), and it converts to any value type: none of them is
// ever evaluated, as a program that holds the stand-in has already failed to compile.
struct invalid_expr {
  static constexpr std::size_t rank = 0;
  static constexpr std::size_t output_count = 0;
  static constexpr std::size_t size() { return 0; }
  template <class D>
  static constexpr std::size_t extent() {
    return 0;
  }
  template <class... Is>
  constexpr invalid_expr operator()(const Is&...) const {
    return {};
  }
  template <class I>
  constexpr invalid_expr operator[](const I&) const {
    return {};
  }
  template <class... Is>
  constexpr invalid_expr at(const Is&...) const {
    return {};
  }
  // (Not to a tensor type, which takes the stand-in in its constructor from an expression:
  // two ways to convert would be ambiguous, a -Wconversion warning.)
  template <class T>
    requires std::is_default_constructible_v<T> && (!requires { typename T::dims; })
  constexpr operator T() const {
    return T{};
  }
  template <class U>
  friend constexpr bool operator==(const invalid_expr&, const U&) {
    return false;
  }
  template <class U>
  friend constexpr bool operator<(const invalid_expr&, const U&) {
    return false;
  }
  template <class U>
  friend constexpr bool operator>(const invalid_expr&, const U&) {
    return false;
  }
};
template <class X>
concept poisoned = std::is_same_v<std::remove_cvref_t<X>, invalid_expr>;
// How every public op takes it: its signature admits the stand-in in the place of any operand
// (so overload resolution never fails on it), and its body gives it again before any check:
//   template <detail::expression_or_poisoned X>
//   auto op(X&& x) {
//     if constexpr (detail::poisoned<X>) return detail::invalid_expr{};
//     else { ...the checks and the op... }
//   }
// (several operands: requires (expression<A> && expression<B>) || detail::any_poisoned<A, B>).
template <class... Xs>
concept any_poisoned = (poisoned<Xs> || ...);
template <class X>
concept expression_or_poisoned = expression<X> || poisoned<X>;

// Lazy nodes are what a tensor or a view can take the value of (see assign_source), and so is
// the stand-in for a reported mistake (taken silently).
template <class E>
  requires std::is_base_of_v<expr_node_base, E>
inline constexpr bool assign_source_v<E> = true;
template <>
inline constexpr bool assign_source_v<invalid_expr> = true;

// The extent of D in e (e must have D).
template <class D, class E>
std::size_t extent_in(const E& e) {
  return e.template extent<D>();
}

// Index of the first operand whose dim set contains every operand's dims, or npos.
inline constexpr std::size_t no_operand = static_cast<std::size_t>(-1);
template <class... Ls>
constexpr std::size_t containing_operand() {
  std::size_t i = 0, found = no_operand;
  auto check = [&]<class L>(std::type_identity<L>) {
    if (found == no_operand && (list_is_subset_v<Ls, L> && ...)) found = i;
    ++i;
  };
  (check(std::type_identity<Ls>{}), ...);
  return found;
}

}  // namespace detail
}  // namespace dimgraph
