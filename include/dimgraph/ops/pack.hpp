// dg::pack and dg::unpack: a tensor over a ragged dim to and from its packed form (every valid
// position, batch-major, with offsets), the form frameworks exchange sequences in.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/operators.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/ops/index.hpp"
#include "dimgraph/ops/view.hpp"

namespace dimgraph {

// The flat dim of dg::pack<D>: every valid (batch, D) position of a tensor over D and its batch
// dim, batch-major (row 0's len[0] steps, then row 1's, ...), as PyTorch's NestedTensor and
// the "cu_seqlens" of variable-length attention kernels lay sequences out. Dynamic.
template <class D>
struct packed_dim : dim_expr_base {
  static constexpr interval bounds = interval{0, (bounds_v<ragged_batch_t<D>> * bounds_v<D>).hi};
  using source = D;
  static constexpr dim_kind kind = kind_v<D>;
  static std::string describe() { return "packed(" + dimgraph::describe<D>() + ")"; }
};

// The dim of the offsets of dg::pack<D>: batch + 1 entries (D's batch dim plus the constant 1).
template <class D>
using offsets_dim_t = decltype(ragged_batch_t<D>{} + c<1>);

// A packed tensor: values [.., packed_dim<D>, ..] and offsets [batch + 1], where row b's steps
// are the values at offsets[b], ..., offsets[b + 1] - 1 of the packed dim (offsets[0] = 0, the
// last offset is the packed dim's extent, row b's length is offsets[b + 1] - offsets[b]).
template <class D, class Values>
struct packed {
  using dim = D;
  using values_type = Values;
  using offsets_type = tensor<std::int64_t, offsets_dim_t<D>>;
  Values values;
  offsets_type offsets;
};

namespace detail {

// The dims of pack<D> of [Ds...]: packed_dim<D> where D's batch dim was, D dropped.
template <class D, class L>
struct packed_dims;
template <class D, class... Ds>
struct packed_dims<D, dim_list<Ds...>> {
  template <class X>
  using one = std::conditional_t<std::is_same_v<X, D>, type_list<>,
                                 std::conditional_t<std::is_same_v<X, ragged_batch_t<D>>,
                                                    type_list<packed_dim<D>>, type_list<X>>>;
  using type = dims_of_t<typename concat<type_list<>, one<Ds>...>::type>;
};
// The dims of unpack of [Ds...]: D's batch dim and D, in this order, where packed_dim<D> was.
template <class D, class L>
struct unpacked_dims;
template <class D, class... Ds>
struct unpacked_dims<D, dim_list<Ds...>> {
  template <class X>
  using one = std::conditional_t<std::is_same_v<X, packed_dim<D>>, type_list<ragged_batch_t<D>, D>,
                                 type_list<X>>;
  using type = dims_of_t<typename concat<type_list<>, one<Ds>...>::type>;
};

// Why pack or unpack rejects its operands (one message per mistake, checked in this order).
// (poisoned: an operand is the stand-in for a mistake reported before; nothing more to say.)
enum class pack_check { ok, poisoned, not_expression, not_ragged, no_dims, has_dims, bad_offsets };

template <class D, class X>
constexpr pack_check check_pack() {
  if constexpr (poisoned<X>) return pack_check::poisoned;
  else if constexpr (!expression<X>) return pack_check::not_expression;
  else if constexpr (!is_ragged_v<D>) return pack_check::not_ragged;
  else if constexpr (!list_contains_v<dims_t<X>, D> ||
                     !list_contains_v<dims_t<X>, ragged_batch_t<D>>)
    return pack_check::no_dims;
  else if constexpr (list_contains_v<dims_t<X>, packed_dim<D>>) return pack_check::has_dims;
  else return pack_check::ok;
}

template <class D, class V, class O>
constexpr pack_check check_unpack() {
  if constexpr (any_poisoned<V, O>) {
    return pack_check::poisoned;
  } else if constexpr (!expression<V> || !expression<O>) {
    return pack_check::not_expression;
  } else if constexpr (!is_ragged_v<D>) {
    return pack_check::not_ragged;
  } else if constexpr (!list_contains_v<dims_t<V>, packed_dim<D>>) {
    return pack_check::no_dims;
  } else if constexpr (list_contains_v<dims_t<V>, D> ||
                       list_contains_v<dims_t<V>, ragged_batch_t<D>>) {
    return pack_check::has_dims;
  } else {
    using o = value_t<O>;
    constexpr bool integer = std::is_integral_v<o> && !std::is_same_v<o, bool>;
    if (!integer || !std::is_same_v<dims_t<O>, dim_list<offsets_dim_t<D>>>)
      return pack_check::bad_offsets;
    return pack_check::ok;
  }
}

// Row b's valid part of x (its first n positions of D, without the batch dim) and the n
// positions of the packed dim from `first` on (as D), views of the same dims.
template <class D, class X>
auto row_part(const char* op, X& x, std::size_t b, std::size_t n) {
  auto row = x[dimgraph::at<ragged_batch_t<D>>(b)];
  return replaced_view<D, D>(row, op, 0, {n}, {row.template stride<D>()});
}
template <class D, class V>
auto packed_part(const char* op, V& values, std::size_t first, std::size_t n) {
  const std::ptrdiff_t s = values.template stride<packed_dim<D>>();
  return replaced_view<packed_dim<D>, D>(values, op, static_cast<std::ptrdiff_t>(first) * s, {n},
                                         {s});
}

// The offsets of unpack, checked: first 0, never decreasing, last `flat` (the packed dim's
// extent). Returns the lengths. Error: shape_error naming unpack and the values at fault.
template <class D, class O>
std::vector<std::int64_t> checked_offset_lengths(const std::vector<O>& o, std::size_t flat) {
  using b = ragged_batch_t<D>;
  const std::string dim = "'" + describe<offsets_dim_t<D>>() + "'";
  if (o.empty()) throw shape_error("unpack", "the offsets are empty (dim " + dim + ")");
  if (std::cmp_not_equal(o[0], 0))
    throw shape_error("unpack", "the first offset is " + std::to_string(o[0]) +
                                    ", not 0 (offsets along dim " + dim + ")");
  for (std::size_t k = 1; k < o.size(); ++k)
    if (std::cmp_less(o[k], o[k - 1]))
      throw shape_error("unpack", "the offsets decrease from " + std::to_string(o[k - 1]) + " to " +
                                      std::to_string(o[k]) + " at entry " + std::to_string(k) +
                                      " of dim " + dim + " ('" + describe<b>() + "' " +
                                      std::to_string(k - 1) + " would have a negative length)");
  if (std::cmp_not_equal(o.back(), flat))
    throw shape_error("unpack", "the last offset is " + std::to_string(o.back()) +
                                    ", but the packed values have extent " + std::to_string(flat) +
                                    " along dim '" + describe<packed_dim<D>>() + "'");
  // (Now 0 <= o[k] <= flat, an extent: every value and difference fits a std::int64_t.)
  std::vector<std::int64_t> lens(o.size() - 1);
  for (std::size_t k = 0; k + 1 < o.size(); ++k)
    lens[k] = static_cast<std::int64_t>(o[k + 1]) - static_cast<std::int64_t>(o[k]);
  return lens;
}

}  // namespace detail

// dg::pack<D>(x): the valid positions of the ragged dim D of x, batch-major, and their offsets.
//   [.., batch, .., D, ..] -> packed<D, tensor<T, [.., packed_dim<D>, .., ..]>>
// values has packed_dim<D> where D's batch dim was and no D; its extent is the sum of the
// lengths (x's lengths of D; every row full when it has none). offsets [batch + 1] holds 0,
// len[0], len[0] + len[1], ... . Padding is not copied. A lazy x is evaluated first.
// Errors (compile time): D is not ragged; x lacks D or D's batch dim; x is not an expression.
template <dimension D, class X>
auto pack(const X& x) {
  using d = std::remove_cvref_t<D>;
  constexpr auto check = detail::check_pack<d, X>();
  using check_t = detail::pack_check;
  DIMGRAPH_REQUIRE(check != check_t::not_expression,
                   "dimgraph: pack: the operand must be a tensor, a view or an expression",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  DIMGRAPH_REQUIRE(check != check_t::not_ragged,
                   "dimgraph: pack: the dim is not ragged (declare it dg::dim<\"name\", "
                   "dg::ragged<Batch>>)",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  DIMGRAPH_REQUIRE(check != check_t::no_dims,
                   "dimgraph: pack: the tensor lacks the ragged dim or its batch dim",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  DIMGRAPH_REQUIRE(check != check_t::has_dims, "dimgraph: pack: the tensor is packed already",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  if constexpr (check != check_t::ok) {
    return detail::invalid_expr{};
  } else {
    using b = ragged_batch_t<d>;
    using values_t =
        detail::tensor_of_list_t<value_t<X>, typename detail::packed_dims<d, dims_t<X>>::type>;
    using offsets_t = tensor<std::int64_t, offsets_dim_t<d>>;
    decltype(auto) m = detail::as_memory(x);
    const std::size_t rows = m.template extent<b>(), full = m.template extent<d>();
    const lengths_ref l = detail::lengths_in<d>(m);
    offsets_t offsets(extent<offsets_dim_t<d>>(rows + 1));
    std::int64_t* o = offsets.data();
    o[0] = 0;
    for (std::size_t r = 0; r < rows; ++r)
      o[r + 1] = o[r] + (l ? (*l)[r] : static_cast<std::int64_t>(full));
    values_t values = [&]<class... Ps>(dim_list<Ps...>) {
      auto one = [&]<class P>(std::type_identity<P>) -> std::size_t {
        if constexpr (std::is_same_v<P, packed_dim<d>>) return static_cast<std::size_t>(o[rows]);
        else return m.template extent<P>();
      };
      return values_t(
          values_t::shape_type::from_extents({one(std::type_identity<Ps>{})...}, "pack"));
    }(dims_t<values_t>{});
    for (std::size_t r = 0; r < rows; ++r) {
      const auto n = static_cast<std::size_t>(o[r + 1] - o[r]);
      if (n != 0)
        detail::packed_part<d>("pack", values, static_cast<std::size_t>(o[r]), n) =
            detail::row_part<d>("pack", m, r, n);
    }
    return packed<d, values_t>{std::move(values), std::move(offsets)};
  }
}

// dg::unpack<D>(values, offsets): the padded tensor of packed values, D's lengths restored.
//   [.., packed_dim<D>, ..], offsets [batch + 1] -> tensor<T, [.., batch, D, ..]>
// D's batch dim and D take packed_dim<D>'s place; row b holds the values at offsets[b], ...,
// offsets[b + 1] - 1 and zeros past its length offsets[b + 1] - offsets[b]. D's extent is the
// largest length, or n when given as dg::extent<D>(n). offsets is any integer tensor or view
// over offsets_dim_t<D> (from a framework's cu_seqlens: dg::view<std::int64_t,
// dg::offsets_dim_t<Time>>(ptr, dg::extent<dg::offsets_dim_t<Time>>(batch + 1))).
// dg::unpack(p) unpacks a dg::packed.
// Errors (compile time): D is not ragged; values lacks packed_dim<D> or has D or its batch dim;
// offsets is not an integer tensor over offsets_dim_t<D> alone; an extent for another dim.
// Errors (run time, shape_error naming unpack and the values, before anything is made): the
// first offset is not 0; offsets decrease; the last offset is not the packed dim's extent;
// a given extent below the largest length; a batch or D extent outside its dim's size; more
// elements than a tensor can address.
template <dimension D, class V, class O, class... Es>
auto unpack(const V& values, const O& offsets, extent_arg<Es>... given) {
  using d = std::remove_cvref_t<D>;
  constexpr auto check = detail::check_unpack<d, V, O>();
  using check_t = detail::pack_check;
  DIMGRAPH_REQUIRE(check != check_t::not_expression,
                   "dimgraph: unpack: the values and the offsets must be tensors, views or "
                   "expressions",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::not_ragged,
                   "dimgraph: unpack: the dim is not ragged (declare it dg::dim<\"name\", "
                   "dg::ragged<Batch>>)",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::no_dims,
                   "dimgraph: unpack: the values lack the packed dim dg::packed_dim<D>",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::has_dims,
                   "dimgraph: unpack: the values already have the ragged dim or its batch dim",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::bad_offsets,
                   "dimgraph: unpack: the offsets must be an integer tensor over "
                   "dg::offsets_dim_t<D> alone",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  constexpr bool extent_ok = (std::is_same_v<Es, d> && ...) && sizeof...(Es) <= 1;
  DIMGRAPH_REQUIRE(extent_ok, "dimgraph: unpack: only the ragged dim's extent may be given",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  if constexpr (check != check_t::ok || !extent_ok) {
    return detail::invalid_expr{};
  } else {
    using b = ragged_batch_t<d>;
    using out_t =
        detail::tensor_of_list_t<value_t<V>, typename detail::unpacked_dims<d, dims_t<V>>::type>;
    decltype(auto) vm = detail::as_memory(values);
    const auto o = detail::as_memory(offsets).to_vector();
    const auto lens = detail::checked_offset_lengths<d>(o, vm.template extent<packed_dim<d>>());
    const std::size_t rows = lens.size();
    std::size_t longest = 0;
    for (std::int64_t n : lens) longest = std::max(longest, static_cast<std::size_t>(n));
    std::size_t ext = longest;
    (
        [&] {
          if (given.value < longest)
            throw shape_error("unpack", "dim '" + describe<d>() + "' is given extent " +
                                            std::to_string(given.value) +
                                            ", below its longest length " +
                                            std::to_string(longest));
          ext = given.value;
        }(),
        ...);
    auto s = [&]<class... Ps>(dim_list<Ps...>) {
      auto one = [&]<class P>(std::type_identity<P>) -> std::size_t {
        if constexpr (std::is_same_v<P, b>) return rows;
        else if constexpr (std::is_same_v<P, d>) return ext;
        else return vm.template extent<P>();
      };
      return out_t::shape_type::from_extents({one(std::type_identity<Ps>{})...}, "unpack");
    }(dims_t<out_t>{});
    s.template set_lengths<d>("unpack", std::make_shared<const std::vector<std::int64_t>>(lens));
    out_t out(s);
    for (std::size_t r = 0; r < rows; ++r) {
      const auto n = static_cast<std::size_t>(lens[r]);
      if (n != 0)
        detail::row_part<d>("unpack", out, r, n) =
            detail::packed_part<d>("unpack", vm, static_cast<std::size_t>(o[r]), n);
    }
    return out;
  }
}
template <class D, class Values, class... Es>
auto unpack(const packed<D, Values>& p, extent_arg<Es>... given) {
  return unpack<D>(p.values, p.offsets, given...);
}

}  // namespace dimgraph
