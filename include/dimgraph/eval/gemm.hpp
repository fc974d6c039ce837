// The built-in matrix-product kernels behind dot: blocked and register-tiled GEMM, GEMV.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "dimgraph/config.hpp"

namespace dimgraph::detail {

// One group of dims (the rows M, the contracted K, the columns N or the batch dims) as
// one operand sees it: the memory offset of the group's flattened index i. Affine
// (offset i * stride) when the operand's dims of the group coalesce into one stride,
// otherwise a table. A group of at most one element counts as affine with stride 1.
struct dim_group {
  std::size_t size = 1;
  std::ptrdiff_t stride = 1;
  bool affine = true;
  std::vector<std::ptrdiff_t> table;

  std::ptrdiff_t at(std::size_t i) const {
    return affine ? static_cast<std::ptrdiff_t>(i) * stride : table[i];
  }
  bool unit() const { return affine && stride == 1; }
};

// The group of dims with extents ext and strides str (outermost first).
template <std::size_t G>
dim_group make_dim_group(const std::array<std::size_t, G>& ext,
                         const std::array<std::ptrdiff_t, G>& str) {
  dim_group g;
  for (std::size_t e : ext) g.size *= e;
  if (g.size <= 1) return g;
  bool first = true;
  std::ptrdiff_t expected = 0;
  for (std::size_t d = G; d-- > 0;) {
    if (ext[d] == 1) continue;
    if (first) g.stride = str[d];
    else if (str[d] != expected) g.affine = false;
    first = false;
    expected = str[d] * static_cast<std::ptrdiff_t>(ext[d]);
  }
  if (g.affine) return g;
  g.table.resize(g.size);
  std::array<std::size_t, G> idx{};
  std::ptrdiff_t off = 0;
  for (std::size_t i = 0; i < g.size; ++i) {
    g.table[i] = off;
    for (std::size_t d = G; d-- > 0;) {
      off += str[d];
      if (++idx[d] < ext[d]) break;
      off -= str[d] * static_cast<std::ptrdiff_t>(ext[d]);
      idx[d] = 0;
    }
  }
  return g;
}

// C(m, n) = sum_k A(m, k) B(k, n) for one batch entry; each operand's element is at its
// base pointer plus the offsets of its two groups.
template <class T>
struct matmul_operands {
  const T* a;
  const dim_group* am;
  const dim_group* ak;
  const T* b;
  const dim_group* bk;
  const dim_group* bn;
  T* c;
  const dim_group* cm;
  const dim_group* cn;
};

// acc + x * y, fused where the target has FMA (one rounding, twice the throughput).
template <class T>
DIMGRAPH_ALWAYS_INLINE inline T multiply_add(T acc, T x, T y) {
#if defined(__FMA__)
  if constexpr (std::is_floating_point_v<T>) return std::fma(x, y, acc);
  else return static_cast<T>(acc + x * y);
#else
  return static_cast<T>(acc + x * y);
#endif
}

// Register-tile and cache-block sizes: a micro-tile of MR x NR accumulators (NR two vector
// registers wide), an A block of MC x KC in L2, a B sliver of KC x NR in L1.
template <class T>
struct gemm_blocking {
#if defined(__AVX512F__)
  static constexpr std::size_t vector_bytes = 64;
#elif defined(__AVX__)
  static constexpr std::size_t vector_bytes = 32;
#else
  static constexpr std::size_t vector_bytes = 16;
#endif
  static constexpr std::size_t lanes = std::max<std::size_t>(1, vector_bytes / sizeof(T));
  static constexpr std::size_t mr = 6;
  static constexpr std::size_t nr = 2 * lanes;
  static constexpr std::size_t kc = 256;
  static constexpr std::size_t mc = 16 * mr;
  static constexpr std::size_t nc = 128 * nr;
};

// The micro-kernel: tile = sum over kc of a column of the A sliver times a row of the B
// sliver. Plain loops over constant bounds, which the compiler unrolls and vectorises with
// the tile held in registers.
template <class T, std::size_t MR, std::size_t NR>
DIMGRAPH_ALWAYS_INLINE inline void gemm_micro_tile(std::size_t kc, const T* __restrict ap,
                                                   const T* __restrict bp, T (&tile)[MR][NR]) {
  T acc[MR][NR] = {};
  for (std::size_t p = 0; p < kc; ++p) {
    const T* b = bp + p * NR;
    for (std::size_t i = 0; i < MR; ++i) {
      const T x = ap[p * MR + i];
      for (std::size_t j = 0; j < NR; ++j) acc[i][j] = multiply_add(acc[i][j], x, b[j]);
    }
  }
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR; ++j) tile[i][j] = acc[i][j];
}

