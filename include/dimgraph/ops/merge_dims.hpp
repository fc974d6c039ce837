// merge_dims: two dims merged into one (a view where the layout allows, else a copy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/ops/view.hpp"

namespace dimgraph {
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
// elements: the result type says which, at compile time. A ragged a with a static b gives a
// ragged a * b, each row's length times b's extent. Errors (compile time): x lacks a or b;
// a == b; a * b is already a dim of x; a ragged a with a b that is not static, a ragged b, or
// a ragged dim's batch dim (its lengths would be lost). Error (run time): a * b's extent does not
// fit a std::size_t, or the result is larger than a tensor can address (shape_error).
template <dimension A, dimension B, class X>
auto merge_dims(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using b = std::remove_cvref_t<B>;
    constexpr auto check = detail::check_merge_dims<a, b, X>();
    DIMGRAPH_REQUIRE(check != check_t::not_memory,
                     "dimgraph: merge_dims: the operand is not a tensor or an expression",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim,
                     "dimgraph: merge_dims: the tensor lacks one of the dims",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::same_parts,
                     "dimgraph: merge_dims: the two dims are the same dim", ::dimgraph::asked<a, b>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: merge_dims: the merged dim is already a dim of the tensor",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, a, b>();
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("merge_dims"), ::dimgraph::asked<a, b>,
                     detail::has_role_t<X>);
    constexpr bool prefix =
        check != check_t::ok || (!detail::carries_lengths_v<b, dims_t<X>> &&
                                 detail::lengths_carry_to<X, a, merge_dim_t<a, b>>());
    DIMGRAPH_REQUIRE(
        prefix,
        "dimgraph: merge_dims: a ragged dim merges only as the major dim with a static "
        "one (each row's valid part then stays a prefix); merged with a dynamic dim, or "
        "as the minor dim, its lengths would be lost",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    if constexpr (check == check_t::ok && keeps && prefix) {
      using x_t = std::remove_cvref_t<X>;
      using dims = dims_t<x_t>;
      using m = merge_dim_t<a, b>;
      constexpr std::size_t ia = list_index_of_v<dims, a>, ib = list_index_of_v<dims, b>;
      const std::size_t na = x.template extent<a>(), nb = x.template extent<b>();
      const std::size_t nm = detail::result_extent<m, false>("merge_dims", {na, nb}, [&] {
        return detail::parts_text<a, b>(" * ", {na, nb});
      });
      // A ragged a: each row's length times b's extent.
      const auto merged_length = [nb](std::int64_t len) {
        return len * static_cast<std::int64_t>(nb);
      };
      if constexpr (detail::is_tensor_v<x_t> && std::is_lvalue_reference_v<X> && ib == ia + 1) {
        return detail::with_lengths_from<a, m>(
            detail::spliced_view<ia, 2, m>(x, "merge_dims", 0, {nm}, {x.template stride<b>()}), x,
            "merge_dims", merged_length);
      } else {
        using value = value_t<x_t>;
        using without_b = detail::dims_of_t<detail::replace_dim_t<dims, b>>;
        using result_t = detail::tensor_of_list_t<value, detail::replace_dim_t<without_b, a, m>>;
        auto shape = detail::shape_with<result_t, m>("merge_dims", x, nm);
        if constexpr (detail::carries_lengths_v<a, dims>)
          shape.template set_lengths<m>(
              "merge_dims", detail::map_lengths(detail::lengths_in<a>(x), merged_length));
        result_t r(shape);
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

}  // namespace dimgraph
