// describe<D>(): a dim's readable description, e.g. "(a+b)*c" or "key_total/heads".
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/dim/atom.hpp"
#include "dimgraph/dim/forms.hpp"

namespace dimgraph {
namespace detail {

// Binding strength: a part binding weaker than its context is parenthesised.
enum describe_level { level_sum = 1, level_prod = 2, level_split = 3, level_atom = 4 };

template <class D>
struct describer {  // an atom
  static_assert(sizeof(atom_check<D>) != 0);
  static constexpr int level = level_atom;
  static std::string text() {
    if constexpr (!atomic_dim<D>) return "<invalid>";
    else if constexpr (requires { D::describe(); }) return D::describe();
    else return std::string(D::name);
  }
};

template <class D>
std::string describe_at(int context) {
  std::string s = describer<D>::text();
  return describer<D>::level < context ? "(" + s + ")" : s;
}
template <class... Ds>
std::string describe_joined(const char* sep, int context) {
  std::string s;
  ((s += (s.empty() ? "" : sep) + describe_at<Ds>(context)), ...);
  return s;
}

template <std::size_t K>
struct describer<const_dim<K>> {
  static constexpr int level = level_atom;
  static std::string text() { return std::to_string(K); }
};
template <class... Ts>
struct describer<dim_sum<Ts...>> {
  static constexpr int level = level_sum;
  static std::string text() { return describe_joined<Ts...>("+", level_sum); }
};
template <class... Fs>
struct describer<dim_prod<Fs...>> {
  static constexpr int level = level_prod;
  static std::string text() { return describe_joined<Fs...>("*", level_prod); }
};
// Operands of / and - are parenthesised unless atomic, so (a*b)/c and a*(b/c) differ.
template <class A, class B>
struct describer<dim_quotient<A, B>> {
  static constexpr int level = level_split;
  static std::string text() {
    return describe_at<A>(level_atom) + "/" + describe_at<B>(level_atom);
  }
};
template <class A, class B>
struct describer<dim_difference<A, B>> {
  static constexpr int level = level_sum;
  static std::string text() {
    return describe_at<A>(level_atom) + "-" + describe_at<B>(level_atom);
  }
};
template <class B, class A>
struct describer<dim_left_quotient<B, A>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "div_left(" + describer<B>::text() + "," + describer<A>::text() + ")";
  }
};
template <class B, class A>
struct describer<dim_left_difference<B, A>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "sub_left(" + describer<B>::text() + "," + describer<A>::text() + ")";
  }
};
template <class A, std::size_t K>
struct describer<dim_ceildiv<A, K>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "ceildiv(" + describer<A>::text() + "," + std::to_string(K) + ")";
  }
};
template <class A, std::size_t K>
struct describer<dim_floordiv<A, K>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "floordiv(" + describer<A>::text() + "," + std::to_string(K) + ")";
  }
};

}  // namespace detail

// The dim in the algebra's notation: tags by name, constants by value.
template <dimension D>
std::string describe() {
  return detail::describer<std::remove_cvref_t<D>>::text();
}

}  // namespace dimgraph
