// dimgraph 0.1.0: single-header distribution, generated from include/dimgraph.hpp
// by tools/amalgamate.py. Do not edit: change include/ and run the script again.
// Needs the Boost headers (Boost.Hana) on the include path.
// Distributed under the Boost Software License, Version 1.0 (see LICENSE).
#pragma once

// ---- begin dimgraph.hpp
// dimgraph: tensors typed by dimension tags. Includes every public header.

// ---- begin dimgraph/config.hpp
// User configuration knobs (DIMGRAPH_CONFIG_*) and portable attribute macros.

// Define to 1 to route large contractions through a CBLAS (e.g. OpenBLAS).
// The program must then link a CBLAS implementation itself.
#ifndef DIMGRAPH_CONFIG_USE_CBLAS
#define DIMGRAPH_CONFIG_USE_CBLAS 0
#endif

// Define to 1 to check internal invariants at run time (indices, extents).
// Costs speed; meant for debugging dimgraph or code that extends it.
#ifndef DIMGRAPH_CONFIG_ENABLE_ASSERTS
#define DIMGRAPH_CONFIG_ENABLE_ASSERTS 0
#endif

// Force or forbid inlining of a function where the compiler supports it. Attributes only:
// write them before the declaration of an inline function, template or lambda body
// (`DIMGRAPH_ALWAYS_INLINE constexpr auto f() {...}`, `[](auto x) DIMGRAPH_ALWAYS_INLINE {...}`).
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_ALWAYS_INLINE __attribute__((always_inline))
#define DIMGRAPH_NOINLINE __attribute__((noinline))
#else
#define DIMGRAPH_ALWAYS_INLINE
#define DIMGRAPH_NOINLINE
#endif
// ---- end dimgraph/config.hpp
// ---- begin dimgraph/version.hpp
// Library version: DIMGRAPH_VERSION_{MAJOR,MINOR,PATCH} and DIMGRAPH_VERSION (e.g. 0.1.0 -> 100).

#define DIMGRAPH_VERSION_MAJOR 0
#define DIMGRAPH_VERSION_MINOR 1
#define DIMGRAPH_VERSION_PATCH 0

#define DIMGRAPH_VERSION \
  (DIMGRAPH_VERSION_MAJOR * 10000 + DIMGRAPH_VERSION_MINOR * 100 + DIMGRAPH_VERSION_PATCH)
// ---- end dimgraph/version.hpp
// ---- begin dimgraph/fwd.hpp
// Forward declarations of dimgraph's public types.

#include <cstddef>

namespace dimgraph {
struct interval;
enum class dim_kind;
struct dim_expr_base;
struct dim_tag_base;
struct batch;
template <std::size_t K>
struct const_dim;
template <class... Ds>
struct dim_list;
class error;
class shape_error;
class index_error;
class overlap_error;
}  // namespace dimgraph
// ---- end dimgraph/fwd.hpp

// ---- begin dimgraph/dim/interval.hpp
// dimgraph::interval: constexpr bounds {lo, hi} of a dim's extent, with an unbounded top.

#include <algorithm>
#include <limits>

namespace dimgraph {

// The upper bound of an interval with no upper limit ("dynamic": [0, unbounded]).
inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

// A set of extents {lo, lo + 1, ..., hi}; hi == unbounded means no upper limit.
// lo > hi is the empty interval: the result of intersecting disjoint intervals.
// Every operation is sound (each concrete result of concrete members lies in the
// result) and the result is the tightest interval with that property; operations
// on an empty interval give the empty interval. Arithmetic saturates at unbounded.
struct interval {
  std::size_t lo = 0;
  std::size_t hi = unbounded;

  static constexpr interval empty() { return {1, 0}; }
  static constexpr interval exactly(std::size_t n) { return {n, n}; }

  constexpr bool is_empty() const { return lo > hi; }
  constexpr bool is_static() const { return lo == hi; }
  constexpr bool is_bounded() const { return hi != unbounded; }
  constexpr bool is_dynamic() const { return lo == 0 && hi == unbounded; }
  constexpr bool contains(std::size_t n) const { return lo <= n && n <= hi; }
  // o is a subset of *this (the empty interval is a subset of every interval).
  constexpr bool contains(interval o) const { return o.is_empty() || (lo <= o.lo && o.hi <= hi); }

  friend constexpr bool operator==(interval a, interval b) {
    return (a.is_empty() && b.is_empty()) || (a.lo == b.lo && a.hi == b.hi);
  }

  // {x + y}: [a.lo + b.lo, a.hi + b.hi]
  friend constexpr interval operator+(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    return {add_(a.lo, b.lo), add_(a.hi, b.hi)};
  }
  // {max(x - y, 0)}: the clamped difference (a padding removed from a length).
  friend constexpr interval operator-(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    std::size_t lo = (b.hi != unbounded && a.lo > b.hi) ? a.lo - b.hi : 0;
    std::size_t hi = a.hi == unbounded ? unbounded : (a.hi > b.lo ? a.hi - b.lo : 0);
    return {lo, hi};
  }
  // {x * y}: [a.lo * b.lo, a.hi * b.hi], with 0 * unbounded = 0.
  friend constexpr interval operator*(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    return {mul_(a.lo, b.lo), mul_(a.hi, b.hi)};
  }

 private:
  static constexpr std::size_t add_(std::size_t x, std::size_t y) {
    return (x > unbounded - y) ? unbounded : x + y;
  }
  static constexpr std::size_t mul_(std::size_t x, std::size_t y) {
    if (x == 0 || y == 0) return 0;
    return (x > unbounded / y) ? unbounded : x * y;
  }
};

// The name dim tags use for an interval size: dg::dim<"t", dg::range{1, 8}>.
using range = interval;

// {floor(x / k)} for k > 0.
constexpr interval floordiv(interval a, std::size_t k) {
  if (a.is_empty()) return interval::empty();
  return {a.lo / k, a.hi == unbounded ? unbounded : a.hi / k};
}
// {ceil(x / k)} for k > 0.
constexpr interval ceildiv(interval a, std::size_t k) {
  if (a.is_empty()) return interval::empty();
  auto up = [k](std::size_t x) { return x / k + (x % k != 0); };
  return {up(a.lo), a.hi == unbounded ? unbounded : up(a.hi)};
}
// {x / y : y divides x}: a sound bound of an exact split (y = 0 is never a divisor).
constexpr interval exact_div(interval a, interval b) {
  if (a.is_empty() || b.is_empty() || b.hi == 0) return interval::empty();
  std::size_t b_lo = std::max<std::size_t>(b.lo, 1);
  // A divisor of x >= 1 is at most x, so a non-zero x gives a quotient >= 1.
  std::size_t lo = a.lo == 0           ? 0
                   : b.hi == unbounded ? 1
                                       : std::max<std::size_t>(1, a.lo / b.hi + (a.lo % b.hi != 0));
  std::size_t hi = a.hi == unbounded ? unbounded : a.hi / b_lo;
  return {lo, hi};
}

// Merge (nGraph's Dimension::merge): the extents both intervals allow. Dims that
// must agree are merged; an empty result means they cannot agree (an error for the
// caller, which knows the op and the dims).
constexpr interval intersect(interval a, interval b) {
  if (a.is_empty() || b.is_empty()) return interval::empty();
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}
// The smallest interval containing both.
constexpr interval hull(interval a, interval b) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
// nGraph's Dimension::broadcast_merge, for size-1 broadcasting by position:
//   both may be 1      -> hull (either side may be the one broadcast);
//   only one may be 1  -> the other (if it broadcasts, the result is the other;
//                         if not, the two must agree, which also gives the other);
//   neither may be 1   -> intersect (they must agree).
// dimgraph aligns by tag and never broadcasts a size-1 dim itself; the rule is here
// for importing position-aligned shapes.
constexpr interval broadcast_merge(interval a, interval b) {
  if (a.is_empty() || b.is_empty()) return interval::empty();
  bool a1 = a.contains(std::size_t{1}), b1 = b.contains(std::size_t{1});
  if (a1 && b1) return hull(a, b);
  if (a1) return b;
  if (b1) return a;
  return intersect(a, b);
}

}  // namespace dimgraph
// ---- end dimgraph/dim/interval.hpp
// ---- begin dimgraph/dim/tag.hpp
// dimgraph::dim: dimension tags (identity = the type), their size, kind and traits.

