// The row kernels of a reduction that reduce down: a block of rows reduced into an acc row
// (reduce_block), and rows that follow each other into a narrow acc row (reduce_periodic), in
// registers.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/reduce_rows.hpp"

namespace dimgraph::detail {

// t, L / H parts of H lanes, written to the L elements of acc at o (contiguous).
template <class Acc, std::size_t L, std::size_t H, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void finish_vector(Acc* o, const std::array<T, N>& t) {
  for (std::size_t p = 0; p < N; ++p) store_lanes<H>(o + p * H, t[p]);
}

// o[j] = Op(o[j], element j + q n of the row r of total elements) for j < n and every q: a
// vertical reduction into a row of n elements (a power of two, at most 4 L) whose input rows
// lie one after another in every operand, read as one row in vectors of L lanes, 4 at a time
// into 4 chains (chain c's lane l then always holds element (c L + l) % n of a row), the
// chains folded into o at the end; the last elements a vector at a time, then in parts of
// L / 2, L / 4, ..., 1 lanes, straight into o. (Rows of 4 floats in blocks of 16 took 10
// times Eigen's time at -O2: the block's setup cost more than its 16 additions.) Staged:
// each chain's float sums of at most block_rows / 4 vectors added in double.
template <class Op, class Acc, bool Staged, std::size_t L, std::size_t H, class Row, class Kernel>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void reduce_periodic(const Kernel& k, const Row& r,
                                                        std::size_t total, std::size_t n, Acc* o) {
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  constexpr std::size_t C = 4;
  static_assert(block_rows % C == 0);
  std::array<std::array<part, L / H>, C> lanes;
  for (auto& chain : lanes)
    chain.fill(simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>())));
  const std::size_t chunks_end = total / (C * L) * (C * L);
  std::size_t i = 0;
  if constexpr (Staged) {
    while (i < chunks_end) {
      std::array<fn::lanes_t<E, L>, C> t;
      for (auto& v : t) v = simd::splat<simd::lane_t<E>, L>(0.0f);
      const std::size_t end = std::min(chunks_end, i + block_rows * L);
      for (; i < end; i += C * L)
        for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
          t[Chain] += k.template packet<L>(r, i + Chain * L);
        });
      for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
        combine_into<Op, Acc, E, L, H>(lanes[Chain], t[Chain]);
      });
    }
  } else {
    for (; i < chunks_end; i += C * L)
      for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
        combine_into<Op, Acc, E, L, H>(lanes[Chain], k.template packet<L>(r, i + Chain * L));
      });
  }
  // from[0, count), elements start, start + 1, ... of the row, into o.
  const auto into_o = [&](const Acc* from, std::size_t count,
                          std::size_t start) DIMGRAPH_ALWAYS_INLINE {
    for (std::size_t l = 0; l < count; ++l) {
      Acc* q = o + (start + l) % n;
      store_lanes<1>(q, Op::combine(load_lanes<1>(q), load_lanes<1>(from + l)));
    }
  };
  for (std::size_t c = 0; c < C; ++c) {
    Acc folded[L];
    for (std::size_t p = 0; p < L / H; ++p) store_lanes<H>(folded + p * H, lanes[c][p]);
    into_o(folded, L, c * L);
  }
  for (; i + L <= total; i += L) {
    Acc whole[L];
    for_each_index<L / H>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      store_lanes<H>(whole + P * H, widened_part<Acc, E, H, P>(k.template packet<L>(r, i)));
    });
    into_o(whole, L, i);
  }
  for_pieces<L>(i, total - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
    Acc piece[M];
    store_lanes<M>(piece, fn::as<Acc, E>(k.template packet<M>(r, at)));
    into_o(piece, M, at);
  });
}

// Acc rows of at least row_major_bytes whose input rows follow each other are reduced row by
// row, as one stream (reduce_stream), not a vector over a block of rows at a time
// (reduce_block, which reads the block's rows at once); the acc row stays in L1. A sum over
// the middle dim of [32, 128, 512] floats on a Zen 4, g++ -O3 -march=native: 124 -> 104 us
// (the hand loop, row by row: 110 us); rows of 64-256 floats were as fast or faster in
// registers over a block.
inline constexpr std::size_t row_major_bytes = 2048;

