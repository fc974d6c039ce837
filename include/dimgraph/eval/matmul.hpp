// Matrix products of one batch entry: which kernel runs, for which instruction set, on how
// many threads.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "dimgraph/config.hpp"
#include "dimgraph/eval/cblas.hpp"
#include "dimgraph/eval/dispatch.hpp"
#include "dimgraph/eval/gemm.hpp"
#include "dimgraph/eval/gemm_direct.hpp"
#include "dimgraph/eval/threads.hpp"
#include "dimgraph/eval/weight_cache.hpp"

namespace dimgraph::detail {

// The per-core L2 cache size the OS reports, 512 KiB where it reports none.
inline std::size_t l2_cache_bytes() {
  static const std::size_t bytes = [] {
#if defined(_SC_LEVEL2_CACHE_SIZE)
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (reported > 0) return static_cast<std::size_t>(reported);
#endif
    return std::size_t{512} * 1024;
  }();
  return bytes;
}

// When the unpacked kernels run instead of gemm_blocked. gemm_rows reads B in place, once per
// gemm_blocking::mr rows of A; gemm_blocked copies B into slivers once and then reads those
// from the cache. So gemm_rows while one pass over B does (m <= mr), or while B fits in half
// the L2 cache (the rest for A's rows and C), where the later passes find it. gemm_dots (B
// stored n-major, which packing would transpose) up to gemm_dots_rows rows of A. Measured with
// AVX-512 (GCC 12, -O3 -march=native, float) on a 2-core KVM guest of a Xeon (2 MiB L2, two
// 512-bit FMA units), m from 1 to 4096, n and k from 128 to 4096: with B up to 1 MiB gemm_rows
// took 0.7 to 0.99 of gemm_blocked's time at every m; with B of 2.25 MiB or more and m >= 64,
// 1.07 to 3.9 times as long. gemm_dots took 0.57 to 0.87 of gemm_blocked's time at m = 32,
// 0.86 to 1.29 at m = 64 (the less the deeper), 1.3 to 2 at m = 256.
inline constexpr std::size_t gemm_dots_rows = 48;

// Whether gemm_rows is the kernel for m rows of A times B [k, n] (see above).
template <class T, class Isa>
bool gemm_rows_pays(std::size_t m, std::size_t n, std::size_t k) {
  const double b_bytes = static_cast<double>(n) * static_cast<double>(k) * sizeof(T);
  return m <= gemm_blocking<T, Isa>::mr || b_bytes <= static_cast<double>(l2_cache_bytes()) / 2;
}

// The kernels behind one matrix product, chosen once for the whole product (so that a part
// of it on a thread runs the same kernel and sums in the same order).
enum class matmul_kernel { zero, gemv_rows, gemv_columns, dots, rows, blocked };

template <class T, class Isa = gemm_target_isa>
matmul_kernel choose_matmul(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                            std::size_t k) {
  if (k == 0) return matmul_kernel::zero;
  if (n == 1 && op.am->affine && op.ak->affine && op.bk->affine && op.cm->affine)
    return matmul_kernel::gemv_rows;
  if (m == 1 && op.bn->affine && op.bk->affine && op.ak->affine && op.cn->affine)
    return matmul_kernel::gemv_columns;
  if (op.ak->unit() && op.bk->unit() && !op.bn->unit() && op.am->affine && op.bn->affine &&
      m <= gemm_dots_rows)
    return matmul_kernel::dots;
  if (op.bn->unit() && op.am->affine && op.ak->affine && op.bk->affine &&
      gemm_rows_pays<T, Isa>(m, n, k))
    return matmul_kernel::rows;
  return matmul_kernel::blocked;
}

// (packed_b: B packed whole for the blocked kernel, which is then the kernel.)
template <class T, class Isa = gemm_target_isa>
void run_matmul(matmul_kernel kernel, const matmul_operands<T>& op, std::size_t m, std::size_t n,
                std::size_t k, const T* packed_b = nullptr) {
  switch (kernel) {
    case matmul_kernel::zero:
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) op.c[op.cm->at(i) + op.cn->at(j)] = T(0);
      return;
    case matmul_kernel::gemv_rows:
      return gemv<T, Isa>(m, k, op.a, op.am->stride, op.ak->stride, op.b, op.bk->stride, op.c,
                          op.cm->stride);
    case matmul_kernel::gemv_columns:
      return gemv<T, Isa>(n, k, op.b, op.bn->stride, op.bk->stride, op.a, op.ak->stride, op.c,
                          op.cn->stride);
    case matmul_kernel::dots:
      return gemm_dots<T, Isa>(op, m, n, k);
    case matmul_kernel::rows:
      return gemm_rows<T, Isa>(op, m, n, k);
    case matmul_kernel::blocked:
      return gemm_blocked<T, Isa>(op, m, n, k, packed_b);
  }
}

