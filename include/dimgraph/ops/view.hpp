// The views the structural ops make of an operand's memory, the results they fill, and why
// they reject an operand (structural_check).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/expr/broadcast.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/shape/rules.hpp"
#include "dimgraph/shape/slice_rule.hpp"

// The message of a structural op along the batch dim of a ragged dim (is_batch_of_lengths
// below), for concat, pad, slice, split_dims and merge_dims. (A macro: a static_assert's message
// is a literal where it is written. Left defined for the headers that use it, each reached from
// dimgraph.hpp, which #undefs it at its end.)
#define DIMGRAPH_BATCH_OF_LENGTHS(OP)                                                        \
  "dimgraph: " OP                                                                            \
  ": the dim is the batch dim of a ragged dim, whose lengths would be lost (dg::rename the " \
  "ragged dim to a dim that is not ragged first)"

namespace dimgraph::detail {

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

// Every element of a view set to value (a scalar broadcast over the view's dims).
template <class T, class... Ds>
void fill_view(const tensor_view<T, Ds...>& v, T value) {
  v = broadcast_expr<scalar_expr<T>, Ds...>(scalar_expr<T>{{}, value}, v.shape().extents());
}

// The shape of a result whose dims are x's with one dim (Special, of extent n) new.
// The lengths of x's ragged dims go with them.
template <class Result, class Special, class X>
typename Result::shape_type shape_with(const char* op, const X& x, std::size_t n) {
  return [&]<class... Ds>(dim_list<Ds...>) {
    auto s = Result::shape_type::from_extents({[&] {
                                                if constexpr (std::is_same_v<Ds, Special>) return n;
                                                else return x.template extent<Ds>();
                                              }()...},
                                              op);
    if constexpr (Result::shape_type::ragged_count > 0) take_lengths_of(s, x, op);
    return s;
  }(typename Result::dims{});
}

}  // namespace dimgraph::detail
