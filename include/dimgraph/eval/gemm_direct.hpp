// The matrix-product kernels that read the operands where they are (no packing): GEMM over
// B's contiguous rows (gemm_rows), GEMM as dot products along a contiguous depth (gemm_dots),
// and GEMV.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/gemm.hpp"

// (As in eval/gemm_vector.hpp: the vector helpers are always inlined into the kernels.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace dimgraph::detail {

// The product when B's columns are contiguous and B is read once (few rows of A) or stays in
// the cache between passes: the micro-kernel reads B and A where they are (packing B would cost
// more than the product itself), one KC-deep block of B at a time, asking for B a few rows
// ahead (its successive reads are a row apart, too far for the hardware's stride prefetcher
// when the rows are long). B's last columns that do not fill a tile are summed one by one.
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_rows(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                    std::size_t k) {
  using blk = gemm_blocking<T, Isa>;
  using V = typename blk::vector;
  constexpr std::size_t MR = blk::mr, NR = blk::nr, L = blk::lanes, NV = NR / L;
  constexpr std::size_t ahead = 8;
  const std::ptrdiff_t as = op.ak->stride, bs = op.bk->stride;
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  std::array<const T*, MR> a{};
  alignas(64) T tile[MR][NR];
  for (std::size_t i0 = 0; i0 < m; i0 += MR) {
    const std::size_t mr = std::min(MR, m - i0);
    for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(std::min(i0 + i, m - 1));
    for (std::size_t pc = 0; pc < k; pc += blk::kc) {
      const std::size_t kc = std::min(blk::kc, k - pc);
      for (std::size_t j0 = 0; j0 + NR <= n; j0 += NR) {
        const T* b = op.b + op.bn->at(j0) + at(pc, bs);
        V acc[MR][NV] = {};
        for (std::size_t p = 0; p < kc; ++p) {
          const T* bp = b + at(p, bs);
          gemm_prefetch(b + at(std::min(p + ahead, kc - 1), bs), NR * sizeof(T));
          V bv[NV];
          DIMGRAPH_UNROLL
          for (std::size_t j = 0; j < NV; ++j) bv[j] = gemm_load<V>(bp + j * L);
          DIMGRAPH_UNROLL
          for (std::size_t i = 0; i < MR; ++i) {
            const T x = a[i][at(pc + p, as)];
            DIMGRAPH_UNROLL
            for (std::size_t j = 0; j < NV; ++j) gemm_multiply_add(acc[i][j], x, bv[j]);
          }
        }
        DIMGRAPH_UNROLL
        for (std::size_t i = 0; i < MR; ++i) {
          DIMGRAPH_UNROLL
          for (std::size_t j = 0; j < NV; ++j) gemm_store_vector(&tile[i][j * L], acc[i][j]);
        }
        gemm_store<T, Isa>(op, tile, i0, mr, j0, NR, pc == 0);
      }
    }
    for (std::size_t j = n / NR * NR; j < n; ++j)
      for (std::size_t i = 0; i < mr; ++i) {
        const T* b = op.b + op.bn->at(j);
        T sum = T(0);
        for (std::size_t p = 0; p < k; ++p)
          sum = multiply_add<Isa::fma>(sum, a[i][at(p, as)], b[at(p, bs)]);
        op.c[op.cm->at(i0 + i) + op.cn->at(j)] = sum;
      }
  }
}

// One MR x NR tile of gemm_dots at rows i0.. and columns j0..: MR * NR dot products, each
// summed in a vector of partial sums, straight from the operands' rows. Columns past n repeat
// the last one and are not stored.
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_ALWAYS_INLINE inline void gemm_dots_tile(const matmul_operands<T>& op,
                                                  const std::array<const T*, NR>& b, std::size_t i0,
                                                  std::size_t j0, std::size_t n, std::size_t k) {
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t L = gemm_blocking<T, Isa>::lanes;
  std::array<const T*, MR> a{};
  for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(i0 + i);
  V acc[MR][NR] = {};
  std::size_t p = 0;
  for (; p + L <= k; p += L) {
    V bv[NR];
    DIMGRAPH_UNROLL
    for (std::size_t j = 0; j < NR; ++j) gemm_load_kept(bv[j], b[j] + p);
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      V av;
      gemm_load_kept(av, a[i] + p);
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NR; ++j) gemm_multiply_add(acc[i][j], av, bv[j]);
    }
  }
  // The lane sums of every partial sum at once, the accumulators padded with zeros to a
  // multiple of L (the compiler folds the additions of zeros away). acc itself is read at
  // indices known at compile time only, which keeps it in registers (indexed by the loop
  // below, bounded by n, it became a zeroed copy in memory: a memset and 16 stores per tile).
  alignas(64) T totals[(MR * NR + L - 1) / L * L];
  if constexpr (L > 1) {
    std::array<V, (MR * NR + L - 1) / L * L> flat{};
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NR; ++j) flat[i * NR + j] = acc[i][j];
    }
    gemm_lane_sums(flat, totals);
  } else {
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NR; ++j) totals[i * NR + j] = gemm_lane_sum<T>(acc[i][j]);
    }
  }
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR && j0 + j < n; ++j) {
      T sum = totals[i * NR + j];
      for (std::size_t q = p; q < k; ++q) sum = multiply_add<Isa::fma>(sum, a[i][q], b[j][q]);
      op.c[op.cm->at(i0 + i) + op.cn->at(j0 + j)] = sum;
    }
}

