// row: one row of a loop plan over a leaf_table, where each leaf starts and how it steps.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <utility>

#include "dimgraph/config.hpp"

DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// The step of each leaf of a Table along the inner loop whose operands step by `step`.
template <class Table>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, Table::leaf_count + 1> leaf_steps(
    const std::array<std::ptrdiff_t, Table::slots>& step) {
  std::array<std::ptrdiff_t, Table::leaf_count + 1> s{};
  for (std::size_t k = 0; k < Table::leaf_count; ++k) s[k] = step[Table::leaf_slot[k]];
  return s;
}

// The n (< lanes) elements of a row from element i on, as a full vector of lanes reads them:
// leaf k (elements of bytes[k], step[k] elements apart along the row; 0: it does not step)
// is copied to its own piece of scratch (stride bytes apart), its first element repeated after the
// n-th (a value the kernel computes anyway, so padding lanes never trap or overflow where the real
// ones do not), and padded[k] points there; a leaf that does not step keeps its pointer.
inline void pad_leaves(const void* const* at, const std::ptrdiff_t* step, const std::size_t* bytes,
                       std::size_t leaves, std::size_t i, std::size_t n, std::size_t lanes,
                       std::size_t stride, unsigned char* scratch, const void** padded) {
  for (std::size_t k = 0; k < leaves; ++k) {
    padded[k] = at[k];
    if (step[k] == 0) continue;
    const std::ptrdiff_t b = static_cast<std::ptrdiff_t>(bytes[k]);
    const char* src =
        static_cast<const char*>(at[k]) + static_cast<std::ptrdiff_t>(i) * step[k] * b;
    unsigned char* dst = scratch + k * stride;
    for (std::size_t l = 0; l < lanes; ++l) {
      const char* from = src + (l < n ? static_cast<std::ptrdiff_t>(l) * step[k] * b : 0);
      switch (b) {  // (fixed sizes: no call to memcpy)
        case 1:
          std::memcpy(dst + l, from, 1);
          break;
        case 2:
          std::memcpy(dst + 2 * l, from, 2);
          break;
        case 4:
          std::memcpy(dst + 4 * l, from, 4);
          break;
        default:
          std::memcpy(dst + 8 * l, from, 8);
          break;
      }
    }
    padded[k] = dst;
  }
}

// One row of a plan over a table: where each leaf starts and how it steps. Inner is the
// output's last dim (the plan's inner loop); a leaf without it is read once per row. Unit
// says every view (and the output) steps by 1 in this row; owning leaves step by 1 exactly
// when Inner is their last dim. The row holds copies (its own locals, which no store through
// an output pointer can alias, so the compiler keeps them in registers).
template <class Table, class Inner, bool Unit>
struct row {
  using inner = Inner;
  static constexpr bool unit = Unit;
  static constexpr std::size_t leaves = Table::leaf_count;
  static constexpr const auto& leaf_slot = Table::leaf_slot;  // leaf k steps by step[leaf_slot[k]]
  std::array<const void*, Table::leaf_count + 1> at{};
  std::array<std::ptrdiff_t, Table::slots> step{};

  DIMGRAPH_ALWAYS_INLINE row(const typename Table::bases_type& bases,
                             const std::array<std::ptrdiff_t, Table::slots>& off,
                             const std::array<std::ptrdiff_t, Table::slots>& inner_step)
      : step(inner_step) {
    place(bases, off, std::make_index_sequence<Table::leaf_count>{});
  }

  // The widest leaf element in bytes, and the scratch a piece padded to L lanes takes (see pad).
  static constexpr std::size_t widest_leaf = [] {
    std::size_t b = 1;
    for (std::size_t k = 0; k < Table::leaf_count; ++k)
      b = Table::leaf_bytes[k] > b ? Table::leaf_bytes[k] : b;
    return b;
  }();
  template <std::size_t L>
  static constexpr std::size_t scratch_bytes = (Table::leaf_count + 1) * L * widest_leaf;

  // This row becomes r's n (< L) elements from element i on, padded to L lanes in scratch
  // (scratch_bytes<L>), read at 0; leaf_step[k] is leaf k's step along r.
  template <std::size_t L>
  DIMGRAPH_ALWAYS_INLINE void pad(const row& r, std::size_t i, std::size_t n,
                                  const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes,
                                  unsigned char* scratch) {
    // (Through copies: the rows themselves never have their address taken, so that they stay
    // in registers.)
    std::array<const void*, Table::leaf_count + 1> from{}, p{};
    give(from, r, std::make_index_sequence<Table::leaf_count>{});
    pad_leaves(from.data(), leaf_step, leaf_bytes, Table::leaf_count, i, n, L, L * widest_leaf,
               scratch, p.data());
    take(p, std::make_index_sequence<Table::leaf_count>{});
    for (std::size_t s = 0; s < Table::slots; ++s) step[s] = r.step[s] != 0;
  }

 private:
  template <std::size_t... Is>
  DIMGRAPH_ALWAYS_INLINE void place(const typename Table::bases_type& bases,
                                    const std::array<std::ptrdiff_t, Table::slots>& off,
                                    std::index_sequence<Is...>) {
    const int order[] = {
        (at[Is] = static_cast<const char*>(bases[Is]) +
                  off[Table::leaf_slot[Is]] * static_cast<std::ptrdiff_t>(Table::leaf_bytes[Is]),
         0)...,
        0};
    (void)order;
  }
  template <std::size_t... Is>
  DIMGRAPH_ALWAYS_INLINE static void give(std::array<const void*, Table::leaf_count + 1>& to,
                                          const row& r, std::index_sequence<Is...>) {
    const int order[] = {(to[Is] = r.at[Is], 0)..., 0};
    (void)order;
  }
  template <std::size_t... Is>
  DIMGRAPH_ALWAYS_INLINE void take(const std::array<const void*, Table::leaf_count + 1>& p,
                                   std::index_sequence<Is...>) {
    const int order[] = {(at[Is] = p[Is], 0)..., 0};
    (void)order;
  }
};

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