// Copies rows [r0, r0 + rows) x depth [p0, p0 + kc) of a matrix into slivers of W rows,
// each stored depth-major (W values per depth step), padding the last sliver with zeros.
template <std::size_t W, class T>
void gemm_pack(T* out, const T* base, const dim_group& rg, const dim_group& kg, std::size_t r0,
               std::size_t rows, std::size_t p0, std::size_t kc) {
  std::array<std::ptrdiff_t, W> roff{};
  for (std::size_t s = 0; s < rows; s += W) {
    const std::size_t w = std::min(W, rows - s);
    for (std::size_t i = 0; i < W; ++i) roff[i] = i < w ? rg.at(r0 + s + i) : 0;
    T* o = out + s * kc;
    if (w == W && rg.unit()) {
      const T* src = base + roff[0];
      if (kg.affine) {
        const std::ptrdiff_t ks = kg.stride;
        for (std::size_t p = 0; p < kc; ++p)
          for (std::size_t i = 0; i < W; ++i)
            o[p * W + i] =
                src[static_cast<std::ptrdiff_t>(p0 + p) * ks + static_cast<std::ptrdiff_t>(i)];
        continue;
      }
    }
    for (std::size_t p = 0; p < kc; ++p) {
      const T* src = base + kg.at(p0 + p);
      for (std::size_t i = 0; i < W; ++i) o[p * W + i] = i < w ? src[roff[i]] : T(0);
    }
  }
}

// Writes (the first depth block) or adds (the later ones) the valid mr x nr part of a tile to C.
template <class T, std::size_t MR, std::size_t NR>
void gemm_store(const matmul_operands<T>& op, const T (&tile)[MR][NR], std::size_t m0,
                std::size_t mr, std::size_t n0, std::size_t nr, bool first) {
  const bool unit = op.cn->unit();
  const std::ptrdiff_t n_base = op.cn->at(n0);
  for (std::size_t i = 0; i < mr; ++i) {
    T* row = op.c + op.cm->at(m0 + i);
    if (unit) {
      T* r = row + n_base;
      if (first)
        for (std::size_t j = 0; j < nr; ++j) r[j] = tile[i][j];
      else
        for (std::size_t j = 0; j < nr; ++j) r[j] += tile[i][j];
    } else {
      for (std::size_t j = 0; j < nr; ++j) {
        T& slot = row[op.cn->at(n0 + j)];
        slot = first ? tile[i][j] : slot + tile[i][j];
      }
    }
  }
}

