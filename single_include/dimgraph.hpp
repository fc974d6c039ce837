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
  static constexpr shape from_extents([[maybe_unused]] const std::array<std::size_t, rank>& ext,
                                      [[maybe_unused]] const char* op = "shape") {  // (rank 0)
    shape s(uninitialized{});
    [[maybe_unused]] std::size_t i = 0;
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
// ---- begin dimgraph/shape/rules.hpp
// Propagation rules of the structural ops: each result dim as a type next to its run-time extent.

#include <cstdint>


// Each rule is written once. The compile-time half is a dim type made by the dim
// algebra, so its interval is bounds_v of that type (nGraph's interval rules: concat
// sums intervals, merging multiplies them, an unknown bound stays unknown); the
// run-time half computes the extent from the operands' extents and throws shape_error
// where they cannot fit. Dims that must agree are the same tag, so their intervals
// agree by construction and their run-time extents must be equal.

namespace dimgraph {

// concat: [.., a, ..] , [.., b, ..] -> [.., a + b, ..] (a + a is 2 * a).
template <dimension... Parts>
using concat_dim_t = decltype((... + std::remove_cvref_t<Parts>{}));

// merge_dims: [.., a, .., b, ..] -> [.., a * b, ..] (a major).
template <dimension A, dimension B>
using merge_dim_t = decltype(std::remove_cvref_t<A>{} * std::remove_cvref_t<B>{});

// pad: [.., a, ..] -> [.., Before + a + After, ..].
template <dimension A, std::size_t Before, std::size_t After>
using pad_dim_t = decltype(c<Before> + std::remove_cvref_t<A>{} + c<After>);

namespace detail {

// The same dim in operands i and j (1-based) must have one extent.
template <class D>
void check_agree(const char* op, std::size_t a, std::size_t i, std::size_t b, std::size_t j) {
  if (a != b)
    throw shape_error(op, "dim '" + describe<D>() + "' has extent " + std::to_string(a) +
                              " in operand " + std::to_string(i) + " and " + std::to_string(b) +
                              " in operand " + std::to_string(j));
}

// "a=3 + b[4]": parts with their extents.
template <class... Parts>
std::string parts_text(const char* sep, const std::array<std::size_t, sizeof...(Parts)>& ext) {
  std::string s;
  std::size_t i = 0;
  ((s += (i ? sep : "") + dim_with_extent<Parts>(ext[i]), ++i), ...);
  return s;
}

// The extents of the parts of a sum (split, the inverse of concat): the parts' extents
// add up to the whole's. Parts with a static size or a given extent are known; the one
// part left unknown (it may occur more than once: split<A, A> of 2 * A) gets the rest,
// shared equally. Error: the known parts exceed the whole, or the rest does not share
// equally, or (nothing unknown) the parts do not add up to the whole.
template <class Whole, class... Parts>
std::array<std::size_t, sizeof...(Parts)> split_sum_extents(
    const char* op, std::size_t whole, std::array<std::size_t, sizeof...(Parts)> ext,
    const std::array<bool, sizeof...(Parts)>& known) {
  constexpr std::size_t n = sizeof...(Parts);
  std::size_t sum = 0, unknown = 0;
  for (std::size_t i = 0; i < n; ++i) known[i] ? void(sum += ext[i]) : void(++unknown);
  auto fail = [&](const std::string& why) {
    throw shape_error(
        op, "dim '" + describe<Whole>() + "' has extent " + std::to_string(whole) + ", " + why);
  };
  if (unknown == 0 && sum != whole)
    fail("but its parts add up to " + std::to_string(sum) + ": " +
         parts_text<Parts...>(" + ", ext));
  if (sum > whole) fail("less than its known parts add up to (" + std::to_string(sum) + ")");
  if (unknown > 0) {
    if ((whole - sum) % unknown != 0)
      fail("which leaves " + std::to_string(whole - sum) + " to share among " +
           std::to_string(unknown) + " equal parts");
    for (std::size_t i = 0; i < n; ++i)
      if (!known[i]) ext[i] = (whole - sum) / unknown;
  }
  return ext;
}

// The extents of the factors of a merged dim (split_dims, the inverse of merge_dims):
// a * b == whole; the known factor gives the other exactly. Error: the known factor does
// not divide the whole, or is 0 (then the other is undetermined), or (both known) the
// product is not the whole.
template <class Whole, class A, class B>
std::array<std::size_t, 2> split_product_extents(const char* op, std::size_t whole,
                                                 std::array<std::size_t, 2> ext,
                                                 std::array<bool, 2> known) {
  auto fail = [&](const std::string& why) {
    throw shape_error(
        op, "dim '" + describe<Whole>() + "' has extent " + std::to_string(whole) + ", " + why);
  };
  if (known[0] && known[1]) {
    if (ext[0] * ext[1] != whole)
      fail("but its factors' extents multiply to " + std::to_string(ext[0] * ext[1]) + ": " +
           parts_text<A, B>(" * ", ext));
    return ext;
  }
  const std::size_t k = known[0] ? 0 : 1;
  const std::string part = k == 0 ? dim_with_extent<A>(ext[0]) : dim_with_extent<B>(ext[1]);
  const std::string other = k == 0 ? describe<B>() : describe<A>();
  if (ext[k] == 0)
    fail("and " + part + " leaves the extent of '" + other +
         "' undetermined; give it with dg::extent");
  if (whole % ext[k] != 0) fail("which is not divisible by " + part);
  ext[1 - k] = whole / ext[k];
  return ext;
}

// An index read from data: index_error unless 0 <= i < n (the wording of check_index).
template <class V>
void check_class_index(const char* op, std::int64_t i, std::size_t n) {
  if (i < 0 || static_cast<std::uint64_t>(i) >= n)
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" +
                              describe<V>() + "' of extent " + std::to_string(n));
}

// A dim list with its dim Old replaced by the dims News... in place.
template <class L, class Old, class... News>
struct replace_dim {
  using list = types_of_t<L>;
  static constexpr std::size_t at = index_of_v<Old, list>;
  using type =
      concat_t<slice_t<0, at, list>, type_list<News...>, slice_t<at + 1, list::size, list>>;
};
template <class L, class Old, class... News>
using replace_dim_t = typename replace_dim<L, Old, News...>::type;

// Why a rename's sizes cannot agree (rename merges Old's interval with New's).
enum class rename_sizes { ok, different_static_sizes, disjoint };
template <class Old, class New>
constexpr rename_sizes check_rename_sizes() {
  if (is_static_v<Old> && is_static_v<New> && bounds_v<Old>.lo != bounds_v<New>.lo)
    return rename_sizes::different_static_sizes;
  if (intersect(bounds_v<Old>, bounds_v<New>).is_empty()) return rename_sizes::disjoint;
  return rename_sizes::ok;
}

}  // namespace detail

// Result dim lists (as detail::type_list) of the structural ops; D is x's dim list.
//   rename<Old, New>:  [.., old, ..] -> [.., new, ..]
//   concat along a:    [.., a, ..] -> [.., a + b, ..]
//   split_dims<A, B>:  [.., a * b, ..] -> [.., a, b, ..]
//   gather:            table [.., v, ..] , idx [is...] -> [is..., table dims without v]
//   one_hot:           idx [is...] -> [is..., v]
namespace detail {
template <class D, class Old, class New>
using rename_dims_t = replace_dim_t<D, Old, New>;
template <class TableDims, class V, class IdxDims>
using gather_dims_t =
    concat_t<types_of_t<IdxDims>, types_of_t<list_difference_t<TableDims, dim_list<V>>>>;
template <class IdxDims, class V>
using one_hot_dims_t = concat_t<types_of_t<IdxDims>, type_list<V>>;
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/shape/rules.hpp
// ---- begin dimgraph/shape/slice_rule.hpp
// The slice rule: NumPy slice bounds, the extent they select, and the dim a slice gives.



namespace dimgraph {

// An open slice bound (NumPy's None): the start or end of the dim in the stride's direction.
struct none_t {
  friend constexpr bool operator==(none_t, none_t) = default;
};
inline constexpr none_t none{};

// A slice bound: an index (a negative one counts from the end) or dg::none.
// A structural type, so it can be a template argument: dg::slice<Time, 2, -1>(x).
struct slice_index {
  std::ptrdiff_t value = 0;
  bool is_none = true;

  constexpr slice_index(none_t) noexcept {}  // NOLINT: implicit, like an integer
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  constexpr slice_index(I i) noexcept
      : value(static_cast<std::ptrdiff_t>(i)), is_none(false) {}  // NOLINT
};

// The positions a slice selects along a dim of extent n: first, first + step, ...
// (count of them; first is 0 when count is 0).
struct slice_range {
  std::size_t first = 0;
  std::ptrdiff_t step = 1;
  std::size_t count = 0;
};

// NumPy's rule (Python's slice.indices): a negative bound counts from the end, bounds
// beyond either end are clamped (a slice never fails), end is exclusive; a negative
// step walks backwards, and an open bound is then the last position (start) or the
// position before the first (end). step must not be 0.
constexpr slice_range slice_positions(std::size_t extent, slice_index start, slice_index end,
                                      std::ptrdiff_t step) {
  const auto n = static_cast<std::ptrdiff_t>(extent);
  auto adjust = [&](slice_index b, std::ptrdiff_t open) {
    if (b.is_none) return open;
    std::ptrdiff_t v = b.value;
    if (v < 0) {
      v = v < -n ? (step < 0 ? -1 : 0) : v + n;
    } else if (v >= n) {
      v = step < 0 ? n - 1 : n;
    }
    return v;
  };
  const std::ptrdiff_t s = adjust(start, step < 0 ? n - 1 : 0);
  const std::ptrdiff_t e = adjust(end, step < 0 ? -1 : n);
  std::ptrdiff_t count = 0;
  if (step > 0 && s < e) count = (e - s - 1) / step + 1;
  if (step < 0 && e < s) count = (s - e - 1) / -step + 1;
  return count == 0
             ? slice_range{0, step, 0}
             : slice_range{static_cast<std::size_t>(s), step, static_cast<std::size_t>(count)};
}

namespace detail {

// The extents a slice can select from a dim whose extent lies in a. The count is
// monotone between the extents where a bound starts or stops being clamped (|bound|
// and its neighbours), so its extremes lie at those points or at a's ends; far beyond
// them the count grows by one per |step| (unbounded), stays put, or falls to 0.
constexpr interval slice_bounds(interval a, slice_index start, slice_index end,
                                std::ptrdiff_t step) {
  if (a.is_empty()) return interval::empty();
  auto count = [&](std::size_t n) { return slice_positions(n, start, end, step).count; };
  const std::size_t k = static_cast<std::size_t>(step < 0 ? -step : step);
  // far: beyond every point where clamping changes, and where the distance from start to
  // end is positive if it grows with the extent (it is then n plus at most the bounds).
  std::size_t far = 2;
  interval r = interval::empty();
  auto sample = [&](std::size_t n) {
    if (!a.contains(n)) return;
    const std::size_t c = count(n);
    r = hull(r, interval::exactly(c));
  };
  for (slice_index b : {start, end}) {
    if (b.is_none) continue;
    const std::size_t m = static_cast<std::size_t>(b.value < 0 ? -b.value : b.value);
    for (std::size_t p : {m - 1, m, m + 1})
      if (p <= m + 1) sample(p);  // (m - 1 wraps when m is 0)
    far += m;
  }
  far = std::max(far, a.lo);
  sample(a.lo);
  if (a.is_bounded()) {
    sample(a.hi);
  } else {
    const std::size_t at_far = count(far), next = count(far + k);
    sample(far);
    if (next > at_far) r.hi = unbounded;
    if (next < at_far) r.lo = 0;
  }
  return r;
}

// The canonical slice for a static dim of size n: the positive positions lo, lo + k, ...
// (m of them), as the algebra writes them: the part [lo, lo + (m - 1) k + 1) of a, cut
// into windows of k. m == 0 gives a - n (empty); m == 1 or k == 1 need no windows.
template <class A, std::size_t N, std::size_t Lo, std::size_t M, std::size_t K>
constexpr auto positive_static_slice() {
  if constexpr (M == 0) {
    return A{} - c<N>;
  } else {
    constexpr std::size_t hi = Lo + (M - 1) * K + 1;
    constexpr auto part = sub_left(c<Lo>, A{} - c<N - hi>);
    if constexpr (M == 1) return part;
    else return ceildiv(part, c<K>);
  }
}

}  // namespace detail

// The dim of a's positions in reverse order. reversed_dim<reversed_dim<a>> is a (reverse_t).
template <class A>
struct reversed_dim : dim_expr_base {
  static constexpr interval bounds = bounds_v<A>;
  static constexpr dim_kind kind = kind_v<A>;
};

// The dim of a slice of a. sliced_dim<a> (no parameters) is the result of a slice whose
// bounds are known only at run time, with size [0, hi(a)]; sliced_dim<a, start, end,
// step> is a compile-time slice that the algebra cannot write (such as one counting from
// the end of a non-static dim), sized by the slice rule.
template <class A, auto... Bounds>
struct sliced_dim : dim_expr_base {
  static_assert(sizeof...(Bounds) == 0 || sizeof...(Bounds) == 3,
                "dimgraph: sliced_dim: give no bounds or three");
  static constexpr interval bounds = [] {
    if constexpr (sizeof...(Bounds) == 0) return interval{0, bounds_v<A>.hi};
    else return detail::slice_bounds(bounds_v<A>, Bounds...);
  }();
  static constexpr dim_kind kind = kind_v<A>;
};

namespace detail {

template <class A>
struct reverse_of {
  using type = reversed_dim<A>;
};
template <class A>
struct reverse_of<reversed_dim<A>> {
  using type = A;
};

}  // namespace detail

template <dimension A>
using reverse_t = typename detail::reverse_of<std::remove_cvref_t<A>>::type;

namespace detail {

// The positions cut from the front and the back (a larger cut than the dim can be
// never selects anything: that slice is left to the opaque form).
constexpr std::size_t front_back_cut(slice_index start, slice_index end) {
  return (start.is_none ? 0 : static_cast<std::size_t>(start.value)) +
         (end.is_none ? 0 : static_cast<std::size_t>(-end.value));
}

// The dim of dg::slice<A, Start, End, Step> (see slice_dim_t).
template <class A, slice_index Start, slice_index End, std::ptrdiff_t Step>
constexpr auto slice_dim_fn() {
  static_assert(Step != 0, "dimgraph: slice: the stride is 0");
  if constexpr (Step == 0) {
    return invalid_dim{};
  } else if constexpr (is_static_v<A>) {
    constexpr std::size_t n = bounds_v<A>.lo;
    constexpr slice_range r = slice_positions(n, Start, End, Step);
    if constexpr (Step > 0 || r.count <= 1) {
      return positive_static_slice<A, n, r.first, r.count, (Step > 0 ? Step : 1)>();
    } else {
      constexpr std::size_t k = static_cast<std::size_t>(-Step);
      constexpr std::size_t last = r.first - (r.count - 1) * k;
      return reverse_t<decltype(positive_static_slice<A, n, last, r.count, k>())>{};
    }
  } else if constexpr (Step > 0 && (Start.is_none || Start.value >= 0) &&
                       (End.is_none || End.value < 0) &&
                       bounds_v<A>.hi >= front_back_cut(Start, End)) {
    constexpr std::size_t s = Start.is_none ? 0 : static_cast<std::size_t>(Start.value);
    constexpr std::size_t e = End.is_none ? 0 : static_cast<std::size_t>(-End.value);
    return ceildiv(sub_left(c<s>, A{} - c<e>), c<static_cast<std::size_t>(Step)>);
  } else if constexpr (Step == -1 && Start.is_none && End.is_none) {
    return reverse_t<A>{};
  } else {
    return sliced_dim<A, Start, End, Step>{};
  }
}

template <class A>
struct describer<reversed_dim<A>> {
  static constexpr int level = level_atom;
  static std::string text() { return "reverse(" + describer<A>::text() + ")"; }
};
template <class A, auto... Bounds>
struct describer<sliced_dim<A, Bounds...>> {
  static constexpr int level = level_atom;
  static std::string bound(slice_index b) { return b.is_none ? "" : std::to_string(b.value); }
  static std::string text() {
    if constexpr (sizeof...(Bounds) == 0) {
      return "slice(" + describer<A>::text() + ")";
    } else {
      const slice_index b[] = {Bounds...};
      return describe_at<A>(level_atom) + "[" + bound(b[0]) + ":" + bound(b[1]) + ":" +
             bound(b[2]) + "]";
    }
  }
};

}  // namespace detail

// The dim dg::slice<A, Start, End, Step>(x) gives: the algebra's dim for the selected
// positions wherever the algebra can write them, so that equal positions give equal
// types and slicing the padding off a padded dim gives the dim itself.
//  - a static: the positions are known. A positive step gives the part of a from the
//    first to the last position, cut into windows of the step:
//    ceildiv(sub_left(c<first>, a - c<n - last - 1>), c<step>) (which folds to a itself
//    for the whole of a); a negative step gives reverse_t of the same positions read
//    forwards. The size is static.
//  - a not static, a positive step, a start from the front (>= 0 or open) and an end
//    from the back (< 0 or open): ceildiv(sub_left(c<start>, a - c<-end>), c<step>),
//    sized by interval arithmetic.
//  - a not static, the whole of a backwards (none, none, -1): reversed_dim<a>.
//  - anything else (e.g. the last 3 of a dynamic dim, slice<T, -3>): the opaque
//    sliced_dim<a, Start, End, Step>, sized exactly by the slice rule (here [0, 3]).
// A slice with bounds known only at run time gives sliced_dim<a> instead.
template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Step = 1>
using slice_dim_t = decltype(detail::slice_dim_fn<std::remove_cvref_t<A>, Start, End, Step>());

}  // namespace dimgraph
// ---- end dimgraph/shape/slice_rule.hpp

// ---- begin dimgraph/tensor/element.hpp
// Element types: the arithmetic types, dg::index<D>, the element concept and categories.

#include <compare>
#include <iosfwd>


namespace dimgraph {

// An integer that names a position along dim D: a class label, a token id
// (dg::index<Vocab>). Not arithmetic: it is made explicitly from an integer, read
// with value(), compared only with the same index<D>, and prints as the integer.
// A value-initialised index is 0. Error: D is not a dim (compile time).
template <class D>
class index {
  static_assert(dimension<D> && std::is_same_v<D, std::remove_cvref_t<D>>,
                "dimgraph: index: the parameter must be a dim tag (not cv-qualified)");

 public:
  using dim_type = D;

  constexpr index() = default;
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  constexpr explicit index(I i) noexcept : value_(static_cast<std::int64_t>(i)) {}

  constexpr std::int64_t value() const noexcept { return value_; }

  friend constexpr bool operator==(index, index) = default;
  friend constexpr std::strong_ordering operator<=>(index, index) = default;

  template <class Char, class Traits>
  friend std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& os,
                                                      index i) {
    return os << i.value_;
  }

 private:
  std::int64_t value_ = 0;
};

namespace detail {

template <class T, class... Us>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Us> || ...);

// The standard integer types: every std::intN_t / std::uintN_t is one of them. The
// character types (char, wchar_t, char8_t, ...) are not elements: they would print as
// characters and their signedness varies.
template <class T>
inline constexpr bool is_integer_element_v =
    is_one_of_v<T, signed char, short, int, long, long long, unsigned char, unsigned short,
                unsigned, unsigned long, unsigned long long>;

template <class T>
struct index_traits {
  static constexpr bool is_index = false;
};
template <class D>
struct index_traits<index<D>> {
  static constexpr bool is_index = true;
  using dim = D;
};

}  // namespace detail

// T is dg::index<D> for some dim D (cv-qualifiers ignored).
template <class T>
inline constexpr bool is_index_v = detail::index_traits<std::remove_cv_t<T>>::is_index;

// The dim of an index type: index_dim_t<dg::index<Vocab>> is Vocab. Ill-formed otherwise.
template <class T>
using index_dim_t = typename detail::index_traits<std::remove_cv_t<T>>::dim;

// A tensor element type: bool, a 8-64-bit signed or unsigned integer, float, double or
// dg::index<D> (not cv-qualified).
template <class T>
concept element = std::is_same_v<T, bool> || detail::is_integer_element_v<T> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double> || is_index_v<T>;

// The category of an element type. Promotion never lowers the category, and
// boolean < integral < floating in that order; index is apart (it mixes with nothing).
enum class element_category { boolean, integral, floating, index };

template <element T>
inline constexpr element_category element_category_v =
    std::is_same_v<T, bool>       ? element_category::boolean
    : std::is_floating_point_v<T> ? element_category::floating
    : is_index_v<T>               ? element_category::index
                                  : element_category::integral;

}  // namespace dimgraph
// ---- end dimgraph/tensor/element.hpp
// ---- begin dimgraph/tensor/promote.hpp
// Type promotion: promote_t (PyTorch's promoteTypes), promote_scalar_t, is_narrowing_v.