// How many input rows reduce_stream combines into each vector of the acc row between its load
// and its store: four for a short kernel (a loaded operand, a product), which saves three of
// every four loads and stores of the acc row; two for a longer one (G copies of the kernel in
// the loop). A float sum down the middle dim of [4, 32, 512] (in L2) on a Zen 3, a row at a
// time -> four: g++ -O3 -march=native 6.0 -> 5.1 us (the hand loop, which GCC unrolls over
// two rows: 6.0), g++ -O2 7.8 -> 6.1 us, clang++-16 -O3 -march=native 4.1 -> 3.6 us (hand
// 3.4). Over [32, 128, 512] (8 MiB, from L3) both are within the noise of the memory.
template <class Kernel>
inline constexpr std::size_t reduce_stream_rows = Kernel::instructions <= 8 ? 4 : 2;

// o[i] = Op(o[i], element i of rows first, first + 1, ..., first + count - 1) for i < n, the
// rows of n elements one after another in every operand (so row j starts at element j n of
// the one long row r), G rows at a time: a vector of o is loaded, combined with that vector of
// each of the G rows in turn and stored (unrolled four times), then the last piece in parts of
// L / 2, L / 4, ..., 1 lanes; the last count % G rows one at a time (G: reduce_stream_rows).
// Each element combines its rows in order, as reduce_block does.
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void reduce_stream(const Kernel& k, const Row& row,
                                                      std::size_t first, std::size_t count,
                                                      std::size_t n, Acc* o) {
  // (A local copy: the stores to o, through may-alias vector types, would otherwise make
  // Clang reload the row's pointers after each one.)
  const Row r = row;
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  constexpr std::size_t G = reduce_stream_rows<Kernel>;
  const std::size_t vectors_end = n / L * L;
  // Rows at, at + n, ..., at + (Rows - 1) n into o.
  const auto rows = [&]<std::size_t Rows>(index_constant<Rows>,
                                          std::size_t at) DIMGRAPH_ALWAYS_INLINE {
    const auto vector = [&](std::size_t i) DIMGRAPH_ALWAYS_INLINE {
      std::array<part, L / H> t;
      for (std::size_t p = 0; p < L / H; ++p) t[p] = load_lanes<H>(o + i + p * H);
      for_each_index<Rows>([&]<std::size_t J>(index_constant<J>) DIMGRAPH_ALWAYS_INLINE {
        combine_into<Op, Acc, E, L, H>(t, k.template packet<L>(r, at + J * n + i));
      });
      finish_vector<Acc, L, H>(o + i, t);
    };
    std::size_t i = 0;
    // (The last count % G rows, a row at a time, are not unrolled: unrolled, the second copy
    // of the loop took the reduction tests 12% more compile time.)
    if constexpr (Rows == G) {
      DIMGRAPH_UNROLL_4
      for (; i < vectors_end; i += L) vector(i);
    } else {
      for (; i < vectors_end; i += L) vector(i);
    }
    for_pieces<L>(i, n - i, [&]<std::size_t M>(std::size_t p) DIMGRAPH_ALWAYS_INLINE {
      auto t = load_lanes<M>(o + p);
      for_each_index<Rows>([&]<std::size_t J>(index_constant<J>) DIMGRAPH_ALWAYS_INLINE {
        t = Op::combine(t, fn::as<Acc, E>(k.template packet<M>(r, at + J * n + p)));
      });
      store_lanes<M>(o + p, t);
    });
  };
  std::size_t at = first * n;
  const std::size_t end = (first + count) * n;
  for (; count >= G; count -= G, at += G * n) rows(index_constant<G>{}, at);
  for (; at != end; at += n) rows(index_constant<1>{}, at);
}