// Elements [from, from + count) of group g: a group of count elements, and the offset to add
// to the operand's base pointer (an affine group keeps its stride; a table, its slice).
inline std::pair<dim_group, std::ptrdiff_t> dim_group_part(const dim_group& g, std::size_t from,
                                                           std::size_t count) {
  dim_group part;
  part.size = count;
  part.stride = g.stride;
  part.affine = g.affine;
  if (g.affine) return {std::move(part), g.at(from)};
  part.table.assign(g.table.begin() + static_cast<std::ptrdiff_t>(from),
                    g.table.begin() + static_cast<std::ptrdiff_t>(from + count));
  return {std::move(part), 0};
}

// The work of `batch` products of [m, k] by [k, n]: batch * m * n * (k + 1) multiply-adds
// and stores, saturated at 2^60 (it only decides the thread count).
inline std::size_t product_work(std::size_t batch, std::size_t m, std::size_t n, std::size_t k) {
  const double work = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) *
                      static_cast<double>(k + 1);
  return work >= 0x1p60 ? std::size_t{1} << 60 : static_cast<std::size_t>(work);
}

// The kernels compiled for instruction set Isa: run_matmul as it is for the build's own
// target; for a wider one, in a function of that target with every call inlined into it
// (flatten), so that the kernels' vector code is generated for Isa, not lowered to the
// build's narrower registers.
template <class Isa>
struct matmul_entry {
  template <class T>
  static void run(matmul_kernel kernel, const matmul_operands<T>& op, std::size_t m, std::size_t n,
                  std::size_t k, const T* packed_b = nullptr) {
    run_matmul<T, Isa>(kernel, op, m, n, k, packed_b);
  }
};

#if DIMGRAPH_DISPATCH_AVX2
struct gemm_avx2_isa : gemm_isa<32, 16, true> {};
template <>
struct matmul_entry<gemm_avx2_isa> {
  template <class T>
  DIMGRAPH_TARGET_AVX2 __attribute__((flatten)) static void run(matmul_kernel kernel,
                                                                const matmul_operands<T>& op,
                                                                std::size_t m, std::size_t n,
                                                                std::size_t k,
                                                                const T* packed_b = nullptr) {
    run_matmul<T, gemm_avx2_isa>(kernel, op, m, n, k, packed_b);
  }
};
#endif

#if DIMGRAPH_DISPATCH_AVX512
struct gemm_avx512_isa : gemm_isa<64, 32, true> {};
template <>
struct matmul_entry<gemm_avx512_isa> {
  template <class T>
  DIMGRAPH_TARGET_AVX512 __attribute__((flatten)) static void run(matmul_kernel kernel,
                                                                  const matmul_operands<T>& op,
                                                                  std::size_t m, std::size_t n,
                                                                  std::size_t k,
                                                                  const T* packed_b = nullptr) {
    run_matmul<T, gemm_avx512_isa>(kernel, op, m, n, k, packed_b);
  }
};
#endif

// C = A B by the kernels of instruction set Isa (the blocked one over packed_b when given).
// With threads, C's rows are split among them (its columns when it has one row and no packed
// B): each element of C is summed by one thread in the same order, whatever their number.
template <class T, class Isa>
void matmul_with(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k,
                 const T* packed_b) {
  const matmul_kernel kernel =
      packed_b ? matmul_kernel::blocked : choose_matmul<T, Isa>(op, m, n, k);
  const bool by_rows = m > 1 || packed_b;
  std::size_t threads = parallel_threads_for(product_work(1, m, n, k));
  if (threads > (by_rows ? m : n)) threads = by_rows ? m : n;
  if (threads <= 1) return matmul_entry<Isa>::run(kernel, op, m, n, k, packed_b);
  parallel_parts(by_rows ? m : n, threads, [&](std::size_t first, std::size_t last) {
    matmul_operands<T> part = op;
    if (by_rows) {
      const auto [am, a_off] = dim_group_part(*op.am, first, last - first);
      const auto [cm, c_off] = dim_group_part(*op.cm, first, last - first);
      part.a += a_off;
      part.c += c_off;
      part.am = &am;
      part.cm = &cm;
      matmul_entry<Isa>::run(kernel, part, last - first, n, k, packed_b);
    } else {
      const auto [bn, b_off] = dim_group_part(*op.bn, first, last - first);
      const auto [cn, c_off] = dim_group_part(*op.cn, first, last - first);
      part.b += b_off;
      part.c += c_off;
      part.bn = &bn;
      part.cn = &cn;
      matmul_entry<Isa>::run(kernel, part, m, last - first, k);
    }
  });
}

