// detail::type_list and the few list operations the dim and shape layers need.
#pragma once

#include <cstddef>
#include <type_traits>
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
// The last element of any list L<Ts...> (type_list, dim_list, ...); void for an empty one.
template <class List>
struct last_or_void;
template <template <class...> class L, class... Ts>
struct last_or_void<L<Ts...>> {
  using type = at_t<sizeof...(Ts) - 1, type_list<Ts...>>;
};
template <template <class...> class L>
struct last_or_void<L<>> {
  using type = void;
};
template <class List>
using last_or_void_t = typename last_or_void<List>::type;
template <class List>
using pop_back_t = slice_t<0, List::size - 1, List>;

// concat_t<Lists...>: eight lists a step. (Not a fold over an operator: argument-dependent
// lookup would bring every operator of the elements' namespaces, the library's and the
// user's, into each step, and check their constraints against long lists.)
template <class... Lists>
struct concat;
template <>
struct concat<> {
  using type = type_list<>;
};
template <class... A>
struct concat<type_list<A...>> {
  using type = type_list<A...>;
};
template <class... A, class... B>
struct concat<type_list<A...>, type_list<B...>> {
  using type = type_list<A..., B...>;
};
template <class... A, class... B, class... C>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>> {
  using type = type_list<A..., B..., C...>;
};
template <class... A, class... B, class... C, class... D, class... Rest>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>, type_list<D...>, Rest...>
    : concat<type_list<A..., B..., C..., D...>, Rest...> {};
template <class... A, class... B, class... C, class... D, class... E, class... F, class... G,
          class... H, class... Rest>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>, type_list<D...>, type_list<E...>,
              type_list<F...>, type_list<G...>, type_list<H...>, Rest...>
    : concat<type_list<A..., B..., C..., D..., E..., F..., G..., H...>, Rest...> {};
template <class... Lists>
using concat_t = typename concat<Lists...>::type;

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
