// The per-batch lengths of ragged dims: how a shape holds them, checks them and merges them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/config.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/list.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/dim/tag.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph {

// The valid length of a ragged dim for each entry of its batch dim, in batch order. Shared
// and immutable: copying a shape or a tensor copies a pointer. A null reference means every
// entry is full (its length is the dim's extent): what a tensor without given lengths has.
using lengths_ref = std::shared_ptr<const std::vector<std::int64_t>>;

// Lengths given by tag: dg::lengths<Time>({5, 3, 1}) (or from a tensor over the batch dim, see
// tensor/lengths.hpp), next to dg::extent<Batch>(3) where a tensor is made. When no extent is
// given for the dim, its extent is the largest length.
template <class D>
struct lengths_arg {
  lengths_ref value;
};
template <dimension D>
lengths_arg<std::remove_cvref_t<D>> lengths(std::span<const std::int64_t> lens) {
  return {std::make_shared<const std::vector<std::int64_t>>(lens.begin(), lens.end())};
}
template <dimension D>
lengths_arg<std::remove_cvref_t<D>> lengths(std::initializer_list<std::int64_t> lens) {
  return {std::make_shared<const std::vector<std::int64_t>>(lens)};
}

namespace detail {

inline std::string lengths_text(const std::vector<std::int64_t>& v) {
  std::string out = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(v[i]);
  }
  return out + "}";
}

// The largest of the lengths (0 for none); negative lengths are left to check_lengths.
inline std::size_t longest(const lengths_ref& l) {
  std::int64_t m = 0;
  if (l)
    for (std::int64_t x : *l) m = std::max(m, x);
  return static_cast<std::size_t>(m);
}

// Checks lengths l of the ragged dim D against D's extent and the extent of its batch dim.
// Errors (shape_error naming op and the dims): a length count other than the batch extent, a
// negative length, a length above D's extent.
template <class D>
void check_lengths(const char* op, const lengths_ref& l, std::size_t extent,
                   std::size_t batch_extent) {
  if (!l) return;
  using B = ragged_batch_t<D>;
  if (l->size() != batch_extent)
    throw shape_error(op, std::to_string(l->size()) + " lengths are given for dim '" +
                              describe<D>() + "' but its batch dim '" + describe<B>() +
                              "' has extent " + std::to_string(batch_extent));
  for (std::size_t b = 0; b < l->size(); ++b) {
    const std::int64_t n = (*l)[b];
    if (n < 0)
      throw shape_error(op, "dim '" + describe<D>() + "' has a negative length " +
                                std::to_string(n) + " at '" + describe<B>() + "' " +
                                std::to_string(b));
    if (static_cast<std::uint64_t>(n) > extent)
      throw shape_error(op, "dim '" + describe<D>() + "' has length " + std::to_string(n) +
                                " at '" + describe<B>() + "' " + std::to_string(b) +
                                ", above its extent " + std::to_string(extent));
  }
}

// Two operands' lengths of D merged: a null reference (every entry full) takes the other's;
// lengths shared by identity or equal by value are one. Error (shape_error naming op and D):
// different lengths.
template <class D>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_lengths_differ(
    const char* op, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  throw shape_error(op, "dim '" + describe<D>() + "' has lengths " + lengths_text(a) +
                            " in one operand and " + lengths_text(b) + " in another");
}
template <class D>
void merge_lengths(const char* op, lengths_ref& into, const lengths_ref& other) {
  if (!other || into == other) return;
  if (!into) {
    into = other;
    return;
  }
  if (*into != *other) throw_lengths_differ<D>(op, *into, *other);
}

// The lengths of a dim derived from a ragged one, row by row: f(length) for each entry. Null
// (every row full) stays null: the derived dim's rows are then full too.
template <class F>
lengths_ref map_lengths(const lengths_ref& in, F f) {
  if (!in) return nullptr;
  auto out = std::make_shared<std::vector<std::int64_t>>(in->size());
  for (std::size_t b = 0; b < in->size(); ++b) (*out)[b] = f((*in)[b]);
  return out;
}

// Where N dims keep their lengths: nothing at all when N is 0 (std::array<T, 0> takes a byte).
struct no_lengths {};
template <std::size_t N>
using lengths_array = std::conditional_t<N == 0, no_lengths, std::array<lengths_ref, N>>;

// Whether dim D of the dim list L carries lengths: D is ragged, and L has it and its batch dim.
template <class D, class L>
constexpr bool carries_lengths() {
  if constexpr (is_ragged_v<D>)
    return list_contains_v<L, D> && list_contains_v<L, ragged_batch_t<D>>;
  else return false;
}
template <class D, class L>
inline constexpr bool carries_lengths_v = carries_lengths<D, L>();

}  // namespace detail
}  // namespace dimgraph
