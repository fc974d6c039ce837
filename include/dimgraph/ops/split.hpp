// split and split_dims: a dim's parts, as views (the inverses of concat and merge_dims).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/ops/view.hpp"

// split and split_dims return tensor_views of their operand's memory, so the operand must be a
// tensor or a view and must outlive the result: a temporary tensor is rejected (its view would
// dangle); dg::eval a lazy expression first.

// The message of a structural op that would lose the lengths of a ragged dim (#undef'd at the
// end of this header).
#define DIMGRAPH_LOSES_LENGTHS(OP)                                          \
  "dimgraph: " OP                                                           \
  ": the dim is ragged or the batch dim of a ragged dim (it has lengths); " \
  "its lengths would be lost: dg::rename the ragged dim to a dim that is not ragged first"

namespace dimgraph {
namespace detail {

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

}  // namespace detail

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
    constexpr bool keeps = check != check_t::ok || detail::keeps_lengths<X, whole>();
    static_assert(keeps, DIMGRAPH_LOSES_LENGTHS("split"));
    if constexpr (check == check_t::ok && keeps) {
      using parts = detail::type_list<std::remove_cvref_t<Parts>...>;
      auto [ext, known] = detail::part_extents(parts{}, given...);
      ext = detail::split_sum_extents<whole, std::remove_cvref_t<Parts>...>(
          "split", z.template extent<whole>(), ext, known);
      const std::ptrdiff_t s = z.template stride<whole>();
      return detail::with_indices<sizeof...(Parts)>(
          [&]<std::size_t... Is>(detail::index_constant<Is>...) {
            std::array<std::ptrdiff_t, sizeof...(Parts)> offset{};
            for (std::size_t i = 1; i < sizeof...(Parts); ++i)
              offset[i] = offset[i - 1] + static_cast<std::ptrdiff_t>(ext[i - 1]) * s;
            return std::tuple{detail::replaced_view<whole, detail::at_t<Is, parts>>(
                z, "split", offset[Is], {ext[Is]}, {s})...};
          });
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
// or twice; neither factor known; a ragged a * b that is not a ragged a and a static b. Error
// (run time): a factor's extent that does not divide the merged extent; along a ragged a * b, a
// row whose length b's extent does not divide (shape_error). a takes those lengths divided.
template <dimension A, dimension B, class X, class... Es>
auto split_dims(X&& x, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using b = std::remove_cvref_t<B>;
    constexpr auto check = detail::check_split_dims<a, b, detail::type_list<Es...>, X>();
    DIMGRAPH_REQUIRE(check != check_t::not_memory,
                     "dimgraph: split_dims: the operand must be a tensor or a view (dg::eval an "
                     "expression first)",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::temporary,
        "dimgraph: split_dims: a view of a temporary tensor would dangle; name the tensor first",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::no_such_dim,
        "dimgraph: split_dims: the tensor has no dim that is the product of the factors",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::same_parts,
                     "dimgraph: split_dims: the two factors are the same dim",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: split_dims: a factor is already another dim of the tensor",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::bad_extent_arg,
        "dimgraph: split_dims: an extent is given for a dim that is not a factor, or twice",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::too_many_unknown,
        "dimgraph: split_dims: neither factor has a static size; give the extent of one with "
        "dg::extent<Factor>(n)",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    using whole = merge_dim_t<a, b>;
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, whole>();
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("split_dims"), ::dimgraph::asked<a, b>,
                     detail::has_role_t<X>);
    constexpr bool prefix = check != check_t::ok || (detail::lengths_carry_to<X, whole, a>() &&
                                                     (!is_ragged_v<whole> || is_static_v<b>));
    DIMGRAPH_REQUIRE(
        prefix,
        "dimgraph: split_dims: a ragged merged dim splits only into a ragged major dim "
        "and a static minor one (each row's valid part then stays a prefix)",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    if constexpr (check == check_t::ok && keeps && prefix) {
      auto [ext, known] = detail::part_extents(detail::type_list<a, b>{}, given...);
      ext = detail::split_product_extents<whole, a, b>("split_dims", x.template extent<whole>(),
                                                       ext, known);
      const std::ptrdiff_t s = x.template stride<whole>();
      auto v = detail::replaced_view<whole, a, b>(x, "split_dims", 0, ext,
                                                  {s * static_cast<std::ptrdiff_t>(ext[1]), s});
      // A ragged whole: each row's length over b's extent, which must divide it.
      const auto nb = static_cast<std::int64_t>(ext[1]);
      return detail::with_lengths_from<whole, a>(
          std::move(v), x, "split_dims", [&](std::int64_t len) {
            if (len % nb != 0)
              detail::throw_length_not_divisible<whole, b>("split_dims", len, ext[1]);
            return len / nb;
          });
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph

#undef DIMGRAPH_LOSES_LENGTHS
