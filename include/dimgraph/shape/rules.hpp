// Propagation rules of the structural ops: each result dim as a type next to its run-time extent.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/list.hpp"
#include "dimgraph/dim/operators.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/shape.hpp"

// Each rule is written once. The compile-time half is a dim type made by the dim
// algebra, so its interval is bounds_v of that type (nGraph's interval rules: concat
// sums intervals, merging multiplies them, an unknown bound stays unknown); the
// run-time half computes the extent from the operands' extents and throws shape_error
// where they cannot fit. Dims that must agree are the same tag, so their intervals
// agree by construction and their run-time extents must be equal.

namespace dimgraph {

// concat: [.., a, ..] , [.., b, ..] -> [.., a + b, ..] (a + a is 2 * a).
template <dimension... Parts>
using concat_dim_t = decltype((... + std::remove_cvref_t<Parts>{}));

// merge_dims: [.., a, .., b, ..] -> [.., a * b, ..] (a major).
template <dimension A, dimension B>
using merge_dim_t = decltype(std::remove_cvref_t<A>{} * std::remove_cvref_t<B>{});

// pad: [.., a, ..] -> [.., Before + a + After, ..].
template <dimension A, std::size_t Before, std::size_t After>
using pad_dim_t = decltype(c<Before> + std::remove_cvref_t<A>{} + c<After>);

namespace detail {

// The same dim in operands i and j (1-based) must have one extent.
template <class D>
void check_agree(const char* op, std::size_t a, std::size_t i, std::size_t b, std::size_t j) {
  if (a != b)
    throw shape_error(op, "dim '" + describe<D>() + "' has extent " + std::to_string(a) +
                              " in operand " + std::to_string(i) + " and " + std::to_string(b) +
                              " in operand " + std::to_string(j));
}

// "a=3 + b[4]": parts with their extents.
template <class... Parts>
std::string parts_text(const char* sep, const std::array<std::size_t, sizeof...(Parts)>& ext) {
  std::string s;
  std::size_t i = 0;
  ((s += (i ? sep : "") + dim_with_extent<Parts>(ext[i]), ++i), ...);
  return s;
}

// The extent of the result dim R of `op`: the sum (Add) or the product of the operands'
// extents xs. Error: it does not fit a std::size_t (shape_error naming op, R and the
// operands as text() writes them).
template <class R, bool Add, class Text>
std::size_t result_extent(const char* op, std::initializer_list<std::size_t> xs, const Text& text) {
  std::size_t r = Add ? 0 : 1;
  for (std::size_t x : xs)
    if (Add ? add_overflows(r, x, r) : mul_overflows(r, x, r))
      throw shape_error(op, "dim '" + describe<R>() + "' would have extent " + text() +
                                ", more than a std::size_t holds");
  return r;
}

// The extents of the parts of a sum (split, the inverse of concat): the parts' extents
// add up to the whole's. Parts with a static size or a given extent are known; the one
// part left unknown (it may occur more than once: split<A, A> of 2 * A) gets the rest,
// shared equally. Error: the known parts exceed the whole (or add up to more than a
// std::size_t holds), or the rest does not share equally, or (nothing unknown) the parts do
// not add up to the whole.
template <class Whole, class... Parts>
std::array<std::size_t, sizeof...(Parts)> split_sum_extents(
    const char* op, std::size_t whole, std::array<std::size_t, sizeof...(Parts)> ext,
    const std::array<bool, sizeof...(Parts)>& known) {
  constexpr std::size_t n = sizeof...(Parts);
  std::size_t sum = 0, unknown = 0;
  bool overflow = false;
  for (std::size_t i = 0; i < n; ++i)
    known[i] ? void(overflow = overflow || add_overflows(sum, ext[i], sum)) : void(++unknown);
  auto fail = [&](const std::string& why) {
    throw shape_error(
        op, "dim '" + describe<Whole>() + "' has extent " + std::to_string(whole) + ", " + why);
  };
  if (overflow) {
    std::string given;
    std::size_t i = 0;
    ((known[i] ? void(given += (given.empty() ? "" : " + ") + dim_with_extent<Parts>(ext[i]))
               : void(),
      ++i),
     ...);
    fail("but its known parts add up to more than a std::size_t holds: " + given);
  }
  if (unknown == 0 && sum != whole)
    fail("but its parts add up to " + std::to_string(sum) + ": " +
         parts_text<Parts...>(" + ", ext));
  if (sum > whole) fail("less than its known parts add up to (" + std::to_string(sum) + ")");
  if (unknown > 0) {
    if ((whole - sum) % unknown != 0)
      fail("which leaves " + std::to_string(whole - sum) + " to share among " +
           std::to_string(unknown) + " equal parts");
    for (std::size_t i = 0; i < n; ++i)
      if (!known[i]) ext[i] = (whole - sum) / unknown;
  }
  return ext;
}

// The extents of the factors of a merged dim (split_dims, the inverse of merge_dims):
// a * b == whole; the known factor gives the other exactly. Error: the known factor does
// not divide the whole, or is 0 (then the other is undetermined), or (both known) the
// product is not the whole (or does not fit a std::size_t).
template <class Whole, class A, class B>
std::array<std::size_t, 2> split_product_extents(const char* op, std::size_t whole,
                                                 std::array<std::size_t, 2> ext,
                                                 std::array<bool, 2> known) {
  auto fail = [&](const std::string& why) {
    throw shape_error(
        op, "dim '" + describe<Whole>() + "' has extent " + std::to_string(whole) + ", " + why);
  };
  if (known[0] && known[1]) {
    std::size_t product = 0;
    if (mul_overflows(ext[0], ext[1], product))
      fail("but its factors' extents multiply to more than a std::size_t holds: " +
           parts_text<A, B>(" * ", ext));
    if (product != whole)
      fail("but its factors' extents multiply to " + std::to_string(product) + ": " +
           parts_text<A, B>(" * ", ext));
    return ext;
  }
  const std::size_t k = known[0] ? 0 : 1;
  const std::string part = k == 0 ? dim_with_extent<A>(ext[0]) : dim_with_extent<B>(ext[1]);
  const std::string other = k == 0 ? describe<B>() : describe<A>();
  if (ext[k] == 0)
    fail("and " + part + " leaves the extent of '" + other +
         "' undetermined; give it with dg::extent");
  if (whole % ext[k] != 0) fail("which is not divisible by " + part);
  ext[1 - k] = whole / ext[k];
  return ext;
}

// An index read from data: index_error unless 0 <= i < n (the wording of check_index).
template <class V>
void check_class_index(const char* op, std::int64_t i, std::size_t n) {
  if (i < 0 || static_cast<std::uint64_t>(i) >= n)
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" +
                              describe<V>() + "' of extent " + std::to_string(n));
}

// A dim list with its dim Old replaced by the dims News... in place.
template <class L, class Old, class... News>
struct replace_dim {
  using list = types_of_t<L>;
  static constexpr std::size_t at = index_of_v<Old, list>;
  using type =
      concat_t<slice_t<0, at, list>, type_list<News...>, slice_t<at + 1, list::size, list>>;
};
template <class L, class Old, class... News>
using replace_dim_t = typename replace_dim<L, Old, News...>::type;

// Why a rename's sizes cannot agree (rename merges Old's interval with New's).
enum class rename_sizes { ok, different_static_sizes, disjoint };
template <class Old, class New>
constexpr rename_sizes check_rename_sizes() {
  if (is_static_v<Old> && is_static_v<New> && bounds_v<Old>.lo != bounds_v<New>.lo)
    return rename_sizes::different_static_sizes;
  if (intersect(bounds_v<Old>, bounds_v<New>).is_empty()) return rename_sizes::disjoint;
  return rename_sizes::ok;
}

}  // namespace detail

// Result dim lists (as detail::type_list) of the structural ops; D is x's dim list.
//   rename<Old, New>:  [.., old, ..] -> [.., new, ..]
//   concat along a:    [.., a, ..] -> [.., a + b, ..]
//   split_dims<A, B>:  [.., a * b, ..] -> [.., a, b, ..]
//   gather:            table [.., v, ..] , idx [is...] -> [is..., table dims without v]
//   one_hot:           idx [is...] -> [is..., v]
namespace detail {
template <class D, class Old, class New>
using rename_dims_t = replace_dim_t<D, Old, New>;
template <class TableDims, class V, class IdxDims>
using gather_dims_t =
    concat_t<types_of_t<IdxDims>, types_of_t<list_difference_t<TableDims, dim_list<V>>>>;
template <class IdxDims, class V>
using one_hot_dims_t = concat_t<types_of_t<IdxDims>, type_list<V>>;
}  // namespace detail

}  // namespace dimgraph