// The product when both operands are contiguous along the depth and B's columns are not
// (x . W with W[out, in]): MR x NR tiles of C (gemm_dots_tile). No packing: for B that would be
// a transpose, which costs more than the product itself when m is small. The last rows that
// do not fill a tile run in a tile of their own height (repeating a row instead took 1.1 of
// the time at m = 25).
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_dots(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                    std::size_t k) {
  // The tile's MR * NR partial sums, NR vectors of B and one of A (and a product, without
  // fused multiply-add) stay in registers: 3 x 3 with 16 vector registers, 4 x 4 with 32.
  constexpr std::size_t MR = Isa::vector_registers >= 32 ? 4 : 3, NR = MR;
  const std::size_t full = m / MR * MR;
  std::array<const T*, NR> b{};
  for (std::size_t j0 = 0; j0 < n; j0 += NR) {
    for (std::size_t j = 0; j < NR; ++j) b[j] = op.b + op.bn->at(std::min(j0 + j, n - 1));
    for (std::size_t i0 = 0; i0 < full; i0 += MR)
      gemm_dots_tile<T, Isa, MR, NR>(op, b, i0, j0, n, k);
    switch (m - full) {
      case 1:
        gemm_dots_tile<T, Isa, 1, NR>(op, b, full, j0, n, k);
        break;
      case 2:
        gemm_dots_tile<T, Isa, 2, NR>(op, b, full, j0, n, k);
        break;
      case 3:
        if constexpr (MR > 3) gemm_dots_tile<T, Isa, 3, NR>(op, b, full, j0, n, k);
        break;
      default:
        break;
    }
  }
}

// y(r) = sum_c M(r, c) x(c) with M(r, c) at mat[r * rs + c * cs], x(c) at x[c * xs] and
// y(r) at y[r * ys]. Rows with contiguous elements and a contiguous x: four rows at a time,
// each summed in one vector of partial sums (independent lanes, so no reassociation is
// needed to vectorise). Contiguous columns: y accumulates one column at a time (axpy).
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemv(std::size_t rows, std::size_t cols, const T* mat, std::ptrdiff_t rs,
                               std::ptrdiff_t cs, const T* x, std::ptrdiff_t xs, T* y,
                               std::ptrdiff_t ys) {
  // Vectors of V (as the GEMM kernels), U of them per step: the partial sums stay in
  // registers (4 rows x U vectors, U vectors of x), which GCC at -O2 does not do for arrays of
  // T. Partial sum j of a row adds the columns c = j (mod U * LV), in order.
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t LV = gemm_blocking<T, Isa>::lanes, U = 2, L = U * LV;
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  // The partial sums of one row: the U vectors added lane by lane, then their lanes as a tree.
  const auto total = [](const V(&acc)[U]) {
    V v = acc[0];
    for (std::size_t u = 1; u < U; ++u) v += acc[u];
    return gemm_lane_sum<T>(v);
  };
  if (cs == 1 && xs == 1) {
    std::size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      const T* m[4] = {mat + at(r, rs), mat + at(r + 1, rs), mat + at(r + 2, rs),
                       mat + at(r + 3, rs)};
      V acc[4][U] = {};
      std::size_t c = 0;
      for (; c + L <= cols; c += L) {
        V xv[U];
        DIMGRAPH_UNROLL
        for (std::size_t u = 0; u < U; ++u) xv[u] = gemm_load<V>(x + c + u * LV);
        DIMGRAPH_UNROLL
        for (std::size_t q = 0; q < 4; ++q) {
          DIMGRAPH_UNROLL
          for (std::size_t u = 0; u < U; ++u)
            gemm_multiply_add(acc[q][u], gemm_load<V>(m[q] + c + u * LV), xv[u]);
        }
      }
      T s[4];
      DIMGRAPH_UNROLL
      for (std::size_t q = 0; q < 4; ++q) s[q] = total(acc[q]);
      for (; c < cols; ++c)
        for (std::size_t q = 0; q < 4; ++q) s[q] = multiply_add<Isa::fma>(s[q], m[q][c], x[c]);
      for (std::size_t q = 0; q < 4; ++q) y[at(r + q, ys)] = s[q];
    }
    for (; r < rows; ++r) {
      const T* mr = mat + at(r, rs);
      V acc[U] = {};
      std::size_t c = 0;
      for (; c + L <= cols; c += L) {
        DIMGRAPH_UNROLL
        for (std::size_t u = 0; u < U; ++u)
          gemm_multiply_add(acc[u], gemm_load<V>(mr + c + u * LV), gemm_load<V>(x + c + u * LV));
      }
      T s = total(acc);
      for (; c < cols; ++c) s = multiply_add<Isa::fma>(s, mr[c], x[c]);
      y[at(r, ys)] = s;
    }
  } else if (rs == 1 && ys == 1) {
    // y accumulates one column at a time (axpy), a vector of rows at a time.
    for (std::size_t r = 0; r < rows; ++r) y[r] = T(0);
    for (std::size_t c = 0; c < cols; ++c) {
      const T v = x[at(c, xs)];
      const T* mc = mat + at(c, cs);
      std::size_t r = 0;
      for (; r + LV <= rows; r += LV) {
        V yv = gemm_load<V>(y + r);
        gemm_multiply_add(yv, v, gemm_load<V>(mc + r));
        gemm_store_vector(y + r, yv);
      }
      for (; r < rows; ++r) y[r] = multiply_add<Isa::fma>(y[r], mc[r], v);
    }
  } else {
    for (std::size_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (std::size_t c = 0; c < cols; ++c)
        s = multiply_add<Isa::fma>(s, mat[at(r, rs) + at(c, cs)], x[at(c, xs)]);
      y[at(r, ys)] = s;
    }
  }
}

}  // namespace dimgraph::detail

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