#include <concepts>
#include <string_view>
#include <type_traits>

// ---- begin dimgraph/detail/fixed_string.hpp
// detail::fixed_string: a string usable as a template argument (dim names).


namespace dimgraph::detail {

template <std::size_t N>
struct fixed_string {
  char chars[N]{};  // includes the terminating NUL

  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit by design
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
  constexpr std::size_t size() const { return N - 1; }
};

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/fixed_string.hpp

namespace dimgraph {

// Metadata used by defaults (e.g. "the feature dim" of nn::linear); never a guess:
// an ambiguous default is a compile error at the op that needs it.
enum class dim_kind { batch, spatial, feature };

// Every dim expression (tags and results of the dim algebra) derives from this.
struct dim_expr_base {};
// Every tag derives from this.
struct dim_tag_base : dim_expr_base {};

namespace detail {

template <class S>
constexpr interval size_to_interval(S size) {
  if constexpr (std::is_same_v<S, interval>) {
    return size;
  } else {
    static_assert(std::is_integral_v<S> && !std::is_same_v<S, bool>,
                  "dimgraph: dim: a size is an integer, a dg::range{lo, hi} or omitted (dynamic)");
    if constexpr (std::is_signed_v<S>)
      return size < 0 ? interval::empty() : interval::exactly(static_cast<std::size_t>(size));
    else return interval::exactly(static_cast<std::size_t>(size));
  }
}

// The default kind: a static size is a feature dim, anything else a spatial one.
constexpr dim_kind default_kind(interval size) {
  return size.is_static() ? dim_kind::feature : dim_kind::spatial;
}

}  // namespace detail

// A dimension tag. Declare one as a struct so the struct is the identity:
//   struct Time    : dg::dim<"time"> {};                 // dynamic: [0, unbounded]
//   struct Feature : dg::dim<"feature", 512> {};         // static
//   struct Beam    : dg::dim<"beam", dg::range{1, 8}> {};// interval
// Two tags with equal names and sizes are still different dims.
// Error: an empty size interval (lo > hi) or a negative size.
template <detail::fixed_string Name, auto Size = interval{},
          dim_kind Kind = detail::default_kind(detail::size_to_interval(Size))>
struct dim : dim_tag_base {
  static constexpr std::string_view name = Name.view();
  static constexpr interval bounds = detail::size_to_interval(Size);
  static constexpr dim_kind kind = Kind;
  static_assert(!bounds.is_empty(),
                "dimgraph: dim: the size interval is empty (lo > hi) or the size is negative");
};

// The one predefined global batch dim (dynamic).
struct batch : dim<"batch", interval{}, dim_kind::batch> {};

// A user-declared (atomic) tag.
template <class T>
inline constexpr bool is_tag_v =
    std::is_base_of_v<dim_tag_base, T> && std::is_same_v<T, std::remove_cvref_t<T>>;

// Any dim: a tag or a result of the dim algebra (cv-qualifiers and references are
// ignored, so decltype of a constexpr dim variable works everywhere).
template <class T>
concept dimension = std::is_base_of_v<dim_expr_base, std::remove_cvref_t<T>>;

// Dim equality is type identity: the algebra's result types are canonical.
template <class A, class B>
inline constexpr bool same_dim_v = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;

}  // namespace dimgraph
// ---- end dimgraph/dim/tag.hpp
// ---- begin dimgraph/dim/forms.hpp
// The canonical forms of derived dims, and how a form splits into terms and factors.


// ---- begin dimgraph/detail/type_list.hpp
// detail::type_list and the few list operations the dim and shape layers need.

#include <utility>

namespace dimgraph::detail {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

// at_t<I, List>: constant-depth indexing (one base-class lookup, no recursion).
template <std::size_t I, class T>
struct indexed {
  using type = T;
};
template <class Is, class... Ts>
struct indexer;
template <std::size_t... Is, class... Ts>
struct indexer<std::index_sequence<Is...>, Ts...> : indexed<Is, Ts>... {};
template <std::size_t I, class T>
indexed<I, T> select_indexed(indexed<I, T>);

template <std::size_t I, class List>
struct at;
template <std::size_t I, class... Ts>
struct at<I, type_list<Ts...>> {
  static_assert(I < sizeof...(Ts), "dimgraph: internal: index out of range");
  using type =
      typename decltype(select_indexed<I>(indexer<std::index_sequence_for<Ts...>, Ts...>{}))::type;
};
template <std::size_t I, class List>
using at_t = typename at<I, List>::type;

// slice_t<B, E, List>: the elements [B, E).
template <std::size_t B, class List, class Is>
struct slice_impl;
template <std::size_t B, class List, std::size_t... Is>
struct slice_impl<B, List, std::index_sequence<Is...>> {
  using type = type_list<at_t<B + Is, List>...>;
};
template <std::size_t B, std::size_t E, class List>
using slice_t = typename slice_impl<B, List, std::make_index_sequence<E - B>>::type;

template <class List>
using front_t = at_t<0, List>;
template <class List>
using back_t = at_t<List::size - 1, List>;
template <class List>
using pop_front_t = slice_t<1, List::size, List>;
template <class List>
using pop_back_t = slice_t<0, List::size - 1, List>;

// concat_t<Lists...>: a flat fold, so long lists do not nest instantiations.
template <class... As, class... Bs>
type_list<As..., Bs...> operator+(type_list<As...>, type_list<Bs...>);
template <class... Lists>
using concat_t = decltype((type_list<>{} + ... + Lists{}));

// index_of_v<T, List>: position of the first T, or List::size when absent.
template <class T, class... Ts>
constexpr std::size_t index_of_impl() {
  constexpr bool hits[] = {std::is_same_v<T, Ts>..., false};
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (hits[i]) return i;
  return sizeof...(Ts);
}
template <class T, class List>
struct index_of;
template <class T, class... Ts>
struct index_of<T, type_list<Ts...>>
    : std::integral_constant<std::size_t, index_of_impl<T, Ts...>()> {};
template <class T, class List>
inline constexpr std::size_t index_of_v = index_of<T, List>::value;

template <class T, class List>
inline constexpr bool contains_v = index_of_v<T, List> < List::size;

// is_prefix_v / is_suffix_v<Part, Whole>: Part's elements start / end Whole.
template <class Part, class Whole>
constexpr bool is_prefix_impl() {
  if constexpr (Part::size > Whole::size) return false;
  else return std::is_same_v<Part, slice_t<0, Part::size, Whole>>;
}
template <class Part, class Whole>
inline constexpr bool is_prefix_v = is_prefix_impl<Part, Whole>();
template <class Part, class Whole>
constexpr bool is_suffix_impl() {
  if constexpr (Part::size > Whole::size) return false;
  else return std::is_same_v<Part, slice_t<Whole::size - Part::size, Whole::size, Whole>>;
}
template <class Part, class Whole>
inline constexpr bool is_suffix_v = is_suffix_impl<Part, Whole>();

// first_duplicate_v<List>: index of the first element that occurs earlier too, or size.
template <class... Ts>
constexpr std::size_t first_duplicate_impl(type_list<Ts...>) {
  constexpr std::size_t firsts[] = {index_of_impl<Ts, Ts...>()..., 0};
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (firsts[i] != i) return i;
  return sizeof...(Ts);
}
template <class List>
inline constexpr std::size_t first_duplicate_v = first_duplicate_impl(List{});

// filter_t<Keep, List>: the elements whose Keep<T>::value is true, in order.
template <template <class> class Keep, class List>
struct filter;
template <template <class> class Keep, class... Ts>
struct filter<Keep, type_list<Ts...>> {
  using type = concat_t<std::conditional_t<Keep<Ts>::value, type_list<Ts>, type_list<>>...>;
};
template <template <class> class Keep, class List>
using filter_t = typename filter<Keep, List>::type;

// repeat_t<K, List>: List's elements K times over.
template <class List, std::size_t>
using repeat_one = List;
template <std::size_t K, class List, class Is = std::make_index_sequence<K>>
struct repeat;
template <std::size_t K, class List, std::size_t... Is>
struct repeat<K, List, std::index_sequence<Is...>> {
  using type = concat_t<repeat_one<List, Is>...>;
};
template <std::size_t K, class List>
using repeat_t = typename repeat<K, List>::type;

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/type_list.hpp

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
// ---- end dimgraph/dim/forms.hpp
// ---- begin dimgraph/dim/size.hpp
// Sizes and kinds of dims: bounds_v, is_static_v, static_size_v, kind_v.



namespace dimgraph {
namespace detail {

// Interval arithmetic on the parts (sound, not always tight for splits).
template <class D>
struct bounds_of {
  static constexpr interval value = D::bounds;  // a tag
};
template <std::size_t K>
struct bounds_of<const_dim<K>> {
  static constexpr interval value = interval::exactly(K);
};
template <class... Ts>
struct bounds_of<dim_sum<Ts...>> {
  static constexpr interval value = (bounds_of<Ts>::value + ...);
};
template <class... Fs>
struct bounds_of<dim_prod<Fs...>> {
  static constexpr interval value = (bounds_of<Fs>::value * ...);
};
template <class A, class B>
struct bounds_of<dim_quotient<A, B>> {
  static constexpr interval value = exact_div(bounds_of<A>::value, bounds_of<B>::value);
};
template <class B, class A>
struct bounds_of<dim_left_quotient<B, A>> {
  static constexpr interval value = exact_div(bounds_of<A>::value, bounds_of<B>::value);
};
template <class A, class B>
struct bounds_of<dim_difference<A, B>> {
  static constexpr interval value = bounds_of<A>::value - bounds_of<B>::value;
};
template <class B, class A>
struct bounds_of<dim_left_difference<B, A>> {
  static constexpr interval value = bounds_of<A>::value - bounds_of<B>::value;
};
template <class A, std::size_t K>
struct bounds_of<dim_ceildiv<A, K>> {
  static constexpr interval value = ceildiv(bounds_of<A>::value, K);
};
template <class A, std::size_t K>
struct bounds_of<dim_floordiv<A, K>> {
  static constexpr interval value = floordiv(bounds_of<A>::value, K);
};

// The kinds of the tags inside a dim, as a bit mask.
template <class D>
struct kinds_of {
  static constexpr unsigned value = 1u << static_cast<unsigned>(D::kind);
};
template <std::size_t K>
struct kinds_of<const_dim<K>> {
  static constexpr unsigned value = 0;
};
template <template <class...> class Form, class... Parts>
struct kinds_of<Form<Parts...>> {
  static constexpr unsigned value = (0u | ... | kinds_of<Parts>::value);
};
template <template <class, std::size_t> class Form, class A, std::size_t K>
struct kinds_of<Form<A, K>> {
  static constexpr unsigned value = kinds_of<A>::value;
};

constexpr dim_kind kind_from_mask(unsigned mask) {
  for (unsigned k = 0; k < 3; ++k)
    if (mask == (1u << k)) return static_cast<dim_kind>(k);
  return mask == 0 ? dim_kind::feature : dim_kind::spatial;
}

}  // namespace detail

// The interval of extents a dim can have.
template <dimension D>
inline constexpr interval bounds_v = detail::bounds_of<std::remove_cvref_t<D>>::value;

template <dimension D>
inline constexpr bool is_static_v = bounds_v<D>.is_static();

// The size of a static dim. Error: the dim is not static.
template <dimension D>
constexpr std::size_t static_size() {
  static_assert(is_static_v<D>, "dimgraph: static_size: the dim is not static");
  return bounds_v<D>.lo;
}
template <dimension D>
inline constexpr std::size_t static_size_v = static_size<D>();

// A tag's kind; a derived dim has the kind all its tags share (constants alone are
// feature-like), and spatial when its tags' kinds differ.
template <dimension D>
inline constexpr dim_kind kind_v =
    detail::kind_from_mask(detail::kinds_of<std::remove_cvref_t<D>>::value);

}  // namespace dimgraph
// ---- end dimgraph/dim/size.hpp
// ---- begin dimgraph/dim/describe.hpp
// describe<D>(): a dim's readable description, e.g. "(a+b)*c" or "key_total/heads".

#include <string>


namespace dimgraph {
namespace detail {

// Binding strength: a part binding weaker than its context is parenthesised.
enum describe_level { level_sum = 1, level_prod = 2, level_split = 3, level_atom = 4 };

template <class D>
struct describer {  // a tag
  static constexpr int level = level_atom;
  static std::string text() { return std::string(D::name); }
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
// ---- end dimgraph/dim/describe.hpp
// ---- begin dimgraph/dim/operators.hpp
// The dim algebra on tag values: + * / - div_left sub_left ceildiv floordiv.


// ---- begin dimgraph/dim/difference.hpp
// Removing a term of a dim: a - b (trailing term) and sub_left(b, a) (leading term).


// ---- begin dimgraph/dim/sum.hpp
// Concatenation of dims (a + b) in normal form, and run grouping shared by the algebra.

#include <array>


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
// ---- end dimgraph/dim/sum.hpp

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
// ---- end dimgraph/dim/difference.hpp
// ---- begin dimgraph/dim/quotient.hpp
// Exact splits of dims: a / b (trailing factor) and div_left(b, a) (leading factor).


// ---- begin dimgraph/dim/product.hpp
// Merging of dims (a * b, a major) in normal form.



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
// ---- end dimgraph/dim/product.hpp

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
type_list<Q, Qs...> prepend_parsed(type_list<Qs...>);
template <class Q>
no_candidate prepend_parsed(no_candidate);
template <class... Qs>
std::type_identity<sum_of_t<Qs...>> sum_parsed(type_list<Qs...>);
no_candidate sum_parsed(no_candidate);

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
// ---- end dimgraph/dim/quotient.hpp
// ---- begin dimgraph/dim/window.hpp
// Strided windows over a dim: ceildiv(a, k) and floordiv(a, k).



namespace dimgraph::detail {

// Both are opaque except: constants fold, k == 1 is the identity, an exact split
// gives the quotient (ceildiv(a * 6, 2) == a * 3), and nested ones merge
// (ceildiv(ceildiv(a, 2), 3) == ceildiv(a, 6), since ceil(ceil(x / p) / q) == ceil(x / (p q))).
template <template <class, std::size_t> class Form, class A, std::size_t K, bool Up>
constexpr auto window_fn() {
  using exact = quotient_t<A, const_dim<K>>;
  if constexpr (K == 1) return std::type_identity<A>{};
  else if constexpr (is_const_v<A>)
    return std::type_identity<const_dim<(A::value / K) + (Up && A::value % K != 0)>>{};
  else if constexpr (!std::is_same_v<exact, dim_quotient<A, const_dim<K>>>)
    return std::type_identity<exact>{};
  else return std::type_identity<Form<A, K>>{};
}
template <class A, std::size_t K>
struct ceildiv_form {
  using type = typename decltype(window_fn<dim_ceildiv, A, K, true>())::type;
};
template <class A, std::size_t J, std::size_t K>
struct ceildiv_form<dim_ceildiv<A, J>, K> {
  using type = dim_ceildiv<A, J * K>;
};
template <class A, std::size_t K>
struct floordiv_form {
  using type = typename decltype(window_fn<dim_floordiv, A, K, false>())::type;
};
template <class A, std::size_t J, std::size_t K>
struct floordiv_form<dim_floordiv<A, J>, K> {
  using type = dim_floordiv<A, J * K>;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/window.hpp

namespace dimgraph {

// Meaning: a dim denotes an index space with its linear order, and two dims are
// the same type exactly when they denote the same ordered space. Laws (all tested
// in tests/static/dim/algebra.cpp):
//   (a + b) + c == a + (b + c)        (a * b) * c == a * (b * c)
//   a + 0 == 0 + a == a               a * 1 == 1 * a == a,  a * 0 == 0
//   (a + b) * c == a * c + b * c      (the sum is the major factor; c * (a + b) is not distributed)
//   a + a == 2 * a, 2 * (a + b) == a + b + a + b   (copies one after the other)
//   k1 * a + k2 * a == (k1 + k2) * a  (adjacent terms only: the order is kept)
//   a * 2 * 3 == a * 6                (constants fold when adjacent; 2 * (a * 3) != a * 6)
//   (a * b) / b == a,  div_left(b, b * a) == a,  (a / b) * b == a,  b * div_left(b, a) == a
//   (a + b) - b == a,  sub_left(b, b + a) == a,  (a - b) + b == a,  b + sub_left(b, a) == a
// Anything else stays an opaque dim: (b * a) / b, (2 + a) - 2, ceildiv(a, 2).

namespace detail {

// A stand-in result after a reported error (static size 0), so one mistake gives one message.
struct invalid_dim : dim_expr_base {
  static constexpr interval bounds = interval::exactly(0);
  static constexpr std::string_view name = "<invalid>";
  static constexpr dim_kind kind = dim_kind::spatial;
};

template <class A, class B>
constexpr bool split_possible() {
  return !exact_div(bounds_v<A>, bounds_v<B>).is_empty();
}
template <class A, class B>
constexpr bool removal_possible() {
  return bounds_v<B>.is_empty() || bounds_v<A>.hi >= bounds_v<B>.lo;
}

}  // namespace detail

// Concatenation: [a..., b...]. size(a + b) = size(a) + size(b).
// (Return types are deduced so that overload resolution on unrelated operands never
// looks inside the algebra.)
template <dimension A, dimension B>
constexpr auto operator+(A, B) {
  return detail::plus_t<A, B>{};
}

// Merge, a major: index (i, j) -> i * size(b) + j. size(a * b) = size(a) * size(b).
template <dimension A, dimension B>
constexpr auto operator*(A, B) {
  return detail::times_t<A, B>{};
}

// Exact split off a trailing factor: a == (a / b) * b.
// Error: static sizes that do not divide (compile time); a run-time extent that does
// not divide is a shape_error where the extent becomes known.
template <dimension A, dimension B>
constexpr auto operator/(A, B) {
  static_assert(detail::split_possible<A, B>(),
                "dimgraph: split: the divisor's size does not divide the dim's size");
  if constexpr (detail::split_possible<A, B>()) return detail::quotient_t<A, B>{};
  else return detail::invalid_dim{};
}

// Exact split off a leading factor: a == b * div_left(b, a).
template <dimension B, dimension A>
constexpr auto div_left(B, A) {
  static_assert(detail::split_possible<A, B>(),
                "dimgraph: div_left: the divisor's size does not divide the dim's size");
  if constexpr (detail::split_possible<A, B>()) return detail::left_quotient_t<B, A>{};
  else return detail::invalid_dim{};
}

// Removing a trailing term: a == (a - b) + b. Error: b is larger than a.
template <dimension A, dimension B>
constexpr auto operator-(A, B) {
  static_assert(detail::removal_possible<A, B>(),
                "dimgraph: sub: the part removed is larger than the dim");
  if constexpr (detail::removal_possible<A, B>()) return detail::difference_t<A, B>{};
  else return detail::invalid_dim{};
}

// Removing a leading term: a == b + sub_left(b, a).
template <dimension B, dimension A>
constexpr auto sub_left(B, A) {
  static_assert(detail::removal_possible<A, B>(),
                "dimgraph: sub_left: the part removed is larger than the dim");
  if constexpr (detail::removal_possible<A, B>()) return detail::left_difference_t<B, A>{};
  else return detail::invalid_dim{};
}

// Windows of k: ceil(size / k) (ceildiv) or floor(size / k) (floordiv), k > 0.
template <dimension A, std::size_t K>
constexpr auto ceildiv(A, const_dim<K>) {
  static_assert(K > 0, "dimgraph: ceildiv: the window size is 0");
  if constexpr (K > 0) return typename detail::ceildiv_form<A, K>::type{};
  else return detail::invalid_dim{};
}
template <dimension A, std::size_t K>
constexpr auto floordiv(A, const_dim<K>) {
  static_assert(K > 0, "dimgraph: floordiv: the window size is 0");
  if constexpr (K > 0) return typename detail::floordiv_form<A, K>::type{};
  else return detail::invalid_dim{};
}

}  // namespace dimgraph
// ---- end dimgraph/dim/operators.hpp
// ---- begin dimgraph/dim/list.hpp
// dim_list: an ordered set of dims at the type level, and the set operations on it.



namespace dimgraph {

// An ordered list of distinct dims. Error: a dim that appears twice.
template <class... Ds>
struct dim_list {
  static_assert(((dimension<Ds> && std::is_same_v<Ds, std::remove_cvref_t<Ds>>)&&...),
                "dimgraph: dim_list: an element is not a dim (or is cv-qualified)");
  static_assert(detail::first_duplicate_v<detail::type_list<Ds...>> == sizeof...(Ds),
                "dimgraph: dim_list: a tag appears more than once");
  static constexpr std::size_t size = sizeof...(Ds);
};

namespace detail {
template <class L>
struct as_type_list;
template <class... Ds>
struct as_type_list<dim_list<Ds...>> {
  using type = type_list<Ds...>;
};
template <class L>
struct as_dim_list;
template <class... Ds>
struct as_dim_list<type_list<Ds...>> {
  using type = dim_list<Ds...>;
};
template <class L>
using types_of_t = typename as_type_list<L>::type;
template <class L>
using dims_of_t = typename as_dim_list<L>::type;

template <class L>
struct in_list {
  template <class D>
  struct pred : std::bool_constant<contains_v<D, types_of_t<L>>> {};
};
template <class L>
struct not_in_list {
  template <class D>
  struct pred : std::bool_constant<!contains_v<D, types_of_t<L>>> {};
};
}  // namespace detail

template <class L, class D>
inline constexpr bool list_contains_v = detail::contains_v<D, detail::types_of_t<L>>;

// Position of D in L. Error: L has no D.
template <class L, class D>
constexpr std::size_t list_index_of() {
  static_assert(list_contains_v<L, D>, "dimgraph: index_of: the dim list has no such dim");
  return detail::index_of_v<D, detail::types_of_t<L>>;
}
template <class L, class D>
inline constexpr std::size_t list_index_of_v = list_index_of<L, D>();

// [L1..., L2...]. Error: a dim in both.
template <class L1, class L2>
using list_concat_t =
    detail::dims_of_t<detail::concat_t<detail::types_of_t<L1>, detail::types_of_t<L2>>>;

// L1, then the dims of L2 that L1 lacks (first-appearance order).
template <class L1, class L2>
using list_union_t = detail::dims_of_t<detail::concat_t<
    detail::types_of_t<L1>,
    detail::filter_t<detail::not_in_list<L1>::template pred, detail::types_of_t<L2>>>>;

// The dims of L1 that L2 lacks, in L1's order.
template <class L1, class L2>
using list_difference_t = detail::dims_of_t<
    detail::filter_t<detail::not_in_list<L2>::template pred, detail::types_of_t<L1>>>;

// The dims of L1 that L2 has too, in L1's order.
template <class L1, class L2>
using list_intersection_t =
    detail::dims_of_t<detail::filter_t<detail::in_list<L2>::template pred, detail::types_of_t<L1>>>;

template <class L1, class L2>
inline constexpr bool list_is_subset_v = list_difference_t<L1, L2>::size == 0;

// Equal as sets (order ignored).
template <class L1, class L2>
inline constexpr bool list_same_set_v = list_is_subset_v<L1, L2> && list_is_subset_v<L2, L1>;

}  // namespace dimgraph
// ---- end dimgraph/dim/list.hpp

// ---- begin dimgraph/shape/error.hpp
// dimgraph::error and its subclasses: what run-time checks throw.

#include <stdexcept>

namespace dimgraph {

// Every run-time error of dimgraph. The message starts with "dimgraph: <op>: " and
// names the dims involved with their extents. Nothing is written to an output
// before the checks that can throw have passed.
class error : public std::runtime_error {
 public:
  error(const std::string& op, const std::string& what)
      : std::runtime_error("dimgraph: " + op + ": " + what) {}
};

// Extents that do not fit: a mismatch, an extent outside a dim's interval, a split
// that does not divide.
class shape_error : public error {
 public:
  using error::error;
};

// An index outside [0, size) of its dim.
class index_error : public error {
 public:
  using error::error;
};

// An output that partially overlaps an input.
class overlap_error : public error {
 public:
  using error::error;
};

}  // namespace dimgraph
// ---- end dimgraph/shape/error.hpp
// ---- begin dimgraph/shape/extent.hpp
// runtime_size<D>(tag_extent): the run-time extent of any dim from the extents of its tags.



namespace dimgraph {
namespace detail {

template <class D>
struct runtime_sizer {  // a tag
  template <class F>
  static constexpr std::size_t get(const F& tag_extent) {
    if constexpr (is_static_v<D>) return bounds_v<D>.lo;
    else return static_cast<std::size_t>(tag_extent(std::type_identity<D>{}));
  }
};
template <std::size_t K>
struct runtime_sizer<const_dim<K>> {
  template <class F>
  static constexpr std::size_t get(const F&) {
    return K;
  }
};
template <class... Ts>
struct runtime_sizer<dim_sum<Ts...>> {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    return (runtime_sizer<Ts>::get(f) + ...);
  }
};
template <class... Fs>
struct runtime_sizer<dim_prod<Fs...>> {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    return (runtime_sizer<Fs>::get(f) * ...);
  }
};

template <class D, class A, class B>
struct split_sizer {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t a = runtime_sizer<A>::get(f), b = runtime_sizer<B>::get(f);
    if (b == 0 || a % b != 0)
      throw shape_error("split", "dim '" + describe<D>() + "': extent " + std::to_string(a) +
                                     " of '" + describe<A>() + "' is not divisible by extent " +
                                     std::to_string(b) + " of '" + describe<B>() + "'");
    return a / b;
  }
};
template <class A, class B>
struct runtime_sizer<dim_quotient<A, B>> : split_sizer<dim_quotient<A, B>, A, B> {};
template <class B, class A>
struct runtime_sizer<dim_left_quotient<B, A>> : split_sizer<dim_left_quotient<B, A>, A, B> {};

template <class D, class A, class B>
struct removal_sizer {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t a = runtime_sizer<A>::get(f), b = runtime_sizer<B>::get(f);
    if (a < b)
      throw shape_error("sub", "dim '" + describe<D>() + "': extent " + std::to_string(a) +
                                   " of '" + describe<A>() + "' is smaller than extent " +
                                   std::to_string(b) + " of '" + describe<B>() + "'");
    return a - b;
  }
};
template <class A, class B>
struct runtime_sizer<dim_difference<A, B>> : removal_sizer<dim_difference<A, B>, A, B> {};
template <class B, class A>
struct runtime_sizer<dim_left_difference<B, A>> : removal_sizer<dim_left_difference<B, A>, A, B> {};

template <class A, std::size_t K>
struct runtime_sizer<dim_ceildiv<A, K>> {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t a = runtime_sizer<A>::get(f);
    return a / K + (a % K != 0);
  }
};
template <class A, std::size_t K>
struct runtime_sizer<dim_floordiv<A, K>> {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    return runtime_sizer<A>::get(f) / K;
  }
};

}  // namespace detail

// The extent of dim D, given tag_extent(std::type_identity<Tag>{}) -> extent for each
// non-static tag in D (static tags are not asked). Throws shape_error when a split
// does not divide or a removed part is larger than the dim.
template <dimension D, class TagExtent>
constexpr std::size_t runtime_size(const TagExtent& tag_extent) {
  return detail::runtime_sizer<std::remove_cvref_t<D>>::get(tag_extent);
}

}  // namespace dimgraph
// ---- end dimgraph/shape/extent.hpp
// ---- begin dimgraph/shape/shape.hpp
// dimgraph::shape: a dim list plus the run-time extents of its non-static dims.



namespace dimgraph {

// An extent given by tag: dg::extent<Time>(25).
template <class D>
struct extent_arg {
  std::size_t value;
};
template <dimension D>
constexpr extent_arg<std::remove_cvref_t<D>> extent(std::size_t n) {
  return {n};
}

namespace detail {

// "time[25]" for a run-time extent, "feature=512" for a static one.
template <class D>
std::string dim_with_extent(std::size_t n) {
  return describe<D>() + (is_static_v<D> ? "=" : "[") + std::to_string(n) +
         (is_static_v<D> ? "" : "]");
}

inline std::string interval_text(interval i) {
  return "[" + std::to_string(i.lo) + ", " + (i.is_bounded() ? std::to_string(i.hi) : "inf") + "]";
}

// Checks an extent entering through `op` against D's interval.
template <class D>
constexpr std::size_t checked_extent(const char* op, std::size_t n) {
  if (!bounds_v<D>.contains(n))
    throw shape_error(op, "dim '" + describe<D>() + "' cannot have extent " + std::to_string(n) +
                              ": its size is " + interval_text(bounds_v<D>));
  return n;
}

}  // namespace detail

// The extents of Ds... . Static dims cost nothing: only the others are stored.
// Shape rule: none (a shape is what rules act on). Error: an extent outside its
// dim's interval (shape_error), a missing or repeated extent argument (compile time).
template <class... Ds>
class shape {
 public:
  using dims = dim_list<Ds...>;
  static constexpr std::size_t rank = sizeof...(Ds);