namespace dimgraph {
namespace detail {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559 &&
                  sizeof(float) == 4 && sizeof(double) == 8,
              "dimgraph: float and double must be IEEE 754 binary32 and binary64");

// An arithmetic element type reduced to what promotion looks at: category, signedness
// and width. Distinct types of equal width (long and long long) have the same code.
enum class type_code { b1, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, none };

constexpr bool is_unsigned_code(type_code c) {
  return c >= type_code::u8 && c <= type_code::u64;
}
constexpr bool is_signed_code(type_code c) {
  return c >= type_code::i8 && c <= type_code::i64;
}
constexpr bool is_float_code(type_code c) {
  return c == type_code::f32 || c == type_code::f64;
}
// log2 of the width in bytes, within the code's family (u8 -> 0, u64 -> 3).
constexpr int width_step(type_code c) {
  if (is_unsigned_code(c)) return static_cast<int>(c) - static_cast<int>(type_code::u8);
  if (is_signed_code(c)) return static_cast<int>(c) - static_cast<int>(type_code::i8);
  return static_cast<int>(c) - static_cast<int>(type_code::f32);
}
constexpr type_code wider(type_code a, type_code b) {
  return width_step(a) >= width_step(b) ? a : b;
}

template <class T>
constexpr type_code code_of() {
  if constexpr (std::is_same_v<T, bool>) return type_code::b1;
  else if constexpr (std::is_same_v<T, float>) return type_code::f32;
  else if constexpr (std::is_same_v<T, double>) return type_code::f64;
  else if constexpr (is_integer_element_v<T>) {
    constexpr int step = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    constexpr type_code first = std::is_signed_v<T> ? type_code::i8 : type_code::u8;
    return static_cast<type_code>(static_cast<int>(first) + step);
  } else return type_code::none;  // index<D> and non-elements
}

// The fixed-width type of each code, in type_code's order.
using code_types = type_list<bool, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                             std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double>;
template <type_code C>
using type_of_code_t = at_t<static_cast<std::size_t>(C), code_types>;

// The promotion of two arithmetic codes, or none. Rules (PyTorch's promoteTypes on
// bool, u8, i8, i16, i32, i64, f32, f64, extended to u16, u32, u64):
//   bool with X -> X;  floating with floating -> the wider;  integer with floating -> the floating;
//   signed with signed, unsigned with unsigned -> the wider;
//   unsigned u_n with signed i_m -> i_m if m > n, else the signed type of width 2n
//   (u8 with i8 -> i16, u16 with i32 -> i32, u32 with i32 -> i64), and none for u64.
constexpr type_code promote_codes(type_code a, type_code b) {
  if (a == type_code::none || b == type_code::none) return type_code::none;
  if (a == b) return a;
  if (a == type_code::b1) return b;
  if (b == type_code::b1) return a;
  if (is_float_code(a) && is_float_code(b)) return wider(a, b);
  if (is_float_code(a)) return a;
  if (is_float_code(b)) return b;
  if (is_signed_code(a) == is_signed_code(b)) return wider(a, b);
  type_code u = is_unsigned_code(a) ? a : b, s = is_unsigned_code(a) ? b : a;
  if (width_step(s) > width_step(u)) return s;
  if (u == type_code::u64) return type_code::none;
  return static_cast<type_code>(static_cast<int>(type_code::i8) + width_step(u) + 1);
}

template <class A, class B>
struct promote_impl {};  // no promotion
template <class A, class B>
  requires(!std::is_same_v<A, B> && promote_codes(code_of<A>(), code_of<B>()) != type_code::none)
struct promote_impl<A, B> {
  using type = type_of_code_t<promote_codes(code_of<A>(), code_of<B>())>;
};
template <element A>
struct promote_impl<A, A> {
  using type = A;
};

// The fixed-width type an element type promotes as (long long -> std::int64_t on LP64).
template <element T>
struct canonical_element {
  using type = T;
};
template <element T>
  requires(code_of<T>() != type_code::none)
struct canonical_element<T> {
  using type = type_of_code_t<code_of<T>()>;
};

// A C++ scalar does not raise a tensor's type within its category; a scalar of a
// higher category gives that category's default type (int64 for integers, float32
// for floating point, as PyTorch's default dtype). index<D> scalars go only with index<D>.
template <class Elem, class Scalar>
struct promote_scalar_impl {};
template <element Elem, element Scalar>
  requires(!is_index_v<Elem> && !is_index_v<Scalar>)
struct promote_scalar_impl<Elem, Scalar> {
  static constexpr element_category elem_c = element_category_v<Elem>;
  static constexpr element_category scalar_c = element_category_v<Scalar>;
  using type = std::conditional_t<
      (scalar_c <= elem_c), Elem,
      std::conditional_t<scalar_c == element_category::integral, std::int64_t, float>>;
};
template <class D>
struct promote_scalar_impl<index<D>, index<D>> {
  using type = index<D>;
};

}  // namespace detail

// The common element type of two tensors' elements, as torch.promote_types on the
// types PyTorch has (bool, uint8, int8..int64, float32, float64):
//   bool < integers < floating; within signed or unsigned integers the wider wins;
//   uint8 with int8 -> int16; any integer with float32 -> float32; float32 with float64 -> float64.
// Extension to uint16/uint32/uint64 (PyTorch refuses these with integers):
//   unsigned with unsigned -> the wider; u_n with i_m -> the smallest signed type holding
//   both ranges (u16 with i8 -> i32, u32 with i64 -> i64); u64 with any signed integer:
//   no promotion. Any unsigned with float32/float64 -> that floating type (as PyTorch).
// index<D> promotes only with the same index<D>. A type promotes with itself to itself.
// Types of equal width and signedness (long, long long) promote as the fixed-width type.
// promote_t is ill-formed (SFINAE-friendly) where there is no promotion: test it with
// has_promotion_v to report an error.
template <class A, class B>
using promote_t = typename detail::promote_impl<A, B>::type;

template <class A, class B>
inline constexpr bool has_promotion_v = requires { typename detail::promote_impl<A, B>::type; };

// The type a tensor with elements Elem and a C++ scalar of type Scalar combine in
// (PyTorch's "wrapped numbers"): the tensor's type unless the scalar's category is
// higher, then int64 (an integer scalar with a bool tensor) or float (a floating
// scalar with a bool or integer tensor). f32 with a double scalar -> f32; i8 with an
// int -> i8; u8 with a long -> u8; bool with an int -> int64; int32 with 0.5 -> float.
// Ill-formed when Elem or Scalar is index<D> (except index<D> with index<D>).
template <class Elem, class Scalar>
using promote_scalar_t = typename detail::promote_scalar_impl<Elem, Scalar>::type;

template <class Elem, class Scalar>
inline constexpr bool has_scalar_promotion_v =
    requires { typename detail::promote_scalar_impl<Elem, Scalar>::type; };

namespace detail {
template <class Src, class Dst>
constexpr bool narrowing() {
  if constexpr (has_promotion_v<Dst, Src>)
    return !std::is_same_v<typename canonical_element<promote_t<Dst, Src>>::type,
                           typename canonical_element<Dst>::type>;
  else return true;
}
}  // namespace detail

// True when writing Src elements into a Dst output needs a dg::cast: the promotion of
// Dst and Src is not Dst itself (or there is none). float -> double is fine; double ->
// float, int64 -> int32, float -> int32, int -> bool, int -> index<D> are narrowing.
template <class Src, class Dst>
inline constexpr bool is_narrowing_v = detail::narrowing<Src, Dst>();

}  // namespace dimgraph
// ---- end dimgraph/tensor/promote.hpp
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
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" +
                              describe<D>() + "' of extent " + std::to_string(n));
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
      : data_(n ? static_cast<T*>(
                      ::operator new[](n * sizeof(T), std::align_val_t{storage_alignment}))
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

// Why extents given by tag do not fit the dims Ds... (checked in this order, so that the
// entry point's static_asserts give one message per mistake).
enum class extents_check { ok, unknown_dim, repeated, missing };
template <class... Ds, class... Es>
constexpr extents_check check_extents(type_list<Ds...>, type_list<Es...>) {
  if (!(contains_v<Es, type_list<Ds...>> && ...)) return extents_check::unknown_dim;
  if (first_duplicate_v<type_list<Es...>> != sizeof...(Es)) return extents_check::repeated;
  if (!((is_static_v<Ds> || contains_v<Ds, type_list<Es...>>)&&...)) return extents_check::missing;
  return extents_check::ok;
}

// The extent given for D, or D's static size when none is given.
template <class D, class... Es>
constexpr std::size_t given_extent(extent_arg<Es>... e) {
  std::size_t n = bounds_v<D>.lo;
  ((std::is_same_v<D, Es> ? void(n = e.value) : void()), ...);
  return n;
}

// The shape of Ds... from extents given by tag in any order (static dims optional),
// each checked against its dim's interval: a shape_error that names `op`, the dim and
// the extent. The caller has checked the arguments with check_extents.
template <class... Ds, class... Es>
shape<Ds...> shape_from(const char* op, extent_arg<Es>... e) {
  return shape<Ds...>::from_extents({given_extent<Ds>(e...)...}, op);
}

}  // namespace detail

// What tensor and tensor_view share: extents, strides, access by position and by tag.
// Derived provides data(), shape() and strides().
template <class Derived, class T, class... Ds>
class tensor_access {
  static_assert(detail::first_duplicate_v<detail::type_list<Ds...>> == sizeof...(Ds),
                "dimgraph: tensor: a dim appears more than once");
  static_assert((dimension<Ds> && ...),
                "dimgraph: tensor: every dim must be a dim tag or a dim expression");

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
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: stride: the tensor has no such dim");
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
    ((detail::check_index<As>("at", a.value, extent<As>()),
      pos[list_index_of_v<dims, As>] = a.value),
     ...);
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
  static_assert(std::is_same_v<T, std::remove_cvref_t<T>>,
                "dimgraph: tensor: the element type must not be const or a reference");
  static_assert(element<std::remove_cvref_t<T>>,
                "dimgraph: tensor: the element type must be bool, an 8-64-bit integer, float, "
                "double or dg::index<D>");

 public:
  using base::rank;
  using typename base::dims;
  using typename base::shape_type;
  static constexpr bool is_static = shape_type::is_static;

  tensor()
    requires is_static
  = default;
  explicit tensor(const shape_type& s) : shape_(s), storage_(make_storage(s)) {}
  template <class... Ts>
    requires(sizeof...(Ts) > 0)
  explicit tensor(extent_arg<Ts>... e) : tensor(detail::shape_from<Ds...>("tensor", e...)) {
    constexpr auto check =
        detail::check_extents(detail::type_list<Ds...>{}, detail::type_list<Ts...>{});
    static_assert(check != detail::extents_check::unknown_dim,
                  "dimgraph: tensor: an extent is given for a dim the tensor does not have");
    static_assert(check != detail::extents_check::repeated,
                  "dimgraph: tensor: an extent is given twice");
    static_assert(check != detail::extents_check::missing,
                  "dimgraph: tensor: a non-static dim has no extent");
  }

  // From an expression (anything dimgraph can assign from): evaluates it.
  template <class E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor> &&
             requires(tensor& t, E&& e) {
               assign_expression(t, std::forward<E>(e), detail::construct_tag{});
             })
  DIMGRAPH_ALWAYS_INLINE tensor(E&& e) {  // NOLINT: implicit, like assigning the expression's value
    assign_expression(*this, std::forward<E>(e), detail::construct_tag{});
  }
  template <class E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor> &&
             requires(tensor& t, E&& e) { assign_expression(t, std::forward<E>(e)); })
  DIMGRAPH_ALWAYS_INLINE tensor& operator=(E&& e) {
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

  // (Before a constructor sets it: every dim at its smallest extent.)
  shape_type shape_ = shape_type::from_extents({bounds_v<Ds>.lo...});
  storage_type storage_ = make_storage(shape_);
  detail::strides_t<rank> strides_ = detail::row_major_strides<rank>(shape_.extents());
};

// A non-owning strided view (T may be const). Made by permute, slicing by tag, or
// over external memory with dg::view.
template <class T, class... Ds>
class tensor_view : public tensor_access<tensor_view<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor_view<T, Ds...>, T, Ds...>;
  static_assert(
      element<std::remove_const_t<T>>,
      "dimgraph: tensor_view: the element type must be bool, an 8-64-bit integer, float, double or "
      "dg::index<D> (optionally const)");

 public:
  using base::rank;
  using typename base::dims;
  using typename base::shape_type;

  tensor_view(T* data, const shape_type& s, const detail::strides_t<rank>& strides)
      : data_(data), shape_(s), strides_(strides) {}
  // A view of a tensor (const-converting from a mutable view too).
  template <class U>
    requires std::is_same_v<const U, T>
  tensor_view(const tensor_view<U, Ds...>& v)
      : tensor_view(v.data(), v.shape(), v.strides()) {}  // NOLINT

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

// A row-major view over external memory: dg::view<float, Batch, Feature>(ptr,
// dg::extent<Batch>(2)). Extents by tag in any order; static dims need none. Errors: a missing,
// repeated or foreign extent (compile time); an extent outside its dim's interval (shape_error).
template <class T, class... Ds, class... Es>
tensor_view<T, Ds...> view(T* data, extent_arg<Es>... e) {
  constexpr auto check =
      detail::check_extents(detail::type_list<Ds...>{}, detail::type_list<Es...>{});
  static_assert(check != detail::extents_check::unknown_dim,
                "dimgraph: view: an extent is given for a dim the view does not have");
  static_assert(check != detail::extents_check::repeated,
                "dimgraph: view: an extent is given twice");
  static_assert(check != detail::extents_check::missing,
                "dimgraph: view: a non-static dim has no extent");
  shape<Ds...> s = detail::shape_from<Ds...>("view", e...);
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
// ---- begin dimgraph/tensor/make.hpp
// Tensor factories: zeros, ones, full, iota and the seeded, portable uniform.

#include <cmath>
#include <random>


// The compile-time checks of a factory's extent arguments, one message per mistake.
#define DIMGRAPH_CHECK_EXTENTS(OP)                                                           \
  constexpr auto check =                                                                     \
      detail::check_extents(detail::type_list<Ds...>{}, detail::type_list<Es...>{});         \
  static_assert(check != detail::extents_check::unknown_dim,                                 \
                "dimgraph: " OP ": an extent is given for a dim the tensor does not have");  \
  static_assert(check != detail::extents_check::repeated,                                    \
                "dimgraph: " OP ": an extent is given twice");                               \
  static_assert(check != detail::extents_check::missing,                                     \
                "dimgraph: " OP ": a non-static dim has no extent (give dg::extent<D>(n))"); \
  static_assert(element<T>, "dimgraph: " OP                                                  \
                            ": the element type must be bool, an 8-64-bit integer, "         \
                            "float, double or dg::index<D>")

namespace dimgraph {
namespace detail {

// A value-initialised tensor of the given extents. After a reported error it is still a
// tensor (missing extents at their dims' lower bounds, a float stand-in for a non-element
// T), so that one mistake gives one message.
template <class T, class... Ds, class... Es>
auto new_tensor(const char* op, extent_arg<Es>... e) {
  using elem = std::conditional_t<element<T>, T, float>;
  return tensor<elem, Ds...>(shape_from<Ds...>(op, e...));
}

// The element that is the integer v (index<D> is made explicitly).
template <class T>
constexpr T element_from_integer(std::int64_t v) {
  if constexpr (is_index_v<T>) return T(v);
  else return static_cast<T>(v);
}

// The bounds uniform takes: T itself, or the integer of an index.
template <class T>
using uniform_bound_t = std::conditional_t<is_index_v<T>, std::int64_t, T>;

// A uniform integer in [0, range) from the generator, unbiased by rejection, or the raw
// 64 bits when range is 0 (meaning 2^64). Fully specified: the same on every platform.
inline std::uint64_t uniform_below(std::mt19937_64& gen, std::uint64_t range) {
  if (range == 0) return gen();
  const std::uint64_t reject_below = (0 - range) % range;  // 2^64 mod range
  std::uint64_t x = gen();
  while (x < reject_below) x = gen();
  return x % range;
}

// A uniform value in [lo, hi) from the top bits of one draw: k / 2^p for p = the
// mantissa width (24 or 53), which is exact, then lo + (hi - lo) * u in T with one
// rounding per step (separate statements: no fused multiply-add), clamped below hi.
template <class T>
T uniform_real(std::mt19937_64& gen, T lo, T hi) {
  constexpr int bits = std::numeric_limits<T>::digits;
  const T u =
      static_cast<T>(gen() >> (64 - bits)) * (T(1) / static_cast<T>(std::uint64_t{1} << bits));
  const T span = hi - lo;
  const T scaled = span * u;
  const T r = lo + scaled;
  return r < hi ? r : std::nextafter(hi, lo);
}

}  // namespace detail

// A tensor of zeros: dg::zeros<float, Batch, Feature>(dg::extent<Batch>(2)). Extents by
// tag in any order; static dims need none. Errors: a missing, repeated or foreign
// extent (compile time); an extent outside its dim's interval (shape_error, "zeros").
template <class T, class... Ds, class... Es>
auto zeros(extent_arg<Es>... e) {
  DIMGRAPH_CHECK_EXTENTS("zeros");
  return detail::new_tensor<T, Ds...>("zeros", e...);
}

// A tensor of ones (true for bool, index 1 for dg::index<D>). Errors: as zeros.
template <class T, class... Ds, class... Es>
auto ones(extent_arg<Es>... e) {
  DIMGRAPH_CHECK_EXTENTS("ones");
  auto x = detail::new_tensor<T, Ds...>("ones", e...);
  if constexpr (element<T>) std::fill_n(x.data(), x.size(), detail::element_from_integer<T>(1));
  return x;
}

// A tensor with every element equal to value: dg::full<float, Time>(0.5f, dg::extent<Time>(4)).
// Errors: as zeros.
template <class T, class... Ds, class... Es>
auto full(std::type_identity_t<T> value, extent_arg<Es>... e) {
  DIMGRAPH_CHECK_EXTENTS("full");
  auto x = detail::new_tensor<T, Ds...>("full", e...);
  if constexpr (element<T>) std::fill_n(x.data(), x.size(), value);
  return x;
}

// 0, 1, 2, ... in row-major order of Ds... (converted to T: an integer type narrower than
// the count wraps around; a dg::index<D> holds the count). Errors: as zeros; a bool
// element type (compile time).
template <class T, class... Ds, class... Es>
auto iota(extent_arg<Es>... e) {
  DIMGRAPH_CHECK_EXTENTS("iota");
  static_assert(!std::is_same_v<T, bool>, "dimgraph: iota: counting in bool makes no sense");
  auto x = detail::new_tensor<T, Ds...>("iota", e...);
  if constexpr (element<T> && !std::is_same_v<T, bool>) {
    T* p = x.data();
    for (std::size_t i = 0, n = x.size(); i < n; ++i)
      p[i] = detail::element_from_integer<T>(static_cast<std::int64_t>(i));
  }
  return x;
}

// Pseudo-random elements, the same for a seed on every platform and standard library:
// std::mt19937_64 (fully specified by the standard) seeded with `seed`, one draw per
// element in row-major order of Ds..., mapped by dimgraph itself (not by a std::
// distribution, whose output is implementation-defined):
//   float, double: uniform in [lo, hi) from the draw's top 24 or 53 bits;
//   integers, bool and dg::index<D> (bounds are then integers): uniform in [lo, hi],
//   unbiased (rejection sampling; a rejected draw takes another).
// Errors: as zeros; lo > hi, or for floating point lo >= hi or a non-finite lo, hi or
// hi - lo (dg::error, "uniform").
template <class T, class... Ds, class... Es>
auto uniform(std::uint64_t seed, detail::uniform_bound_t<T> lo, detail::uniform_bound_t<T> hi,
             extent_arg<Es>... e) {
  DIMGRAPH_CHECK_EXTENTS("uniform");
  using bound = detail::uniform_bound_t<T>;
  auto x = detail::new_tensor<T, Ds...>("uniform", e...);
  if constexpr (element<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!(lo < hi) || !std::isfinite(hi - lo))
        throw error("uniform", "the range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                   ") is empty or not finite");
    } else if (lo > hi) {
      throw error("uniform",
                  "the range [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is empty");
    }
    std::mt19937_64 gen(seed);
    T* p = x.data();
    const std::size_t n = x.size();
    if constexpr (std::is_floating_point_v<T>) {
      for (std::size_t i = 0; i < n; ++i) p[i] = detail::uniform_real<T>(gen, lo, hi);
    } else {
      // In 64-bit two's complement: v = lo + k for k uniform in [0, hi - lo].
      using wide = std::conditional_t<std::is_signed_v<bound>, std::int64_t, std::uint64_t>;
      const auto lo_bits = static_cast<std::uint64_t>(static_cast<wide>(lo));
      const std::uint64_t range = static_cast<std::uint64_t>(static_cast<wide>(hi)) - lo_bits + 1;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = lo_bits + detail::uniform_below(gen, range);
        if constexpr (is_index_v<T>) p[i] = T(static_cast<std::int64_t>(v));
        else p[i] = static_cast<T>(static_cast<wide>(v));
      }
    }
  }
  return x;
}

}  // namespace dimgraph