// o[i * s] = Op(o[i * s], element i of each row) for the count (<= B) rows of a vertical
// reduction given by their offsets, in row order, for i < n: one vector of L elements at a
// time, reduced over the rows in registers (Acc in parts of H lanes) and written to o once.
// The last piece of m < L elements is read in parts of fewer lanes (for_pieces), or, for a
// long kernel, from padded copies.
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel, class Bases,
          std::size_t B, std::size_t S>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void reduce_block(
    const Kernel& k, const Bases& bases, const std::array<std::array<std::ptrdiff_t, S>, B>& off,
    std::size_t count, const std::array<std::ptrdiff_t, S>& step, std::size_t n, Acc* o,
    std::ptrdiff_t s, const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes) {
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  constexpr std::size_t parts = L / H;
  // (Unused entries repeat the first row.)
  const auto rows =
      with_indices<B>([&]<std::size_t... J>(index_constant<J>...) DIMGRAPH_ALWAYS_INLINE {
        return std::array<Row, B>{Row(bases, off[J < count ? J : 0], step)...};
      });
  // Whole vectors of a contiguous acc row, C at a time (independent chains of combines; C
  // copies of the kernel, so fewer for a long one).
  constexpr std::size_t size = Kernel::facts::size;
  constexpr std::size_t C = size <= 8 ? 4 : size <= 32 ? 2 : 1;
  std::size_t i = 0;
  if constexpr (C > 1) {
    if (s == 1)
      for (; i + C * L <= n; i += C * L) {
        std::array<std::array<part, parts>, C> t;
        for (std::size_t c = 0; c < C; ++c)
          for (std::size_t p = 0; p < parts; ++p) t[c][p] = load_lanes<H>(o + i + c * L + p * H);
        for (std::size_t j = 0; j < count; ++j)
          for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
            combine_into<Op, Acc, E, L, H>(t[Chain], k.template packet<L>(rows[j], i + Chain * L));
          });
        for (std::size_t c = 0; c < C; ++c) finish_vector<Acc, L, H>(o + i + c * L, t[c]);
      }
  }
  // The rest, a vector at a time, acc strided or not; then the last piece of m < L elements
  // in parts of L / 2, L / 4, ..., 1 lanes (for_pieces, below), or, for a kernel longer than
  // pieces_up_to, as one padded vector.
  constexpr bool pieces = Kernel::instructions <= pieces_up_to;
  const std::size_t end = pieces ? n - n % L : n;
  [[maybe_unused]] unsigned char scratch[pieces ? 1 : Row::template scratch_bytes<L>];
  [[maybe_unused]] Row padded = rows[0];
  for (; i < end; i += L) {
    const std::size_t m = std::min(L, n - i);
    const bool whole = m == L && s == 1;
    std::array<part, parts> t;
    t.fill(simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>())));
    if (whole) {
      for (std::size_t p = 0; p < parts; ++p) t[p] = load_lanes<H>(o + i + p * H);
    } else {
      for (std::size_t l = 0; l < m; ++l)
        t[l / H][l % H] = load_lanes<1>(o + static_cast<std::ptrdiff_t>(i + l) * s)[0];
    }
    for (std::size_t j = 0; j < count; ++j) {
      const Row* r = &rows[j];
      std::size_t at = i;
      if constexpr (!pieces) {
        if (m != L) [[unlikely]] {
          padded = rows[j];
          padded.template pad<L>(rows[j], i, m, leaf_step, leaf_bytes, scratch);
          r = &padded;
          at = 0;
        }
      }
      combine_into<Op, Acc, E, L, H>(t, k.template packet<L>(*r, at));
    }
    if (whole) {
      finish_vector<Acc, L, H>(o + i, t);
    } else {
      for (std::size_t l = 0; l < m; ++l)
        store_lanes<1>(o + static_cast<std::ptrdiff_t>(i + l) * s,
                       simd::splat<simd::lane_t<Acc>, 1>(t[l / H][l % H]));
    }
  }
  // The last piece in parts: each part's M elements at o + i s combined with the rows' M
  // elements, in registers, as above.
  if constexpr (pieces)
    for_pieces<L>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
      Acc* q = o + static_cast<std::ptrdiff_t>(at) * s;
      const auto load = [&]() DIMGRAPH_ALWAYS_INLINE {
        return s == 1 ? load_lanes<M>(q) : load_lanes<M>(q, s);
      };
      const auto store = [&](const fn::lanes_t<Acc, M>& v) DIMGRAPH_ALWAYS_INLINE {
        if (s == 1) store_lanes<M>(q, v);
        else store_lanes<M>(q, s, v);
      };
      auto t = load();
      for (std::size_t j = 0; j < count; ++j)
        t = Op::combine(t, fn::as<Acc, E>(k.template packet<M>(rows[j], at)));
      store(t);
    });
}

}  // namespace dimgraph::detail