// The fewest rows of A for which a packed constant B pays: one row stays with GEMV, which
// reads B once where the blocked kernel computes a whole register tile of rows. (Measured
// with AVX-512, B [256, 1024] read from rows 768 apart: the blocked kernel over the packed B
// took 0.9 of GEMV's time at 2 rows, 0.45 at 4, and 0.25 to 0.4 of gemm_dots' from 4 to 48.)
inline constexpr std::size_t packed_b_min_rows = 2;

// For one row of A, GEMV reads a constant B from a copy without gaps (copied_b) when B has
// gaps and takes part in this many products at least. With AVX-512, B [256, 1024] read from
// rows 768 apart (an LSTM's W_h, 1 MiB): GEMV took 19 us there and 13 to 14 us over the copy,
// and the copy 31 us (82 us with B in memory rather than L3; GCC 12 -O2, float).
inline constexpr std::size_t gemv_copy_min_uses = 8;

// Whether B [k, n] has gaps between its rows along its contiguous dim (or no such dim).
inline bool has_gaps(const dim_group& bk, const dim_group& bn) {
  const auto whole = [](const dim_group& inner, const dim_group& outer) {
    return inner.unit() && outer.affine && outer.stride == static_cast<std::ptrdiff_t>(inner.size);
  };
  return !whole(bk, bn) && !whole(bn, bk);
}

// C = A B by Isa's kernels: over a packed constant B (or A, as C' = B' A') when there is one
// and two rows of A (or columns of B) or more; for one, over a copy of a constant B (or A)
// that has gaps, when it is used often enough.
template <class T, class Isa>
void matmul_at(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  weight_cache* cache = active_weight_cache();
  if (cache != nullptr && !cache->empty() && k != 0) {
    if (m >= packed_b_min_rows)
      if (const T* packed = cache->template packed_b<T, Isa>(op, n, k))
        return matmul_with<T, Isa>(op, m, n, k, packed);
    const matmul_operands<T> flipped{op.b, op.bn, op.bk, op.a, op.ak, op.am, op.c, op.cn, op.cm};
    if (n >= packed_b_min_rows)
      if (const T* packed = cache->template packed_b<T, Isa>(flipped, m, k))
        return matmul_with<T, Isa>(flipped, n, m, k, packed);
    if (cache->expected_uses() >= gemv_copy_min_uses && (m == 1 || n == 1)) {
      const matmul_operands<T>& v = m == 1 ? op : flipped;
      const std::size_t vn = m == 1 ? n : m;
      if (has_gaps(*v.bk, *v.bn))
        if (const T* copy = cache->copied_b(v, vn, k)) {
          const gemv_b_layout layout{vn, k, v.bk->unit()};
          const dim_group bk = layout.k_group(), bn = layout.n_group();
          const matmul_operands<T> over_copy{v.a, v.am, v.ak, copy, &bk, &bn, v.c, v.cm, v.cn};
          return matmul_with<T, Isa>(over_copy, 1, vn, k, static_cast<const T*>(nullptr));
        }
    }
  }
  matmul_with<T, Isa>(op, m, n, k, static_cast<const T*>(nullptr));
}

// C = A B for one batch entry: CBLAS above the threshold (when enabled and the layouts fit),
// else the GEMV kernel when m or n is 1, the unpacked kernels for few rows of A (or a B that
// stays in L2), the packed blocked kernel otherwise (the only one that takes offset tables).
template <class T>
void matmul(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  if (m == 0 || n == 0) return;
#if DIMGRAPH_CONFIG_USE_CBLAS
  if (k != 0 &&
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >=
          static_cast<double>(DIMGRAPH_CONFIG_CBLAS_THRESHOLD) &&
      blas_matmul(op, m, n, k))
    return;
#endif
  switch (cpu_isa_level()) {
#if DIMGRAPH_DISPATCH_AVX512
    case isa_level::avx512:
      return matmul_at<T, gemm_avx512_isa>(op, m, n, k);
#endif
#if DIMGRAPH_DISPATCH_AVX2
    case isa_level::avx2:
      return matmul_at<T, gemm_avx2_isa>(op, m, n, k);
#endif
    default:
      return matmul_at<T, gemm_target_isa>(op, m, n, k);
  }
}

}  // namespace dimgraph::detail