#undef DIMGRAPH_CHECK_EXTENTS
// ---- end dimgraph/tensor/make.hpp
// ---- begin dimgraph/tensor/equal.hpp
// operator== / != between tensors and views: equal extents and elements, aligned by tag.



namespace dimgraph {
namespace detail {

template <class X>
inline constexpr bool is_tensor_or_view_v = false;
template <class T, class... Ds>
inline constexpr bool is_tensor_or_view_v<tensor<T, Ds...>> = true;
template <class T, class... Ds>
inline constexpr bool is_tensor_or_view_v<tensor_view<T, Ds...>> = true;

// Two tensors or views with the same element type and the same set of dims.
template <class A, class B>
concept same_dims_and_element = is_tensor_or_view_v<A> && is_tensor_or_view_v<B> &&
                                std::is_same_v<typename A::value_type, typename B::value_type> &&
                                list_same_set_v<typename A::dims, typename B::dims>;

// Compares the elements below `level` (positions in a's dim order), at a and b.
template <std::size_t R, class P, class Q>
bool equal_elements(std::size_t level, const std::array<std::size_t, R>& extent,
                    const std::array<std::ptrdiff_t, R>& a_stride,
                    const std::array<std::ptrdiff_t, R>& b_stride, P a, Q b) {
  if (level == R) return *a == *b;
  for (std::size_t i = 0; i < extent[level]; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    if (!equal_elements<R>(level + 1, extent, a_stride, b_stride, a + k * a_stride[level],
                           b + k * b_stride[level]))
      return false;
  }
  return true;
}

template <class... Ds, class A, class B>
bool equal_by_tag(dim_list<Ds...>*, const A& a, const B& b) {
  if (((a.template extent<Ds>() != b.template extent<Ds>()) || ...)) return false;
  constexpr std::size_t rank = sizeof...(Ds);
  return equal_elements<rank>(0, {a.template extent<Ds>()...}, {a.template stride<Ds>()...},
                              {b.template stride<Ds>()...}, a.data(), b.data());
}

}  // namespace detail

// a == b for tensors and views (any mix) with the same element type and the same dim
// set, in any order: true when every dim has the same extent in both and every element,
// aligned by tag, compares equal (so NaN makes tensors unequal). A tensor equals its
// permuted views. Different dim sets or element types: no operator (compile error, not
// a silent false). a != b is !(a == b).
template <class A, class B>
  requires detail::same_dims_and_element<A, B>
bool operator==(const A& a, const B& b) {
  return detail::equal_by_tag(static_cast<typename A::dims*>(nullptr), a, b);
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/equal.hpp
// ---- begin dimgraph/tensor/print.hpp
// operator<< for shapes, tensors and views: a line of dims, then NumPy-style brackets.

#include <charconv>
#include <ostream>


namespace dimgraph {

// "[batch[2], time[25], feature=512]": a non-static dim as name[extent], a static one as name=size.
template <class... Ds>
std::ostream& operator<<(std::ostream& os, const shape<Ds...>& s) {
  return os << to_string(s);
}

namespace detail {

// The name of an element type: bool, int8..int64, uint8..uint64, float32, float64, index<dim>.
template <class T>
std::string element_name() {
  if constexpr (is_index_v<T>) {
    return "index<" + describe<index_dim_t<T>>() + ">";
  } else {
    constexpr const char* names[] = {"bool",  "uint8", "uint16", "uint32",  "uint64", "int8",
                                     "int16", "int32", "int64",  "float32", "float64"};
    return names[static_cast<int>(code_of<T>())];
  }
}

// One element as text: bool as true/false, integers (int8/uint8 too) and indices as
// numbers, floating point as printf's %.4g (locale-independent).
template <class T>
std::string element_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (is_index_v<T>) {
    return std::to_string(v.value());
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 4).ptr;
    return std::string(buf, end);
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<std::int64_t>(v));
  } else {
    return std::to_string(static_cast<std::uint64_t>(v));
  }
}

// NumPy's defaults: summarise above 1000 elements, keeping 3 items at each edge.
inline constexpr std::size_t print_threshold = 1000;
inline constexpr std::size_t print_edge_items = 3;

// Writes the nested brackets of a rank-R strided array (R >= 1). Elements are right-
// aligned to the widest one printed. In a summarised array a dim longer than
// 2 * edge items shows its first and last edge items around "...".
template <class T, std::size_t R>
class array_printer {
 public:
  array_printer(const T* data, const std::array<std::size_t, R>& extent,
                const std::array<std::ptrdiff_t, R>& stride)
      : data_(data), extent_(extent), stride_(stride) {
    std::size_t n = 1;
    for (std::size_t e : extent_) n *= e;
    summarise_ = n > print_threshold;
  }

  void write(std::ostream& os) {
    width_ = 0;
    measure(0, data_);
    write(os, 0, data_);
  }

 private:
  bool cut(std::size_t level) const { return summarise_ && extent_[level] > 2 * print_edge_items; }
  // The k-th printed position along `level` (skipping the middle when cut).
  std::size_t position(std::size_t level, std::size_t k) const {
    return cut(level) && k >= print_edge_items ? extent_[level] - 2 * print_edge_items + k : k;
  }
  std::size_t printed(std::size_t level) const {
    return cut(level) ? 2 * print_edge_items : extent_[level];
  }
  const T* at(std::size_t level, const T* p, std::size_t k) const {
    return p + static_cast<std::ptrdiff_t>(position(level, k)) * stride_[level];
  }

  void measure(std::size_t level, const T* p) {
    for (std::size_t k = 0; k < printed(level); ++k) {
      if (level + 1 == R) {
        std::size_t w = element_text(*at(level, p, k)).size();
        if (w > width_) width_ = w;
      } else {
        measure(level + 1, at(level, p, k));
      }
    }
  }

  void write(std::ostream& os, std::size_t level, const T* p) const {
    // Between items: ", " in the last dim; otherwise a comma, one line break per
    // remaining dim, and an indent under the opening bracket.
    const std::string sep =
        level + 1 == R ? ", "
                       : "," + std::string(R - 1 - level, '\n') + std::string(level + 1, ' ');
    os << '[';
    for (std::size_t k = 0; k < printed(level); ++k) {
      if (k > 0) os << sep;
      if (cut(level) && k == print_edge_items) os << "..." << sep;
      if (level + 1 == R) {
        std::string s = element_text(*at(level, p, k));
        os << std::string(width_ - s.size(), ' ') << s;
      } else {
        write(os, level + 1, at(level, p, k));
      }
    }
    os << ']';
  }

  const T* data_;
  std::array<std::size_t, R> extent_;
  std::array<std::ptrdiff_t, R> stride_;
  bool summarise_ = false;
  std::size_t width_ = 0;
};

// The header line, then the elements (rank 0: the one element; no elements: []).
template <class X>
std::ostream& print_tensor(std::ostream& os, const char* kind, const X& x) {
  using value_type = typename X::value_type;
  os << kind << '<' << element_name<value_type>() << "> " << dimgraph::to_string(x.shape()) << '\n';
  const value_type* data = x.data();
  if constexpr (X::rank == 0) {
    os << element_text(*data);
  } else if (x.size() == 0) {
    os << "[]";  // as NumPy: the header line has the extents
  } else {
    array_printer<value_type, X::rank>(data, x.shape().extents(), x.strides()).write(os);
  }
  return os;
}

}  // namespace detail

// A tensor as text, e.g. for dg::tensor<int, A, B> with A of extent 2 and B of size 3:
//   tensor<int32> [a[2], b=3]
//   [[0, 1, 2],
//    [3, 4, 5]]
// Rows on separate lines, elements right-aligned, floats as %.4g, bool as true/false;
// above 1000 elements NumPy's summary (first and last 3 of each long dim around "...").
template <class T, class... Ds>
std::ostream& operator<<(std::ostream& os, const tensor<T, Ds...>& x) {
  return detail::print_tensor(os, "tensor", x);
}