// The blocked product (Goto's loop order): a KC x NC panel of B is packed once and reused
// by every MC x KC block of A; the micro-kernel runs over their MR x NR tiles.
template <class T>
void gemm_blocked(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  using blk = gemm_blocking<T>;
  constexpr std::size_t MR = blk::mr, NR = blk::nr;
  const std::size_t kc_max = std::min(blk::kc, k);
  const std::size_t nc_max = std::min(blk::nc, (n + NR - 1) / NR * NR);
  const std::size_t mc_max = std::min(blk::mc, (m + MR - 1) / MR * MR);
  std::vector<T> bpack(kc_max * nc_max), apack(kc_max * mc_max);
  alignas(64) T tile[MR][NR];
  for (std::size_t jc = 0; jc < n; jc += blk::nc) {
    const std::size_t nc = std::min(blk::nc, n - jc);
    for (std::size_t pc = 0; pc < k; pc += blk::kc) {
      const std::size_t kc = std::min(blk::kc, k - pc);
      gemm_pack<NR>(bpack.data(), op.b, *op.bn, *op.bk, jc, nc, pc, kc);
      for (std::size_t ic = 0; ic < m; ic += blk::mc) {
        const std::size_t mc = std::min(blk::mc, m - ic);
        gemm_pack<MR>(apack.data(), op.a, *op.am, *op.ak, ic, mc, pc, kc);
        for (std::size_t jr = 0; jr < nc; jr += NR) {
          for (std::size_t ir = 0; ir < mc; ir += MR) {
            gemm_micro_tile<T, MR, NR>(kc, apack.data() + ir * kc, bpack.data() + jr * kc, tile);
            gemm_store(op, tile, ic + ir, std::min(MR, mc - ir), jc + jr, std::min(NR, nc - jr),
                       pc == 0);
          }
        }
      }
    }
  }
}

// The product for a few rows of A when B's columns are contiguous: the micro-kernel reads
// B and A where they are (packing B would cost more than the product itself when m is
// small); B's last columns that do not fill a tile are summed one by one.
template <class T>
void gemm_rows(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  using blk = gemm_blocking<T>;
  constexpr std::size_t MR = blk::mr, NR = blk::nr;
  const std::ptrdiff_t as = op.ak->stride, bs = op.bk->stride;
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  std::array<const T*, MR> a{};
  alignas(64) T tile[MR][NR];
  for (std::size_t i0 = 0; i0 < m; i0 += MR) {
    const std::size_t mr = std::min(MR, m - i0);
    for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(std::min(i0 + i, m - 1));
    std::size_t j0 = 0;
    for (; j0 + NR <= n; j0 += NR) {
      const T* b = op.b + op.bn->at(j0);
      T acc[MR][NR] = {};
      for (std::size_t p = 0; p < k; ++p) {
        const T* bp = b + at(p, bs);
        for (std::size_t i = 0; i < MR; ++i) {
          const T x = a[i][at(p, as)];
          for (std::size_t j = 0; j < NR; ++j) acc[i][j] = multiply_add(acc[i][j], x, bp[j]);
        }
      }
      for (std::size_t i = 0; i < MR; ++i)
        for (std::size_t j = 0; j < NR; ++j) tile[i][j] = acc[i][j];
      gemm_store(op, tile, i0, mr, j0, NR, true);
    }
    for (std::size_t j = j0; j < n; ++j)
      for (std::size_t i = 0; i < mr; ++i) {
        const T* b = op.b + op.bn->at(j);
        T sum = T(0);
        for (std::size_t p = 0; p < k; ++p) sum = multiply_add(sum, a[i][at(p, as)], b[at(p, bs)]);
        op.c[op.cm->at(i0 + i) + op.cn->at(j)] = sum;
      }
  }
}

