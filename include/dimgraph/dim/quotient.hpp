// Exact splits of dims: a / b (trailing factor) and div_left(b, a) (leading factor).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/first_verified.hpp"
#include "dimgraph/dim/product.hpp"

namespace dimgraph::detail {

// X / B is Q with Q * B == X, div_left(B, X) is Q with B * Q == X: each is the first guess of
// its rules (below, in order) that multiplies back to X, else the opaque dim_quotient<X, B>
// (dim_left_quotient<B, X>). See first_verified.
template <class X, class B>
struct quotient;
template <class B, class X>
struct left_quotient;

// What each split inverts: Q * B == X and B * Q == X.
template <class X, class B>
struct trailing_factor_back {
  using input = X;
  using part = B;
  using opaque = dim_quotient<X, B>;
  template <class Q>
  using back = times_t<Q, B>;
};
template <class B, class X>
struct leading_factor_back {
  using input = X;
  using part = B;
  using opaque = dim_left_quotient<B, X>;
  template <class Q>
  using back = times_t<B, Q>;
};

template <class Q, class... Qs>
constexpr type_list<Q, Qs...> prepend_parsed(type_list<Qs...>) {
  return {};
}
template <class Q>
constexpr no_guess prepend_parsed(no_guess) {
  return {};
}
template <class... Qs>
constexpr std::type_identity<sum_of_t<Qs...>> sum_parsed(type_list<Qs...>) {
  return {};
}
constexpr no_guess sum_parsed(no_guess) {
  return {};
}

template <class Terms, class B, std::size_t P>
constexpr bool block_at() {
  using tb = terms_t<B>;
  if constexpr (!is_sum_v<B> || P + tb::size > Terms::size) return false;
  else return std::is_same_v<slice_t<P, P + tb::size, Terms>, tb>;
}

// X's terms read left to right as blocks: a term that B divides (t -> t / B), or, when
// B is a sum, a run of B's own terms (-> 1). (2 + a) * (2 + a) / (2 + a) == 2 + a.
template <class Terms, class B, std::size_t P>
constexpr auto parse_quotient() {
  if constexpr (P == Terms::size) {
    return type_list<>{};
  } else {
    using one = quotient<at_t<P, Terms>, B>;
    if constexpr (!one::opaque)
      return prepend_parsed<typename one::type>(parse_quotient<Terms, B, P + 1>());
    else if constexpr (block_at<Terms, B, P>())
      return prepend_parsed<const_dim<1>>(parse_quotient<Terms, B, P + terms_t<B>::size>());
    else return no_guess{};
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

// guess | f: f applied to a guess; no_guess passes through.
template <class T, class F>
constexpr auto operator|(std::type_identity<T> t, F f) {
  return f(t);
}
template <class F>
constexpr no_guess operator|(no_guess, F) {
  return {};
}
template <class Split>  // an inner split: a guess only when it did not stay opaque
constexpr auto found_if_split() {
  if constexpr (Split::opaque) return no_guess{};
  else return std::type_identity<typename Split::type>{};
}

// The rules. Each guesses the result of one split, guess<X, B>(), from the forms of X (the dim
// split) and B (the part split off, at the end for X / B, at the front for div_left(B, X)).
namespace split_rule {

// x / 1 == x, x / x == 1, 0 / b == 0 (and the same for div_left).
struct trivial {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (std::is_same_v<B, const_dim<1>>) return std::type_identity<X>{};
    else if constexpr (std::is_same_v<X, B>) return std::type_identity<const_dim<1>>{};
    else if constexpr (std::is_same_v<X, const_dim<0>>) return std::type_identity<X>{};
    else return no_guess{};
  }
};

// X / B:

// (p * b) / b == p, where b's leading constant may take a divisor of X's factor there:
// (a * 6) / 3 == a * 2.
struct trailing_factor {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    using fb = factors_t<B>;
    if constexpr (factors_match<fb, fx, fx::size - fb::size, false>()) {
      constexpr std::size_t at = fx::size - fb::size;
      using left = residual_factor_t<front_t<fb>, at_t<at, fx>>;
      return std::type_identity<times_t<from_factors_t<slice_t<0, at, fx>>, left>>{};
    } else {
      return no_guess{};
    }
  }
};

// A sum, block by block (parse_quotient): (a * b + 2 * b) / b == a + 2.
struct blockwise_sum {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X>) return sum_parsed(parse_quotient<terms_t<X>, B, 0>());
    else return no_guess{};
  }
};

// A sum that is k copies of the sum B, the ends of neighbouring copies merged:
// (a + b + 2 * a + b + a) / (a + b + a) == 2.
struct copies_of_sum {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_sum_v<B> && copies_guess<X, B>() > 0)
      return std::type_identity<const_dim<copies_guess<X, B>()>>{};
    else return no_guess{};
  }
};

// P * S / B == P * (S / B) for a product ending in a sum S.
struct within_trailing_sum {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    if constexpr (ends_with_sum<X>())
      return found_if_split<quotient<back_t<fx>, B>>() | [](auto s) {
        return std::type_identity<
            times_t<from_factors_t<pop_back_t<fx>>, typename decltype(s)::type>>{};
      };
    else return no_guess{};
  }
};

// X / div_left(b, X) == b, and R * a / div_left(b, a) == R * b.
struct by_left_quotient {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_left_quotient_form_v<B>) {
      if constexpr (std::is_same_v<typename B::dividend, X>)
        return std::type_identity<typename B::divisor>{};
      else
        return found_if_split<quotient<X, typename B::dividend>>() | [](auto r) {
          return std::type_identity<times_t<typename decltype(r)::type, typename B::divisor>>{};
        };
    } else {
      return no_guess{};
    }
  }
};

