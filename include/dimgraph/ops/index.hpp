// The ops of dg::index<D>: gather (embedding lookup) and one_hot, which move data by index, and
// argmax and argmin, which give one.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/arg_extreme.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/ops/reduce.hpp"
#include "dimgraph/ops/view.hpp"

// gather and one_hot check every index before they allocate or write anything, then loop over the
// indices themselves (a gather is no element-wise assignment); each row of a gather is
// copied by the assignment machinery, or by one block copy when the table's rows are
// contiguous.

namespace dimgraph {
namespace detail {

template <class X>
concept index_expression = expression<X> && is_index_v<value_t<X>>;

// A lazy expression evaluated; a tensor or view passed through.
template <class X>
decltype(auto) as_memory(const X& x) {
  if constexpr (memory_operand<X>) return x;
  else return eval(x);
}

template <class Table, class Idx>
constexpr structural_check check_gather() {
  if constexpr (!expression<Table> || !expression<Idx>) {
    return structural_check::not_memory;
  } else if constexpr (!is_index_v<value_t<Idx>>) {
    return structural_check::not_index;
  } else {
    using v = index_dim_t<value_t<Idx>>;
    if (!list_contains_v<dims_t<Table>, v>) return structural_check::no_such_dim;
    using rest = list_difference_t<dims_t<Table>, dim_list<v>>;
    if (list_intersection_t<dims_t<Idx>, rest>::size != 0) return structural_check::dim_present;
    return structural_check::ok;
  }
}

// Which elements of a row-major tensor x, in order, lie inside the lengths of its ragged dims
// (empty when x has no lengths: every element does). Padding indices are not read.
template <class X>
std::vector<bool> valid_positions(const X& x) {
  std::vector<bool> valid;
  using dims = typename X::dims;
  [[maybe_unused]] const auto ext = x.shape().extents();
  [[maybe_unused]] const auto str = row_major_strides<X::rank>(ext);
  [[maybe_unused]] auto one = [&]<class R>(std::type_identity<R>) {
    if constexpr (carries_lengths_v<R, dims>) {
      const lengths_ref& l = x.shape().template lengths<R>();
      if (!l) return;
      constexpr std::size_t r = list_index_of_v<dims, R>;
      constexpr std::size_t b = list_index_of_v<dims, ragged_batch_t<R>>;
      if (valid.empty()) valid.assign(x.size(), true);
      for (std::size_t i = 0; i < valid.size(); ++i) {
        const std::size_t at_r = (i / static_cast<std::size_t>(str[r])) % ext[r];
        const std::size_t at_b = (i / static_cast<std::size_t>(str[b])) % ext[b];
        if (static_cast<std::int64_t>(at_r) >= (*l)[at_b]) valid[i] = false;
      }
    }
  };
  [&]<class... Ds>(dim_list<Ds...>) { (one(std::type_identity<Ds>{}), ...); }(dims{});
  return valid;
}

// Every index in idx (a tensor) checked against extent n of V: index_error, before any write.
// Indices in padding (valid is not empty and false there) are not checked.
template <class V, class Idx>
void check_indices(const char* op, const Idx& idx, std::size_t n,
                   const std::vector<bool>& valid = {}) {
  const auto* p = idx.data();
  for (std::size_t i = 0, size = idx.size(); i < size; ++i)
    if (valid.empty() || valid[i]) check_class_index<V>(op, p[i].value(), n);
}

// idx as a row-major tensor (a tensor already is one; anything else is evaluated).
template <class Idx>
decltype(auto) row_major_indices(const Idx& idx) {
  if constexpr (is_tensor_v<Idx>) return idx;
  else return eval(idx);
}

}  // namespace detail

// Rows of a table picked by index (embedding lookup; a new tensor):
//   gather(table, idx): [.., v, ..] , [is...] of dg::index<v> -> [is..., the table's other dims]
// Errors (compile time): idx's elements are not dg::index<v>; the table has no dim v;
// idx's dims overlap the table's other dims. Error (run time): an index outside
// [0, extent of v) (index_error naming v, the index and the extent), before any write.
template <class Table, class Idx>
auto gather(const Table& table, const Idx& idx) {
  if constexpr (detail::poisoned<Table> || detail::poisoned<Idx>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check = detail::check_gather<Table, Idx>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: gather: the table and the indices must be tensors or expressions");
    static_assert(check != check_t::not_index,
                  "dimgraph: gather: the indices' elements must be dg::index<D>");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: gather: the table has no dim for the indices' class dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: gather: the indices' dims overlap the table's other dims");
    if constexpr (check == check_t::ok) {
      using v = index_dim_t<value_t<Idx>>;
      decltype(auto) t = detail::as_memory(table);
      decltype(auto) ix = detail::row_major_indices(idx);
      using t_t = std::remove_cvref_t<decltype(t)>;
      using rest = list_difference_t<dims_t<t_t>, dim_list<v>>;
      using result_t = detail::tensor_of_list_t<value_t<t_t>,
                                                detail::gather_dims_t<dims_t<t_t>, v, dims_t<Idx>>>;
      const std::size_t n = t.template extent<v>();
      const std::vector<bool> valid = detail::valid_positions(ix);
      detail::check_indices<v>("gather", ix, n, valid);
      auto shape = [&]<class... Ds>(dim_list<Ds...>) {
        return result_t::shape_type::from_extents({[&] {
                                                    if constexpr (list_contains_v<dims_t<Idx>, Ds>)
                                                      return ix.template extent<Ds>();
                                                    else return t.template extent<Ds>();
                                                  }()...},
                                                  "gather");
      }(typename result_t::dims{});
      if constexpr (result_t::shape_type::ragged_count > 0) shape.take_lengths(ix.shape());
      result_t r(shape);  // (zeros: what padding rows keep)
      const std::size_t rows = ix.size(), block = rows == 0 ? 0 : r.size() / rows;
      const auto* index = ix.data();
      using row_view = detail::view_of_list_t<value_t<t_t>, detail::types_of_t<rest>>;
      const auto row_strides =
          detail::row_major_strides<rest::size>([&]<class... Ds>(dim_list<Ds...>) {
            return std::array<std::size_t, rest::size>{t.template extent<Ds>()...};
          }(rest{}));
      constexpr bool contiguous_rows =
          detail::is_tensor_v<t_t> &&
          std::is_same_v<detail::front_t<detail::types_of_t<dims_t<t_t>>>, v>;
      for (std::size_t i = 0; i < rows && block > 0; ++i) {
        if (!valid.empty() && !valid[i]) continue;
        const auto k = static_cast<std::size_t>(index[i].value());
        if constexpr (contiguous_rows) {
          std::copy_n(t.data() + k * block, block, r.data() + i * block);
        } else {
          const auto src = t[at<v>(k)];
          row_view(r.data() + i * block, src.shape(), row_strides) = src;
        }
      }
      return r;
    } else {
      return detail::invalid_expr{};
    }
  }
}

// Indices as one-hot vectors (a new tensor of T, float by default):
//   one_hot(idx): idx [is...] of dg::index<v> -> [is..., v]
// v's extent is its static size or given: one_hot(idx, dg::extent<V>(n)). Errors
// (compile time): idx's elements are not dg::index<v>; v is not static and no extent is
// given; an extent given for another dim. Errors (run time): an extent outside v's
// interval, or a result larger than a tensor can address (shape_error); an index outside
// [0, extent) (index_error); both before anything is allocated or written.
template <class T = float, class Idx, class... Es>
auto one_hot(const Idx& idx, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<Idx>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool is_idx = detail::index_expression<Idx>;
    static_assert(is_idx, "dimgraph: one_hot: the indices' elements must be dg::index<D>");
    if constexpr (is_idx) {
      using v = index_dim_t<value_t<Idx>>;
      constexpr bool extent_ok = (std::is_same_v<Es, v> && ...) && sizeof...(Es) <= 1;
      constexpr bool known = is_static_v<v> || sizeof...(Es) == 1;
      static_assert(extent_ok,
                    "dimgraph: one_hot: the only extent to give is the class dim's, once");
      static_assert(
          !extent_ok || known,
          "dimgraph: one_hot: the class dim is not static; give its extent: dg::extent<V>(n)");
      constexpr bool fresh = !list_contains_v<dims_t<Idx>, v>;
      static_assert(!(extent_ok && known) || fresh,
                    "dimgraph: one_hot: the indices already have the class dim");
      static_assert(!(extent_ok && known && fresh) || element<T>,
                    "dimgraph: one_hot: the result's element type is not an element type");
      if constexpr (extent_ok && known && fresh && element<T>) {
        const std::size_t n =
            detail::checked_extent<v>("one_hot", detail::given_extent<v>(given...));
        decltype(auto) ix = detail::row_major_indices(idx);
        const std::vector<bool> valid = detail::valid_positions(ix);
        detail::check_indices<v>("one_hot", ix, n, valid);
        using result_t = detail::tensor_of_list_t<T, detail::one_hot_dims_t<dims_t<Idx>, v>>;
        auto shape = [&]<class... Ds>(dim_list<Ds...>) {
          return result_t::shape_type::from_extents({[&] {
                                                      if constexpr (std::is_same_v<Ds, v>) return n;
                                                      else return ix.template extent<Ds>();
                                                    }()...},
                                                    "one_hot");
        }(typename result_t::dims{});
        if constexpr (result_t::shape_type::ragged_count > 0) shape.take_lengths(ix.shape());
        result_t r(shape);
        const auto* index = ix.data();
        for (std::size_t i = 0, rows = ix.size(); i < rows; ++i)
          if (valid.empty() || valid[i])
            r.data()[i * n + static_cast<std::size_t>(index[i].value())] = T(1);
        return r;
      } else {
        return detail::invalid_expr{};
      }
    } else {
      return detail::invalid_expr{};
    }
  }
}

