// Shape arguments by tag (dg::extent<D>(n), dg::lengths<D>(lens)): their checks and their shape.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/shape/shape.hpp"

namespace dimgraph::detail {

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

// What a tensor is made from, by tag: extents (dg::extent<D>(n)) and the lengths of ragged
// dims (dg::lengths<D>(lens)).
template <class A>
struct shape_arg_traits : std::false_type {};
template <class D>
struct shape_arg_traits<extent_arg<D>> : std::true_type {
  using extent_dims = type_list<D>;
  using lengths_dims = type_list<>;
};
template <class D>
struct shape_arg_traits<lengths_arg<D>> : std::true_type {
  using extent_dims = type_list<>;
  using lengths_dims = type_list<D>;
};
template <class A>
concept shape_arg = shape_arg_traits<A>::value;

// Why shape arguments As... do not fit the dims Ds... (one message per mistake, in this order).
enum class shape_args_check {
  ok,
  unknown_dim,
  unknown_lengths_dim,
  repeated,
  repeated_lengths,
  missing,
  lengths_not_ragged,
  lengths_without_batch
};
template <class... Ds, class... As>
constexpr shape_args_check check_shape_args(type_list<Ds...>, type_list<As...>) {
  using given = concat_t<typename shape_arg_traits<As>::extent_dims...>;
  using lens = concat_t<typename shape_arg_traits<As>::lengths_dims...>;
  using named = concat_t<given, lens>;
  using all = type_list<Ds...>;
  constexpr auto in_all = []<class... Xs>(type_list<Xs...>) {
    return (contains_v<Xs, all> && ...);
  };
  if (!in_all(given{})) return shape_args_check::unknown_dim;
  if (!in_all(lens{})) return shape_args_check::unknown_lengths_dim;
  if (first_duplicate_v<given> != given::size) return shape_args_check::repeated;
  if (first_duplicate_v<lens> != lens::size) return shape_args_check::repeated_lengths;
  if (!((is_static_v<Ds> || contains_v<Ds, named>)&&...)) return shape_args_check::missing;
  constexpr auto ragged = []<class... Ls>(type_list<Ls...>) { return (is_ragged_v<Ls> && ...); };
  if (!ragged(lens{})) return shape_args_check::lengths_not_ragged;
  constexpr auto batched = []<class... Ls>(type_list<Ls...>) {
    return (carries_lengths_v<Ls, dim_list<Ds...>> && ...);
  };
  if (!batched(lens{})) return shape_args_check::lengths_without_batch;
  return shape_args_check::ok;
}

// The extent given for D; else, for a ragged dim with lengths, the largest length; else D's
// static size.
template <class D, class A>
constexpr void extent_from(const A&, std::size_t&, bool&) {}
template <class D>
constexpr void extent_from(const extent_arg<D>& e, std::size_t& n, bool& given) {
  n = e.value;
  given = true;
}
template <class D, class A>
constexpr void length_extent_from(const A&, std::size_t&) {}
template <class D>
void length_extent_from(const lengths_arg<D>& l, std::size_t& n) {
  n = longest(l.value);
}
template <class D, class... As>
constexpr std::size_t given_extent(const As&... a) {
  std::size_t n = bounds_v<D>.lo;
  bool given = false;
  (extent_from<D>(a, n, given), ...);
  if (!given) (length_extent_from<D>(a, n), ...);
  return n;
}

// The shape of Ds... from shape arguments in any order (static dims optional), each extent
// checked against its dim's interval and the lengths against the extents: a shape_error that
// names `op`, the dim and the extent. The caller has checked the arguments with
// check_shape_args.
template <class S, class A>
void lengths_from(S&, const char*, const A&) {}
template <class S, class D>
void lengths_from(S& s, const char* op, const lengths_arg<D>& l) {
  if constexpr (carries_lengths_v<D, typename S::dims>)  // (else a reported mistake)
    s.template set_lengths<D>(op, l.value);
}
template <class... Ds, class... As>
shape<Ds...> shape_from(const char* op, const As&... a) {
  auto s = shape<Ds...>::from_extents({given_extent<Ds>(a...)...}, op);
  (lengths_from(s, op, a), ...);
  return s;
}

// The static_asserts of an entry point Op taking shape arguments As for the dims Ds...
#define DIMGRAPH_CHECK_SHAPE_ARGS(OP, DS, AS)                                                     \
  constexpr auto shape_check = ::dimgraph::detail::check_shape_args(                              \
      ::dimgraph::detail::type_list<DS...>{}, ::dimgraph::detail::type_list<AS...>{});            \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::unknown_dim,              \
                   "dimgraph: " OP ": an extent is given for a dim the tensor does not have",     \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::unknown_lengths_dim,      \
                   "dimgraph: " OP ": lengths are given for a dim the tensor does not have",      \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::repeated,                 \
                   "dimgraph: " OP ": an extent is given twice", ::dimgraph::has<DS...>,          \
                   ::dimgraph::asked<AS...>);                                                     \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::repeated_lengths,         \
                   "dimgraph: " OP ": lengths are given twice for a dim", ::dimgraph::has<DS...>, \
                   ::dimgraph::asked<AS...>);                                                     \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::missing,                  \
                   "dimgraph: " OP ": a non-static dim has no extent (give dg::extent<D>(n))",    \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::lengths_not_ragged,       \
                   "dimgraph: " OP                                                                \
                   ": lengths are given for a dim that is not ragged (declare it "                \
                   "dg::dim<\"name\", dg::ragged<Batch>>)",                                       \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::lengths_without_batch,    \
                   "dimgraph: " OP                                                                \
                   ": lengths are given for a ragged dim whose batch dim the "                    \
                   "tensor does not have",                                                        \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>)

// The error of elements given for a shape whose size is another.
template <class... Ds>
[[noreturn]] void throw_element_count(const char* op, std::size_t given, const shape<Ds...>& s) {
  throw shape_error(op, std::to_string(given) + " elements are given for the shape " +
                            to_string(s) + " of " + std::to_string(s.size()) + " elements");
}

}  // namespace dimgraph::detail
