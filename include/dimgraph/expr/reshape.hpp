// Views that re-describe a tensor's memory: rename, split, split_dims, slice (no loops, no copies).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/shape/rules.hpp"
#include "dimgraph/shape/slice_rule.hpp"

// Each op returns a tensor_view of its operand's memory, so the operand must be a tensor
// or a view and must outlive the result: a temporary tensor is rejected (its view would
// dangle); dg::eval a lazy expression first.

// The messages of a structural op that would lose the lengths of a ragged dim (#undef'd at
// the end of this header).
#define DIMGRAPH_LOSES_LENGTHS(OP)                                          \
  "dimgraph: " OP                                                           \
  ": the dim is ragged or the batch dim of a ragged dim (it has lengths); " \
  "its lengths would be lost: dg::rename the ragged dim to a dim that is not ragged first"
#define DIMGRAPH_BATCH_OF_LENGTHS(OP)                                                        \
  "dimgraph: " OP                                                                            \
  ": the dim is the batch dim of a ragged dim, whose lengths would be lost (dg::rename the " \
  "ragged dim to a dim that is not ragged first)"

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
  auto vs = view_t::shape_type::from_extents(e, op);
  if constexpr (view_t::shape_type::ragged_count > 0) vs.take_lengths(x.shape());
  // (An empty operand may have no memory at all: no offset from its null pointer.)
  return view_t(x.data() + (x.size() == 0 ? 0 : offset), vs, s);
}

// Whether one of the dims Old... is the batch dim of a ragged dim with lengths in x.
template <class X, class... Old>
constexpr bool is_batch_of_lengths() {
  using xd = typename std::remove_cvref_t<X>::dims;
  return []<class... Ds>(dim_list<Ds...>) {
    auto batch_of = []<class D>(std::type_identity<D>) {
      if constexpr (carries_lengths_v<D, xd>)
        return (std::is_same_v<ragged_batch_t<D>, Old> || ...);
      else return false;
    };
    return (batch_of(std::type_identity<Ds>{}) || ...);
  }(xd{});
}

// Whether a view of x that replaces the dims Old... keeps every length x has: no replaced dim
// is a ragged dim with lengths in x, or the batch dim of one.
template <class X, class... Old>
constexpr bool keeps_lengths() {
  using xd = typename std::remove_cvref_t<X>::dims;
  return !is_batch_of_lengths<X, Old...>() && !(carries_lengths_v<Old, xd> || ...);
}

// Whether an op that makes dim New of x's dim Old carries the lengths over: Old is no batch dim
// of a dim with lengths, and Old, if it has lengths, becomes a dim ragged over the same batch
// dim (whose lengths the op computes row by row).
template <class X, class Old, class New>
constexpr bool lengths_carry_to() {
  using xd = typename std::remove_cvref_t<X>::dims;
  if constexpr (carries_lengths_v<Old, xd>)
    return std::is_same_v<ragged_batch_t<New>, ragged_batch_t<Old>>;
  else return true;
}

// v with the lengths of its dim New set to f(length) of x's dim Old, row by row (v as it is
// when Old has none).
template <class Old, class New, class V, class X, class F>
V with_lengths_from(V v, const X& x, const char* op, F f) {
  if constexpr (carries_lengths_v<Old, dims_t<X>>) {
    if (const lengths_ref& l = x.shape().template lengths<Old>()) {
      auto s = v.shape();
      s.template set_lengths<New>(op, map_lengths(l, f));
      return V(v.data(), s, v.strides());
    }
  }
  return v;
}

// Error: a row of the ragged dim Whole whose length is not a multiple of Part's extent.
template <class Whole, class Part>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_length_not_divisible(const char* op,
                                                                          std::int64_t len,
                                                                          std::size_t n) {
  throw shape_error(op, "dim '" + describe<Whole>() + "' has a row of length " +
                            std::to_string(len) + ", not a multiple of the extent " +
                            std::to_string(n) + " of dim '" + describe<Part>() + "'");
}

