// slice: a view of every k-th position of a dim between two bounds (NumPy's rule), with
// bounds known at compile time or at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/ops/view.hpp"

// The view is of its operand's memory, so the operand must be a tensor or a view and must
// outlive the result: a temporary tensor is rejected (its view would dangle); dg::eval a lazy
// expression first.

// The message of a slice that would break the lengths of a ragged dim (#undef'd at the end of
// this header; the one of a slice that would lose them, DIMGRAPH_BATCH_OF_LENGTHS: ops/view.hpp).
#define DIMGRAPH_SLICE_NOT_PREFIX                                                                \
  "dimgraph: slice: a slice of a ragged dim must start from the front (start >= 0 or dg::none) " \
  "and step forwards, so that each row's valid part stays a prefix (dg::rename the dim to one "  \
  "that is not ragged to slice it as plain data)"

namespace dimgraph {
namespace detail {

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

#undef DIMGRAPH_SLICE_NOT_PREFIX
