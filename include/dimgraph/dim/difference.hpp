// Removing a term of a dim: a - b (trailing term) and sub_left(b, a) (leading term).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/first_verified.hpp"
#include "dimgraph/dim/sum.hpp"

namespace dimgraph::detail {

// X - B is Q with Q + B == X, sub_left(B, X) is Q with B + Q == X: each is the first guess of
// its rules (below, in order) that adds back to X, else the opaque dim_difference<X, B>
// (dim_left_difference<B, X>). See first_verified.

// What each removal inverts: Q + B == X and B + Q == X.
template <class X, class B>
struct trailing_term_back {
  using input = X;
  using part = B;
  using opaque = dim_difference<X, B>;
  template <class Q>
  using back = plus_t<Q, B>;
};
template <class B, class X>
struct leading_term_back {
  using input = X;
  using part = B;
  using opaque = dim_left_difference<B, X>;
  template <class Q>
  using back = plus_t<B, Q>;
};

namespace split_rule {

// x - 0 == x (and the same for sub_left).
struct nothing_removed {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (std::is_same_v<B, const_dim<0>>) return std::type_identity<X>{};
    else return no_guess{};
  }
};

// (p + b) - b == p, where b's first term may take part of X's coefficient there:
// (a + 3 * b) - 2 * b == a + b.
struct trailing_term {
  template <class X, class B>
  static constexpr auto guess() {
    using tx = terms_t<X>;
    using tb = terms_t<B>;
    constexpr std::size_t at = tx::size - (tb::size <= tx::size ? tb::size : 0);
    if constexpr (tb::size <= tx::size && terms_match<tb, tx, at, false>())
      return std::type_identity<from_terms_t<
          concat_t<slice_t<0, at, tx>, residual_terms_t<front_t<tb>, at_t<at, tx>>>>>{};
    else return no_guess{};
  }
};

// sub_left(b, b + p) == p, where b's last term may take part of X's coefficient there:
// sub_left(2, 5 + a) == 3 + a.
struct leading_term {
  template <class X, class B>
  static constexpr auto guess() {
    using tx = terms_t<X>;
    using tb = terms_t<B>;
    if constexpr (tb::size <= tx::size && terms_match<tb, tx, 0, true>())
      return std::type_identity<
          from_terms_t<concat_t<residual_terms_t<back_t<tb>, at_t<tb::size - 1, tx>>,
                                slice_t<tb::size, tx::size, tx>>>>{};
    else return no_guess{};
  }
};

}  // namespace split_rule

template <class X, class B>
struct difference
    : first_verified<type_list<split_rule::nothing_removed, split_rule::trailing_term>,
                     trailing_term_back<X, B>> {};
// difference_t<X, B>: X - B, X without its trailing term B.
template <class X, class B>
using difference_t = typename difference<X, B>::type;

template <class B, class X>
struct left_difference
    : first_verified<type_list<split_rule::nothing_removed, split_rule::leading_term>,
                     leading_term_back<B, X>> {};
// left_difference_t<B, X>: sub_left(B, X), X without its leading term B.
template <class B, class X>
using left_difference_t = typename left_difference<B, X>::type;

}  // namespace dimgraph::detail