 private:
  static constexpr std::array<bool, rank> dynamic_{!is_static_v<Ds>...};
  static constexpr std::size_t count_dynamic() {
    std::size_t n = 0;
    for (bool d : dynamic_) n += d;
    return n;
  }
  // slot_[i]: where dim i's extent is stored, for dynamic dims.
  static constexpr std::array<std::size_t, rank> slot_ = [] {
    std::array<std::size_t, rank> s{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < rank; ++i) s[i] = dynamic_[i] ? n++ : 0;
    return s;
  }();

 public:
  static constexpr std::size_t dynamic_count = count_dynamic();
  static constexpr bool is_static = dynamic_count == 0;

  // A static shape needs no extents.
  constexpr shape()
    requires is_static
  = default;

  // Every non-static dim's extent, by tag, in any order; static dims may be given
  // too (they must then match).
  template <class... Ts>
    requires(sizeof...(Ts) > 0)
  explicit constexpr shape(extent_arg<Ts>... given) {
    static_assert((list_contains_v<dims, Ts> && ...),
                  "dimgraph: shape: an extent is given for a dim the shape does not have");
    static_assert(detail::first_duplicate_v<detail::type_list<Ts...>> == sizeof...(Ts),
                  "dimgraph: shape: an extent is given twice");
    static_assert(((is_static_v<Ds> || detail::contains_v<Ds, detail::type_list<Ts...>>)&&...),
                  "dimgraph: shape: a non-static dim has no extent");
    (set_checked<Ts>("shape", given.value), ...);
  }