// The message of a slice of a ragged dim that would not keep each row's valid part a prefix.
#define DIMGRAPH_SLICE_NOT_PREFIX                                                                \
  "dimgraph: slice: a slice of a ragged dim must start from the front (start >= 0 or dg::none) " \
  "and step forwards, so that each row's valid part stays a prefix (dg::rename the dim to one "  \
  "that is not ragged to slice it as plain data)"

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
  if (!memory_operand<x>) return structural_check::not_memory;
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
// With two positions or more, |step| is below A's extent, so step * stride fits as the
// stride times the extent does; with fewer, the step is never taken (and may be as large as
// PTRDIFF_MIN): the view keeps x's stride. A ragged A's lengths give R's by the same rule on
// each row's length (a row's positions are then those of the whole: the slice starts from the
// front).
template <class A, class R, class X>
auto slice_view(X& x, slice_index start, slice_index end, std::ptrdiff_t step) {
  const slice_range p = slice_positions(x.template extent<A>(), start, end, step);
  const std::ptrdiff_t s = x.template stride<A>();
  auto v = replaced_view<A, R>(x, "slice", static_cast<std::ptrdiff_t>(p.first) * s, {p.count},
                               {p.count > 1 ? p.step * s : s});
  return with_lengths_from<A, R>(std::move(v), x, "slice", [&](std::int64_t n) {
    return static_cast<std::int64_t>(
        slice_positions(static_cast<std::size_t>(n), start, end, step).count);
  });
}

}  // namespace detail

// permute (tensor/tensor.hpp) after a reported mistake: nothing more to say.
template <class... Ps, detail::poisoned X>
detail::invalid_expr permute(X&&) {
  return {};
}

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
    DIMGRAPH_REQUIRE(
        check != check_t::not_memory,
        "dimgraph: rename: the operand must be a tensor or a view (dg::eval an expression first)",
        ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
        detail::has_role_t<X>);
    static_assert(
        check != check_t::temporary,
        "dimgraph: rename: a view of a temporary tensor would dangle; name the tensor first");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: rename: the tensor has no such dim",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: rename: the new dim is already a dim of the tensor",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::sizes_differ,
                     "dimgraph: rename: the dims have different static sizes",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::sizes_disjoint,
                     "dimgraph: rename: the dims' size intervals are disjoint, no extent fits both",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    using old_t = std::remove_cvref_t<Old>;
    using new_t = std::remove_cvref_t<New>;
    using xd = dims_t<X>;
    // A ragged dim renamed to one ragged over the same batch dim keeps its lengths; renamed to
    // a dim that is not ragged, it forgets them (the padding becomes data).
    constexpr bool batch_kept = check != check_t::ok || [] {
      return []<class... Ds>(dim_list<Ds...>) {
        return ((!detail::carries_lengths_v<Ds, xd> ||
                 !std::is_same_v<ragged_batch_t<Ds>, old_t>)&&...);
      }(xd{});
    }();
    DIMGRAPH_REQUIRE(batch_kept,
                     "dimgraph: rename: the dim is the batch dim of a ragged dim, whose lengths "
                     "would be lost",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    if constexpr (check == check_t::ok && batch_kept) {
      auto v = detail::replaced_view<old_t, new_t>(x, "rename", 0, {x.template extent<Old>()},
                                                   {x.template stride<Old>()});
      using view_t = decltype(v);
      if constexpr (detail::carries_lengths_v<old_t, xd> &&
                    detail::carries_lengths_v<new_t, dims_t<view_t>> &&
                    std::is_same_v<ragged_batch_t<old_t>, ragged_batch_t<new_t>>) {
        auto vs = v.shape();
        vs.template set_lengths<new_t>("rename", x.shape().template lengths<old_t>());
        return view_t(v.data(), vs, v.strides());
      } else {
        return v;
      }
    } else {
      return detail::invalid_expr{};
    }
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

// A slice along dim a with bounds known at compile time (a view), NumPy's rule (see
// slice_positions): negative bounds count from the end, end is exclusive, bounds beyond
// the ends are clamped, a negative stride reads backwards; dg::none leaves a bound open.
//   slice<a, start, end, stride>(x): [.., a, ..] -> [.., slice_dim_t<a, start, end, stride>, ..]
// The result dim is the algebra's where it can say it (slice<a, 2, -3> of a padded dim
// 2 + a + 3 is a itself; a static a gives a static size), else an opaque dim (see
// slice_dim_t). Along a ragged dim a (with its lengths) the result dim is ragged over the same
// batch dim, each row's length the slice rule applied to the row's length (an end counting
// from the back counts from each row's end), so the slice must start from the front and step
// forwards. Errors (compile time): x has no dim a; stride 0; the result dim is already another
// dim of x; a slice of a ragged dim from the back or backwards; a slice of a ragged dim's batch
// dim.
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
    DIMGRAPH_REQUIRE(
        check != check_t::not_memory,
        "dimgraph: slice: the operand must be a tensor or a view (dg::eval an expression first)",
        ::dimgraph::asked<a>, detail::has_role_t<X>);
    static_assert(
        check != check_t::temporary,
        "dimgraph: slice: a view of a temporary tensor would dangle; name the tensor first");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: slice: the tensor has no such dim",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::zero_stride, "dimgraph: slice: the stride is 0",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: slice: the result dim is already another dim of the tensor",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    constexpr bool batch_kept = check != check_t::ok || !detail::is_batch_of_lengths<X, a>();
    DIMGRAPH_REQUIRE(batch_kept, DIMGRAPH_BATCH_OF_LENGTHS("slice"), ::dimgraph::asked<a>,
                     detail::has_role_t<X>);
    constexpr bool prefix = check != check_t::ok || detail::lengths_carry_to<X, a, result>();
    DIMGRAPH_REQUIRE(prefix, DIMGRAPH_SLICE_NOT_PREFIX, ::dimgraph::asked<a>,
                     detail::has_role_t<X>);
    if constexpr (check == check_t::ok && batch_kept && prefix)
      return detail::slice_view<a, result>(x, Start, End, Stride);
    else return detail::invalid_expr{};
  }
}

