// dim_list: an ordered set of dims at the type level, and the set operations on it.
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/dim/tag.hpp"

namespace dimgraph {

// An ordered list of distinct dims. Error: a dim that appears twice.
template <class... Ds>
struct dim_list {
  static_assert(((dimension<Ds> && std::is_same_v<Ds, std::remove_cvref_t<Ds>>)&&...),
                "dimgraph: dim_list: an element is not a dim (or is cv-qualified)");
  DIMGRAPH_REQUIRE_DECL(detail::first_duplicate_v<detail::type_list<Ds...>> == sizeof...(Ds),
                        "dimgraph: dim_list: a tag appears more than once", asked<Ds...>);
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
