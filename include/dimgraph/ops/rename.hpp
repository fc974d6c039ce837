// rename: one dim's name changed, in place (a view).
#pragma once

#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/ops/view.hpp"

// rename returns a tensor_view of its operand's memory, so the operand must be a tensor or a view
// and must outlive the result: a temporary tensor is rejected (its view would dangle); dg::eval
// a lazy expression first.

namespace dimgraph {
namespace detail {

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

}  // namespace detail

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

}  // namespace dimgraph