  // Extents by position, for code that builds shapes from other shapes.
  static constexpr shape from_extents(const std::array<std::size_t, rank>& ext,
                                      const char* op = "shape") {
    shape s(uninitialized{});
    std::size_t i = 0;
    ((s.template set_checked<Ds>(op, ext[i++])), ...);
    return s;
  }

  template <class D>
  constexpr std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the shape has no such dim");
    constexpr std::size_t i = list_index_of_v<dims, std::remove_cvref_t<D>>;
    if constexpr (!dynamic_[i]) return bounds_v<D>.lo;
    else return extents_[slot_[i]];
  }
  constexpr std::size_t extent(std::size_t i) const {
    constexpr std::array<std::size_t, rank + 1> fixed{bounds_v<Ds>.lo..., 0};
    return dynamic_[i] ? extents_[slot_[i]] : fixed[i];
  }
  constexpr std::array<std::size_t, rank> extents() const {
    std::array<std::size_t, rank> e{};
    for (std::size_t i = 0; i < rank; ++i) e[i] = extent(i);
    return e;
  }
  // The number of elements.
  constexpr std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) n *= extent(i);
    return n;
  }

  friend constexpr bool operator==(const shape& a, const shape& b) {
    return a.extents_ == b.extents_;
  }

 private:
  struct uninitialized {};
  explicit constexpr shape(uninitialized) {}

  template <class D>
  constexpr void set_checked(const char* op, std::size_t n) {
    constexpr std::size_t i = list_index_of_v<dims, D>;
    detail::checked_extent<D>(op, n);
    if constexpr (dynamic_[i]) extents_[slot_[i]] = n;
  }

  [[no_unique_address]] std::array<std::size_t, dynamic_count> extents_{};
};

