// Sizes and kinds of dims: bounds_v, is_static_v, static_size_v, kind_v.
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/atom.hpp"
#include "dimgraph/dim/forms.hpp"

namespace dimgraph {
namespace detail {

// Interval arithmetic on the parts (sound, not always tight for splits).
template <class D>
struct bounds_of {  // an atom
  static_assert(sizeof(atom_check<D>) != 0);
  static constexpr interval value = [] {
    if constexpr (atomic_dim<D>) return interval{D::bounds};
    else return interval::exactly(0);
  }();
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

// The kinds of the atoms inside a dim, as a bit mask.
template <class D>
struct kinds_of {  // an atom
  static_assert(sizeof(atom_check<D>) != 0);
  static constexpr unsigned value = [] {
    if constexpr (!atomic_dim<D>) return 0u;
    else if constexpr (requires { typename D::source; }) return kinds_of<typename D::source>::value;
    else return 1u << static_cast<unsigned>(dim_kind{D::kind});
  }();
};
template <class... Parts>
struct parts_kinds {
  static constexpr unsigned value = (0u | ... | kinds_of<Parts>::value);
};
template <std::size_t K>
struct kinds_of<const_dim<K>> : parts_kinds<> {};
template <class... Ts>
struct kinds_of<dim_sum<Ts...>> : parts_kinds<Ts...> {};
template <class... Fs>
struct kinds_of<dim_prod<Fs...>> : parts_kinds<Fs...> {};
template <class A, class B>
struct kinds_of<dim_quotient<A, B>> : parts_kinds<A, B> {};
template <class B, class A>
struct kinds_of<dim_left_quotient<B, A>> : parts_kinds<B, A> {};
template <class A, class B>
struct kinds_of<dim_difference<A, B>> : parts_kinds<A, B> {};
template <class B, class A>
struct kinds_of<dim_left_difference<B, A>> : parts_kinds<B, A> {};
template <class A, std::size_t K>
struct kinds_of<dim_ceildiv<A, K>> : parts_kinds<A> {};
template <class A, std::size_t K>
struct kinds_of<dim_floordiv<A, K>> : parts_kinds<A> {};

// Which derived dims are ragged (RETURNN's rule: a dim computed from a ragged dim has a
// length per batch entry, computed from that dim's lengths by the same arithmetic):
//  - a sum (concat, pad) whose ragged terms are all ragged over the same batch dim:
//    length = the sum of the terms' lengths (a term that is not ragged counts its extent);
//  - a product with exactly one ragged factor, every other factor static (merge_dims of a
//    ragged dim with static inner dims; a + a): length = the factor's length times the rest;
//  - A - B and sub_left(B, A) with A ragged and B static (slices): the clamped difference;
//  - ceildiv(A, k) and floordiv(A, k) with A ragged (strided windows).
// Any other dim built from a ragged one (two ragged dims over different batch dims, a ragged
// factor inside a merge with a dynamic one, a quotient) is not ragged: an op that would make
// it from a dim with lengths is a compile error, not a silent loss of the lengths.
struct ragged_conflict {};

template <class Acc, class... Ds>
struct common_ragged {
  using type = std::conditional_t<std::is_same_v<Acc, ragged_conflict>, void, Acc>;
};
template <class Acc, class D, class... Ds>
struct common_ragged<Acc, D, Ds...> {
  using b = ragged_batch_t<D>;
  using next = std::conditional_t<
      std::is_void_v<b>, Acc,
      std::conditional_t<std::is_void_v<Acc> || std::is_same_v<Acc, b>, b, ragged_conflict>>;
  using type = typename common_ragged<next, Ds...>::type;
};

template <class... Ts>
struct ragged_batch_of<dim_sum<Ts...>> : common_ragged<void, Ts...> {};
template <class... Fs>
struct ragged_batch_of<dim_prod<Fs...>> {
  // One ragged factor, the major one (after a constant coefficient, k * A being A repeated k
  // times), every other factor static: each row's valid positions stay a prefix.
  static constexpr bool prefix = [] {
    const bool ragged[] = {!std::is_void_v<ragged_batch_t<Fs>>...};
    const bool fixed[] = {bounds_of<Fs>::value.is_static()...};
    const bool constant[] = {is_const_v<Fs>...};
    std::size_t count = 0, first = sizeof...(Fs);
    for (std::size_t i = 0; i < sizeof...(Fs); ++i)
      if (ragged[i]) {
        ++count;
        if (first == sizeof...(Fs)) first = i;
      } else if (!fixed[i]) {
        return false;
      }
    for (std::size_t i = 0; i < first; ++i)
      if (!constant[i]) return false;
    return count == 1;
  }();
  using type = std::conditional_t<prefix, typename common_ragged<void, Fs...>::type, void>;
};
template <class A, class B>
struct ragged_batch_of<dim_difference<A, B>> {
  using type = std::conditional_t<bounds_of<B>::value.is_static(), ragged_batch_t<A>, void>;
};
template <class B, class A>
struct ragged_batch_of<dim_left_difference<B, A>> {
  using type = std::conditional_t<bounds_of<B>::value.is_static(), ragged_batch_t<A>, void>;
};
template <class A, std::size_t K>
struct ragged_batch_of<dim_ceildiv<A, K>> {
  using type = ragged_batch_t<A>;
};
template <class A, std::size_t K>
struct ragged_batch_of<dim_floordiv<A, K>> {
  using type = ragged_batch_t<A>;
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
