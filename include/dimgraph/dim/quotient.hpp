// Exact splits of dims: a / b (trailing factor) and div_left(b, a) (leading factor).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/product.hpp"

namespace dimgraph::detail {

// A split is found by trying rules in order; each rule guesses Q, and a guess is
// kept only if multiplying back gives X exactly (Q * B == X, or B * Q == X). So a
// split is never claimed that the layout does not have; when no rule applies the
// result is the opaque dim_quotient<X, B> (dim_left_quotient<B, X>).
struct no_candidate {};

template <class X, class B>
struct quotient;
template <class B, class X>
struct left_quotient;

template <class Q, class... Qs>
constexpr type_list<Q, Qs...> prepend_parsed(type_list<Qs...>) {
  return {};
}
template <class Q>
constexpr no_candidate prepend_parsed(no_candidate) {
  return {};
}
template <class... Qs>
constexpr std::type_identity<sum_of_t<Qs...>> sum_parsed(type_list<Qs...>) {
  return {};
}
constexpr no_candidate sum_parsed(no_candidate) {
  return {};
}

template <class Terms, class B, std::size_t P>
constexpr bool block_at() {
  using tb = terms_t<B>;
  if constexpr (!is_sum_v<B> || P + tb::size > Terms::size) return false;
  else return std::is_same_v<slice_t<P, P + tb::size, Terms>, tb>;
}

template <class X, class B, int Rule = 0>
constexpr auto quotient_candidate();
template <class B, class X, int Rule = 0>
constexpr auto left_quotient_candidate();

// X's terms read left to right as blocks: a term that B divides (t -> t / B), or, when
// B is a sum, a run of B's own terms (-> 1). (2 + a) * (2 + a) / (2 + a) == 2 + a.
template <class Terms, class B, std::size_t P>
constexpr auto parse_quotient() {
  if constexpr (P == Terms::size) {
    return type_list<>{};
  } else {
    using one = decltype(quotient_candidate<at_t<P, Terms>, B>());
    if constexpr (!std::is_same_v<one, no_candidate>)
      return prepend_parsed<typename one::type>(parse_quotient<Terms, B, P + 1>());
    else if constexpr (block_at<Terms, B, P>())
      return prepend_parsed<const_dim<1>>(parse_quotient<Terms, B, P + terms_t<B>::size>());
    else return no_candidate{};
  }
}

// A sum that is k copies of a sum B: k = n / m, or (n - 1) / (m - 1) when the ends merged.
template <class X, class B>
constexpr std::size_t copies_guess() {
  constexpr std::size_t n = terms_t<X>::size, m = terms_t<B>::size;
  if constexpr (m >= 2 && n % m == 0) return n / m;
  else if constexpr (m >= 2 && (n - 1) % (m - 1) == 0) return (n - 1) / (m - 1);
  else return 0;
}

// candidate | f: f applied to a found candidate; no_candidate passes through.
template <class T, class F>
constexpr auto operator|(std::type_identity<T> t, F f) {
  return f(t);
}
template <class F>
constexpr no_candidate operator|(no_candidate, F) {
  return {};
}
template <class Split>  // an inner split: a candidate only when it did not stay opaque
constexpr auto found_if_split() {
  if constexpr (Split::opaque) return no_candidate{};
  else return std::type_identity<typename Split::type>{};
}

// The rules for X / B.
inline constexpr int quotient_rules = 8;
template <class X, class B, int Rule>
constexpr auto quotient_rule() {
  using fx = factors_t<X>;
  using fb = factors_t<B>;
  if constexpr (Rule == 0) {  // x / 1 == x, x / x == 1, 0 / b == 0
    if constexpr (std::is_same_v<B, const_dim<1>>) return std::type_identity<X>{};
    else if constexpr (std::is_same_v<X, B>) return std::type_identity<const_dim<1>>{};
    else if constexpr (std::is_same_v<X, const_dim<0>>) return std::type_identity<X>{};
    else return no_candidate{};
  } else if constexpr (Rule == 1) {  // (p * b) / b == p, with b's leading constant dividing
    if constexpr (factors_match<fb, fx, fx::size - fb::size, false>()) {
      constexpr std::size_t at = fx::size - fb::size;
      using left = residual_factor_t<front_t<fb>, at_t<at, fx>>;
      return std::type_identity<times_t<from_factors_t<slice_t<0, at, fx>>, left>>{};
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 2) {  // a sum, block by block
    if constexpr (is_sum_v<X>) return sum_parsed(parse_quotient<terms_t<X>, B, 0>());
    else return no_candidate{};
  } else if constexpr (Rule == 3) {  // k copies of a sum
    if constexpr (is_sum_v<X> && is_sum_v<B> && copies_guess<X, B>() > 0)
      return std::type_identity<const_dim<copies_guess<X, B>()>>{};
    else return no_candidate{};
  } else if constexpr (Rule == 4) {  // P * S / B == P * (S / B)
    if constexpr (ends_with_sum<X>())
      return found_if_split<quotient<back_t<fx>, B>>() | [](auto s) {
        return std::type_identity<
            times_t<from_factors_t<pop_back_t<fx>>, typename decltype(s)::type>>{};
      };
    else return no_candidate{};
  } else if constexpr (Rule == 5) {  // X / div_left(b, X) == b
    if constexpr (is_left_quotient_form_v<B>) {
      if constexpr (std::is_same_v<typename B::dividend, X>)
        return std::type_identity<typename B::divisor>{};
      else  // R * a / div_left(b, a) == R * b
        return found_if_split<quotient<X, typename B::dividend>>() | [](auto r) {
          return std::type_identity<times_t<typename decltype(r)::type, typename B::divisor>>{};
        };
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 6) {  // X / (P * f) == (X / f) / P: f may have cancelled into X
    // (X / f == 1 would make the result a reciprocal 1 / P, which is no index space.)
    if constexpr (is_prod_v<B>) {
      using inner = quotient<X, back_t<fb>>;
      if constexpr (inner::opaque || std::is_same_v<typename inner::type, const_dim<1>>)
        return no_candidate{};
      else
        return std::type_identity<
            typename quotient<typename inner::type, from_factors_t<pop_back_t<fb>>>::type>{};
    } else {
      return no_candidate{};
    }
  } else {
    return no_candidate{};
  }
}

// The rules for div_left(B, X).
inline constexpr int left_quotient_rules = 8;
template <class B, class X, int Rule>
constexpr auto left_quotient_rule() {
  using fx = factors_t<X>;
  using fb = factors_t<B>;
  if constexpr (Rule == 0) {
    if constexpr (std::is_same_v<B, const_dim<1>>) return std::type_identity<X>{};
    else if constexpr (std::is_same_v<X, B>) return std::type_identity<const_dim<1>>{};
    else if constexpr (std::is_same_v<X, const_dim<0>>) return std::type_identity<X>{};
    else return no_candidate{};
  } else if constexpr (Rule == 1) {  // (b * p) -> p, with b's trailing constant dividing
    if constexpr (!is_sum_v<X> && factors_match<fb, fx, 0, true>()) {
      using left = residual_factor_t<back_t<fb>, at_t<fb::size - 1, fx>>;
      return std::type_identity<times_t<left, from_factors_t<slice_t<fb::size, fx::size, fx>>>>{};
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 2) {  // k copies of Q, the ends of neighbours merged or not
    if constexpr (is_sum_v<X> && is_const_v<B>) {
      using tx = terms_t<X>;
      constexpr std::size_t n = tx::size, k = B::value;
      if constexpr (n % k == 0) return std::type_identity<from_terms_t<slice_t<0, n / k, tx>>>{};
      else if constexpr ((n - 1) % k == 0)
        return std::type_identity<
            from_terms_t<concat_t<slice_t<0, (n - 1) / k, tx>, type_list<back_t<tx>>>>>{};
      else return no_candidate{};
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 3 ||
                       Rule == 4) {  // (b1 + ... + bn) * Q: Q from the first or last block
    if constexpr (is_sum_v<X> && is_sum_v<B>) {
      if constexpr (Rule == 3)
        return found_if_split<left_quotient<front_t<terms_t<B>>, front_t<terms_t<X>>>>();
      else return found_if_split<left_quotient<back_t<terms_t<B>>, back_t<terms_t<X>>>>();
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 5) {  // B = P * R and X = P * S: Q = div_left(R, S)
    if constexpr (ends_with_sum<X>() && fb::size >= fx::size) {
      constexpr std::size_t p = fx::size - 1;
      if constexpr (std::is_same_v<slice_t<0, p, fb>, slice_t<0, p, fx>>)
        return found_if_split<
            left_quotient<from_factors_t<slice_t<p, fb::size, fb>>, back_t<fx>>>();
      else return no_candidate{};
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 6) {  // div_left(X / b, X) == b;  div_left(a / b, a * R) == b * R
    if constexpr (is_quotient_form_v<B>) {
      if constexpr (std::is_same_v<typename B::dividend, X>)
        return std::type_identity<typename B::divisor>{};
      else
        return found_if_split<left_quotient<typename B::dividend, X>>() | [](auto r) {
          return std::type_identity<times_t<typename B::divisor, typename decltype(r)::type>>{};
        };
    } else {
      return no_candidate{};
    }
  } else if constexpr (Rule == 7) {  // div_left(f * P, X) == div_left(P, div_left(f, X))
    if constexpr (is_prod_v<B>) {
      using inner = left_quotient<front_t<fb>, X>;
      if constexpr (inner::opaque || std::is_same_v<typename inner::type, const_dim<1>>)
        return no_candidate{};
      else
        return std::type_identity<
            typename left_quotient<from_factors_t<pop_front_t<fb>>, typename inner::type>::type>{};
    } else {
      return no_candidate{};
    }
  } else {
    return no_candidate{};
  }
}

template <class X, class B, int Rule>
constexpr auto quotient_candidate() {
  if constexpr (Rule == quotient_rules) {
    return no_candidate{};
  } else {
    using c = decltype(quotient_rule<X, B, Rule>());
    if constexpr (std::is_same_v<c, no_candidate>) return quotient_candidate<X, B, Rule + 1>();
    else if constexpr (std::is_same_v<times_t<typename c::type, B>, X>) return c{};
    else return quotient_candidate<X, B, Rule + 1>();
  }
}
template <class B, class X, int Rule>
constexpr auto left_quotient_candidate() {
  if constexpr (Rule == left_quotient_rules) {
    return no_candidate{};
  } else {
    using c = decltype(left_quotient_rule<B, X, Rule>());
    if constexpr (std::is_same_v<c, no_candidate>) return left_quotient_candidate<B, X, Rule + 1>();
    else if constexpr (std::is_same_v<times_t<B, typename c::type>, X>) return c{};
    else return left_quotient_candidate<B, X, Rule + 1>();
  }
}

template <class X, class B>
struct quotient {
  using candidate = decltype(quotient_candidate<X, B>());
  static constexpr bool opaque = std::is_same_v<candidate, no_candidate>;
  using type =
      typename std::conditional_t<opaque, std::type_identity<dim_quotient<X, B>>, candidate>::type;
};
// quotient_t<X, B>: X / B, the part left when the trailing factor B is split off.
template <class X, class B>
using quotient_t = typename quotient<X, B>::type;

template <class B, class X>
struct left_quotient {
  using candidate = decltype(left_quotient_candidate<B, X>());
  static constexpr bool opaque = std::is_same_v<candidate, no_candidate>;
  using type = typename std::conditional_t<opaque, std::type_identity<dim_left_quotient<B, X>>,
                                           candidate>::type;
};
// left_quotient_t<B, X>: div_left(B, X), the part left when the leading factor B is split off.
template <class B, class X>
using left_quotient_t = typename left_quotient<B, X>::type;

}  // namespace dimgraph::detail
