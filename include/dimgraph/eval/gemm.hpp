// The blocked register-tiled GEMM behind dot: cache blocks, packing, the micro-kernel and the
// driver (eval/gemm_direct.hpp has the kernels that read operands in place).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/eval/gemm_vector.hpp"
#include "dimgraph/tensor/storage.hpp"

// (As in eval/gemm_vector.hpp: the vector helpers are always inlined into the kernels.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace dimgraph::detail {

// Register-tile and cache-block sizes: a micro-tile of MR x NR accumulators (NR two vectors
// wide: 16 of 32 vector registers with 8 rows, 12 of 16 with 6), an A block of MC x KC in L2,
// a B sliver of KC x NR in L1.
template <class T, class Isa = gemm_target_isa>
struct gemm_blocking {
  using vector = typename gemm_vector<T, Isa>::type;
  static constexpr std::size_t lanes = sizeof(vector) / sizeof(T);
  static constexpr std::size_t mr = Isa::vector_registers >= 32 ? 8 : 6;
  static constexpr std::size_t nr = 2 * lanes;
  static constexpr std::size_t kc = 256;
  static constexpr std::size_t mc = 96;
  static constexpr std::size_t nc = 128 * nr;
};

// The micro-kernel: tile = sum over kc of a column of the A sliver times a row of the B sliver.
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_ALWAYS_INLINE inline void gemm_micro_tile(std::size_t kc, const T* __restrict ap,
                                                   const T* __restrict bp, T (&tile)[MR][NR]) {
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t L = sizeof(V) / sizeof(T), NV = NR / L;
  V acc[MR][NV] = {};
  for (std::size_t p = 0; p < kc; ++p) {
    V b[NV];
    DIMGRAPH_UNROLL
    for (std::size_t j = 0; j < NV; ++j) b[j] = gemm_load<V>(bp + p * NR + j * L);
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      const T x = ap[p * MR + i];
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NV; ++j) gemm_multiply_add(acc[i][j], x, b[j]);
    }
  }
  DIMGRAPH_UNROLL
  for (std::size_t i = 0; i < MR; ++i) {
    DIMGRAPH_UNROLL
    for (std::size_t j = 0; j < NV; ++j) gemm_store_vector(&tile[i][j * L], acc[i][j]);
  }
}

// The micro-kernel out of line, for the build's own instruction set: inlined into gemm_blocked,
// GCC (-O3 -march=native) kept one of B's vectors on the stack in its loop (a store and 8
// reloads per step of kc; a product took a third longer). A wider set's kernels are all
// inlined into one function of that target (eval/matmul.hpp), and so is this one there.
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_NOINLINE void gemm_micro_tile_apart(std::size_t kc, const T* __restrict ap,
                                             const T* __restrict bp, T (&tile)[MR][NR]) {
  gemm_micro_tile<T, Isa, MR, NR>(kc, ap, bp, tile);
}

// Whether gemm_pack copies W-row slivers of T by 16-byte block transposes (float, double).
template <class T, std::size_t W>
inline constexpr bool transposes_in_blocks =
    (std::is_same_v<T, float> || std::is_same_v<T, double>)&&W % (16 / sizeof(T)) == 0;

// The Q x Q block at src (rows `stride` elements apart), transposed to dst (rows `out_stride`
// apart), Q = 16 / sizeof(T): Q loads, Q log2 Q two-vector shuffles, Q stores.
template <class T>
DIMGRAPH_ALWAYS_INLINE inline void transpose_block(const T* src, std::ptrdiff_t stride, T* dst,
                                                   std::size_t out_stride) {
  using V = simd::vec<T, 16 / sizeof(T)>;
  const auto row = [&](std::ptrdiff_t r) { return gemm_load<V>(src + r * stride); };
  const auto put = [&](std::size_t r, const V& v) { gemm_store_vector(dst + r * out_stride, v); };
  if constexpr (sizeof(T) == 4) {
    const V a = row(0), b = row(1), c = row(2), d = row(3);
    const V ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
    const V ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
    const V cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5);
    const V cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
    put(0, __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5));
    put(1, __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7));
    put(2, __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5));
    put(3, __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7));
  } else {
    const V a = row(0), b = row(1);
    put(0, __builtin_shufflevector(a, b, 0, 2));
    put(1, __builtin_shufflevector(a, b, 1, 3));
  }
}