// The product when both operands are contiguous along the depth and B's columns are not
// (x . W with W[out, in]): each MR x NR tile of C is MR * NR dot products, each summed in a
// vector of partial sums, straight from the operands' rows. No packing: for B that would be
// a transpose, which costs more than the product itself when m is small. Edge tiles repeat
// the last row or column and store only the valid part.
template <class T>
void gemm_dots(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  constexpr std::size_t MR = 4, NR = 4, L = gemm_blocking<T>::lanes;
  std::array<const T*, MR> a{};
  std::array<const T*, NR> b{};
  for (std::size_t j0 = 0; j0 < n; j0 += NR) {
    for (std::size_t j = 0; j < NR; ++j) b[j] = op.b + op.bn->at(std::min(j0 + j, n - 1));
    for (std::size_t i0 = 0; i0 < m; i0 += MR) {
      for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(std::min(i0 + i, m - 1));
      T acc[MR][NR][L] = {};
      std::size_t p = 0;
      for (; p + L <= k; p += L)
#pragma GCC unroll 4
        for (std::size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
          for (std::size_t j = 0; j < NR; ++j)
            for (std::size_t l = 0; l < L; ++l)
              acc[i][j][l] = multiply_add(acc[i][j][l], a[i][p + l], b[j][p + l]);
      for (std::size_t i = 0; i < MR && i0 + i < m; ++i)
        for (std::size_t j = 0; j < NR && j0 + j < n; ++j) {
          T sum = T(0);
          for (std::size_t l = 0; l < L; ++l) sum += acc[i][j][l];
          for (std::size_t q = p; q < k; ++q) sum = multiply_add(sum, a[i][q], b[j][q]);
          op.c[op.cm->at(i0 + i) + op.cn->at(j0 + j)] = sum;
        }
    }
  }
}

// y(r) = sum_c M(r, c) x(c) with M(r, c) at mat[r * rs + c * cs], x(c) at x[c * xs] and
// y(r) at y[r * ys]. Rows with contiguous elements and a contiguous x: four rows at a time,
// each summed in one vector of partial sums (independent lanes, so no reassociation is
// needed to vectorise). Contiguous columns: y accumulates one column at a time (axpy).
template <class T>
void gemv(std::size_t rows, std::size_t cols, const T* mat, std::ptrdiff_t rs, std::ptrdiff_t cs,
          const T* x, std::ptrdiff_t xs, T* y, std::ptrdiff_t ys) {
  constexpr std::size_t L = 2 * gemm_blocking<T>::lanes;
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  if (cs == 1 && xs == 1) {
    std::size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      const T* m0 = mat + at(r, rs);
      const T* m1 = m0 + rs;
      const T* m2 = m1 + rs;
      const T* m3 = m2 + rs;
      T acc[4][L] = {};
      std::size_t c = 0;
      for (; c + L <= cols; c += L)
        for (std::size_t j = 0; j < L; ++j) {
          const T v = x[c + j];
          acc[0][j] = multiply_add(acc[0][j], m0[c + j], v);
          acc[1][j] = multiply_add(acc[1][j], m1[c + j], v);
          acc[2][j] = multiply_add(acc[2][j], m2[c + j], v);
          acc[3][j] = multiply_add(acc[3][j], m3[c + j], v);
        }
      std::array<T, 4> s{};
      for (std::size_t q = 0; q < 4; ++q)
        for (std::size_t j = 0; j < L; ++j) s[q] += acc[q][j];
      for (; c < cols; ++c) {
        s[0] = multiply_add(s[0], m0[c], x[c]);
        s[1] = multiply_add(s[1], m1[c], x[c]);
        s[2] = multiply_add(s[2], m2[c], x[c]);
        s[3] = multiply_add(s[3], m3[c], x[c]);
      }
      for (std::size_t q = 0; q < 4; ++q) y[at(r + q, ys)] = s[q];
    }
    for (; r < rows; ++r) {
      const T* mr = mat + at(r, rs);
      T acc[L] = {};
      std::size_t c = 0;
      for (; c + L <= cols; c += L)
        for (std::size_t j = 0; j < L; ++j) acc[j] = multiply_add(acc[j], mr[c + j], x[c + j]);
      T s = T(0);
      for (std::size_t j = 0; j < L; ++j) s += acc[j];
      for (; c < cols; ++c) s = multiply_add(s, mr[c], x[c]);
      y[at(r, ys)] = s;
    }
  } else if (rs == 1 && ys == 1) {
    for (std::size_t r = 0; r < rows; ++r) y[r] = T(0);
    for (std::size_t c = 0; c < cols; ++c) {
      const T v = x[at(c, xs)];
      const T* mc = mat + at(c, cs);
      for (std::size_t r = 0; r < rows; ++r) y[r] = multiply_add(y[r], mc[r], v);
    }
  } else {
    for (std::size_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (std::size_t c = 0; c < cols; ++c)
        s = multiply_add(s, mat[at(r, rs) + at(c, cs)], x[at(c, xs)]);
      y[at(r, ys)] = s;
    }
  }
}

}  // namespace dimgraph::detail
