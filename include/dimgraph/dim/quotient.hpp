// Exact splits of dims: a / b (trailing factor) and div_left(b, a) (leading factor).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/product.hpp"

namespace dimgraph::detail {

struct no_candidate {};

template <class X, class B>
constexpr auto quotient_candidate();

template <class B, class... Ts>
constexpr auto termwise_quotient(type_list<Ts...>) {
  if constexpr ((!std::is_same_v<decltype(quotient_candidate<Ts, B>()), no_candidate> && ...))
    return std::type_identity<sum_of_t<typename decltype(quotient_candidate<Ts, B>())::type...>>{};
  else
    return no_candidate{};
}

// A sum that is k copies of a sum B: k = n / m, or (n - 1) / (m - 1) when the ends merged.
template <class X, class B>
constexpr std::size_t copies_guess() {
  constexpr std::size_t n = terms_t<X>::size, m = terms_t<B>::size;
  if constexpr (m >= 2 && n % m == 0) return n / m;
  else if constexpr (m >= 2 && (n - 1) % (m - 1) == 0) return (n - 1) / (m - 1);
  else return 0;
}

// A guess Q with X == Q * B (checked by the caller).
template <class X, class B>
constexpr auto quotient_candidate() {
  using fx = factors_t<X>;
  using fb = factors_t<B>;
  if constexpr (std::is_same_v<B, const_dim<1>>) {
    return std::type_identity<X>{};
  } else if constexpr (std::is_same_v<X, B>) {
    return std::type_identity<const_dim<1>>{};
  } else if constexpr (std::is_same_v<X, const_dim<0>>) {
    return std::type_identity<X>{};
  } else if constexpr (is_sum_v<X>) {
    using each = decltype(termwise_quotient<B>(terms_t<X>{}));
    if constexpr (!std::is_same_v<each, no_candidate>) return each{};
    else if constexpr (is_sum_v<B> && copies_guess<X, B>() > 0)
      return std::type_identity<const_dim<copies_guess<X, B>()>>{};
    else return no_candidate{};
  } else if constexpr (fb::size <= fx::size &&
                       factors_match<fb, fx, fx::size - fb::size, false>()) {
    constexpr std::size_t at = fx::size - fb::size;
    using left = residual_factor_t<front_t<fb>, at_t<at, fx>>;
    return std::type_identity<times_t<from_factors_t<slice_t<0, at, fx>>, left>>{};
  } else {
    return no_candidate{};
  }
}

// A guess Q with X == B * Q (checked by the caller).
template <class B, class X>
constexpr auto left_quotient_candidate() {
  using fx = factors_t<X>;
  using fb = factors_t<B>;
  if constexpr (std::is_same_v<B, const_dim<1>>) {
    return std::type_identity<X>{};
  } else if constexpr (std::is_same_v<X, B>) {
    return std::type_identity<const_dim<1>>{};
  } else if constexpr (std::is_same_v<X, const_dim<0>>) {
    return std::type_identity<X>{};
  } else if constexpr (is_sum_v<X> && is_const_v<B>) {
    // k copies of Q, with or without the ends of neighbouring copies merged.
    using tx = terms_t<X>;
    constexpr std::size_t n = tx::size, k = B::value;
    if constexpr (n % k == 0) return std::type_identity<from_terms_t<slice_t<0, n / k, tx>>>{};
    else if constexpr ((n - 1) % k == 0 && n > 1)
      return std::type_identity<
          from_terms_t<concat_t<slice_t<0, (n - 1) / k, tx>, type_list<back_t<tx>>>>>{};
    else return no_candidate{};
  } else if constexpr (is_sum_v<X> && is_sum_v<B>) {
    return left_quotient_candidate<front_t<terms_t<B>>, front_t<terms_t<X>>>();
  } else if constexpr (!is_sum_v<X> && fb::size <= fx::size && factors_match<fb, fx, 0, true>()) {
    using left = residual_factor_t<back_t<fb>, at_t<fb::size - 1, fx>>;
    return std::type_identity<times_t<left, from_factors_t<slice_t<fb::size, fx::size, fx>>>>{};
  } else {
    return no_candidate{};
  }
}

template <class Candidate, class Expected, template <class> class Check>
constexpr bool candidate_holds() {
  if constexpr (std::is_same_v<Candidate, no_candidate>) return false;
  else return std::is_same_v<typename Check<typename Candidate::type>::type, Expected>;
}

template <class X, class B>
struct quotient {
  template <class Q>
  struct check : times<Q, B> {};
  using candidate = decltype(quotient_candidate<X, B>());
  using type = typename std::conditional_t<candidate_holds<candidate, X, check>(), candidate,
                                           std::type_identity<dim_quotient<X, B>>>::type;
};
// quotient_t<X, B>: X / B, the part left when the trailing factor B is split off.
template <class X, class B>
using quotient_t = typename quotient<X, B>::type;

template <class B, class X>
struct left_quotient {
  template <class Q>
  struct check : times<B, Q> {};
  using candidate = decltype(left_quotient_candidate<B, X>());
  using type = typename std::conditional_t<candidate_holds<candidate, X, check>(), candidate,
                                           std::type_identity<dim_left_quotient<B, X>>>::type;
};
// left_quotient_t<B, X>: div_left(B, X), the part left when the leading factor B is split off.
template <class B, class X>
using left_quotient_t = typename left_quotient<B, X>::type;

}  // namespace dimgraph::detail
