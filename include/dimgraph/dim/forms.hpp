// The canonical forms of derived dims, and how a form splits into terms and factors.
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/dim/tag.hpp"

namespace dimgraph {

// Results of the dim algebra. They are produced by the operators in
// dim/algebra.hpp and are always in normal form, so that two expressions denote the
// same ordered index space exactly when their types are the same. Normal form:
//  - const_dim<K>: the anonymous constant dim of size K (written dg::c<K>);
//  - dim_prod<F...>: a merge, F[0] major; two or more factors; no factor is 1;
//    no two constants are adjacent; only the last factor may be a sum, and the
//    factor before such a sum is not a constant (k * S is S repeated k times);
//    a leading constant is the coefficient of a term;
//  - dim_sum<T...>: a concatenation of two or more terms (tags, opaque dims,
//    constants or products); no term is 0; adjacent terms never share their unit
//    (k1 * u + k2 * u is written (k1 + k2) * u);
//  - opaque dims, which the algebra could not simplify (their parts are normal):
//    dim_quotient<A, B> = A / B, dim_left_quotient<B, A> = div_left(B, A),
//    dim_difference<A, B> = A - B, dim_left_difference<B, A> = sub_left(B, A),
//    dim_ceildiv<A, K>, dim_floordiv<A, K>.
// Any other dim (a tag, or a private dim an op makes) is an atomic dim: see dim/atom.hpp.
template <std::size_t K>
struct const_dim : dim_expr_base {
  static constexpr std::size_t value = K;
};
template <class... Factors>
struct dim_prod : dim_expr_base {};
template <class... Terms>
struct dim_sum : dim_expr_base {};
template <class A, class B>
struct dim_quotient : dim_expr_base {
  using dividend = A;
  using divisor = B;
};
template <class B, class A>
struct dim_left_quotient : dim_expr_base {
  using dividend = A;
  using divisor = B;
};
template <class A, class B>
struct dim_difference : dim_expr_base {};
template <class B, class A>
struct dim_left_difference : dim_expr_base {};
template <class A, std::size_t K>
struct dim_ceildiv : dim_expr_base {};
template <class A, std::size_t K>
struct dim_floordiv : dim_expr_base {};

// dg::c<K>: the constant dim of size K.
template <std::size_t K>
inline constexpr const_dim<K> c{};

namespace detail {

using detail::type_list;

template <class T>
inline constexpr bool is_const_v = false;
template <std::size_t K>
inline constexpr bool is_const_v<const_dim<K>> = true;
template <class T>
inline constexpr bool is_sum_v = false;
template <class... Ts>
inline constexpr bool is_sum_v<dim_sum<Ts...>> = true;
template <class T>
inline constexpr bool is_quotient_form_v = false;
template <class A, class B>
inline constexpr bool is_quotient_form_v<dim_quotient<A, B>> = true;
template <class T>
inline constexpr bool is_left_quotient_form_v = false;
template <class B, class A>
inline constexpr bool is_left_quotient_form_v<dim_left_quotient<B, A>> = true;
template <class T>
inline constexpr bool is_prod_v = false;
template <class... Fs>
inline constexpr bool is_prod_v<dim_prod<Fs...>> = true;

// terms_t<X>: X as a concatenation (0 has no terms).
template <class X>
struct terms {
  using type = type_list<X>;
};
template <class... Ts>
struct terms<dim_sum<Ts...>> {
  using type = type_list<Ts...>;
};
template <>
struct terms<const_dim<0>> {
  using type = type_list<>;
};
template <class X>
using terms_t = typename terms<X>::type;

// factors_t<X>: X as a merge (1 has no factors).
template <class X>
struct factors {
  using type = type_list<X>;
};
template <class... Fs>
struct factors<dim_prod<Fs...>> {
  using type = type_list<Fs...>;
};
template <>
struct factors<const_dim<1>> {
  using type = type_list<>;
};
template <class X>
using factors_t = typename factors<X>::type;

// from_terms_t / from_factors_t: rebuild a dim from an already normal list.
template <class List>
struct from_terms;
template <>
struct from_terms<type_list<>> {
  using type = const_dim<0>;
};
template <class T>
struct from_terms<type_list<T>> {
  using type = T;
};
template <class T, class U, class... Ts>
struct from_terms<type_list<T, U, Ts...>> {
  using type = dim_sum<T, U, Ts...>;
};
template <class List>
using from_terms_t = typename from_terms<List>::type;

template <class List>
struct from_factors;
template <>
struct from_factors<type_list<>> {
  using type = const_dim<1>;
};
template <class F>
struct from_factors<type_list<F>> {
  using type = F;
};
template <class F, class G, class... Fs>
struct from_factors<type_list<F, G, Fs...>> {
  using type = dim_prod<F, G, Fs...>;
};
template <class List>
using from_factors_t = typename from_factors<List>::type;

// A term is coefficient * unit: 3 * a -> (3, a); c<5> -> (5, c<1>); a * b -> (1, a * b).
template <class T>
struct term_parts {
  static constexpr std::size_t coef = 1;
  using unit = T;
};
template <std::size_t K>
struct term_parts<const_dim<K>> {
  static constexpr std::size_t coef = K;
  using unit = const_dim<1>;
};
template <std::size_t K, class F, class... Fs>
struct term_parts<dim_prod<const_dim<K>, F, Fs...>> {
  static constexpr std::size_t coef = K;
  using unit = from_factors_t<type_list<F, Fs...>>;
};
template <class T>
using unit_t = typename term_parts<T>::unit;
template <class T>
inline constexpr std::size_t coef_v = term_parts<T>::coef;

// make_term_t<K, U>: the normal form of K * U for a unit U (K > 0).
template <std::size_t K, class U>
struct make_term {
  using type = from_factors_t<concat_t<type_list<const_dim<K>>, factors_t<U>>>;
};
template <class U>
struct make_term<1, U> {
  using type = U;
};
template <std::size_t K>
struct make_term<K, const_dim<1>> {
  using type = const_dim<K>;
};
template <>
struct make_term<1, const_dim<1>> {
  using type = const_dim<1>;
};
template <std::size_t K, class U>
using make_term_t = typename make_term<K, U>::type;

}  // namespace detail
}  // namespace dimgraph