// A slice along dim a with bounds known at run time (a view), by the same rule:
//   slice<a>(x, start, end, stride = 1): [.., a, ..] -> [.., sliced_dim<a>, ..]
// sliced_dim<a> has size [0, hi(a)] and is one dim for every run-time slice of a (rename
// it to tell two apart); ragged along a ragged a, as above. Errors: x has no dim a, or a is the
// batch dim of a ragged dim (compile time); stride 0; a negative start or stride along a ragged
// dim with lengths (shape_error).
template <dimension A, class X>
auto slice(X&& x, slice_index start, slice_index end, std::ptrdiff_t stride = 1) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using result = sliced_dim<a>;
    constexpr auto check = detail::check_slice<a, result, false, X>();
    DIMGRAPH_REQUIRE(
        check != check_t::not_memory,
        "dimgraph: slice: the operand must be a tensor or a view (dg::eval an expression first)",
        ::dimgraph::asked<a>, detail::has_role_t<X>);
    static_assert(
        check != check_t::temporary,
        "dimgraph: slice: a view of a temporary tensor would dangle; name the tensor first");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: slice: the tensor has no such dim",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: slice: the result dim is already another dim of the tensor",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, a>();
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("slice"), ::dimgraph::asked<a>,
                     detail::has_role_t<X>);
    if constexpr (check == check_t::ok && keeps) {
      if (stride == 0)
        throw shape_error("slice", "the stride along dim '" + describe<a>() + "' is 0");
      if constexpr (detail::carries_lengths_v<a, dims_t<X>>)
        if (const lengths_ref& l = x.shape().template lengths<a>();
            l && (stride < 0 || (!start.is_none && start.value < 0)))
          throw shape_error("slice", "dim '" + describe<a>() + "' is ragged (lengths " +
                                         detail::lengths_text(*l) +
                                         "): a slice of it must start from the front (start >= "
                                         "0 or dg::none) and step forwards");
      return detail::slice_view<a, result>(x, start, end, stride);
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph

#undef DIMGRAPH_LOSES_LENGTHS
#undef DIMGRAPH_BATCH_OF_LENGTHS
#undef DIMGRAPH_SLICE_NOT_PREFIX