// Copies rows [r0, r0 + rows) x depth [p0, p0 + kc) of a matrix into slivers of W rows,
// each stored depth-major (W values per depth step), padding the last sliver with zeros.
template <std::size_t W, class T>
DIMGRAPH_GEMM_KERNEL void gemm_pack(T* out, const T* base, const dim_group& rg, const dim_group& kg,
                                    std::size_t r0, std::size_t rows, std::size_t p0,
                                    std::size_t kc) {
  std::size_t s = 0;
  if (rg.unit() && kg.affine) {
    // The full slivers a few depth steps at a time, all slivers per step: the reads walk along
    // the source's rows, which the hardware prefetchers follow, instead of down one sliver's
    // column of W-wide pieces, which are a page apart when the rows are long.
    constexpr std::size_t depth_step = 8;
    const std::size_t full = rows / W * W;
    const std::ptrdiff_t ks = kg.stride;
    for (std::size_t pb = 0; pb < kc; pb += depth_step) {
      const std::size_t pe = std::min(kc, pb + depth_step);
      for (std::size_t f = 0; f < full; f += W) {
        const T* src = base + rg.at(r0 + f);
        T* o = out + f * kc;
        // (W contiguous elements: a copy of constant size, which GCC and Clang inline as
        // vector moves at -O2 too; GCC 12's -O2 does not vectorise the element loop.)
        for (std::size_t p = pb; p < pe; ++p)
          std::memcpy(o + p * W, src + static_cast<std::ptrdiff_t>(p0 + p) * ks, W * sizeof(T));
      }
    }
    s = full;
  }
  if constexpr (transposes_in_blocks<T, W>) {
    if (kg.unit() && rg.affine) {
      // Rows contiguous along the depth (A [m, k], or B = W' for W [n, k]): the copy is a
      // transpose, done in Q x Q blocks in 16-byte vectors (Q rows of Q depth steps in, Q depth
      // steps of Q rows out); the depth steps past the last whole block one by one.
      constexpr std::size_t Q = 16 / sizeof(T);
      const std::size_t full = rows / W * W, blocks = kc / Q * Q;
      for (; s < full; s += W) {
        const T* src = base + rg.at(r0 + s) + static_cast<std::ptrdiff_t>(p0);
        T* o = out + s * kc;
        for (std::size_t i = 0; i < W; i += Q)
          for (std::size_t p = 0; p < blocks; p += Q)
            transpose_block<T>(src + rg.at(i) + static_cast<std::ptrdiff_t>(p), rg.stride,
                               o + p * W + i, W);
        for (std::size_t p = blocks; p < kc; ++p)
          for (std::size_t i = 0; i < W; ++i)
            o[p * W + i] = src[rg.at(i) + static_cast<std::ptrdiff_t>(p)];
      }
    }
  }
  std::array<std::ptrdiff_t, W> roff{};
  for (; s < rows; s += W) {
    const std::size_t w = std::min(W, rows - s);
    for (std::size_t i = 0; i < W; ++i) roff[i] = i < w ? rg.at(r0 + s + i) : 0;
    T* o = out + s * kc;
    for (std::size_t p = 0; p < kc; ++p) {
      const T* src = base + kg.at(p0 + p);
      for (std::size_t i = 0; i < W; ++i) o[p * W + i] = i < w ? src[roff[i]] : T(0);
    }
  }
}

// Writes (the first depth block) or adds (the later ones) the valid mr x nr part of a tile to C:
// in Isa's vectors where C's row is contiguous and the tile's row is whole (scalar code took a
// sixth of a product's time at GCC -O2, which does not vectorise the loop).
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_GEMM_KERNEL void gemm_store(const matmul_operands<T>& op, const T (&tile)[MR][NR],
                                     std::size_t m0, std::size_t mr, std::size_t n0, std::size_t nr,
                                     bool first) {
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t L = sizeof(V) / sizeof(T);
  const bool unit = op.cn->unit();
  const std::ptrdiff_t n_base = op.cn->at(n0);
  for (std::size_t i = 0; i < mr; ++i) {
    T* row = op.c + op.cm->at(m0 + i);
    if (unit) {
      T* r = row + n_base;
      if (NR % L == 0 && nr == NR) {
        DIMGRAPH_UNROLL
        for (std::size_t j = 0; j < NR; j += L) {
          V v = gemm_load<V>(&tile[i][j]);
          if (!first) v += gemm_load<V>(r + j);
          gemm_store_vector(r + j, v);
        }
      } else if (first) {
        for (std::size_t j = 0; j < nr; ++j) r[j] = tile[i][j];
      } else {
        for (std::size_t j = 0; j < nr; ++j) r[j] += tile[i][j];
      }
    } else {
      for (std::size_t j = 0; j < nr; ++j) {
        T& slot = row[op.cn->at(n0 + j)];
        slot = first ? tile[i][j] : slot + tile[i][j];
      }
    }
  }
}

// B [k, n] packed whole, as gemm_blocked reads it: one KC x NC panel per (column block, depth
// block), each as gemm_pack writes it, at a fixed stride (the last blocks' panels padded).
template <class T, class Isa>
struct gemm_b_layout {
  using blk = gemm_blocking<T, Isa>;
  std::size_t depth_blocks, panel, total;
  gemm_b_layout(std::size_t n, std::size_t k)
      : depth_blocks((k + blk::kc - 1) / blk::kc),
        panel(std::min(blk::kc, k) * std::min(blk::nc, (n + blk::nr - 1) / blk::nr * blk::nr)),
        total((n + blk::nc - 1) / blk::nc * depth_blocks * panel),
        depth_total(k) {}
  // The panel of columns [jc, ...) and depth [pc, ...) (block starts).
  std::size_t offset(std::size_t jc, std::size_t pc) const {
    return (jc / blk::nc * depth_blocks + pc / blk::kc) * panel;
  }
  // Where B(p, j) is (within its panel: the NR-wide sliver of j, depth-major).
  std::size_t at(std::size_t p, std::size_t j) const {
    const std::size_t jc = j / blk::nc * blk::nc, pc = p / blk::kc * blk::kc;
    const std::size_t kc = std::min(blk::kc, depth_total - pc);
    return offset(jc, pc) + (j - jc) / blk::nr * blk::nr * kc + (p - pc) * blk::nr +
           (j - jc) % blk::nr;
  }
  std::size_t depth_total;
};