// A view as text: as a tensor, with the header "tensor_view<...>".
template <class T, class... Ds>
std::ostream& operator<<(std::ostream& os, const tensor_view<T, Ds...>& x) {
  return detail::print_tensor(os, "tensor_view", x);
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/print.hpp

// ---- begin dimgraph/expr/node.hpp
// What an expression is: tensors, views, scalars and lazy nodes, and how nodes hold operands.



namespace dimgraph {

// Every lazy node derives from this.
struct expr_node_base {};

namespace detail {
template <class T>
inline constexpr bool is_tensor_v = false;
template <class T, class... Ds>
inline constexpr bool is_tensor_v<tensor<T, Ds...>> = true;
template <class T>
inline constexpr bool is_view_v = false;
template <class T, class... Ds>
inline constexpr bool is_view_v<tensor_view<T, Ds...>> = true;
}  // namespace detail

// A tensor, a view or a lazy node: anything with dims, a value type and extents.
template <class E>
concept expression =
    detail::is_tensor_v<std::remove_cvref_t<E>> || detail::is_view_v<std::remove_cvref_t<E>> ||
    std::is_base_of_v<expr_node_base, std::remove_cvref_t<E>>;

template <expression E>
using value_t = typename std::remove_cvref_t<E>::value_type;
template <expression E>
using dims_t = typename std::remove_cvref_t<E>::dims;

// A C++ scalar used as an operand ("wrapped number": it does not raise a tensor's
// type within its category).
template <class S>
concept scalar = element<std::remove_cvref_t<S>> && !expression<S>;

// A rank-0 operand holding one value, already converted to the type it combines in.
template <class T>
struct scalar_expr : expr_node_base {
  using value_type = T;
  using dims = dim_list<>;
  T value;
};

// How a node holds an operand: lvalues by reference, rvalues by value, so
// `auto e = dg::exp(make_tensor()) + x;` never dangles.
template <class E>
using operand_t = std::conditional_t<std::is_lvalue_reference_v<E>, const std::remove_cvref_t<E>&,
                                     std::remove_cvref_t<E>>;

namespace detail {

// The stand-in result of an op whose mistake was already reported: every op on it
// quietly gives it again, so one mistake gives one message.
struct invalid_expr {};
template <class X>
concept poisoned = std::is_same_v<std::remove_cvref_t<X>, invalid_expr>;

// The extent of D in e (e must have D).
template <class D, class E>
std::size_t extent_in(const E& e) {
  return e.template extent<D>();
}

// Index of the first operand whose dim set contains every operand's dims, or npos.
inline constexpr std::size_t no_operand = static_cast<std::size_t>(-1);
template <class... Ls>
constexpr std::size_t containing_operand() {
  std::size_t i = 0, found = no_operand;
  auto check = [&]<class L>(L*) {
    if (found == no_operand && (list_is_subset_v<Ls, L> && ...)) found = i;
    ++i;
  };
  (check(static_cast<Ls*>(nullptr)), ...);
  return found;
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/expr/node.hpp
// ---- begin dimgraph/expr/map.hpp
// map_expr: the lazy element-wise node (one fused loop for a whole chain).

#include <functional>
#include <tuple>


namespace dimgraph {

// F applied element by element to operands aligned by tag. Dims is the result's dim
// list: the dims of the operand that contains every other operand's dims.
// Error: a shared non-static dim with different extents in two operands (shape_error,
// thrown when the node is made, before anything is written).
template <class F, class Dims, class... Ops>
class map_expr;

namespace detail {
template <class F>
constexpr const char* op_name() {
  if constexpr (requires { F::name; }) return F::name;
  else return "map";
}
}  // namespace detail

template <class F, class... Ds, class... Ops>
class map_expr<F, dim_list<Ds...>, Ops...> : public expr_node_base {
 public:
  using dims = dim_list<Ds...>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, value_t<Ops>...>>;
  static constexpr const char* name = detail::op_name<F>();

  template <class... Args>
  explicit map_expr(F f, Args&&... args) : f_(std::move(f)), ops_(std::forward<Args>(args)...) {
    (check_dim<Ds>(), ...);
  }

  template <class D>
  std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return extent_from<std::remove_cvref_t<D>>(std::index_sequence_for<Ops...>{});
  }

  const F& fn() const { return f_; }
  const std::tuple<Ops...>& operands() const { return ops_; }

 private:
  template <class D, std::size_t... Is>
  std::size_t extent_from(std::index_sequence<Is...>) const {
    std::size_t e = 0;
    bool found = false;
    ((!found && list_contains_v<dims_t<Ops>, D> ? (e = operand_extent<D, Is>(), found = true)
                                                : false),
     ...);
    return e;
  }
  template <class D, std::size_t I>
  std::size_t operand_extent() const {
    if constexpr (list_contains_v<dims_t<std::tuple_element_t<I, std::tuple<Ops...>>>, D>)
      return std::get<I>(ops_).template extent<D>();
    else return 0;
  }
  // Every operand with a non-static D must agree on its extent.
  template <class D>
  void check_dim() const {
    if constexpr (!is_static_v<D>) check_dim_in<D>(std::index_sequence_for<Ops...>{});
  }
  template <class D, std::size_t... Is>
  void check_dim_in(std::index_sequence<Is...>) const {
    std::size_t first = 0, first_at = 0;
    bool seen = false;
    auto visit = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      if constexpr (list_contains_v<dims_t<std::tuple_element_t<I, std::tuple<Ops...>>>, D>) {
        std::size_t e = std::get<I>(ops_).template extent<D>();
        if (!seen) {
          first = e;
          first_at = I;
          seen = true;
        } else if (e != first) {
          throw shape_error(name, "dim '" + describe<D>() + "' has extent " +
                                      std::to_string(first) + " in operand " +
                                      std::to_string(first_at + 1) + " and " + std::to_string(e) +
                                      " in operand " + std::to_string(I + 1));
        }
      }
    };
    (visit(std::integral_constant<std::size_t, Is>{}), ...);
  }

  [[no_unique_address]] F f_;
  std::tuple<Ops...> ops_;
};

namespace detail {

// A scalar operand becomes a scalar_expr of the type it combines in.
template <class Other, class X>
decltype(auto) as_operand(X&& x) {
  if constexpr (expression<X>) return std::forward<X>(x);
  else
    return scalar_expr<promote_scalar_t<value_t<Other>, std::remove_cvref_t<X>>>{
        {}, static_cast<promote_scalar_t<value_t<Other>, std::remove_cvref_t<X>>>(x)};
}

// The node for f over operands xs (expressions), dims from the containing operand.
template <class F, class... Xs>
auto make_map(F f, Xs&&... xs) {
  constexpr std::size_t at = containing_operand<dims_t<Xs>...>();
  using result_dims = dims_t<std::tuple_element_t<at, std::tuple<Xs...>>>;
  return map_expr<F, result_dims, operand_t<Xs&&>...>(std::move(f), std::forward<Xs>(xs)...);
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/expr/map.hpp
// ---- begin dimgraph/expr/functors.hpp
// The element functions of dimgraph's element-wise ops (what one element computes).



namespace dimgraph::detail::fn {

// Math on integers is done in float, as in PyTorch (exp of an int tensor is float).
template <class T>
using float_of_t = std::conditional_t<std::is_floating_point_v<T>, T, float>;

#define DIMGRAPH_PROMOTED_BINARY(NAME, OPNAME, EXPR)          \
  struct NAME {                                               \
    static constexpr const char* name = OPNAME;               \
    template <class A, class B>                               \
    constexpr auto operator()(A a_, B b_) const {             \
      using C = promote_t<A, B>;                              \
      const C a = static_cast<C>(a_), b = static_cast<C>(b_); \
      return static_cast<C>(EXPR);                            \
    }                                                         \
  };
DIMGRAPH_PROMOTED_BINARY(add, "add", a + b)
DIMGRAPH_PROMOTED_BINARY(sub, "sub", a - b)
DIMGRAPH_PROMOTED_BINARY(mul, "mul", a* b)
DIMGRAPH_PROMOTED_BINARY(minimum, "min", b < a ? b : a)
DIMGRAPH_PROMOTED_BINARY(maximum, "max", a < b ? b : a)
#undef DIMGRAPH_PROMOTED_BINARY

// True division: integers divide as float (PyTorch's torch.div).
struct div {
  static constexpr const char* name = "div";
  template <class A, class B>
  constexpr auto operator()(A a, B b) const {
    using C = float_of_t<promote_t<A, B>>;
    return static_cast<C>(static_cast<C>(a) / static_cast<C>(b));
  }
};
struct pow {
  static constexpr const char* name = "pow";
  template <class A, class B>
  auto operator()(A a, B b) const {
    using C = promote_t<A, B>;
    if constexpr (std::is_floating_point_v<C>)
      return static_cast<C>(std::pow(static_cast<C>(a), static_cast<C>(b)));
    else return static_cast<C>(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
};

#define DIMGRAPH_COMPARISON(NAME, OPNAME, OP)                                         \
  struct NAME {                                                                       \
    static constexpr const char* name = OPNAME;                                       \
    template <class A, class B>                                                       \
    constexpr bool operator()(A a, B b) const {                                       \
      if constexpr (std::is_same_v<A, B>) return a OP b;                              \
      else return static_cast<promote_t<A, B>>(a) OP static_cast<promote_t<A, B>>(b); \
    }                                                                                 \
  };
DIMGRAPH_COMPARISON(equal, "equal", ==)
DIMGRAPH_COMPARISON(not_equal, "not_equal", !=)
DIMGRAPH_COMPARISON(less, "less", <)
DIMGRAPH_COMPARISON(less_equal, "less_equal", <=)
DIMGRAPH_COMPARISON(greater, "greater", >)
DIMGRAPH_COMPARISON(greater_equal, "greater_equal", >=)
#undef DIMGRAPH_COMPARISON

struct logical_and {
  static constexpr const char* name = "logical_and";
  constexpr bool operator()(bool a, bool b) const { return a && b; }
};
struct logical_or {
  static constexpr const char* name = "logical_or";
  constexpr bool operator()(bool a, bool b) const { return a || b; }
};
struct logical_xor {
  static constexpr const char* name = "logical_xor";
  constexpr bool operator()(bool a, bool b) const { return a != b; }
};
struct logical_not {
  static constexpr const char* name = "logical_not";
  constexpr bool operator()(bool a) const { return !a; }
};

// Unary ops that keep the type.
struct neg {
  static constexpr const char* name = "neg";
  template <class A>
  constexpr A operator()(A a) const {
    return static_cast<A>(-a);
  }
};
struct abs {
  static constexpr const char* name = "abs";
  template <class A>
  constexpr A operator()(A a) const {
    if constexpr (std::is_unsigned_v<A>) return a;
    else return a < A(0) ? static_cast<A>(-a) : a;
  }
};
struct relu {
  static constexpr const char* name = "relu";
  template <class A>
  constexpr A operator()(A a) const {
    return a > A(0) ? a : A(0);
  }
};
struct floor {
  static constexpr const char* name = "floor";
  template <class A>
  A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return std::floor(a);
    else return a;
  }
};
struct ceil {
  static constexpr const char* name = "ceil";
  template <class A>
  A operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) return std::ceil(a);
    else return a;
  }
};

// Unary math, computed in float_of_t.
#define DIMGRAPH_FLOAT_UNARY(NAME, EXPR)       \
  struct NAME {                                \
    static constexpr const char* name = #NAME; \
    template <class A>                         \
    auto operator()(A a_) const {              \
      using C = float_of_t<A>;                 \
      const C x = static_cast<C>(a_);          \
      return static_cast<C>(EXPR);             \
    }                                          \
  };
DIMGRAPH_FLOAT_UNARY(exp, std::exp(x))
DIMGRAPH_FLOAT_UNARY(log, std::log(x))
DIMGRAPH_FLOAT_UNARY(log1p, std::log1p(x))
DIMGRAPH_FLOAT_UNARY(sqrt, std::sqrt(x))
DIMGRAPH_FLOAT_UNARY(rsqrt, C(1) / std::sqrt(x))
DIMGRAPH_FLOAT_UNARY(tanh, std::tanh(x))
DIMGRAPH_FLOAT_UNARY(sigmoid, C(1) / (C(1) + std::exp(-x)))
DIMGRAPH_FLOAT_UNARY(gelu, C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440))))
DIMGRAPH_FLOAT_UNARY(sin, std::sin(x))
DIMGRAPH_FLOAT_UNARY(cos, std::cos(x))
#undef DIMGRAPH_FLOAT_UNARY

struct select {
  static constexpr const char* name = "where";
  template <class A, class B>
  constexpr auto operator()(bool c, A a, B b) const {
    using C = promote_t<A, B>;
    return c ? static_cast<C>(a) : static_cast<C>(b);
  }
};

template <class T>
struct cast_to {
  static constexpr const char* name = "cast";
  template <class A>
  constexpr T operator()(A a) const {
    if constexpr (is_index_v<A>) return static_cast<T>(a.value());
    else return static_cast<T>(a);
  }
};

// A user function: dg::map(f, xs...).
template <class F>
struct user {
  static constexpr const char* name = "map";
  F f;
  template <class... As>
  constexpr auto operator()(As... as) const {
    return f(as...);
  }
};

}  // namespace dimgraph::detail::fn
// ---- end dimgraph/expr/functors.hpp
// ---- begin dimgraph/expr/ops.hpp
// The element-wise ops: + - * /, math functions, comparisons, logic, where, cast, map.



namespace dimgraph {
namespace detail {

// Operands of a binary op: two expressions, or an expression and a C++ scalar.
template <class A, class B>
concept binary_operands = (expression<A> && expression<B>) || (expression<A> && scalar<B>) ||
                          (scalar<A> && expression<B>);

template <class A, class B>
concept binary_operands_or_poisoned = binary_operands<A, B> || poisoned<A> || poisoned<B>;

template <class X>
struct operand_elem {
  using type = std::remove_cvref_t<X>;
};
template <expression X>
struct operand_elem<X> {
  using type = value_t<X>;
};
template <class X>
using operand_elem_t = typename operand_elem<X>::type;

template <class X>
struct operand_dims {
  using type = dim_list<>;
};
template <expression X>
struct operand_dims<X> {
  using type = dims_t<X>;
};
template <class X>
using operand_dims_t = typename operand_dims<X>::type;

// Why a binary op is rejected (checked in this order, so one mistake gives one message).
enum class binary_check { ok, outer_broadcast, index_arithmetic, bool_arithmetic, no_common_type };

template <class A, class B>
constexpr bool dims_nest() {
  using la = operand_dims_t<A>;
  using lb = operand_dims_t<B>;
  return list_is_subset_v<la, lb> || list_is_subset_v<lb, la>;
}

template <class A, class B, bool Arithmetic>
constexpr binary_check check_binary() {
  using ea = operand_elem_t<A>;
  using eb = operand_elem_t<B>;
  if (!dims_nest<A, B>()) return binary_check::outer_broadcast;
  if (Arithmetic && (is_index_v<ea> || is_index_v<eb>)) return binary_check::index_arithmetic;
  if (Arithmetic && std::is_same_v<ea, bool> && std::is_same_v<eb, bool>)
    return binary_check::bool_arithmetic;
  if constexpr (expression<A> && expression<B>) {
    if (!has_promotion_v<ea, eb>) return binary_check::no_common_type;
  }
  return binary_check::ok;
}

template <class F, class A, class B>
auto make_binary(A&& a, B&& b) {
  if constexpr (expression<A> && expression<B>)
    return make_map(F{}, std::forward<A>(a), std::forward<B>(b));
  else if constexpr (expression<A>)
    return make_map(F{}, std::forward<A>(a), as_operand<A>(std::forward<B>(b)));
  else return make_map(F{}, as_operand<B>(std::forward<A>(a)), std::forward<B>(b));
}

}  // namespace detail

// Element-wise binary ops. Shape rule: operands align by tag; one operand's dim set
// must contain the other's, and the result has that operand's order (the left one's
// when the sets are equal). Types promote as in PyTorch; C++ scalars are wrapped numbers.
// Errors (compile time): an implicit outer broadcast ([B,T,F] + [B,T,H]); arithmetic on
// dg::index<D> or on two bools; element types with no common type.
// Errors (run time): a shared dynamic dim with different extents (shape_error).
#define DIMGRAPH_BINARY_OP(DECL, NAME, FUNCTOR, ARITH)                                             \
  template <class A, class B>                                                                      \
    requires detail::binary_operands_or_poisoned<A, B>                                             \
  auto DECL(A&& a, B&& b) {                                                                        \
    if constexpr (detail::poisoned<A> || detail::poisoned<B>) return detail::invalid_expr{};       \
    else {                                                                                         \
      constexpr auto check = detail::check_binary<A, B, ARITH>();                                  \
      static_assert(check != detail::binary_check::outer_broadcast,                                \
                    "dimgraph: " NAME                                                              \
                    ": neither operand's dims contain the other's (an implicit outer broadcast); " \
                    "use dg::broadcast_to<...> or dg::outer");                                     \
      static_assert(check != detail::binary_check::index_arithmetic,                               \
                    "dimgraph: " NAME                                                              \
                    ": arithmetic on dg::index<D> makes no sense; dg::cast it first");             \
      static_assert(check != detail::binary_check::bool_arithmetic,                                \
                    "dimgraph: " NAME                                                              \
                    ": arithmetic on two bool operands makes no sense; use a logical "             \
                    "op or dg::cast");                                                             \
      static_assert(check != detail::binary_check::no_common_type,                                 \
                    "dimgraph: " NAME                                                              \
                    ": the element types have no common type; dg::cast one operand");              \
      if constexpr (check == detail::binary_check::ok)                                             \
        return detail::make_binary<FUNCTOR>(std::forward<A>(a), std::forward<B>(b));               \
      else return detail::invalid_expr{};                                                          \
    }                                                                                              \
  }

DIMGRAPH_BINARY_OP(operator+, "add", detail::fn::add, true)
DIMGRAPH_BINARY_OP(operator-, "sub", detail::fn::sub, true)
DIMGRAPH_BINARY_OP(operator*, "mul", detail::fn::mul, true)
DIMGRAPH_BINARY_OP(operator/, "div", detail::fn::div, true)
DIMGRAPH_BINARY_OP(pow, "pow", detail::fn::pow, true)
DIMGRAPH_BINARY_OP(min, "min", detail::fn::minimum, true)
DIMGRAPH_BINARY_OP(max, "max", detail::fn::maximum, true)
// Comparisons give bool. (operator== on tensors compares whole values; element-wise
// comparison is always spelled out.)
DIMGRAPH_BINARY_OP(equal, "equal", detail::fn::equal, false)
DIMGRAPH_BINARY_OP(not_equal, "not_equal", detail::fn::not_equal, false)
DIMGRAPH_BINARY_OP(less, "less", detail::fn::less, false)
DIMGRAPH_BINARY_OP(less_equal, "less_equal", detail::fn::less_equal, false)
DIMGRAPH_BINARY_OP(greater, "greater", detail::fn::greater, false)
DIMGRAPH_BINARY_OP(greater_equal, "greater_equal", detail::fn::greater_equal, false)
#undef DIMGRAPH_BINARY_OP

// Logical ops on bool operands.
#define DIMGRAPH_LOGICAL_OP(DECL, NAME, FUNCTOR)                                                 \
  template <class A, class B>                                                                    \
    requires detail::binary_operands<A, B>                                                       \
  auto DECL(A&& a, B&& b) {                                                                      \
    constexpr bool nest = detail::dims_nest<A, B>();                                             \
    constexpr bool bools = std::is_same_v<detail::operand_elem_t<A>, bool> &&                    \
                           std::is_same_v<detail::operand_elem_t<B>, bool>;                      \
    static_assert(nest,                                                                          \
                  "dimgraph: " NAME                                                              \
                  ": neither operand's dims contain the other's (an implicit outer broadcast)"); \
    static_assert(!nest || bools, "dimgraph: " NAME ": the operands must be bool");              \
    if constexpr (nest && bools)                                                                 \
      return detail::make_binary<FUNCTOR>(std::forward<A>(a), std::forward<B>(b));               \
    else return detail::invalid_expr{};                                                          \
  }
DIMGRAPH_LOGICAL_OP(logical_and, "logical_and", detail::fn::logical_and)
DIMGRAPH_LOGICAL_OP(logical_or, "logical_or", detail::fn::logical_or)
DIMGRAPH_LOGICAL_OP(logical_xor, "logical_xor", detail::fn::logical_xor)
#undef DIMGRAPH_LOGICAL_OP

template <expression X>
auto logical_not(X&& x) {
  static_assert(std::is_same_v<value_t<X>, bool>,
                "dimgraph: logical_not: the operand must be bool");
  return detail::make_map(detail::fn::logical_not{}, std::forward<X>(x));
}

// Element-wise unary ops. Shape rule: the operand's dims. Math functions of integers
// compute in float. Error: the op on dg::index<D> or bool.
#define DIMGRAPH_UNARY_OP(DECL, NAME, FUNCTOR)                                              \
  template <detail::poisoned X>                                                             \
  auto DECL(X&&) {                                                                          \
    return detail::invalid_expr{};                                                          \
  }                                                                                         \
  template <expression X>                                                                   \
  auto DECL(X&& x) {                                                                        \
    constexpr bool ok = !is_index_v<value_t<X>> && !std::is_same_v<value_t<X>, bool>;       \
    static_assert(ok, "dimgraph: " NAME ": the op makes no sense on dg::index<D> or bool"); \
    if constexpr (ok) return detail::make_map(FUNCTOR{}, std::forward<X>(x));               \
    else return detail::invalid_expr{};                                                     \
  }
DIMGRAPH_UNARY_OP(operator-, "neg", detail::fn::neg)
DIMGRAPH_UNARY_OP(abs, "abs", detail::fn::abs)
DIMGRAPH_UNARY_OP(exp, "exp", detail::fn::exp)
DIMGRAPH_UNARY_OP(log, "log", detail::fn::log)
DIMGRAPH_UNARY_OP(log1p, "log1p", detail::fn::log1p)
DIMGRAPH_UNARY_OP(sqrt, "sqrt", detail::fn::sqrt)
DIMGRAPH_UNARY_OP(rsqrt, "rsqrt", detail::fn::rsqrt)
DIMGRAPH_UNARY_OP(tanh, "tanh", detail::fn::tanh)
DIMGRAPH_UNARY_OP(sigmoid, "sigmoid", detail::fn::sigmoid)
DIMGRAPH_UNARY_OP(relu, "relu", detail::fn::relu)
DIMGRAPH_UNARY_OP(gelu, "gelu", detail::fn::gelu)
DIMGRAPH_UNARY_OP(sin, "sin", detail::fn::sin)
DIMGRAPH_UNARY_OP(cos, "cos", detail::fn::cos)
DIMGRAPH_UNARY_OP(floor, "floor", detail::fn::floor)
DIMGRAPH_UNARY_OP(ceil, "ceil", detail::fn::ceil)
#undef DIMGRAPH_UNARY_OP

// where(cond, a, b): a where cond holds, else b. Shape rule: as for binary ops, over
// three operands (one must contain the others' dims). Error: cond not bool.
template <class C, class A, class B>
  requires expression<C> && (expression<A> || scalar<A>) && (expression<B> || scalar<B>)
auto where(C&& c, A&& a, B&& b) {
  using la = detail::operand_dims_t<A>;
  using lb = detail::operand_dims_t<B>;
  constexpr bool nest = detail::containing_operand<dims_t<C>, la, lb>() != detail::no_operand;
  constexpr bool cond_bool = std::is_same_v<value_t<C>, bool>;
  static_assert(
      nest, "dimgraph: where: no operand's dims contain the others' (an implicit outer broadcast)");
  static_assert(!nest || cond_bool, "dimgraph: where: the condition must be bool");
  if constexpr (nest && cond_bool) {
    auto wrap = [](auto&& x, auto* other) -> decltype(auto) {
      using other_t = std::remove_pointer_t<decltype(other)>;
      return detail::as_operand<other_t>(std::forward<decltype(x)>(x));
    };
    if constexpr (expression<A> && expression<B>)
      return detail::make_map(detail::fn::select{}, std::forward<C>(c), std::forward<A>(a),
                              std::forward<B>(b));
    else if constexpr (expression<A>)
      return detail::make_map(
          detail::fn::select{}, std::forward<C>(c), std::forward<A>(a),
          wrap(std::forward<B>(b), static_cast<std::remove_cvref_t<A>*>(nullptr)));
    else if constexpr (expression<B>)
      return detail::make_map(
          detail::fn::select{}, std::forward<C>(c),
          wrap(std::forward<A>(a), static_cast<std::remove_cvref_t<B>*>(nullptr)),
          std::forward<B>(b));
    else
      return detail::make_map(
          detail::fn::select{}, std::forward<C>(c),
          scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, a},
          scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, b});
  } else {
    return detail::invalid_expr{};
  }
}

// cast<T>(x): x's elements converted to T (the explicit narrowing).
template <class T, expression X>
auto cast(X&& x) {
  static_assert(element<T>, "dimgraph: cast: the target is not an element type");
  return detail::make_map(detail::fn::cast_to<T>{}, std::forward<X>(x));
}

// map(f, xs...): a user function applied element by element (fused like any other op).
// Shape rule: as for where. Error: no operand contains the others' dims.
template <class F, expression... Xs>
auto map(F f, Xs&&... xs) {
  constexpr bool nest = detail::containing_operand<dims_t<Xs>...>() != detail::no_operand;
  static_assert(
      nest, "dimgraph: map: no operand's dims contain the others' (an implicit outer broadcast)");
  if constexpr (nest)
    return detail::make_map(detail::fn::user<F>{std::move(f)}, std::forward<Xs>(xs)...);
  else return detail::invalid_expr{};
}

}  // namespace dimgraph
// ---- end dimgraph/expr/ops.hpp
// ---- begin dimgraph/expr/broadcast.hpp
// broadcast_to and outer: the explicit ways to combine operands whose dims do not nest.



namespace dimgraph {

// x read as a tensor with dims Ds... (a superset of x's dims, in any order); the new
// dims repeat x (stride 0: never materialised). Extents of new non-static dims are given.
template <class X, class... Ds>
class broadcast_expr : public expr_node_base {
 public:
  using dims = dim_list<Ds...>;
  using value_type = value_t<X>;

  template <class Arg>
  broadcast_expr(Arg&& x, const std::array<std::size_t, sizeof...(Ds)>& new_extents)
      : x_(std::forward<Arg>(x)), extents_(new_extents) {}

  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (list_contains_v<dims_t<X>, d>) return x_.template extent<d>();
    else return extents_[list_index_of_v<dims, d>];
  }
  const std::remove_cvref_t<X>& operand() const { return x_; }

 private:
  X x_;
  std::array<std::size_t, sizeof...(Ds)> extents_;
};

// broadcast_to<Ds...>(x, dg::extent<New>(n)...): Shape rule [x dims] -> [Ds...].
// Error: Ds... lacks one of x's dims; a new non-static dim without an extent.
template <class... Ds, expression X, class... Es>
auto broadcast_to(X&& x, extent_arg<Es>... given) {
  using xd = dims_t<X>;
  static_assert(list_is_subset_v<xd, dim_list<Ds...>>,
                "dimgraph: broadcast_to: the target dims must include every dim of the operand");
  static_assert(
      ((is_static_v<Ds> || list_contains_v<xd, Ds> ||
        detail::contains_v<Ds, detail::type_list<Es...>>)&&...),
      "dimgraph: broadcast_to: a new non-static dim needs its extent: dg::extent<Dim>(n)");
  std::array<std::size_t, sizeof...(Ds)> ext{bounds_v<Ds>.lo...};
  ((ext[list_index_of_v<dim_list<Ds...>, Es>] =
        detail::checked_extent<Es>("broadcast_to", given.value)),
   ...);
  return broadcast_expr<operand_t<X&&>, Ds...>(std::forward<X>(x), ext);
}

// outer(a, b, f = multiply): f over every pair of elements of a and b aligned by the
// dims they share. Shape rule: [a dims] , [b dims] -> [a dims, b dims not in a].
template <expression A, expression B, class F = detail::fn::mul>
auto outer(A&& a, B&& b, F f = {}) {
  using result_dims = list_union_t<dims_t<A>, dims_t<B>>;
  return map_expr<F, result_dims, operand_t<A&&>, operand_t<B&&>>(std::move(f), std::forward<A>(a),
                                                                  std::forward<B>(b));
}

}  // namespace dimgraph
// ---- end dimgraph/expr/broadcast.hpp
// ---- begin dimgraph/expr/reshape.hpp
// Views that re-describe a tensor's memory: rename, split, split_dims, slice (no loops, no copies).



// Each op returns a tensor_view of its operand's memory, so the operand must be a tensor
// or a view and must outlive the result: a temporary tensor is rejected (its view would
// dangle); dg::eval a lazy expression first.