// X / (P * f) == (X / f) / P: f may have cancelled into X. (X / f == 1 would make the result a
// reciprocal 1 / P, which is no index space.)
struct factor_by_factor {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_prod_v<B>) {
      using fb = factors_t<B>;
      using inner = quotient<X, back_t<fb>>;
      if constexpr (inner::opaque || std::is_same_v<typename inner::type, const_dim<1>>)
        return no_guess{};
      else
        return std::type_identity<
            typename quotient<typename inner::type, from_factors_t<pop_back_t<fb>>>::type>{};
    } else {
      return no_guess{};
    }
  }
};

// div_left(B, X):

// div_left(b, b * p) == p, where b's trailing constant may take a divisor of X's factor there:
// div_left(3, 6 * a) == 2 * a.
struct leading_factor {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    using fb = factors_t<B>;
    if constexpr (!is_sum_v<X> && factors_match<fb, fx, 0, true>()) {
      using left = residual_factor_t<back_t<fb>, at_t<fb::size - 1, fx>>;
      return std::type_identity<times_t<left, from_factors_t<slice_t<fb::size, fx::size, fx>>>>{};
    } else {
      return no_guess{};
    }
  }
};

// A sum that is k copies of Q, the ends of neighbouring copies merged or not:
// div_left(2, a + b + a + b) == a + b, div_left(2, 1 + a + 2 + a + 1) == 1 + a + 1.
struct copies_by_constant {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_const_v<B>) {
      using tx = terms_t<X>;
      constexpr std::size_t n = tx::size, k = B::value;
      if constexpr (n % k == 0) return std::type_identity<from_terms_t<slice_t<0, n / k, tx>>>{};
      else if constexpr ((n - 1) % k == 0)
        return std::type_identity<
            from_terms_t<concat_t<slice_t<0, (n - 1) / k, tx>, type_list<back_t<tx>>>>>{};
      else return no_guess{};
    } else {
      return no_guess{};
    }
  }
};

// X == (b1 + ... + bn) * Q: Q from X's first block, div_left(b1, x1) ...
struct first_block {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_sum_v<B>)
      return found_if_split<left_quotient<front_t<terms_t<B>>, front_t<terms_t<X>>>>();
    else return no_guess{};
  }
};
// ... or from its last block, div_left(bn, xn).
struct last_block {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_sum_v<B>)
      return found_if_split<left_quotient<back_t<terms_t<B>>, back_t<terms_t<X>>>>();
    else return no_guess{};
  }
};

// B == P * R and X == P * S for a sum S: div_left(B, X) == div_left(R, S).
struct shared_leading_factors {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    using fb = factors_t<B>;
    if constexpr (ends_with_sum<X>() && fb::size >= fx::size) {
      constexpr std::size_t p = fx::size - 1;
      if constexpr (std::is_same_v<slice_t<0, p, fb>, slice_t<0, p, fx>>)
        return found_if_split<
            left_quotient<from_factors_t<slice_t<p, fb::size, fb>>, back_t<fx>>>();
      else return no_guess{};
    } else {
      return no_guess{};
    }
  }
};

// div_left(X / b, X) == b, and div_left(a / b, a * R) == b * R.
struct by_quotient {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_quotient_form_v<B>) {
      if constexpr (std::is_same_v<typename B::dividend, X>)
        return std::type_identity<typename B::divisor>{};
      else
        return found_if_split<left_quotient<typename B::dividend, X>>() | [](auto r) {
          return std::type_identity<times_t<typename B::divisor, typename decltype(r)::type>>{};
        };
    } else {
      return no_guess{};
    }
  }
};

// div_left(f * P, X) == div_left(P, div_left(f, X)) (as factor_by_factor, from the front).
struct leading_factor_by_factor {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_prod_v<B>) {
      using fb = factors_t<B>;
      using inner = left_quotient<front_t<fb>, X>;
      if constexpr (inner::opaque || std::is_same_v<typename inner::type, const_dim<1>>)
        return no_guess{};
      else
        return std::type_identity<
            typename left_quotient<from_factors_t<pop_front_t<fb>>, typename inner::type>::type>{};
    } else {
      return no_guess{};
    }
  }
};

}  // namespace split_rule

// The rules of X / B and of div_left(B, X), in the order they are tried.
using quotient_rules =
    type_list<split_rule::trivial, split_rule::trailing_factor, split_rule::blockwise_sum,
              split_rule::copies_of_sum, split_rule::within_trailing_sum,
              split_rule::by_left_quotient, split_rule::factor_by_factor>;
using left_quotient_rules =
    type_list<split_rule::trivial, split_rule::leading_factor, split_rule::copies_by_constant,
              split_rule::first_block, split_rule::last_block, split_rule::shared_leading_factors,
              split_rule::by_quotient, split_rule::leading_factor_by_factor>;

template <class X, class B>
struct quotient : first_verified<quotient_rules, trailing_factor_back<X, B>> {};
// quotient_t<X, B>: X / B, the part left when the trailing factor B is split off.
template <class X, class B>
using quotient_t = typename quotient<X, B>::type;

template <class B, class X>
struct left_quotient : first_verified<left_quotient_rules, leading_factor_back<B, X>> {};
// left_quotient_t<B, X>: div_left(B, X), the part left when the leading factor B is split off.
template <class B, class X>
using left_quotient_t = typename left_quotient<B, X>::type;

}  // namespace dimgraph::detail
