// Concatenation of dims (a + b) in normal form, and run grouping shared by the algebra.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "dimgraph/dim/forms.hpp"

namespace dimgraph::detail {

// Runs of a list: element i joins element i + 1 where join[i]. start[g] is the first
// element of run g; start[count] is the list size.
template <std::size_t N>
struct runs {
  std::array<std::size_t, N + 1> start{};
  std::size_t count = 0;
};
template <std::size_t N>
constexpr runs<N> find_runs(const std::array<bool, N>& join) {
  runs<N> r;
  for (std::size_t i = 0; i < N; ++i)
    if (i == 0 || !join[i - 1]) r.start[r.count++] = i;
  r.start[r.count] = N;
  return r;
}

template <class... As, class... Bs>
constexpr std::array<bool, sizeof...(As)> pairwise_same(type_list<As...>, type_list<Bs...>) {
  return {std::is_same_v<As, Bs>...};
}
// join[i] is true when neighbours i and i + 1 have the same key (keys has n entries).
template <class Keys>
constexpr auto neighbours_same() {
  if constexpr (Keys::size < 2) return std::array<bool, Keys::size>{};
  else {
    auto pairs = pairwise_same(pop_back_t<Keys>{}, pop_front_t<Keys>{});
    std::array<bool, Keys::size> join{};
    for (std::size_t i = 0; i + 1 < Keys::size; ++i) join[i] = pairs[i];
    return join;
  }
}

// merge_units_t<Terms>: adjacent terms with the same unit become one: k1*u + k2*u = (k1+k2)*u.
template <class... Ts>
inline constexpr auto unit_runs_v = find_runs(neighbours_same<type_list<unit_t<Ts>...>>());
template <class... Ts>
constexpr std::size_t unit_run_coef(std::size_t g) {
  constexpr std::size_t coefs[] = {coef_v<Ts>..., 0};
  constexpr auto r = unit_runs_v<Ts...>;
  std::size_t k = 0;
  for (std::size_t i = r.start[g]; i < r.start[g + 1]; ++i) k += coefs[i];
  return k;
}
template <class List, class Gs>
struct merge_units_build;
template <class... Ts, std::size_t... Gs>
struct merge_units_build<type_list<Ts...>, std::index_sequence<Gs...>> {
  using type =
      type_list<make_term_t<unit_run_coef<Ts...>(Gs),
                            unit_t<at_t<unit_runs_v<Ts...>.start[Gs], type_list<Ts...>>>>...>;
};
template <class Terms>
struct merge_units;
template <class... Ts>
struct merge_units<type_list<Ts...>>
    : merge_units_build<type_list<Ts...>, std::make_index_sequence<unit_runs_v<Ts...>.count>> {};
template <class Terms>
using merge_units_t = typename merge_units<Terms>::type;

// Matching a list of terms inside another, where the end term of the pattern may
// take only part of a term's coefficient: the part left over is the residual.
template <class Pattern, class Terms, std::size_t At, bool PartialAtEnd>
constexpr bool terms_match() {
  constexpr std::size_t m = Pattern::size;
  if constexpr (m == 0 || At > Terms::size ||
                At + m > Terms::size) {  // At may have wrapped below 0
    return false;
  } else {
    constexpr std::size_t p = PartialAtEnd ? m - 1 : 0;  // the partial position
    using pat = at_t<p, Pattern>;
    using got = at_t<At + p, Terms>;
    if constexpr (!std::is_same_v<unit_t<pat>, unit_t<got>> || coef_v<pat> > coef_v<got>) {
      return false;
    } else if constexpr (PartialAtEnd) {
      return std::is_same_v<slice_t<0, m - 1, Pattern>, slice_t<At, At + m - 1, Terms>>;
    } else {
      return std::is_same_v<slice_t<1, m, Pattern>, slice_t<At + 1, At + m, Terms>>;
    }
  }
}
// The residual term list (empty or one term) of a partial match.
template <class Pat, class Got, bool Left = (coef_v<Pat> < coef_v<Got>)>
struct residual_terms {
  using type = type_list<>;
};
template <class Pat, class Got>
struct residual_terms<Pat, Got, true> {
  using type = type_list<make_term_t<coef_v<Got> - coef_v<Pat>, unit_t<Got>>>;
};
template <class Pat, class Got>
using residual_terms_t = typename residual_terms<Pat, Got>::type;

// plus_t<X, Y>: the normal form of X + Y for normal X and Y. Both are normal, so
// only the two terms at the junction can merge. An opaque difference is an atom
// here: (t - 2) + 2 stays as it is (cancelling it would break associativity with
// merged coefficients, e.g. 2 * (t - 2) + 2).
template <class X, class Y>
using plus_t = from_terms_t<merge_units_t<concat_t<terms_t<X>, terms_t<Y>>>>;

// sum_of_t<Xs...>: X0 + X1 + ... (left to right).
template <class X>
struct sum_acc {
  using type = X;
};
template <class X, class Y>
sum_acc<plus_t<X, Y>> operator+(sum_acc<X>, sum_acc<Y>);
template <class... Xs>
using sum_of_t = typename decltype((sum_acc<const_dim<0>>{} + ... + sum_acc<Xs>{}))::type;

}  // namespace dimgraph::detail
