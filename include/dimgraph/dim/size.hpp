// Sizes and kinds of dims: bounds_v, is_static_v, static_size_v, kind_v.
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/forms.hpp"

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
