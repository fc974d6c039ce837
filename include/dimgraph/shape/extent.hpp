// runtime_size<D>(tag_extent): the run-time extent of any dim from the extents of its tags.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/shape/error.hpp"

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
// The extent of a sum (Add) or product of parts, checked: shape_error when it does not fit a
// std::size_t.
template <class D, bool Add, class... Parts>
struct combined_sizer {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t r = Add ? 0 : 1;
    bool overflow = false;
    ((overflow = overflow || (Add ? add_overflows(r, runtime_sizer<Parts>::get(f), r)
                                  : mul_overflows(r, runtime_sizer<Parts>::get(f), r))),
     ...);
    if (overflow) {
      std::string parts;
      ((parts += (parts.empty() ? "" : ", ") + std::string("'") + describe<Parts>() + "' " +
                 std::to_string(runtime_sizer<Parts>::get(f))),
       ...);
      throw shape_error("runtime_size", "dim '" + describe<D>() + "': the extents of its " +
                                            (Add ? "terms" : "factors") + " (" + parts + ") " +
                                            (Add ? "add up" : "multiply") +
                                            " to more than a std::size_t holds");
    }
    return r;
  }
};
template <class... Ts>
struct runtime_sizer<dim_sum<Ts...>> : combined_sizer<dim_sum<Ts...>, true, Ts...> {};
template <class... Fs>
struct runtime_sizer<dim_prod<Fs...>> : combined_sizer<dim_prod<Fs...>, false, Fs...> {};

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
// does not divide, a removed part is larger than the dim, or a sum or product of extents
// does not fit a std::size_t.
template <dimension D, class TagExtent>
constexpr std::size_t runtime_size(const TagExtent& tag_extent) {
  return detail::runtime_sizer<std::remove_cvref_t<D>>::get(tag_extent);
}

}  // namespace dimgraph