namespace dimgraph {
namespace detail {

template <class P, class List>
struct view_of_list;
template <class P, class... Ds>
struct view_of_list<P, type_list<Ds...>> {
  using type = tensor_view<P, Ds...>;
};
// The view of elements P (possibly const) with the dims in List.
template <class P, class List>
using view_of_list_t = typename view_of_list<P, List>::type;

template <class T, class List>
struct tensor_of_list;
template <class T, class... Ds>
struct tensor_of_list<T, type_list<Ds...>> {
  using type = tensor<T, Ds...>;
};
// The tensor of elements T with the dims in List.
template <class T, class List>
using tensor_of_list_t = typename tensor_of_list<T, List>::type;

// The element type a view of x has (const for a const tensor).
template <class X>
using view_element_t = std::remove_pointer_t<decltype(std::declval<X&>().data())>;

// A view of x's memory with the dims at positions [K, K + Span) replaced by News...,
// whose extents and strides are given, starting `offset` elements in. The extents are
// checked against the new dims' intervals (shape_error naming op).
template <std::size_t K, std::size_t Span, class... News, class X>
auto spliced_view(X& x, const char* op, std::ptrdiff_t offset,
                  const std::array<std::size_t, sizeof...(News)>& ext,
                  const std::array<std::ptrdiff_t, sizeof...(News)>& str) {
  using dims = types_of_t<typename std::remove_cvref_t<X>::dims>;
  constexpr std::size_t r = dims::size, m = sizeof...(News), n = r - Span + m;
  using view_t =
      view_of_list_t<view_element_t<X>,
                     concat_t<slice_t<0, K, dims>, type_list<News...>, slice_t<K + Span, r, dims>>>;
  std::array<std::size_t, n> e{};
  std::array<std::ptrdiff_t, n> s{};
  for (std::size_t i = 0; i < n; ++i) {
    const bool is_new = i >= K && i < K + m;
    const std::size_t from = i < K ? i : i - m + Span;
    e[i] = is_new ? ext[i - K] : x.shape().extent(from);
    s[i] = is_new ? str[i - K] : x.strides()[from];
  }
  // (An empty operand may have no memory at all: no offset from its null pointer.)
  return view_t(x.data() + (x.size() == 0 ? 0 : offset), view_t::shape_type::from_extents(e, op),
                s);
}

// The same with the dim Old replaced.
template <class Old, class... News, class X>
auto replaced_view(X& x, const char* op, std::ptrdiff_t offset,
                   const std::array<std::size_t, sizeof...(News)>& ext,
                   const std::array<std::ptrdiff_t, sizeof...(News)>& str) {
  return spliced_view<list_index_of_v<typename std::remove_cvref_t<X>::dims, Old>, 1, News...>(
      x, op, offset, ext, str);
}

// Why a structural op rejects its operands (checked in this order: one message per mistake).
enum class structural_check {
  ok,
  not_memory,      // a lazy expression where a view is made
  temporary,       // a temporary tensor where a view is made
  no_such_dim,     // the operand lacks the dim the op works on
  dim_present,     // a dim the op makes is already one of the operand's other dims
  same_parts,      // split_dims / merge_dims of a dim with itself
  sizes_differ,    // rename between static dims of different sizes
  sizes_disjoint,  // rename between dims whose intervals are disjoint
  bad_extent_arg,  // an extent given for a dim that is not a part, or twice
  too_many_unknown,
  zero_stride,
  not_index,
  other_dims_differ,
  no_common_type,
};

template <class X>
constexpr structural_check check_view_operand() {
  using x = std::remove_cvref_t<X>;
  if (!is_tensor_v<x> && !is_view_v<x>) return structural_check::not_memory;
  if (is_tensor_v<x> && !std::is_lvalue_reference_v<X>) return structural_check::temporary;
  return structural_check::ok;
}

template <class Old, class New, class X>
constexpr structural_check check_rename() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, Old>) return structural_check::no_such_dim;
    if (!std::is_same_v<Old, New> && list_contains_v<dims, New>)
      return structural_check::dim_present;
    if (check_rename_sizes<Old, New>() == rename_sizes::different_static_sizes)
      return structural_check::sizes_differ;
    if (check_rename_sizes<Old, New>() == rename_sizes::disjoint)
      return structural_check::sizes_disjoint;
    return structural_check::ok;
  }
}

// Extents given by tag for some of the parts Parts...: each for a part, none twice.
template <class... Es, class... Parts>
constexpr bool extent_args_fit(type_list<Es...>, type_list<Parts...>) {
  return (contains_v<Es, type_list<Parts...>> && ...) &&
         first_duplicate_v<type_list<Es...>> == sizeof...(Es);
}
// Parts known from their static size or a given extent.
template <class Part, class... Es>
inline constexpr bool part_known_v = is_static_v<Part> || contains_v<Part, type_list<Es...>>;
// The number of different parts whose extent is not known.
template <class... Parts, class... Es>
constexpr std::size_t unknown_parts(type_list<Parts...>, type_list<Es...>) {
  constexpr bool unknown[] = {!part_known_v<Parts, Es...>..., false};
  constexpr std::size_t first[] = {index_of_v<Parts, type_list<Parts...>>..., 0};
  std::size_t n = 0;
  for (std::size_t i = 0; i < sizeof...(Parts); ++i) n += unknown[i] && first[i] == i;
  return n;
}
// The parts' extents: static sizes and given ones, with which are known.
template <class... Parts, class... Es>
std::pair<std::array<std::size_t, sizeof...(Parts)>, std::array<bool, sizeof...(Parts)>>
part_extents(type_list<Parts...>, extent_arg<Es>... given) {
  return {{given_extent<Parts>(given...)...}, {part_known_v<Parts, Es...>...}};
}

template <class Whole, class Parts, class Given, class X>
constexpr structural_check check_split() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    using others = list_difference_t<dims, dim_list<Whole>>;
    if (!list_contains_v<dims, Whole>) return structural_check::no_such_dim;
    if ([]<class... Ps>(type_list<Ps...>) { return (list_contains_v<others, Ps> || ...); }(Parts{}))
      return structural_check::dim_present;
    if (!extent_args_fit(Given{}, Parts{})) return structural_check::bad_extent_arg;
    if (unknown_parts(Parts{}, Given{}) > 1) return structural_check::too_many_unknown;
    return structural_check::ok;
  }
}

template <class A, class B, class Given, class X>
constexpr structural_check check_split_dims() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    using whole = merge_dim_t<A, B>;
    using others = list_difference_t<dims, dim_list<whole>>;
    if (!list_contains_v<dims, whole>) return structural_check::no_such_dim;
    if (std::is_same_v<A, B>) return structural_check::same_parts;
    if (list_contains_v<others, A> || list_contains_v<others, B>)
      return structural_check::dim_present;
    if (!extent_args_fit(Given{}, type_list<A, B>{})) return structural_check::bad_extent_arg;
    if (unknown_parts(type_list<A, B>{}, Given{}) > 1) return structural_check::too_many_unknown;
    return structural_check::ok;
  }
}

template <class A, class Result, bool ZeroStride, class X>
constexpr structural_check check_slice() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A>) return structural_check::no_such_dim;
    if (ZeroStride) return structural_check::zero_stride;
    if (!std::is_same_v<Result, A> && list_contains_v<dims, Result>)
      return structural_check::dim_present;
    return structural_check::ok;
  }
}

// The slice of x along A as a view with dim R (the positions are checked by the caller).
template <class A, class R, class X>
auto slice_view(X& x, const slice_range& p) {
  const std::ptrdiff_t s = x.template stride<A>();
  return replaced_view<A, R>(x, "slice", static_cast<std::ptrdiff_t>(p.first) * s, {p.count},
                             {p.step * s});
}

}  // namespace detail

// One dim's name changed, in place: [.., old, ..] -> [.., new, ..] (a view).
// Errors (compile time): the tensor has no dim Old; New is already one of its dims; the
// dims have different static sizes; their size intervals are disjoint. Error (run time):
// Old's extent outside New's interval (shape_error).
template <dimension Old, dimension New, class X>
auto rename(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check =
        detail::check_rename<std::remove_cvref_t<Old>, std::remove_cvref_t<New>, X>();
    static_assert(
        check != check_t::not_memory,
        "dimgraph: rename: the operand must be a tensor or a view (dg::eval an expression first)");
    static_assert(
        check != check_t::temporary,
        "dimgraph: rename: a view of a temporary tensor would dangle; name the tensor first");
    static_assert(check != check_t::no_such_dim, "dimgraph: rename: the tensor has no such dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: rename: the new dim is already a dim of the tensor");
    static_assert(check != check_t::sizes_differ,
                  "dimgraph: rename: the dims have different static sizes");
    static_assert(check != check_t::sizes_disjoint,
                  "dimgraph: rename: the dims' size intervals are disjoint, no extent fits both");
    if constexpr (check == check_t::ok)
      return detail::replaced_view<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>(
          x, "rename", 0, {x.template extent<Old>()}, {x.template stride<Old>()});
    else return detail::invalid_expr{};
  }
}

// The parts of a concatenated dim, as views (the inverse of concat):
//   split<a, b>(z): [.., a + b, ..] -> ([.., a, ..], [.., b, ..])   (more parts alike)
// returned as a std::tuple (use structured bindings). The parts' extents add up to the
// whole's: static parts are known, one part may be left to take the rest, others are
// given with dg::extent<Part>(n). Errors (compile time): z has no dim a + b; a part is
// one of z's other dims; an extent given for a non-part or twice; more than one part
// of unknown extent. Error (run time): extents that do not add up (shape_error).
template <dimension... Parts, class X, class... Es>
auto split(X&& z, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using whole = concat_dim_t<Parts...>;
    constexpr auto check =
        detail::check_split<whole, detail::type_list<std::remove_cvref_t<Parts>...>,
                            detail::type_list<Es...>, X>();
    static_assert(
        check != check_t::not_memory,
        "dimgraph: split: the operand must be a tensor or a view (dg::eval an expression first)");
    static_assert(
        check != check_t::temporary,
        "dimgraph: split: a view of a temporary tensor would dangle; name the tensor first");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: split: the tensor has no dim that is the sum of the parts");
    static_assert(check != check_t::dim_present,
                  "dimgraph: split: a part is already another dim of the tensor");
    static_assert(check != check_t::bad_extent_arg,
                  "dimgraph: split: an extent is given for a dim that is not a part, or twice");
    static_assert(
        check != check_t::too_many_unknown,
        "dimgraph: split: more than one part has no static size; give the extents of all but one "
        "with dg::extent<Part>(n)");
    if constexpr (check == check_t::ok) {
      using parts = detail::type_list<std::remove_cvref_t<Parts>...>;
      auto [ext, known] = detail::part_extents(parts{}, given...);
      ext = detail::split_sum_extents<whole, std::remove_cvref_t<Parts>...>(
          "split", z.template extent<whole>(), ext, known);
      const std::ptrdiff_t s = z.template stride<whole>();
      return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
        std::array<std::ptrdiff_t, sizeof...(Parts)> offset{};
        for (std::size_t i = 1; i < sizeof...(Parts); ++i)
          offset[i] = offset[i - 1] + static_cast<std::ptrdiff_t>(ext[i - 1]) * s;
        return std::tuple{detail::replaced_view<whole, detail::at_t<Is, parts>>(
            z, "split", offset[Is], {ext[Is]}, {s})...};
      }(std::index_sequence_for<Parts...>{});
    } else {
      return detail::invalid_expr{};
    }
  }
}

// A merged dim as its two factors, in place (the inverse of merge_dims; a view):
//   split_dims<a, b>(x): [.., a * b, ..] -> [.., a, b, ..]
// One factor's extent gives the other's exactly: a static factor is known; otherwise
// give one, dg::split_dims<A, B>(x, dg::extent<A>(n)). Errors (compile time): x has no
// dim a * b; a == b; a factor is one of x's other dims; an extent given for a non-factor
// or twice; neither factor known. Error (run time): a factor's extent that does not
// divide the merged extent (shape_error).
template <dimension A, dimension B, class X, class... Es>
auto split_dims(X&& x, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using b = std::remove_cvref_t<B>;
    constexpr auto check = detail::check_split_dims<a, b, detail::type_list<Es...>, X>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: split_dims: the operand must be a tensor or a view (dg::eval an "
                  "expression first)");
    static_assert(
        check != check_t::temporary,
        "dimgraph: split_dims: a view of a temporary tensor would dangle; name the tensor first");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: split_dims: the tensor has no dim that is the product of the factors");
    static_assert(check != check_t::same_parts,
                  "dimgraph: split_dims: the two factors are the same dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: split_dims: a factor is already another dim of the tensor");
    static_assert(
        check != check_t::bad_extent_arg,
        "dimgraph: split_dims: an extent is given for a dim that is not a factor, or twice");
    static_assert(
        check != check_t::too_many_unknown,
        "dimgraph: split_dims: neither factor has a static size; give the extent of one with "
        "dg::extent<Factor>(n)");
    if constexpr (check == check_t::ok) {
      using whole = merge_dim_t<a, b>;
      auto [ext, known] = detail::part_extents(detail::type_list<a, b>{}, given...);
      ext = detail::split_product_extents<whole, a, b>("split_dims", x.template extent<whole>(),
                                                       ext, known);
      const std::ptrdiff_t s = x.template stride<whole>();
      return detail::replaced_view<whole, a, b>(x, "split_dims", 0, ext,
                                                {s * static_cast<std::ptrdiff_t>(ext[1]), s});
    } else {
      return detail::invalid_expr{};
    }
  }
}

// A slice along dim a with bounds known at compile time (a view), NumPy's rule (see
// slice_positions): negative bounds count from the end, end is exclusive, bounds beyond
// the ends are clamped, a negative stride reads backwards; dg::none leaves a bound open.
//   slice<a, start, end, stride>(x): [.., a, ..] -> [.., slice_dim_t<a, start, end, stride>, ..]
// The result dim is the algebra's where it can say it (slice<a, 2, -3> of a padded dim
// 2 + a + 3 is a itself; a static a gives a static size), else an opaque dim (see
// slice_dim_t). Errors (compile time): x has no dim a; stride 0; the result dim is
// already another dim of x.
template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Stride = 1,
          class X>
auto slice(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using result =
        slice_dim_t<a, Start, End, Stride == 0 ? 1 : Stride>;  // (unused when Stride is 0)
    constexpr auto check = detail::check_slice<a, result, Stride == 0, X>();
    static_assert(
        check != check_t::not_memory,
        "dimgraph: slice: the operand must be a tensor or a view (dg::eval an expression first)");
    static_assert(
        check != check_t::temporary,
        "dimgraph: slice: a view of a temporary tensor would dangle; name the tensor first");
    static_assert(check != check_t::no_such_dim, "dimgraph: slice: the tensor has no such dim");
    static_assert(check != check_t::zero_stride, "dimgraph: slice: the stride is 0");
    static_assert(check != check_t::dim_present,
                  "dimgraph: slice: the result dim is already another dim of the tensor");
    if constexpr (check == check_t::ok)
      return detail::slice_view<a, result>(
          x, slice_positions(x.template extent<a>(), Start, End, Stride));
    else return detail::invalid_expr{};
  }
}