// The first position of the largest (argmax) or smallest (argmin) element along D, as
// dg::index<D>; NaN counts as the most extreme value (the first NaN's position, as PyTorch).
// Over a ragged dim D (or D the batch dim of a ragged dim of x), only valid positions count.
// Shape rule: [x dims] -> [x dims without D].
// Error (run time): D has extent 0, or a ragged row has no valid position (length 0), so
// there is no position (shape_error).
#define DIMGRAPH_ARG_REDUCTION(NAME, MAX)                                                         \
  template <class D, detail::expression_or_poisoned X>                                            \
  auto NAME(X&& x) {                                                                              \
    if constexpr (detail::poisoned<X>) {                                                          \
      return detail::invalid_expr{};                                                              \
    } else {                                                                                      \
      constexpr bool ok = detail::numeric_over<X, D>();                                           \
      DIMGRAPH_REQUIRE(                                                                           \
          ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers", \
          ::dimgraph::asked<D>, detail::has_role_t<X>);                                           \
      if constexpr (ok) {                                                                         \
        if (x.template extent<D>() == 0) detail::throw_empty_reduction<D>(#NAME, x);              \
        if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {                            \
          if constexpr (detail::memory_operand<X>)                                                \
            return detail::arg_extreme_ragged<D, MAX>(x, #NAME);                                  \
          else return detail::arg_extreme_ragged<D, MAX>(detail::materialize(x), #NAME);          \
        } else if constexpr (detail::memory_operand<X>) {                                         \
          return detail::arg_extreme<D, MAX>(x);                                                  \
        } else {                                                                                  \
          return detail::arg_extreme<D, MAX>(detail::materialize(x));                             \
        }                                                                                         \
      } else {                                                                                    \
        return detail::invalid_expr{};                                                            \
      }                                                                                           \
    }                                                                                             \
  }
DIMGRAPH_ARG_REDUCTION(argmax, true)
DIMGRAPH_ARG_REDUCTION(argmin, false)
#undef DIMGRAPH_ARG_REDUCTION

}  // namespace dimgraph