// Packs B [k, n] of op whole into out (gemm_b_layout's total elements).
template <class T, class Isa>
void gemm_pack_b(T* out, const matmul_operands<T>& op, std::size_t n, std::size_t k) {
  using blk = gemm_blocking<T, Isa>;
  const gemm_b_layout<T, Isa> layout(n, k);
  for (std::size_t jc = 0; jc < n; jc += blk::nc)
    for (std::size_t pc = 0; pc < k; pc += blk::kc)
      gemm_pack<blk::nr>(out + layout.offset(jc, pc), op.b, *op.bn, *op.bk, jc,
                         std::min(blk::nc, n - jc), pc, std::min(blk::kc, k - pc));
}

// The blocked kernel's scratch (thread_scratch): B's panel, up to KC x NC, and A's block.
struct gemm_b_panel_scratch {};
struct gemm_a_block_scratch {};

// Asks for the part of C a tile writes, or adds to, while the micro-kernel runs: in a product
// whose C is larger than the L2 cache, each depth block after the first reads C again from
// further out, one tile's rows apart.
template <class T>
DIMGRAPH_ALWAYS_INLINE inline void gemm_prefetch_tile(const matmul_operands<T>& op, std::size_t m0,
                                                      std::size_t mr, std::size_t n0,
                                                      std::size_t nr) {
  if (!op.cn->unit()) return;
  for (std::size_t i = 0; i < mr; ++i)
    gemm_prefetch(op.c + op.cm->at(m0 + i) + op.cn->at(n0), nr * sizeof(T));
}

// The blocked product (Goto's loop order): a KC x NC panel of B is packed once and reused
// by every MC x KC block of A; the micro-kernel runs over their MR x NR tiles. With packed_b
// (B packed whole by gemm_pack_b, for the same n, k and Isa), the panels are read from there.
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_blocked(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                       std::size_t k, const T* packed_b = nullptr) {
  using blk = gemm_blocking<T, Isa>;
  constexpr std::size_t MR = blk::mr, NR = blk::nr;
  const std::size_t kc_max = std::min(blk::kc, k);
  const std::size_t nc_max = std::min(blk::nc, (n + NR - 1) / NR * NR);
  const std::size_t mc_max = std::min(blk::mc, (m + MR - 1) / MR * MR);
  const gemm_b_layout<T, Isa> layout(n, k);
  // (Not zero-filled: gemm_pack writes every element the micro-kernel reads.)
  T* const bpack = packed_b ? nullptr : thread_scratch<T, gemm_b_panel_scratch>(kc_max * nc_max);
  T* const apack = thread_scratch<T, gemm_a_block_scratch>(kc_max * mc_max);
  alignas(64) T tile[MR][NR];
  for (std::size_t jc = 0; jc < n; jc += blk::nc) {
    const std::size_t nc = std::min(blk::nc, n - jc);
    for (std::size_t pc = 0; pc < k; pc += blk::kc) {
      const std::size_t kc = std::min(blk::kc, k - pc);
      const T* bp = packed_b ? packed_b + layout.offset(jc, pc) : bpack;
      if (!packed_b) gemm_pack<NR>(bpack, op.b, *op.bn, *op.bk, jc, nc, pc, kc);
      for (std::size_t ic = 0; ic < m; ic += blk::mc) {
        const std::size_t mc = std::min(blk::mc, m - ic);
        gemm_pack<MR>(apack, op.a, *op.am, *op.ak, ic, mc, pc, kc);
        for (std::size_t jr = 0; jr < nc; jr += NR) {
          for (std::size_t ir = 0; ir < mc; ir += MR) {
            gemm_prefetch_tile(op, ic + ir, std::min(MR, mc - ir), jc + jr, std::min(NR, nc - jr));
            if constexpr (std::is_same_v<Isa, gemm_target_isa>)
              gemm_micro_tile_apart<T, Isa, MR, NR>(kc, apack + ir * kc, bp + jr * kc, tile);
            else gemm_micro_tile<T, Isa, MR, NR>(kc, apack + ir * kc, bp + jr * kc, tile);
            gemm_store<T, Isa>(op, tile, ic + ir, std::min(MR, mc - ir), jc + jr,
                               std::min(NR, nc - jr), pc == 0);
          }
        }
      }
    }
  }
}

}  // namespace dimgraph::detail

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