// A slice along dim a with bounds known at run time (a view), by the same rule:
//   slice<a>(x, start, end, stride = 1): [.., a, ..] -> [.., sliced_dim<a>, ..]
// sliced_dim<a> has size [0, hi(a)] and is one dim for every run-time slice of a (rename
// it to tell two apart). Errors: x has no dim a (compile time); stride 0 (shape_error).
template <dimension A, class X>
auto slice(X&& x, slice_index start, slice_index end, std::ptrdiff_t stride = 1) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using result = sliced_dim<a>;
    constexpr auto check = detail::check_slice<a, result, false, X>();
    static_assert(
        check != check_t::not_memory,
        "dimgraph: slice: the operand must be a tensor or a view (dg::eval an expression first)");
    static_assert(
        check != check_t::temporary,
        "dimgraph: slice: a view of a temporary tensor would dangle; name the tensor first");
    static_assert(check != check_t::no_such_dim, "dimgraph: slice: the tensor has no such dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: slice: the result dim is already another dim of the tensor");
    if constexpr (check == check_t::ok) {
      if (stride == 0)
        throw shape_error("slice", "the stride along dim '" + describe<a>() + "' is 0");
      return detail::slice_view<a, result>(
          x, slice_positions(x.template extent<a>(), start, end, stride));
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/expr/reshape.hpp
// ---- begin dimgraph/expr/reduce.hpp
// Reductions over named dims: sum, mean, prod, max, min, any, all (lazy nodes).



namespace dimgraph {
namespace detail::fn {

// How a reduction starts (identity) and combines; Acc is the type it accumulates in.
// Sums and products of integers and bools accumulate in int64 (torch.sum's rule).
template <class T>
using sum_type_t = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;

struct sum_reduce {
  static constexpr const char* name = "sum";
  template <class T>
  using result = sum_type_t<T>;
  template <class Acc>
  static constexpr Acc identity() {
    return Acc(0);
  }
  template <class Acc, class V>
  static constexpr Acc combine(Acc a, V v) {
    return static_cast<Acc>(a + static_cast<Acc>(v));
  }
};
struct prod_reduce {
  static constexpr const char* name = "prod";
  template <class T>
  using result = sum_type_t<T>;
  template <class Acc>
  static constexpr Acc identity() {
    return Acc(1);
  }
  template <class Acc, class V>
  static constexpr Acc combine(Acc a, V v) {
    return static_cast<Acc>(a * static_cast<Acc>(v));
  }
};
// mean: a sum in the floating type, divided by the count afterwards.
struct mean_reduce : sum_reduce {
  static constexpr const char* name = "mean";
  template <class T>
  using result = std::conditional_t<std::is_floating_point_v<T>, T, float>;
};
struct max_reduce {
  static constexpr const char* name = "max";
  template <class T>
  using result = T;
  template <class Acc>
  static constexpr Acc identity() {
    if constexpr (std::numeric_limits<Acc>::has_infinity)
      return -std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::lowest();
  }
  template <class Acc, class V>
  static constexpr Acc combine(Acc a, V v) {
    return a < static_cast<Acc>(v) ? static_cast<Acc>(v) : a;
  }
};
struct min_reduce {
  static constexpr const char* name = "min";
  template <class T>
  using result = T;
  template <class Acc>
  static constexpr Acc identity() {
    if constexpr (std::numeric_limits<Acc>::has_infinity)
      return std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::max();
  }
  template <class Acc, class V>
  static constexpr Acc combine(Acc a, V v) {
    return static_cast<Acc>(v) < a ? static_cast<Acc>(v) : a;
  }
};
struct any_reduce {
  static constexpr const char* name = "any";
  template <class T>
  using result = bool;
  template <class Acc>
  static constexpr Acc identity() {
    return false;
  }
  template <class Acc, class V>
  static constexpr Acc combine(Acc a, V v) {
    return a || static_cast<bool>(v);
  }
};
struct all_reduce {
  static constexpr const char* name = "all";
  template <class T>
  using result = bool;
  template <class Acc>
  static constexpr Acc identity() {
    return true;
  }
  template <class Acc, class V>
  static constexpr Acc combine(Acc a, V v) {
    return a && static_cast<bool>(v);
  }
};

}  // namespace detail::fn

// Op over the dims Rs... of X. Shape rule: [x dims] -> [x dims without Rs...], in x's order.
template <class Op, class X, class... Rs>
class reduce_expr : public expr_node_base {
 public:
  using reduced = dim_list<Rs...>;
  using dims = list_difference_t<dims_t<X>, reduced>;
  using value_type = typename Op::template result<value_t<X>>;
  using op = Op;

  template <class Arg>
  explicit reduce_expr(Arg&& x) : x_(std::forward<Arg>(x)) {}

  template <class D>
  std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return x_.template extent<D>();
  }
  const std::remove_cvref_t<X>& source() const { return x_; }
  // The number of elements reduced into each result element.
  std::size_t count() const { return (std::size_t{1} * ... * x_.template extent<Rs>()); }

 private:
  X x_;
};

// The public reductions. Error (compile time): a reduced dim the tensor does not have,
// a dim given twice, or the op on dg::index<D> (any/all: on a non-bool).
#define DIMGRAPH_REDUCTION(NAME, OP, ALLOWED, WHAT)                                 \
  template <class... Rs, expression X>                                              \
  auto NAME(X&& x) {                                                                \
    constexpr bool has = (list_contains_v<dims_t<X>, Rs> && ...);                   \
    constexpr bool distinct =                                                       \
        detail::first_duplicate_v<detail::type_list<Rs...>> == sizeof...(Rs);       \
    constexpr bool allowed = ALLOWED;                                               \
    static_assert(has, "dimgraph: " #NAME ": the tensor has no such dim");          \
    static_assert(!has || distinct, "dimgraph: " #NAME ": a dim is reduced twice"); \
    static_assert(!has || !distinct || allowed, "dimgraph: " #NAME ": " WHAT);      \
    if constexpr (has && distinct && allowed)                                       \
      return reduce_expr<OP, operand_t<X&&>, Rs...>(std::forward<X>(x));            \
    else return detail::invalid_expr{};                                             \
  }
#define DIMGRAPH_NUMERIC (!is_index_v<value_t<X>>)
#define DIMGRAPH_BOOLEAN (std::is_same_v<value_t<X>, bool>)
DIMGRAPH_REDUCTION(sum, detail::fn::sum_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(prod, detail::fn::prod_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(mean, detail::fn::mean_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(max, detail::fn::max_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(min, detail::fn::min_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(any, detail::fn::any_reduce, DIMGRAPH_BOOLEAN, "the operand must be bool")
DIMGRAPH_REDUCTION(all, detail::fn::all_reduce, DIMGRAPH_BOOLEAN, "the operand must be bool")
#undef DIMGRAPH_NUMERIC
#undef DIMGRAPH_BOOLEAN
#undef DIMGRAPH_REDUCTION

}  // namespace dimgraph
// ---- end dimgraph/expr/reduce.hpp
// ---- begin dimgraph/expr/contract.hpp
// dot<Ks...>(a, b): contraction over named shared dims (an einsum by tags).



namespace dimgraph {

// sum over Ks... of a * b, aligned by tag. Dims in both operands but not in Ks...
// are batch dims (aligned, kept once). Shape rule:
//   [a dims] . [b dims] -> [a dims without Ks..., then b's other dims without Ks...]
// It is the reduction of the operands' outer product, evaluated without forming it:
// the loop nest runs over all dims and accumulates into the result (GEMM as rank-1
// updates with the result's last dim innermost; GEMV as one dot product per row).
// Error (compile time): an operand lacks a contracted dim; a dim contracted twice.
template <class... Ks, expression A, expression B>
auto dot(A&& a, B&& b) {
  constexpr bool in_a = (list_contains_v<dims_t<A>, Ks> && ...);
  constexpr bool in_b = (list_contains_v<dims_t<B>, Ks> && ...);
  constexpr bool distinct = detail::first_duplicate_v<detail::type_list<Ks...>> == sizeof...(Ks);
  static_assert(in_a && in_b, "dimgraph: dot: an operand does not have a contracted dim");
  static_assert(!(in_a && in_b) || distinct, "dimgraph: dot: a dim is contracted twice");
  if constexpr (in_a && in_b && distinct) {
    constexpr bool numbers = !is_index_v<value_t<A>> && !is_index_v<value_t<B>>;
    static_assert(numbers, "dimgraph: dot: the op makes no sense on dg::index<D>");
    return sum<Ks...>(outer(std::forward<A>(a), std::forward<B>(b)));
  } else {
    return detail::invalid_expr{};
  }
}

}  // namespace dimgraph
// ---- end dimgraph/expr/contract.hpp

// ---- begin dimgraph/eval/plan.hpp
// loop_plan: the loop nest of an element-wise assignment (reordered, coalesced).


namespace dimgraph {

// The loops that run an assignment over R dims with N operands (operand 0 is the
// output). Levels are outermost first; the last level is the inner loop. Built the
// way ATen's TensorIterator builds its loops: dims of extent 1 are dropped, outer
// dims are ordered by the output's strides (largest outermost), and neighbouring
// levels are coalesced into one where every operand steps through them as through
// one dim (stride[outer] == stride[inner] * extent[inner]). The inner loop is always
// the output's last dim (the one each operand's inner-stride kind was decided for at
// compile time), extended by coalescing.
template <std::size_t R, std::size_t N>
struct loop_plan {
  std::size_t depth = 0;  // number of levels; 0 when there is nothing to do
  std::array<std::size_t, R> extent{};
  std::array<std::array<std::ptrdiff_t, R>, N> stride{};

  constexpr std::size_t inner_extent() const { return extent[depth - 1]; }
  constexpr std::ptrdiff_t inner_stride(std::size_t op) const { return stride[op][depth - 1]; }
  constexpr std::size_t elements() const {
    std::size_t n = depth ? 1 : 0;
    for (std::size_t k = 0; k < depth; ++k) n *= extent[k];
    return n;
  }
};

namespace detail {

constexpr std::ptrdiff_t magnitude(std::ptrdiff_t s) {
  return s < 0 ? -s : s;
}

// ext: the output's extents; strides[op][d]: operand op's stride along output dim d.
template <std::size_t R, std::size_t N>
constexpr loop_plan<R, N> make_loop_plan(
    const std::array<std::size_t, R>& ext,
    const std::array<std::array<std::ptrdiff_t, R>, N>& strides) {
  loop_plan<R, N> p;
  if constexpr (R == 0) {
    return p;  // a rank-0 assignment is one element; the executor handles it
  } else {
    for (std::size_t d = 0; d < R; ++d)
      if (ext[d] == 0) return p;  // nothing to do
    // Outer dims (all but the last), extent-1 dims dropped, ordered by output stride.
    std::array<std::size_t, R> order{};
    std::size_t n_outer = 0;
    for (std::size_t d = 0; d + 1 < R; ++d)
      if (ext[d] != 1) order[n_outer++] = d;
    for (std::size_t i = 1; i < n_outer; ++i)  // stable insertion sort, largest stride first
      for (std::size_t j = i;
           j > 0 && magnitude(strides[0][order[j - 1]]) < magnitude(strides[0][order[j]]); --j) {
        std::size_t t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    order[n_outer] = R - 1;
    const std::size_t levels = n_outer + 1;
    // Coalesce from the inner end outwards.
    std::array<std::size_t, R> e{};
    std::array<std::array<std::ptrdiff_t, R>, N> s{};
    std::size_t out = R;  // filled from the back
    for (std::size_t l = levels; l-- > 0;) {
      const std::size_t d = order[l];
      bool merge = out < R;
      for (std::size_t op = 0; merge && op < N; ++op)
        merge = strides[op][d] == s[op][out] * static_cast<std::ptrdiff_t>(e[out]);
      if (merge) {
        e[out] *= ext[d];
      } else {
        --out;
        e[out] = ext[d];
        for (std::size_t op = 0; op < N; ++op) s[op][out] = strides[op][d];
      }
    }
    p.depth = R - out;
    for (std::size_t k = 0; k < p.depth; ++k) {
      p.extent[k] = e[out + k];
      for (std::size_t op = 0; op < N; ++op) p.stride[op][k] = s[op][out + k];
    }
    return p;
  }
}

}  // namespace detail

// The plan as text, for tests and debugging: "2 loops: [4096 x 512]; strides out {512, 1}, in1 {0,
// 1}".
template <std::size_t R, std::size_t N>
std::string to_string(const loop_plan<R, N>& p) {
  std::string s = std::to_string(p.depth) + (p.depth == 1 ? " loop: [" : " loops: [");
  for (std::size_t k = 0; k < p.depth; ++k) s += (k ? " x " : "") + std::to_string(p.extent[k]);
  s += "]; strides";
  for (std::size_t op = 0; op < N; ++op) {
    s += op ? ", in" + std::to_string(op) + " {" : " out {";
    for (std::size_t k = 0; k < p.depth; ++k)
      s += (k ? ", " : "") + std::to_string(p.stride[op][k]);
    s += "}";
  }
  return s;
}

}  // namespace dimgraph
// ---- end dimgraph/eval/plan.hpp
// ---- begin dimgraph/eval/cursor.hpp
// Cursors: an expression flattened into loads from leaf pointers, for the loop executor.



namespace dimgraph::detail {

// How a leaf steps along the inner loop, decided at compile time from its type:
// an owning tensor whose last dim is the output's last dim steps by 1; a leaf
// without that dim does not step (broadcast); anything else steps by a run-time stride.
enum class stride_kind { unit, zero, dynamic };

template <class L>
inline constexpr bool is_leaf_v =
    is_tensor_v<std::remove_cvref_t<L>> || is_view_v<std::remove_cvref_t<L>>;

// The number of memory leaves (tensors and views) in an expression, in visiting order.
template <class E>
struct leaf_count : std::integral_constant<std::size_t, 1> {};  // a tensor or view
template <class T>
struct leaf_count<scalar_expr<T>> : std::integral_constant<std::size_t, 0> {};
template <class F, class Dims, class... Ops>
struct leaf_count<map_expr<F, Dims, Ops...>>
    : std::integral_constant<std::size_t, (leaf_count<std::remove_cvref_t<Ops>>::value + ... + 0)> {
};
template <class X, class... Ds>
struct leaf_count<broadcast_expr<X, Ds...>> : leaf_count<std::remove_cvref_t<X>> {};
template <class E>
inline constexpr std::size_t leaf_count_v = leaf_count<std::remove_cvref_t<E>>::value;

template <class L, class Inner>
constexpr stride_kind kind_of_leaf() {
  using l = std::remove_cvref_t<L>;
  if constexpr (!list_contains_v<typename l::dims, Inner>) return stride_kind::zero;
  else if constexpr (is_tensor_v<l> && std::is_same_v<back_t<types_of_t<typename l::dims>>, Inner>)
    return stride_kind::unit;
  else return stride_kind::dynamic;
}

// A leaf at the start of an inner row.
template <class T, stride_kind K, bool AssumeUnit>
struct leaf_row {
  const T* p;
  std::ptrdiff_t s;
  DIMGRAPH_ALWAYS_INLINE T load(std::size_t i) const {
    if constexpr (K == stride_kind::zero) return *p;
    else if constexpr (K == stride_kind::unit || AssumeUnit) return p[i];
    else return p[static_cast<std::ptrdiff_t>(i) * s];
  }
};
template <class T>
struct scalar_row {
  T v;
  DIMGRAPH_ALWAYS_INLINE T load(std::size_t) const { return v; }
};
template <class F, class... Rows>
struct map_row {
  const F* f;
  std::tuple<Rows...> rows;
  DIMGRAPH_ALWAYS_INLINE auto load(std::size_t i) const {
    return std::apply([&](const Rows&... r) DIMGRAPH_ALWAYS_INLINE { return (*f)(r.load(i)...); },
                      rows);
  }
};

// Cursors hold base pointers; row(offsets, strides) positions them at a row.
template <class T, stride_kind K, std::size_t I>
struct leaf_cursor {
  const T* base;
  static constexpr stride_kind kind = K;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>& off,
                                  const std::array<std::ptrdiff_t, N>& inner) const {
    return leaf_row<T, K, AssumeUnit>{base + off[I], inner[I]};
  }
};
template <class T>
struct scalar_cursor {
  T v;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>&,
                                  const std::array<std::ptrdiff_t, N>&) const {
    return scalar_row<T>{v};
  }
};
template <class F, class... Cs>
struct map_cursor {
  const F* f;
  std::tuple<Cs...> children;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>& off,
                                  const std::array<std::ptrdiff_t, N>& inner) const {
    return std::apply(
        [&](const Cs&... c) DIMGRAPH_ALWAYS_INLINE {
          return map_row<F, decltype(c.template row<AssumeUnit>(off, inner))...>{
              f, {c.template row<AssumeUnit>(off, inner)...}};
        },
        children);
  }
};

// (Out of line and cold, so that the checks cost a few compares in the hot path.)
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_partial_overlap(std::size_t operand) {
  throw overlap_error("assign",
                      "operand " + std::to_string(operand) +
                          " partially overlaps the output (same memory, different element order); "
                          "evaluate it into a new tensor first");
}

// f(element&) for every element of a tensor or view (any strides; not a hot path).
template <class X, class F>
void for_each_element(X& x, F f) {
  constexpr std::size_t rank = std::remove_cvref_t<X>::rank;
  auto* base = x.data();
  if constexpr (rank == 0) {
    f(*base);
  } else {
    const auto ext = x.shape().extents();
    const auto& str = x.strides();
    if (x.size() == 0) return;
    std::array<std::size_t, rank> idx{};
    std::ptrdiff_t off = 0;
    for (;;) {
      for (std::size_t i = 0; i < ext[rank - 1]; ++i)
        f(base[off + static_cast<std::ptrdiff_t>(i) * str[rank - 1]]);
      std::size_t k = rank - 1;
      for (;;) {
        if (k == 0) return;
        --k;
        off += str[k];
        if (++idx[k] < ext[k]) break;
        off -= str[k] * static_cast<std::ptrdiff_t>(ext[k]);
        idx[k] = 0;
      }
    }
  }
}

// A reduction used as an operand is evaluated first (declared here, defined with the
// assignment machinery in eval/assign.hpp).
template <class E>
auto materialize(const E& e);

// A leaf that owns its memory: a materialised node (heap, so the address is stable).
template <class Tensor, stride_kind K, std::size_t I>
struct owned_leaf_cursor {
  std::unique_ptr<Tensor> owned;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>& off,
                                  const std::array<std::ptrdiff_t, N>& inner) const {
    return leaf_row<typename Tensor::value_type, K, AssumeUnit>{owned->data() + off[I], inner[I]};
  }
};

// What the planner needs of each leaf: its strides along the output's dims, and the
// memory it spans (for the overlap check).
template <std::size_t R>
struct leaf_info {
  const void* data = nullptr;
  std::array<std::ptrdiff_t, R> strides{};
  const char* lo = nullptr;  // first and one-past-last byte touched
  const char* hi = nullptr;
};

// The bytes [lo, hi) that a strided tensor touches (empty for 0 elements).
template <class X>
std::pair<const char*, const char*> memory_span(const X& x) {
  using value = std::remove_const_t<std::remove_pointer_t<decltype(x.data())>>;
  const char* base = reinterpret_cast<const char*>(x.data());
  std::ptrdiff_t lo = 0, hi = 0;
  const auto ext = x.shape().extents();
  for (std::size_t d = 0; d < ext.size(); ++d) {
    if (ext[d] == 0) return {base, base};
    std::ptrdiff_t span = x.strides()[d] * static_cast<std::ptrdiff_t>(ext[d] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo * static_cast<std::ptrdiff_t>(sizeof(value)),
          base + (hi + 1) * static_cast<std::ptrdiff_t>(sizeof(value))};
}

// The strides of leaf E along OutDims (0 where E lacks the dim).
template <class OutDims, class E>
std::array<std::ptrdiff_t, OutDims::size> strides_along(const E& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return std::array<std::ptrdiff_t, OutDims::size>{[&] {
      if constexpr (list_contains_v<typename E::dims, Ds>) return e.template stride<Ds>();
      else return std::ptrdiff_t{0};
    }()...};
  }(static_cast<OutDims*>(nullptr));
}

// Builds the cursor of e for output dims OutDims, filling infos[I...] for its leaves
// (only their data pointers when Light: the static path knows the rest at compile time).
template <class OutDims, std::size_t I, bool Light = false, class E, std::size_t R, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline auto build_cursor(const E& e, std::array<leaf_info<R>, N>& infos) {
  using inner = back_t<types_of_t<OutDims>>;
  if constexpr (is_leaf_v<E>) {
    using value = typename E::value_type;
    leaf_info<R>& info = infos[I];
    info.data = e.data();
    if constexpr (!Light) {
      info.strides = strides_along<OutDims>(e);
      std::tie(info.lo, info.hi) = memory_span(e);
    }
    return leaf_cursor<value, kind_of_leaf<E, inner>(), I>{e.data()};
  } else if constexpr (requires { e.value; }) {
    return scalar_cursor<typename E::value_type>{e.value};
  } else if constexpr (requires { e.source(); }) {
    using owned_t = decltype(materialize(e));
    auto owned = std::make_unique<owned_t>(materialize(e));
    leaf_info<R>& info = infos[I];
    info.data = owned->data();
    info.strides = strides_along<OutDims>(*owned);
    std::tie(info.lo, info.hi) = memory_span(*owned);
    return owned_leaf_cursor<owned_t, kind_of_leaf<owned_t, inner>(), I>{std::move(owned)};
  } else if constexpr (requires { e.operand(); }) {
    return build_cursor<OutDims, I, Light>(e.operand(), infos);
  } else {
    return build_children<OutDims, I, Light>(
        e, infos,
        std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(e.operands())>>>{});
  }
}
template <class Tuple, std::size_t K>
constexpr std::size_t leaves_before() {
  return [&]<std::size_t... Js>(std::index_sequence<Js...>) {
    return (leaf_count_v<std::tuple_element_t<Js, Tuple>> + ... + 0);
  }(std::make_index_sequence<K>{});
}

template <class OutDims, std::size_t I, bool Light, class E, std::size_t R, std::size_t N,
          std::size_t... Ks>
DIMGRAPH_ALWAYS_INLINE inline auto build_children(const E& e, std::array<leaf_info<R>, N>& infos,
                                                  std::index_sequence<Ks...>) {
  using ops = std::remove_cvref_t<decltype(e.operands())>;
  using fn = std::remove_cvref_t<decltype(e.fn())>;
  return map_cursor<fn, decltype(build_cursor<OutDims, I + leaves_before<ops, Ks>(), Light>(
                            std::get<Ks>(e.operands()), infos))...>{
      &e.fn(),
      {build_cursor<OutDims, I + leaves_before<ops, Ks>(), Light>(std::get<Ks>(e.operands()),
                                                                  infos)...}};
}

// Whether every stride and extent of out = e is known at compile time: the output and
// every leaf are all-static owning tensors (then the loop plan is a constant).
template <class E>
struct static_layout : std::false_type {};
template <class T, class... Ds>
struct static_layout<tensor<T, Ds...>> : std::bool_constant<tensor<T, Ds...>::is_static> {};
template <class T>
struct static_layout<scalar_expr<T>> : std::true_type {};
template <class F, class Dims, class... Ops>
struct static_layout<map_expr<F, Dims, Ops...>>
    : std::bool_constant<(static_layout<std::remove_cvref_t<Ops>>::value && ...)> {};
template <class X, class... Ds>
struct static_layout<broadcast_expr<X, Ds...>>
    : std::bool_constant<static_layout<std::remove_cvref_t<X>>::value && (is_static_v<Ds> && ...)> {
};

// The static strides of every leaf of E along OutDims, from index I on.
template <class OutDims, std::size_t I, class E, std::size_t N>
constexpr void static_strides(std::array<std::array<std::ptrdiff_t, OutDims::size>, N>& out,
                              std::array<std::size_t, N>& bytes) {
  if constexpr (is_tensor_v<E>) {
    bytes[I] = typename E::shape_type{}.size() * sizeof(typename E::value_type);
    [&]<class... Ls, class... Ds>(dim_list<Ls...>*, dim_list<Ds...>*) {
      constexpr auto own = row_major_strides<sizeof...(Ls)>({static_size_v<Ls>...});
      std::size_t d = 0;
      ((out[I][d++] =
            [&] {
              if constexpr (list_contains_v<dim_list<Ls...>, Ds>)
                return own[list_index_of_v<dim_list<Ls...>, Ds>];
              else return std::ptrdiff_t{0};
            }()),
       ...);
    }(static_cast<typename E::dims*>(nullptr), static_cast<OutDims*>(nullptr));
  } else if constexpr (requires {
                         typename E::value_type;
                         std::declval<E>().value;
                       }) {
  } else if constexpr (requires { std::declval<E>().operand(); }) {
    static_strides<OutDims, I, std::remove_cvref_t<decltype(std::declval<E>().operand())>>(out,
                                                                                           bytes);
  } else {
    using ops = std::remove_cvref_t<decltype(std::declval<E>().operands())>;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (static_strides<OutDims, I + leaves_before<ops, Ks>(),
                      std::remove_cvref_t<std::tuple_element_t<Ks, ops>>>(out, bytes),
       ...);
    }(std::make_index_sequence<std::tuple_size_v<ops>>{});
  }
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/cursor.hpp
// ---- begin dimgraph/eval/reduce.hpp
// Evaluation of reductions: one pass over the input, accumulating into the output.



namespace dimgraph::detail {

template <class E>
inline constexpr bool is_reduce_v = false;
template <class Op, class X, class... Rs>
inline constexpr bool is_reduce_v<reduce_expr<Op, X, Rs...>> = true;

// The loop nest runs over the input's dims; the output steps with stride 0 along the
// reduced dims. Per row: when the output does not step (the reduced dim is the inner
// one) the row is folded into one accumulator; otherwise each output element takes
// the matching input element (a vertical reduction, vectorised like an element-wise op).
template <class Op, bool AssumeUnit, class Acc, class Cursor, std::size_t R, std::size_t N>
void run_reduce(Acc* out, const Cursor& c, const loop_plan<R, N>& p) {
  if constexpr (R == 0) {
    std::array<std::ptrdiff_t, N> zero{};
    *out = Op::combine(*out, c.template row<AssumeUnit>(zero, zero).load(0));
  } else {
    if (p.depth == 0) return;
    const std::size_t n = p.inner_extent();
    std::array<std::ptrdiff_t, N> inner{};
    for (std::size_t op = 0; op < N; ++op) inner[op] = p.inner_stride(op);
    const std::ptrdiff_t os = inner[0];
    std::array<std::ptrdiff_t, N> off{};
    std::array<std::size_t, R> idx{};
    for (;;) {
      Acc* o = out + off[0];
      const auto row = c.template row<AssumeUnit>(off, inner);
      if (os == 0) {
        Acc a = *o;
        for (std::size_t i = 0; i < n; ++i) a = Op::combine(a, row.load(i));
        *o = a;
      } else if (AssumeUnit) {
        for (std::size_t i = 0; i < n; ++i) o[i] = Op::combine(o[i], row.load(i));
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          Acc& slot = o[static_cast<std::ptrdiff_t>(i) * os];
          slot = Op::combine(slot, row.load(i));
        }
      }
      std::size_t k = p.depth - 1;
      for (;;) {
        if (k == 0) return;
        --k;
        for (std::size_t op = 0; op < N; ++op) off[op] += p.stride[op][k];
        if (++idx[k] < p.extent[k]) break;
        for (std::size_t op = 0; op < N; ++op)
          off[op] -= p.stride[op][k] * static_cast<std::ptrdiff_t>(p.extent[k]);
        idx[k] = 0;
      }
    }
  }
}

// dst = reduction e (dst's extents already match e's). The output may not overlap the
// input at all (overlap_error), checked before the first write.
template <class Dst, class Op, class X, class... Rs>
void reduce_into(Dst& dst, const reduce_expr<Op, X, Rs...>& e) {
  using xdims = dims_t<X>;
  using acc = typename std::remove_const_t<Dst>::value_type;
  constexpr std::size_t R = xdims::size;
  constexpr std::size_t N = leaf_count_v<X> + 1;
  const auto& x = e.source();

  std::array<leaf_info<R>, N> infos{};
  const auto cursor = build_cursor<xdims, 1>(x, infos);
  leaf_info<R>& out = infos[0];
  out.data = dst.data();
  out.strides = strides_along<xdims>(dst);  // 0 along the reduced dims
  std::tie(out.lo, out.hi) = memory_span(dst);
  for (std::size_t i = 1; i < N; ++i)
    if (out.lo != out.hi && infos[i].lo != infos[i].hi && infos[i].lo < out.hi &&
        out.lo < infos[i].hi)
      throw_partial_overlap(i);

  const auto ext = [&]<class... Ds>(dim_list<Ds...>*) {
    return std::array<std::size_t, R>{x.template extent<Ds>()...};
  }(static_cast<xdims*>(nullptr));
  std::array<std::array<std::ptrdiff_t, R>, N> strides{};
  for (std::size_t op = 0; op < N; ++op) strides[op] = infos[op].strides;
  const auto plan = make_loop_plan<R>(ext, strides);

  // Start from the identity, then fold the input in.
  for_each_element(dst, [](acc& v) { v = Op::template identity<acc>(); });
  bool unit = plan.depth > 0;
  for (std::size_t op = 1; op < N && unit; ++op)
    unit = plan.inner_stride(op) == 0 || plan.inner_stride(op) == 1;
  if (unit && (plan.depth == 0 || plan.inner_stride(0) == 0 || plan.inner_stride(0) == 1))
    run_reduce<Op, true>(dst.data(), cursor, plan);
  else run_reduce<Op, false>(dst.data(), cursor, plan);

  if constexpr (std::is_same_v<Op, fn::mean_reduce>) {
    const acc count = static_cast<acc>(e.count());
    for_each_element(dst, [count](acc& v) { v = v / count; });
  }
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/reduce.hpp
// ---- begin dimgraph/eval/assign.hpp
// Assignment of an expression to a tensor or view: checks, plan, and the fused loop.



// The overlap check has already run when an inner loop starts, so its iterations are independent.
// GCC is told so (ivdep drops its run-time alias checks). Clang is not: its "vectorize" hints turn
// every loop it cannot vectorise (a call to a scalar libm function, a gather) into a
// -Wpass-failed warning, and it vectorises the loops that matter on its own behind a cheap
// run-time alias check.
#if defined(__GNUC__) && !defined(__clang__)
#define DIMGRAPH_LOOP_INDEPENDENT _Pragma("GCC ivdep")
#else
#define DIMGRAPH_LOOP_INDEPENDENT
#endif

namespace dimgraph {
namespace detail {

template <class Dst, class E>
constexpr bool assign_dims_match() {
  return list_same_set_v<typename Dst::dims, dims_t<E>>;
}

// Compile-time checks of out = e, at the entry point (one message per mistake).
template <class Dst, class E>
constexpr bool check_assign() {
  constexpr bool dims_ok = assign_dims_match<Dst, E>();
  static_assert(dims_ok, "dimgraph: assign: the expression's dims are not the destination's dims");
  constexpr bool narrowing = dims_ok && is_narrowing_v<value_t<E>, typename Dst::value_type>;
  static_assert(!narrowing,
                "dimgraph: assign: the expression's element type would narrow to the "
                "destination's; use dg::cast<T>");
  return dims_ok && !narrowing;
}

// The expression's extents in the destination's dim order.
template <class... Ds, class E>
std::array<std::size_t, sizeof...(Ds)> extents_in_order(dim_list<Ds...>*, const E& e) {
  return {e.template extent<Ds>()...};
}

// Every leaf whose memory overlaps the output must be the output itself, element for
// element (in-place element-wise work); anything else is a partial overlap.
template <std::size_t R, std::size_t N>
void check_overlap(const leaf_info<R>& out, const std::array<leaf_info<R>, N>& leaves) {
  if (out.lo == out.hi) return;
  for (std::size_t i = 1; i < N; ++i) {
    const auto& l = leaves[i];
    if (l.lo == l.hi || l.hi <= out.lo || out.hi <= l.lo) continue;
    if (l.data == out.data && l.strides == out.strides) continue;
    throw_partial_overlap(i);
  }
}

template <class Out, stride_kind OutKind, bool AssumeUnit, class Cursor, std::size_t R,
          std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void run_plan(Out* out, const Cursor& c, const loop_plan<R, N>& p) {
  if constexpr (R == 0) {
    std::array<std::ptrdiff_t, N> zero{};
    *out = static_cast<Out>(c.template row<AssumeUnit>(zero, zero).load(0));
  } else {
    if (p.depth == 0) return;
    const std::size_t n = p.inner_extent();
    std::array<std::ptrdiff_t, N> inner{};
    for (std::size_t op = 0; op < N; ++op) inner[op] = p.inner_stride(op);
    std::array<std::ptrdiff_t, N> off{};
    std::array<std::size_t, R> idx{};
    for (;;) {
      Out* o = out + off[0];
      const auto row = c.template row<AssumeUnit>(off, inner);
      // The overlap check has ruled out every overlap but exact aliasing, which carries
      // no dependence between iterations: the loop is safe to vectorise as it stands.
      if constexpr (OutKind == stride_kind::unit || AssumeUnit) {
        DIMGRAPH_LOOP_INDEPENDENT
        for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<Out>(row.load(i));
      } else {
        const std::ptrdiff_t os = inner[0];
        DIMGRAPH_LOOP_INDEPENDENT
        for (std::size_t i = 0; i < n; ++i)
          o[static_cast<std::ptrdiff_t>(i) * os] = static_cast<Out>(row.load(i));
      }
      // Odometer over the outer levels.
      std::size_t k = p.depth - 1;
      for (;;) {
        if (k == 0) return;
        --k;
        for (std::size_t op = 0; op < N; ++op) off[op] += p.stride[op][k];
        if (++idx[k] < p.extent[k]) break;
        for (std::size_t op = 0; op < N; ++op)
          off[op] -= p.stride[op][k] * static_cast<std::ptrdiff_t>(p.extent[k]);
        idx[k] = 0;
      }
    }
  }
}

template <class Dst, class E>
struct assignment {
  using out_dims = typename Dst::dims;
  using out_value = typename Dst::value_type;
  static constexpr std::size_t R = out_dims::size;
  static constexpr std::size_t N = leaf_count_v<E> + 1;
  using inner_dim = std::conditional_t<(R > 0), back_t<types_of_t<out_dims>>, void>;

  std::array<leaf_info<R>, N> infos{};
  loop_plan<R, N> plan{};

  template <class Cursor>
  void run(out_value* out, const Cursor& c) const {
    constexpr stride_kind out_kind = is_tensor_v<Dst> ? stride_kind::unit : stride_kind::dynamic;
    bool all_unit = plan.depth > 0;
    for (std::size_t op = 0; op < N && all_unit; ++op) {
      const std::ptrdiff_t s = plan.inner_stride(op);
      all_unit = s == 1 || s == 0;
    }
    // Leaves of kind zero have stride 0 and kind unit stride 1; so all_unit means
    // every dynamic-kind operand (and the output) steps by 1 here.
    if (all_unit) run_plan<out_value, out_kind, true>(out, c, plan);
    else run_plan<out_value, out_kind, false>(out, c, plan);
  }
};

// Plans dst = e and checks it (extents, overlap); returns the cursor and the plan.
template <class Dst, class E>
auto prepare(const Dst& dst, const E& e, assignment<std::remove_const_t<Dst>, E>& a) {
  constexpr std::size_t R = assignment<Dst, E>::R;
  auto cursor = build_cursor<typename Dst::dims, 1>(e, a.infos);
  leaf_info<R>& out = a.infos[0];
  out.data = dst.data();
  out.strides = dst.strides();
  std::tie(out.lo, out.hi) = memory_span(dst);
  std::array<std::array<std::ptrdiff_t, R>, assignment<Dst, E>::N> strides{};
  for (std::size_t op = 0; op < strides.size(); ++op) strides[op] = a.infos[op].strides;
  a.plan = make_loop_plan<R>(dst.shape().extents(), strides);
  return cursor;
}

template <class Dst, class E>
void check_extents(const Dst& dst, const E& e) {
  if constexpr (Dst::rank > 0) {
    const auto want = extents_in_order(static_cast<typename Dst::dims*>(nullptr), e);
    const auto have = dst.shape().extents();
    std::size_t i = 0;
    [&]<class... Ds>(dim_list<Ds...>*) {
      ((want[i] != have[i]
            ? throw shape_error("assign", "dim '" + describe<Ds>() + "' has extent " +
                                              std::to_string(have[i]) + " in the destination and " +
                                              std::to_string(want[i]) + " in the expression")
            : void(),
        ++i),
       ...);
    }(static_cast<typename Dst::dims*>(nullptr));
  }
}

// The layout of out = e when every stride and extent is static: strides, leaf sizes
// in bytes, and the loop plan, all constants.
template <class Dst, class E>
struct static_assignment {
  static constexpr std::size_t R = Dst::rank;
  static constexpr std::size_t N = leaf_count_v<E> + 1;
  struct layout {
    std::array<std::array<std::ptrdiff_t, R>, N> strides{};
    std::array<std::size_t, N> bytes{};
    loop_plan<R, N> plan{};
  };
  static constexpr layout value = [] {
    layout l;
    static_strides<typename Dst::dims, 0, Dst>(l.strides, l.bytes);
    static_strides<typename Dst::dims, 1, E>(l.strides, l.bytes);
    constexpr auto ext = typename Dst::shape_type{}.extents();
    l.plan = make_loop_plan<R>(ext, l.strides);
    return l;
  }();
  static constexpr bool all_unit = [] {
    if (value.plan.depth == 0) return true;
    for (std::size_t op = 0; op < N; ++op)
      if (value.plan.inner_stride(op) != 0 && value.plan.inner_stride(op) != 1) return false;
    return true;
  }();

  template <bool CheckOverlap>
  DIMGRAPH_ALWAYS_INLINE static void run(typename Dst::value_type* out, const E& e) {
    std::array<leaf_info<R>, N> infos{};
    const auto cursor = build_cursor<typename Dst::dims, 1, true>(e, infos);
    const char* o = reinterpret_cast<const char*>(out);
    for (std::size_t i = 1; CheckOverlap && i < N; ++i) {
      const char* p = static_cast<const char*>(infos[i].data);
      if (p + value.bytes[i] <= o || o + value.bytes[0] <= p) continue;
      if (p == o && value.strides[i] == value.strides[0]) continue;
      throw_partial_overlap(i);
    }
    run_plan<typename Dst::value_type, stride_kind::unit, all_unit>(out, cursor, value.plan);
  }
};

// dst = e. A freshly constructed dst cannot overlap anything (CheckOverlap = false).
template <bool CheckOverlap = true, class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void assign_into(Dst& dst, const E& e) {
  using dst_t = std::remove_const_t<Dst>;
  if constexpr (is_reduce_v<E>) {
    reduce_into(dst, e);
  } else if constexpr (static_layout<dst_t>::value && static_layout<E>::value) {
    static_assignment<dst_t, E>::template run<CheckOverlap>(dst.data(), e);
  } else {
    assignment<dst_t, E> a;
    auto cursor = prepare(dst, e, a);
    if constexpr (CheckOverlap) check_overlap(a.infos[0], a.infos);
    a.run(dst.data(), cursor);
  }
}

}  // namespace detail

// out = e for a view: every extent must match (shape_error), no operand may partially
// overlap out (overlap_error); both checked before the first write.
template <class T, class... Ds, expression E>
void assign_expression(const tensor_view<T, Ds...>& out, E&& e) {
  if constexpr (detail::check_assign<tensor_view<T, Ds...>, std::remove_cvref_t<E>>()) {
    detail::check_extents(out, e);
    detail::assign_into(out, e);
  }
}

// out = e for an owning tensor: takes the expression's extents (re-allocating when
// they change, into new memory first, so an expression reading out stays valid).
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(tensor<T, Ds...>& out, E&& e) {
  using dst = tensor<T, Ds...>;
  if constexpr (detail::check_assign<dst, std::remove_cvref_t<E>>()) {
    if constexpr (dst::is_static) {
      detail::assign_into(out, e);
    } else {
      auto s = dst::shape_type::from_extents(
          detail::extents_in_order(static_cast<typename dst::dims*>(nullptr), e), "assign");
      if (s == out.shape()) {
        detail::assign_into(out, e);
      } else {
        dst fresh(s);
        detail::assign_into<false>(fresh, e);
        out = std::move(fresh);
      }
    }
  }
}
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(tensor<T, Ds...>& out, E&& e,
                                                     detail::construct_tag) {
  using dst = tensor<T, Ds...>;
  if constexpr (detail::check_assign<dst, std::remove_cvref_t<E>>()) {
    if constexpr (!dst::is_static)
      out.reshape(dst::shape_type::from_extents(
          detail::extents_in_order(static_cast<typename dst::dims*>(nullptr), e), "assign"));
    detail::assign_into<false>(out, e);
  }
}

namespace detail {
// A node that is not element-wise (a reduction), evaluated into a tensor of its own
// when it is the operand of an element-wise op.
template <class E>
auto materialize(const E& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<value_t<E>, Ds...>(e);
  }(static_cast<dims_t<E>*>(nullptr));
}
}  // namespace detail

// After a reported mistake: nothing more to say.
template <class Dst, detail::poisoned E>
void assign_expression(Dst&, E&&, detail::construct_tag = {}) {}
template <detail::poisoned E>
detail::invalid_expr eval(E&&) {
  return {};
}

// A new tensor holding the value of e (dims in e's order).
template <expression E>
auto eval(E&& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<value_t<E>, Ds...>(std::forward<E>(e));
  }(static_cast<dims_t<E>*>(nullptr));
}

// The loop plan of dst = e, as text (for tests and debugging).
template <class Dst, expression E>
std::string describe_plan(const Dst& dst, const E& e) {
  detail::assignment<Dst, std::remove_cvref_t<E>> a;
  (void)detail::prepare(dst, e, a);
  return to_string(a.plan);
}

}  // namespace dimgraph

#undef DIMGRAPH_LOOP_INDEPENDENT
// ---- end dimgraph/eval/assign.hpp
// ---- begin dimgraph/eval/compound.hpp
// Compound assignment: x += e means x = x + e, evaluated in place (exact aliasing).



namespace dimgraph {

// x op= e. Shape rule: e's dims must be a subset of x's (x keeps its dims).
#define DIMGRAPH_COMPOUND(OP, NAME)                                                              \
  template <class X, class E>                                                                    \
    requires(detail::is_tensor_v<std::remove_cvref_t<X>> ||                                      \
             detail::is_view_v<std::remove_cvref_t<X>>) &&                                       \
            (expression<E> || scalar<E>)                                                         \
  X&& operator OP##=(X&& x, E&& e) {                                                             \
    static_assert(list_is_subset_v<detail::operand_dims_t<E>, dims_t<X>>,                        \
                  "dimgraph: " NAME ": the right-hand side has a dim the left-hand side lacks"); \
    assign_expression(x, std::as_const(x) OP std::forward<E>(e));                                \
    return std::forward<X>(x);                                                                   \
  }
DIMGRAPH_COMPOUND(+, "add")
DIMGRAPH_COMPOUND(-, "sub")
DIMGRAPH_COMPOUND(*, "mul")
DIMGRAPH_COMPOUND(/, "div")
#undef DIMGRAPH_COMPOUND

}  // namespace dimgraph
// ---- end dimgraph/eval/compound.hpp
// ---- begin dimgraph/eval/structural.hpp
// Structural ops that copy: concat, merge_dims (when no view can do), pad.



// Each op checks everything first, then allocates its result and fills it by assigning
// its operands (any expressions) to sub-views of the result with the element-wise
// machinery: no loops of their own. (gather and one_hot, which move data by index, are
// in eval/gather.hpp.)

namespace dimgraph {
namespace detail {

// Every element of a view set to value (a scalar broadcast over the view's dims).
template <class T, class... Ds>
void fill_view(const tensor_view<T, Ds...>& v, T value) {
  v = broadcast_expr<scalar_expr<T>, Ds...>(scalar_expr<T>{{}, value}, v.shape().extents());
}

// The shape of a result whose dims are x's with one dim (Special, of extent n) new.
template <class Result, class Special, class X>
typename Result::shape_type shape_with(const char* op, const X& x, std::size_t n) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return Result::shape_type::from_extents({[&] {
                                              if constexpr (std::is_same_v<Ds, Special>) return n;
                                              else return x.template extent<Ds>();
                                            }()...},
                                            op);
  }(static_cast<typename Result::dims*>(nullptr));
}

}  // namespace detail

// concat's operand: x, concatenated along its dim A.
template <class A, class X>
struct along_arg {
  X operand;
};
template <dimension A, class X>
auto along(X&& x) {
  return along_arg<std::remove_cvref_t<A>, operand_t<X&&>>{std::forward<X>(x)};
}

namespace detail {

template <class T>
inline constexpr bool is_along_v = false;
template <class A, class X>
inline constexpr bool is_along_v<along_arg<A, X>> = true;

template <class X>
using operand_value_t = value_t<std::remove_cvref_t<X>>;

template <class... Ts>
struct common_element;
template <class T>
struct common_element<T> {
  using type = T;
};
template <class T, class U, class... Ts>
  requires has_promotion_v<T, U>
struct common_element<T, U, Ts...> : common_element<promote_t<T, U>, Ts...> {};
template <class... Ts>
inline constexpr bool has_common_element_v = requires { typename common_element<Ts...>::type; };

template <class... As, class... Xs>
constexpr structural_check check_concat(type_list<along_arg<As, Xs>...>) {
  constexpr bool all_expr = (expression<Xs> && ...);
  if constexpr (!all_expr) {
    return structural_check::not_memory;
  } else {
    if (!(list_contains_v<dims_t<Xs>, As> && ...)) return structural_check::no_such_dim;
    using first = type_list<As...>;
    using others = list_difference_t<dims_t<front_t<type_list<Xs...>>>, dim_list<front_t<first>>>;
    if (!(list_same_set_v<list_difference_t<dims_t<Xs>, dim_list<As>>, others> && ...))
      return structural_check::other_dims_differ;
    if (list_contains_v<others, concat_dim_t<As...>>) return structural_check::dim_present;
    if (!has_common_element_v<operand_value_t<Xs>...>) return structural_check::no_common_type;
    return structural_check::ok;
  }
}

// concat's run-time rule: other dims and repeated concatenated tags agree; the
// concatenated extents add up.
template <class R, class... As, class... Xs>
std::array<std::size_t, sizeof...(As)> concat_extents(const along_arg<As, Xs>&... parts) {
  const auto& first = std::get<0>(std::forward_as_tuple(parts...)).operand;
  using first_t = std::remove_cvref_t<decltype(first)>;
  using others = list_difference_t<dims_t<first_t>, dim_list<front_t<type_list<As...>>>>;
  std::size_t i = 0;
  auto agree_others = [&]<class... Ds>(dim_list<Ds...>*, const auto& x) {
    (check_agree<Ds>("concat", first.template extent<Ds>(), 1, x.template extent<Ds>(), i + 1),
     ...);
  };
  ((agree_others(static_cast<others*>(nullptr), parts.operand), ++i), ...);
  std::array<std::size_t, sizeof...(As)> ext{parts.operand.template extent<As>()...};
  // The same tag concatenated with itself (a + a == 2 * a) has one extent.
  constexpr std::size_t firsts[] = {index_of_v<As, type_list<As...>>...};
  for (std::size_t k = 0; k < sizeof...(As); ++k) {
    const std::size_t j = firsts[k];
    if (j != k && ext[j] != ext[k]) {
      [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        ((Ks == k ? check_agree<at_t<Ks, type_list<As...>>>("concat", ext[j], j + 1, ext[k], k + 1)
                  : void()),
         ...);
      }(std::index_sequence_for<As...>{});
    }
  }
  return ext;
}

}  // namespace detail

// Concatenation along one dim of each operand (a new tensor):
//   concat(along<a>(x), along<b>(y)): [.., a, ..] , [.., b, ..] -> [.., a + b, ..]
// The result dim is a + b by the algebra (a + a is 2 * a), at the position of x's a, and
// x's other dims in x's order; every operand must have the same other dims (in any
// order) with equal extents. More operands: along<a>(x), along<b>(y), along<c>(w), ...
// The element type is the operands' common type. Errors (compile time): an operand
// lacks its dim; the operands' other dims differ; the result dim is one of the other
// dims; no common element type. Error (run time): another dim, or a tag concatenated
// with itself, with different extents (shape_error). Nothing is allocated before the checks.
template <class... Parts>
  requires(sizeof...(Parts) > 0 && (detail::is_along_v<Parts> && ...))
auto concat(Parts... parts) {
  if constexpr ((detail::poisoned<decltype(parts.operand)> || ...)) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check = detail::check_concat(detail::type_list<Parts...>{});
    static_assert(check != check_t::not_memory,
                  "dimgraph: concat: an operand is not a tensor or an expression");
    static_assert(check != check_t::no_such_dim, "dimgraph: concat: an operand has no such dim");
    static_assert(check != check_t::other_dims_differ,
                  "dimgraph: concat: the operands' other dims differ");
    static_assert(check != check_t::dim_present,
                  "dimgraph: concat: the result dim is already one of the other dims");
    static_assert(check != check_t::no_common_type,
                  "dimgraph: concat: the element types have no common type");
    if constexpr (check == check_t::ok) {
      return [&]<class... As, class... Xs>(const along_arg<As, Xs>&... ps) {
        using r_dim = concat_dim_t<As...>;
        using x0 = std::remove_cvref_t<detail::front_t<detail::type_list<Xs...>>>;
        using a0 = detail::front_t<detail::type_list<As...>>;
        using value = typename detail::common_element<detail::operand_value_t<Xs>...>::type;
        using result_t =
            detail::tensor_of_list_t<value, detail::replace_dim_t<dims_t<x0>, a0, r_dim>>;
        const auto ext = detail::concat_extents<r_dim>(ps...);
        const auto& x = std::get<0>(std::forward_as_tuple(ps...)).operand;
        std::size_t total = 0;
        for (std::size_t e : ext) total += e;
        result_t r(detail::shape_with<result_t, r_dim>("concat", x, total));
        auto whole = r.view();
        const std::ptrdiff_t s = r.template stride<r_dim>();
        std::ptrdiff_t offset = 0;
        std::size_t i = 0;
        ((detail::replaced_view<r_dim, As>(whole, "concat", offset, {ext[i]}, {s}) = ps.operand,
          offset += static_cast<std::ptrdiff_t>(ext[i++]) * s),
         ...);
        return r;
      }(parts...);
    } else {
      return detail::invalid_expr{};
    }
  }
}

namespace detail {

template <class A, class B, class X>
constexpr structural_check check_merge_dims() {
  if constexpr (!expression<X>) {
    return structural_check::not_memory;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A> || !list_contains_v<dims, B>)
      return structural_check::no_such_dim;
    if (std::is_same_v<A, B>) return structural_check::same_parts;
    if (list_contains_v<dims, merge_dim_t<A, B>>) return structural_check::dim_present;
    return structural_check::ok;
  }
}

}  // namespace detail

// Two dims merged into one, a major, at a's position:
//   merge_dims<a, b>(x): [.., a, .., b, ..] -> [.., a * b, ..]
// A view when x is a tensor (not a temporary) with b right after a: its row-major
// layout makes the merge contiguous. Otherwise (a view, whose strides are known only at
// run time; a lazy expression; a temporary; a and b apart) a new tensor with the same
// elements: the result type says which, at compile time. Errors (compile time): x lacks
// a or b; a == b; a * b is already a dim of x.
template <dimension A, dimension B, class X>
auto merge_dims(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using b = std::remove_cvref_t<B>;
    constexpr auto check = detail::check_merge_dims<a, b, X>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: merge_dims: the operand is not a tensor or an expression");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: merge_dims: the tensor lacks one of the dims");
    static_assert(check != check_t::same_parts,
                  "dimgraph: merge_dims: the two dims are the same dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: merge_dims: the merged dim is already a dim of the tensor");
    if constexpr (check == check_t::ok) {
      using x_t = std::remove_cvref_t<X>;
      using dims = dims_t<x_t>;
      using m = merge_dim_t<a, b>;
      constexpr std::size_t ia = list_index_of_v<dims, a>, ib = list_index_of_v<dims, b>;
      const std::size_t na = x.template extent<a>(), nb = x.template extent<b>();
      if constexpr (detail::is_tensor_v<x_t> && std::is_lvalue_reference_v<X> && ib == ia + 1) {
        return detail::spliced_view<ia, 2, m>(x, "merge_dims", 0, {na * nb},
                                              {x.template stride<b>()});
      } else {
        using value = value_t<x_t>;
        using without_b = detail::dims_of_t<detail::replace_dim_t<dims, b>>;
        using result_t = detail::tensor_of_list_t<value, detail::replace_dim_t<without_b, a, m>>;
        result_t r(detail::shape_with<result_t, m>("merge_dims", x, na * nb));
        auto whole = r.view();
        const std::ptrdiff_t s = r.template stride<m>();
        detail::replaced_view<m, a, b>(whole, "merge_dims", 0, {na, nb},
                                       {s * static_cast<std::ptrdiff_t>(nb), s}) = x;
        return r;
      }
    } else {
      return detail::invalid_expr{};
    }
  }
}