// The text of a shape: "[batch[2], time[25], feature=512]".
template <class... Ds>
std::string to_string(const shape<Ds...>& s) {
  std::string out = "[";
  std::size_t i = 0;
  ((out += (i ? ", " : "") + detail::dim_with_extent<Ds>(s.extent(i)), ++i), ...);
  return out + "]";
}

}  // namespace dimgraph
// ---- end dimgraph/shape/shape.hpp

// ---- begin dimgraph/tensor/tensor.hpp
// dimgraph::tensor (owning, row-major, 64-byte aligned) and tensor_view (non-owning, strided).


// ---- begin dimgraph/tensor/index_arg.hpp
// dg::at<D>(i): a position along dim D, for element access and slicing by tag.



namespace dimgraph {

template <class D>
struct at_arg {
  std::size_t value;
};
template <dimension D>
constexpr at_arg<std::remove_cvref_t<D>> at(std::size_t i) {
  return {i};
}

namespace detail {
// Throws index_error unless i < n.
template <class D>
constexpr void check_index(const char* op, std::size_t i, std::size_t n) {
  if (i >= n)
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" + describe<D>() +
                              "' of extent " + std::to_string(n));
}
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/tensor/index_arg.hpp
// ---- begin dimgraph/tensor/storage.hpp
// detail::storage: 64-byte aligned element storage, inline when the size is static.

#include <memory>
#include <new>

namespace dimgraph::detail {

inline constexpr std::size_t storage_alignment = 64;

struct aligned_free {
  template <class T>
  void operator()(T* p) const {
    ::operator delete[](static_cast<void*>(p), std::align_val_t{storage_alignment});
  }
};

// Heap storage of n value-initialised elements (T is trivially destructible: the
// element types are arithmetic).
template <class T>
class heap_storage {
 public:
  heap_storage() = default;
  explicit heap_storage(std::size_t n)
      : data_(n ? static_cast<T*>(::operator new[](n * sizeof(T), std::align_val_t{storage_alignment}))
                : nullptr),
        size_(n) {
    std::uninitialized_value_construct_n(data_.get(), n);
  }
  heap_storage(const heap_storage& o) : heap_storage(o.size_) {
    std::copy_n(o.data_.get(), size_, data_.get());
  }
  heap_storage(heap_storage&& o) noexcept = default;
  heap_storage& operator=(const heap_storage& o) {
    if (this != &o) {
      heap_storage copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  heap_storage& operator=(heap_storage&& o) noexcept = default;

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<T, aligned_free> data_;
  std::size_t size_ = 0;
};

// Inline storage of N elements (no heap), value-initialised.
template <class T, std::size_t N>
class inline_storage {
 public:
  constexpr T* data() { return data_; }
  constexpr const T* data() const { return data_; }
  static constexpr std::size_t size() { return N; }

 private:
  alignas(storage_alignment) T data_[N == 0 ? 1 : N]{};
};

}  // namespace dimgraph::detail
// ---- end dimgraph/tensor/storage.hpp

namespace dimgraph {

template <class T, class... Ds>
class tensor_view;

namespace detail {

template <std::size_t R>
using strides_t = std::array<std::ptrdiff_t, R>;

// Row-major strides: the last dim is contiguous.
template <std::size_t R>
constexpr strides_t<R> row_major_strides(const std::array<std::size_t, R>& ext) {
  strides_t<R> s{};
  std::ptrdiff_t step = 1;
  for (std::size_t i = R; i-- > 0;) {
    s[i] = step;
    step *= static_cast<std::ptrdiff_t>(ext[i]);
  }
  return s;
}

template <class T>
struct is_tensor_like : std::false_type {};

// A view without dim D: the same memory, D fixed at index i.
template <class D, class T, class... Ds>
struct drop_dim_view;
template <class D, class T, class... Ds>
using drop_dim_view_t = typename drop_dim_view<D, T, Ds...>::type;

template <class D, class T, class... Ds>
struct drop_dim_view {
  template <class... Kept>
  static tensor_view<T, Kept...> make(type_list<Kept...>);
  template <class X>
  struct keep : std::bool_constant<!std::is_same_v<X, D>> {};
  using type = decltype(make(filter_t<keep, type_list<Ds...>>{}));
};

}  // namespace detail

// What tensor and tensor_view share: extents, strides, access by position and by tag.
// Derived provides data(), shape() and strides().
template <class Derived, class T, class... Ds>
class tensor_access {
 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using dims = dim_list<Ds...>;
  using shape_type = shape<Ds...>;
  static constexpr std::size_t rank = sizeof...(Ds);

