// Merging of dims (a * b, a major) in normal form.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "dimgraph/dim/sum.hpp"

namespace dimgraph::detail {

template <class X, class Y>
struct times;
// times_t<X, Y>: the normal form of X * Y for normal X and Y.
template <class X, class Y>
using times_t = typename times<X, Y>::type;

template <class T>
inline constexpr std::size_t const_value_v = 1;
template <std::size_t K>
inline constexpr std::size_t const_value_v<const_dim<K>> = K;

// Adjacent constants fold: a * 2 * 3 == a * 6.
template <class... Fs>
inline constexpr auto const_runs_v = [] {
  constexpr bool is_const[] = {is_const_v<Fs>..., false};
  std::array<bool, sizeof...(Fs)> join{};
  for (std::size_t i = 0; i + 1 < sizeof...(Fs); ++i) join[i] = is_const[i] && is_const[i + 1];
  return find_runs(join);
}();
template <class... Fs>
constexpr std::size_t const_run_value(std::size_t g) {
  constexpr std::size_t values[] = {const_value_v<Fs>..., 1};
  constexpr auto r = const_runs_v<Fs...>;
  std::size_t k = 1;
  for (std::size_t i = r.start[g]; i < r.start[g + 1]; ++i) k *= values[i];
  return k;
}
template <std::size_t G, class... Fs>
using const_run_t =
    std::conditional_t<(const_runs_v<Fs...>.start[G + 1] - const_runs_v<Fs...>.start[G] > 1),
                       const_dim<const_run_value<Fs...>(G)>,
                       at_t<const_runs_v<Fs...>.start[G], type_list<Fs...>>>;
template <class List, class Gs>
struct fold_consts_build;
template <class... Fs, std::size_t... Gs>
struct fold_consts_build<type_list<Fs...>, std::index_sequence<Gs...>> {
  using type = type_list<const_run_t<Gs, Fs...>...>;
};
template <class Factors>
struct fold_consts;
template <class... Fs>
struct fold_consts<type_list<Fs...>>
    : fold_consts_build<type_list<Fs...>, std::make_index_sequence<const_runs_v<Fs...>.count>> {};
template <class Factors>
using fold_consts_t = typename fold_consts<Factors>::type;

// Matching a list of factors inside another, where the end factor of the pattern,
// when a constant, may take only a divisor of a constant: the quotient is the residual.
template <class Pat, class Got>
constexpr bool factor_divides() {
  if constexpr (is_const_v<Pat> && is_const_v<Got>)
    return const_value_v<Got> % const_value_v<Pat> == 0;
  else return std::is_same_v<Pat, Got>;
}
template <class Pattern, class Factors, std::size_t At, bool PartialAtEnd>
constexpr bool factors_match() {
  constexpr std::size_t m = Pattern::size;
  if constexpr (m == 0 || At > Factors::size ||
                At + m > Factors::size) {  // At may have wrapped below 0
    return false;
  } else {
    constexpr std::size_t p = PartialAtEnd ? m - 1 : 0;
    if constexpr (!factor_divides<at_t<p, Pattern>, at_t<At + p, Factors>>()) return false;
    else if constexpr (PartialAtEnd)
      return std::is_same_v<slice_t<0, m - 1, Pattern>, slice_t<At, At + m - 1, Factors>>;
    else return std::is_same_v<slice_t<1, m, Pattern>, slice_t<At + 1, At + m, Factors>>;
  }
}
template <class Pat, class Got>
using residual_factor_t = const_dim<const_value_v<Got> / const_value_v<Pat>>;  // 1 when exact

// (a / b) * b == a and b * div_left(b, a) == a.
template <class T>
inline constexpr bool is_quotient_v = false;
template <class A, class B>
inline constexpr bool is_quotient_v<dim_quotient<A, B>> = true;
template <class B, class A>
inline constexpr bool is_quotient_v<dim_left_quotient<B, A>> = true;

template <std::size_t I, class Fs, class T = at_t<I, Fs>>
struct cancel_factor_at {
  static constexpr bool ok = false;
};
template <std::size_t I, class Fs, class A, class B>
struct cancel_factor_at<I, Fs, dim_quotient<A, B>> {
  using fb = factors_t<B>;
  static constexpr bool ok = factors_match<fb, Fs, I + 1, true>();
  static auto result() {
    constexpr std::size_t end = I + fb::size;
    using before = from_factors_t<slice_t<0, I, Fs>>;
    using left = residual_factor_t<back_t<fb>, at_t<end, Fs>>;
    using after = from_factors_t<slice_t<end + 1, Fs::size, Fs>>;
    return std::type_identity<times_t<times_t<times_t<before, A>, left>, after>>{};
  }
};
template <std::size_t I, class Fs, class B, class A>
struct cancel_factor_at<I, Fs, dim_left_quotient<B, A>> {
  using fb = factors_t<B>;
  static constexpr bool ok = I >= fb::size && factors_match<fb, Fs, I - fb::size, false>();
  static auto result() {
    constexpr std::size_t begin = I - fb::size;
    using before = from_factors_t<slice_t<0, begin, Fs>>;
    using left = residual_factor_t<front_t<fb>, at_t<begin, Fs>>;
    using after = from_factors_t<slice_t<I + 1, Fs::size, Fs>>;
    return std::type_identity<times_t<times_t<times_t<before, left>, A>, after>>{};
  }
};

template <class Fs, class Is = std::make_index_sequence<Fs::size>>
struct first_factor_cancel;
template <class Fs, std::size_t... Is>
struct first_factor_cancel<Fs, std::index_sequence<Is...>> {
  static constexpr std::size_t value = [] {
    constexpr bool ok[] = {cancel_factor_at<Is, Fs>::ok..., false};
    for (std::size_t i = 0; i < sizeof...(Is); ++i)
      if (ok[i]) return i;
    return sizeof...(Is);
  }();
};

template <class... Fs>
constexpr bool any_quotient(type_list<Fs...>) {
  return (is_quotient_v<Fs> || ...);
}

template <class Fs>
constexpr bool const_before_sum() {
  if constexpr (Fs::size < 2) return false;
  else return is_sum_v<back_t<Fs>> && is_const_v<at_t<Fs::size - 2, Fs>>;
}

// Factors of normal X (no sum) followed by factors of normal Y (a sum only last).
template <class Fs>
constexpr auto normalize_factors() {
  using folded = fold_consts_t<Fs>;
  constexpr std::size_t n = folded::size;
  constexpr std::size_t cancel = [] {
    if constexpr (any_quotient(folded{})) return first_factor_cancel<folded>::value;
    else return n;
  }();
  if constexpr (cancel < n) {
    return cancel_factor_at<cancel, folded>::result();
  } else if constexpr (const_before_sum<folded>()) {
    // k * S is S repeated k times: 2 * (a + b) == a + b + a + b.
    using repeated = from_terms_t<
        merge_units_t<repeat_t<const_value_v<at_t<n - 2, folded>>, terms_t<back_t<folded>>>>>;
    return std::type_identity<times_t<from_factors_t<slice_t<0, n - 2, folded>>, repeated>>{};
  } else {
    return std::type_identity<from_factors_t<folded>>{};
  }
}

template <class X>
constexpr bool ends_with_sum() {
  if constexpr (is_prod_v<X>) return is_sum_v<back_t<factors_t<X>>>;
  else return false;
}

// (t1 + t2 + ...) * Y == t1 * Y + t2 * Y + ...: the sum is the major factor.
template <class Terms, class Y>
struct distribute;
template <class... Ts, class Y>
struct distribute<type_list<Ts...>, Y> {
  using type = sum_of_t<times_t<Ts, Y>...>;
};

template <class X, class Y>
constexpr bool junction_cancels() {
  using fs = concat_t<factors_t<X>, factors_t<Y>>;
  constexpr std::size_t n = factors_t<X>::size;
  return cancel_factor_at<n - 1, fs>::ok || cancel_factor_at<n, fs>::ok;
}

template <class X, class Y>
constexpr auto times_fn() {
  using zero = const_dim<0>;
  using one = const_dim<1>;
  if constexpr (std::is_same_v<X, zero> || std::is_same_v<Y, zero>) {
    return std::type_identity<zero>{};
  } else if constexpr (std::is_same_v<X, one>) {
    return std::type_identity<Y>{};
  } else if constexpr (std::is_same_v<Y, one>) {
    return std::type_identity<X>{};
  } else if constexpr (junction_cancels<X, Y>()) {
    // Before distributing a sum: (a / (b + c)) * (b + c) == a, (b + c) * div_left(b + c, a) == a.
    using fs = concat_t<factors_t<X>, factors_t<Y>>;
    constexpr std::size_t at = cancel_factor_at<factors_t<X>::size - 1, fs>::ok
                                   ? factors_t<X>::size - 1
                                   : factors_t<X>::size;
    return cancel_factor_at<at, fs>::result();
  } else if constexpr (is_sum_v<X>) {
    return std::type_identity<typename distribute<terms_t<X>, Y>::type>{};
  } else if constexpr (ends_with_sum<X>()) {
    using fx = factors_t<X>;  // (P * S) * Y == P * (S * Y)
    return std::type_identity<times_t<from_factors_t<pop_back_t<fx>>, times_t<back_t<fx>, Y>>>{};
  } else {
    return normalize_factors<concat_t<factors_t<X>, factors_t<Y>>>();
  }
}
template <class X, class Y>
struct times {
  using type = typename decltype(times_fn<X, Y>())::type;
};

}  // namespace dimgraph::detail