namespace detail {

template <class A, class P, class X>
constexpr structural_check check_pad() {
  if constexpr (!expression<X>) {
    return structural_check::not_memory;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A>) return structural_check::no_such_dim;
    if (!std::is_same_v<P, A> && list_contains_v<dims, P>) return structural_check::dim_present;
    return structural_check::ok;
  }
}

template <class X>
struct pad_value {
  using type = int;  // (after a reported mistake)
};
template <expression X>
struct pad_value<X> {
  using type = value_t<X>;
};

// The part of a padded dim before or after the operand (a private dim: it only names a
// sub-view of the result).
template <class P, std::size_t Size, bool After>
struct pad_part : dim_expr_base {
  static constexpr interval bounds = interval::exactly(Size);
  static constexpr dim_kind kind = kind_v<P>;
  static constexpr std::string_view name = After ? "padding after" : "padding before";
};

}  // namespace detail

// Padding along dim a with `value` (a new tensor):
//   pad<a, before, after>(x, value = 0): [.., a, ..] -> [.., before + a + after, ..]
// The result dim is dg::c<before> + a + dg::c<after> by the algebra, so slicing the
// padding off again, slice<pad_dim_t<a, before, after>, before, -after> (end dg::none
// when after is 0), gives a view with dim a itself.
// Errors (compile time): x has no dim a; the padded dim is already one of x's dims.
template <dimension A, std::size_t Before, std::size_t After, class X>
auto pad(X&& x, typename detail::pad_value<std::remove_cvref_t<X>>::type value = {}) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using p = pad_dim_t<a, Before, After>;
    constexpr auto check = detail::check_pad<a, p, X>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: pad: the operand is not a tensor or an expression");
    static_assert(check != check_t::no_such_dim, "dimgraph: pad: the tensor has no such dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: pad: the padded dim is already a dim of the tensor");
    if constexpr (check == check_t::ok) {
      using x_t = std::remove_cvref_t<X>;
      using value_type = value_t<x_t>;
      using result_t =
          detail::tensor_of_list_t<value_type, detail::replace_dim_t<dims_t<x_t>, a, p>>;
      const std::size_t n = x.template extent<a>();
      result_t r(detail::shape_with<result_t, p>("pad", x, Before + n + After));
      auto whole = r.view();
      const std::ptrdiff_t s = r.template stride<p>();
      if constexpr (Before > 0)
        detail::fill_view(detail::replaced_view<p, detail::pad_part<p, Before, false>>(
                              whole, "pad", 0, {Before}, {s}),
                          value);
      detail::replaced_view<p, a>(whole, "pad", static_cast<std::ptrdiff_t>(Before) * s, {n}, {s}) =
          x;
      if constexpr (After > 0)
        detail::fill_view(
            detail::replaced_view<p, detail::pad_part<p, After, true>>(
                whole, "pad", static_cast<std::ptrdiff_t>(Before + n) * s, {After}, {s}),
            value);
      return r;
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/eval/structural.hpp
// ---- begin dimgraph/eval/gather.hpp
// gather (embedding lookup) and one_hot: the structural ops that move data by index.



// Both check every index before they allocate or write anything, then loop over the
// indices themselves (a gather is no element-wise assignment); each row of a gather is
// copied by the assignment machinery, or by one block copy when the table's rows are
// contiguous.

namespace dimgraph {
namespace detail {

template <class X>
concept index_expression = expression<X> && is_index_v<value_t<X>>;

// A lazy expression evaluated; a tensor or view passed through.
template <class X>
decltype(auto) as_memory(const X& x) {
  if constexpr (is_tensor_v<X> || is_view_v<X>) return x;
  else return eval(x);
}

template <class Table, class Idx>
constexpr structural_check check_gather() {
  if constexpr (!expression<Table> || !expression<Idx>) {
    return structural_check::not_memory;
  } else if constexpr (!is_index_v<value_t<Idx>>) {
    return structural_check::not_index;
  } else {
    using v = index_dim_t<value_t<Idx>>;
    if (!list_contains_v<dims_t<Table>, v>) return structural_check::no_such_dim;
    using rest = list_difference_t<dims_t<Table>, dim_list<v>>;
    if (list_intersection_t<dims_t<Idx>, rest>::size != 0) return structural_check::dim_present;
    return structural_check::ok;
  }
}

// Every index in idx (a tensor) checked against extent n of V: index_error, before any write.
template <class V, class Idx>
void check_indices(const char* op, const Idx& idx, std::size_t n) {
  const auto* p = idx.data();
  for (std::size_t i = 0, size = idx.size(); i < size; ++i)
    check_class_index<V>(op, p[i].value(), n);
}

// idx as a row-major tensor (a tensor already is one; anything else is evaluated).
template <class Idx>
decltype(auto) row_major_indices(const Idx& idx) {
  if constexpr (is_tensor_v<Idx>) return idx;
  else return eval(idx);
}

}  // namespace detail

// Rows of a table picked by index (embedding lookup; a new tensor):
//   gather(table, idx): [.., v, ..] , [is...] of dg::index<v> -> [is..., the table's other dims]
// Errors (compile time): idx's elements are not dg::index<v>; the table has no dim v;
// idx's dims overlap the table's other dims. Error (run time): an index outside
// [0, extent of v) (index_error naming v, the index and the extent), before any write.
template <class Table, class Idx>
auto gather(const Table& table, const Idx& idx) {
  if constexpr (detail::poisoned<Table> || detail::poisoned<Idx>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check = detail::check_gather<Table, Idx>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: gather: the table and the indices must be tensors or expressions");
    static_assert(check != check_t::not_index,
                  "dimgraph: gather: the indices' elements must be dg::index<D>");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: gather: the table has no dim for the indices' class dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: gather: the indices' dims overlap the table's other dims");
    if constexpr (check == check_t::ok) {
      using v = index_dim_t<value_t<Idx>>;
      decltype(auto) t = detail::as_memory(table);
      decltype(auto) ix = detail::row_major_indices(idx);
      using t_t = std::remove_cvref_t<decltype(t)>;
      using rest = list_difference_t<dims_t<t_t>, dim_list<v>>;
      using result_t = detail::tensor_of_list_t<value_t<t_t>,
                                                detail::gather_dims_t<dims_t<t_t>, v, dims_t<Idx>>>;
      const std::size_t n = t.template extent<v>();
      detail::check_indices<v>("gather", ix, n);
      const auto shape = [&]<class... Ds>(dim_list<Ds...>*) {
        return result_t::shape_type::from_extents({[&] {
                                                    if constexpr (list_contains_v<dims_t<Idx>, Ds>)
                                                      return ix.template extent<Ds>();
                                                    else return t.template extent<Ds>();
                                                  }()...},
                                                  "gather");
      }(static_cast<typename result_t::dims*>(nullptr));
      result_t r(shape);
      const std::size_t rows = ix.size(), block = rows == 0 ? 0 : r.size() / rows;
      const auto* index = ix.data();
      using row_view = detail::view_of_list_t<value_t<t_t>, detail::types_of_t<rest>>;
      const auto row_strides =
          detail::row_major_strides<rest::size>([&]<class... Ds>(dim_list<Ds...>*) {
            return std::array<std::size_t, rest::size>{t.template extent<Ds>()...};
          }(static_cast<rest*>(nullptr)));
      constexpr bool contiguous_rows =
          detail::is_tensor_v<t_t> &&
          std::is_same_v<detail::front_t<detail::types_of_t<dims_t<t_t>>>, v>;
      for (std::size_t i = 0; i < rows && block > 0; ++i) {
        const auto k = static_cast<std::size_t>(index[i].value());
        if constexpr (contiguous_rows) {
          std::copy_n(t.data() + k * block, block, r.data() + i * block);
        } else {
          const auto src = t[at<v>(k)];
          row_view(r.data() + i * block, src.shape(), row_strides) = src;
        }
      }
      return r;
    } else {
      return detail::invalid_expr{};
    }
  }
}

// Indices as one-hot vectors (a new tensor of T, float by default):
//   one_hot(idx): idx [is...] of dg::index<v> -> [is..., v]
// v's extent is its static size or given: one_hot(idx, dg::extent<V>(n)). Errors
// (compile time): idx's elements are not dg::index<v>; v is not static and no extent is
// given; an extent given for another dim. Errors (run time): an extent outside v's
// interval (shape_error); an index outside [0, extent) (index_error), before any write.
template <class T = float, class Idx, class... Es>
auto one_hot(const Idx& idx, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<Idx>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool is_idx = detail::index_expression<Idx>;
    static_assert(is_idx, "dimgraph: one_hot: the indices' elements must be dg::index<D>");
    if constexpr (is_idx) {
      using v = index_dim_t<value_t<Idx>>;
      constexpr bool extent_ok = (std::is_same_v<Es, v> && ...) && sizeof...(Es) <= 1;
      constexpr bool known = is_static_v<v> || sizeof...(Es) == 1;
      static_assert(extent_ok,
                    "dimgraph: one_hot: the only extent to give is the class dim's, once");
      static_assert(
          !extent_ok || known,
          "dimgraph: one_hot: the class dim is not static; give its extent: dg::extent<V>(n)");
      constexpr bool fresh = !list_contains_v<dims_t<Idx>, v>;
      static_assert(!(extent_ok && known) || fresh,
                    "dimgraph: one_hot: the indices already have the class dim");
      static_assert(!(extent_ok && known && fresh) || element<T>,
                    "dimgraph: one_hot: the result's element type is not an element type");
      if constexpr (extent_ok && known && fresh && element<T>) {
        const std::size_t n =
            detail::checked_extent<v>("one_hot", detail::given_extent<v>(given...));
        decltype(auto) ix = detail::row_major_indices(idx);
        detail::check_indices<v>("one_hot", ix, n);
        using result_t = detail::tensor_of_list_t<T, detail::one_hot_dims_t<dims_t<Idx>, v>>;
        const auto shape = [&]<class... Ds>(dim_list<Ds...>*) {
          return result_t::shape_type::from_extents({[&] {
                                                      if constexpr (std::is_same_v<Ds, v>) return n;
                                                      else return ix.template extent<Ds>();
                                                    }()...},
                                                    "one_hot");
        }(static_cast<typename result_t::dims*>(nullptr));
        result_t r(shape);
        const auto* index = ix.data();
        for (std::size_t i = 0, rows = ix.size(); i < rows; ++i)
          r.data()[i * n + static_cast<std::size_t>(index[i].value())] = T(1);
        return r;
      } else {
        return detail::invalid_expr{};
      }
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/eval/gather.hpp
// ---- begin dimgraph/eval/softmax.hpp
// Composite reductions: logsumexp, softmax, log_softmax, argmax, argmin (evaluated eagerly).



namespace dimgraph {
namespace detail {
template <class X, class... Rs>
constexpr bool numeric_over() {
  return (list_contains_v<dims_t<X>, Rs> && ...) && !is_index_v<value_t<X>> &&
         !std::is_same_v<value_t<X>, bool>;
}
// positions along D: 0, 1, ..., extent - 1
template <class D>
tensor<std::int64_t, D> positions(std::size_t n) {
  tensor<std::int64_t, D> p(extent<D>(n));
  for (std::size_t i = 0; i < n; ++i) p.data()[i] = static_cast<std::int64_t>(i);
  return p;
}
}  // namespace detail

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite. Shape rule: as sum. Result: a tensor of floating type.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, expression X>
auto logsumexp(X&& x) {
  constexpr bool ok = detail::numeric_over<X, Rs...>();
  static_assert(ok,
                "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    const auto m = detail::materialize(max<Rs...>(x));
    return eval(m + log(sum<Rs...>(exp(x - m))));
  } else {
    return detail::invalid_expr{};
  }
}

// exp(x) / sum(exp(x)) over D, with the max subtracted first. Shape rule: x's dims.
template <class D, expression X>
auto softmax(X&& x) {
  constexpr bool ok = detail::numeric_over<X, D>();
  static_assert(ok,
                "dimgraph: softmax: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    const auto m = detail::materialize(max<D>(x));
    auto e = detail::materialize(exp(x - m));
    e /= sum<D>(e);
    return e;
  } else {
    return detail::invalid_expr{};
  }
}

// x - logsumexp(x) over D. Shape rule: x's dims.
template <class D, expression X>
auto log_softmax(X&& x) {
  constexpr bool ok = detail::numeric_over<X, D>();
  static_assert(
      ok, "dimgraph: log_softmax: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    using real = detail::fn::float_of_t<value_t<X>>;
    const auto m = detail::materialize(max<D>(x));
    auto r = detail::materialize(cast<real>(x - m));
    r -= log(sum<D>(exp(r)));
    return r;
  } else {
    return detail::invalid_expr{};
  }
}

// The first position of the largest (argmax) or smallest (argmin) element along D, as
// dg::index<D>. Shape rule: [x dims] -> [x dims without D].
#define DIMGRAPH_ARG_REDUCTION(NAME, EXTREME)                                                    \
  template <class D, expression X>                                                               \
  auto NAME(X&& x) {                                                                             \
    constexpr bool ok = detail::numeric_over<X, D>();                                            \
    static_assert(                                                                               \
        ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers"); \
    if constexpr (ok) {                                                                          \
      const std::size_t n = x.template extent<D>();                                              \
      const auto best = detail::materialize(EXTREME<D>(x));                                      \
      const auto pos = detail::positions<D>(n);                                                  \
      const auto first =                                                                         \
          detail::materialize(min<D>(where(equal(x, best), pos, static_cast<std::int64_t>(n)))); \
      return eval(cast<index<D>>(first));                                                        \
    } else {                                                                                     \
      return detail::invalid_expr{};                                                             \
    }                                                                                            \
  }
DIMGRAPH_ARG_REDUCTION(argmax, max)
DIMGRAPH_ARG_REDUCTION(argmin, min)
#undef DIMGRAPH_ARG_REDUCTION

}  // namespace dimgraph
// ---- end dimgraph/eval/softmax.hpp
// ---- end dimgraph.hpp