  template <class D>
  std::size_t extent() const {
    return self().shape().template extent<D>();
  }
  std::size_t size() const { return self().shape().size(); }
  template <class D>
  std::ptrdiff_t stride() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>, "dimgraph: stride: the tensor has no such dim");
    return self().strides()[list_index_of_v<dims, std::remove_cvref_t<D>>];
  }

  // The element at positions is... in the listed dim order (unchecked).
  template <std::integral... Is>
    requires(sizeof...(Is) == rank)
  decltype(auto) operator()(Is... is) {
    return derived().data()[offset({static_cast<std::size_t>(is)...})];
  }
  template <std::integral... Is>
    requires(sizeof...(Is) == rank)
  decltype(auto) operator()(Is... is) const {
    return self().data()[offset({static_cast<std::size_t>(is)...})];
  }

  // The element at the given position of every dim, by tag, in any order (checked:
  // index_error). x.at(dg::at<Time>(3), dg::at<Feature>(0))
  template <class... As>
  decltype(auto) at(at_arg<As>... a) {
    return derived().data()[checked_offset(a...)];
  }
  template <class... As>
  decltype(auto) at(at_arg<As>... a) const {
    return self().data()[checked_offset(a...)];
  }

  // A view without dim D, fixed at index i (checked: index_error). x[dg::at<Time>(3)]
  template <class D>
  auto operator[](at_arg<D> a) {
    return drop(derived().data(), a);
  }
  template <class D>
  auto operator[](at_arg<D> a) const {
    return drop(self().data(), a);
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  Derived& derived() { return static_cast<Derived&>(*this); }

  std::ptrdiff_t offset(const std::array<std::size_t, rank>& pos) const {
    std::ptrdiff_t off = 0;
    const auto& s = self().strides();
    for (std::size_t i = 0; i < rank; ++i) off += static_cast<std::ptrdiff_t>(pos[i]) * s[i];
    return off;
  }
  template <class... As>
  std::ptrdiff_t checked_offset(at_arg<As>... a) const {
    static_assert(sizeof...(As) == rank && (list_contains_v<dims, As> && ...) &&
                      detail::first_duplicate_v<detail::type_list<As...>> == sizeof...(As),
                  "dimgraph: at: give one index for every dim of the tensor, by tag");
    std::array<std::size_t, rank> pos{};
    ((detail::check_index<As>("at", a.value, extent<As>()), pos[list_index_of_v<dims, As>] = a.value), ...);
    return offset(pos);
  }
  template <class P, class D>
  auto drop(P* data, at_arg<D> a) const {
    static_assert(list_contains_v<dims, D>, "dimgraph: at: the tensor has no such dim");
    detail::check_index<D>("at", a.value, extent<D>());
    constexpr std::size_t k = list_index_of_v<dims, D>;
    using view = detail::drop_dim_view_t<D, P, Ds...>;
    std::array<std::size_t, rank - 1> ext{};
    std::array<std::ptrdiff_t, rank - 1> str{};
    for (std::size_t i = 0, j = 0; i < rank; ++i)
      if (i != k) {
        ext[j] = self().shape().extent(i);
        str[j++] = self().strides()[i];
      }
    return view(data + static_cast<std::ptrdiff_t>(a.value) * self().strides()[k],
                view::shape_type::from_extents(ext, "at"), str);
  }
};

namespace detail {
// Passed by a tensor constructed from an expression: the shape is not set yet.
struct construct_tag {};
}  // namespace detail

// An owning tensor: row-major in the listed dim order (the last dim contiguous),
// 64-byte aligned, inline when every dim is static. Elements start value-initialised.
// Error: a repeated dim (compile time); an extent outside its dim's interval (shape_error).
template <class T, class... Ds>
class tensor : public tensor_access<tensor<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor<T, Ds...>, T, Ds...>;
  static_assert(std::is_same_v<T, std::remove_cvref_t<T>>, "dimgraph: tensor: the element type must not be const or a reference");

