// Removing a term of a dim: a - b (trailing term) and sub_left(b, a) (leading term).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/sum.hpp"

namespace dimgraph::detail {

template <class X, class B>
struct difference {
  using tx = terms_t<X>;
  using tb = terms_t<B>;
  static constexpr std::size_t at = tx::size - (tb::size <= tx::size ? tb::size : 0);
  static auto candidate() {
    if constexpr (std::is_same_v<B, const_dim<0>>) return std::type_identity<X>{};
    else if constexpr (tb::size <= tx::size && terms_match<tb, tx, at, false>())
      return std::type_identity<from_terms_t<
          concat_t<slice_t<0, at, tx>, residual_terms_t<front_t<tb>, at_t<at, tx>>>>>{};
    else return no_candidate_terms{};
  }
  struct no_candidate_terms {};
  static auto pick() {
    using c = decltype(candidate());
    if constexpr (std::is_same_v<c, no_candidate_terms>)
      return std::type_identity<dim_difference<X, B>>{};
    else if constexpr (std::is_same_v<plus_t<typename c::type, B>, X>) return c{};
    else return std::type_identity<dim_difference<X, B>>{};
  }
  using type = typename decltype(pick())::type;
};
// difference_t<X, B>: X - B, X without its trailing term B.
template <class X, class B>
using difference_t = typename difference<X, B>::type;

template <class B, class X>
struct left_difference {
  using tx = terms_t<X>;
  using tb = terms_t<B>;
  struct no_candidate_terms {};
  static auto candidate() {
    if constexpr (std::is_same_v<B, const_dim<0>>) return std::type_identity<X>{};
    else if constexpr (tb::size <= tx::size && terms_match<tb, tx, 0, true>())
      return std::type_identity<
          from_terms_t<concat_t<residual_terms_t<back_t<tb>, at_t<tb::size - 1, tx>>,
                                slice_t<tb::size, tx::size, tx>>>>{};
    else return no_candidate_terms{};
  }
  static auto pick() {
    using c = decltype(candidate());
    if constexpr (std::is_same_v<c, no_candidate_terms>)
      return std::type_identity<dim_left_difference<B, X>>{};
    else if constexpr (std::is_same_v<plus_t<B, typename c::type>, X>) return c{};
    else return std::type_identity<dim_left_difference<B, X>>{};
  }
  using type = typename decltype(pick())::type;
};
// left_difference_t<B, X>: sub_left(B, X), X without its leading term B.
template <class B, class X>
using left_difference_t = typename left_difference<B, X>::type;

}  // namespace dimgraph::detail