 public:
  using typename base::dims;
  using typename base::shape_type;
  using base::rank;
  static constexpr bool is_static = shape_type::is_static;

  tensor() requires is_static = default;
  explicit tensor(const shape_type& s) : shape_(s), storage_(make_storage(s)) {}
  template <class... Ts>
    requires(sizeof...(Ts) > 0)
  explicit tensor(extent_arg<Ts>... e) : tensor(shape_type(e...)) {}

  // From an expression (anything dimgraph can assign from): evaluates it.
  template <class E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor> &&
             requires(tensor& t, E&& e) { assign_expression(t, std::forward<E>(e), detail::construct_tag{}); })
  tensor(E&& e) {  // NOLINT: implicit, like assigning the expression's value
    assign_expression(*this, std::forward<E>(e), detail::construct_tag{});
  }
  template <class E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor> &&
             requires(tensor& t, E&& e) { assign_expression(t, std::forward<E>(e)); })
  tensor& operator=(E&& e) {
    assign_expression(*this, std::forward<E>(e));
    return *this;
  }

  T* data() { return storage_.data(); }
  const T* data() const { return storage_.data(); }
  const shape_type& shape() const { return shape_; }
  const detail::strides_t<rank>& strides() const { return strides_; }

  // Re-shapes (dynamic dims only); the contents become value-initialised when the extents change.
  void reshape(const shape_type& s) {
    if (s == shape_) return;
    storage_ = make_storage(s);
    shape_ = s;
    strides_ = detail::row_major_strides<rank>(s.extents());
  }

  // A view of the whole tensor.
  tensor_view<T, Ds...> view() { return {data(), shape_, strides_}; }
  tensor_view<const T, Ds...> view() const { return {data(), shape_, strides_}; }
  operator tensor_view<const T, Ds...>() const { return view(); }  // NOLINT

 private:
  static constexpr std::size_t static_count() {
    if constexpr (is_static) return shape_type{}.size();
    else return 0;
  }
  using storage_type = std::conditional_t<is_static, detail::inline_storage<T, static_count()>,
                                          detail::heap_storage<T>>;
  static storage_type make_storage(const shape_type& s) {
    if constexpr (is_static) return {};
    else return storage_type(s.size());
  }

  shape_type shape_{};
  storage_type storage_ = make_storage(shape_);
  detail::strides_t<rank> strides_ = detail::row_major_strides<rank>(shape_.extents());
};

// A non-owning strided view (T may be const). Made by permute, slicing by tag, or
// over external memory with dg::view.
template <class T, class... Ds>
class tensor_view : public tensor_access<tensor_view<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor_view<T, Ds...>, T, Ds...>;

 public:
  using typename base::dims;
  using typename base::shape_type;
  using base::rank;

  tensor_view(T* data, const shape_type& s, const detail::strides_t<rank>& strides)
      : data_(data), shape_(s), strides_(strides) {}
  // A view of a tensor (const-converting from a mutable view too).
  template <class U>
    requires std::is_same_v<const U, T>
  tensor_view(const tensor_view<U, Ds...>& v) : tensor_view(v.data(), v.shape(), v.strides()) {}  // NOLINT

  template <class E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor_view> &&
             requires(const tensor_view& v, E&& e) { assign_expression(v, std::forward<E>(e)); })
  const tensor_view& operator=(E&& e) const {
    assign_expression(*this, std::forward<E>(e));
    return *this;
  }
  // Assignment writes through to the viewed elements (a view is a reference).
  const tensor_view& operator=(const tensor_view& other) const
    requires(!std::is_const_v<T>)
  {
    assign_expression(*this, other);
    return *this;
  }
  tensor_view(const tensor_view&) = default;

  T* data() const { return data_; }
  const shape_type& shape() const { return shape_; }
  const detail::strides_t<rank>& strides() const { return strides_; }

 private:
  T* data_;
  shape_type shape_;
  detail::strides_t<rank> strides_;
};

// A row-major view over external memory: dg::view<float, Batch, Feature>(ptr, dg::extent<Batch>(2)).
template <class T, class... Ds, class... Es>
tensor_view<T, Ds...> view(T* data, extent_arg<Es>... e) {
  using shape_type = shape<Ds...>;
  shape_type s = [&] {
    if constexpr (sizeof...(Es) == 0) return shape_type{};
    else return shape_type(e...);
  }();
  return {data, s, detail::row_major_strides<sizeof...(Ds)>(s.extents())};
}

// The same elements with the dims in another order (a view, no copy).
// Error: Ps... is not a reordering of the tensor's dims.
template <class... Ps, class X>
auto permute(X&& x) {
  using x_t = std::remove_cvref_t<X>;
  using dims = typename x_t::dims;
  static_assert(list_same_set_v<dims, dim_list<Ps...>> && sizeof...(Ps) == dims::size,
                "dimgraph: permute: the new order must list each dim of the tensor once");
  using elem = std::remove_pointer_t<decltype(x.data())>;
  std::array<std::size_t, sizeof...(Ps)> ext{x.template extent<Ps>()...};
  detail::strides_t<sizeof...(Ps)> str{x.template stride<Ps>()...};
  return tensor_view<elem, Ps...>(x.data(), shape<Ps...>::from_extents(ext, "permute"), str);
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/tensor.hpp
// ---- end dimgraph.hpp
