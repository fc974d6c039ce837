// The optional CBLAS backend of dot (DIMGRAPH_CONFIG_USE_CBLAS): sgemm/dgemm, sgemv/dgemv.
#pragma once

#include "dimgraph/config.hpp"
#include "dimgraph/eval/gemm.hpp"

#if DIMGRAPH_CONFIG_USE_CBLAS
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

namespace dimgraph::detail {

// A matrix (rows x cols) as CBLAS takes it in row-major order: stored as is (element (r, c)
// at r * ld + c) or transposed (at c * ld + r). ok is false when the strides fit neither.
struct blas_matrix {
  bool ok = false;
  bool trans = false;
  int ld = 0;
};
inline blas_matrix blas_layout(const dim_group& rg, const dim_group& cg) {
  if (!rg.affine || !cg.affine) return {};
  const auto r = static_cast<std::ptrdiff_t>(std::max<std::size_t>(rg.size, 1));
  const auto c = static_cast<std::ptrdiff_t>(std::max<std::size_t>(cg.size, 1));
  const auto fits = [](std::ptrdiff_t v) { return v <= static_cast<std::ptrdiff_t>(INT_MAX); };
  if (cg.stride == 1) {
    const std::ptrdiff_t ld = r == 1 ? c : rg.stride;
    if (ld >= c && fits(ld)) return {true, false, static_cast<int>(ld)};
  }
  if (rg.stride == 1) {
    const std::ptrdiff_t ld = c == 1 ? r : cg.stride;
    if (ld >= r && fits(ld)) return {true, true, static_cast<int>(ld)};
  }
  return {};
}

// The product through CBLAS (float and double), when every operand's layout allows it:
// sgemv/dgemv when m or n is 1, sgemm/dgemm otherwise. Returns false when it did not run.
template <class T>
bool blas_matmul(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    constexpr bool single = std::is_same_v<T, float>;
    const auto fits = [](std::size_t v) { return v <= static_cast<std::size_t>(INT_MAX); };
    if (!fits(m) || !fits(n) || !fits(k) || k == 0) return false;
    const auto tr = [](bool t) { return t ? CblasTrans : CblasNoTrans; };
    const auto inc = [&](const dim_group& g) -> int {
      return g.size <= 1 ? 1
                         : (g.affine && g.stride > 0 && g.stride <= INT_MAX ? int(g.stride) : 0);
    };
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    if (n == 1 || m == 1) {
      // y(r) = sum_k mat(r, k) x(k): mat is A (n == 1) or B seen as [n, k] (m == 1).
      const bool by_a = n == 1;
      const blas_matrix l = by_a ? blas_layout(*op.am, *op.ak) : blas_layout(*op.bn, *op.bk);
      const int xs = inc(by_a ? *op.bk : *op.ak), ys = inc(by_a ? *op.cm : *op.cn);
      if (!l.ok || xs == 0 || ys == 0) return false;
      const int rows = by_a ? mi : ni;
      const T* mat = by_a ? op.a : op.b;
      const T* x = by_a ? op.b : op.a;
      const int sr = l.trans ? ki : rows, sc = l.trans ? rows : ki;  // as stored
      if constexpr (single)
        cblas_sgemv(CblasRowMajor, tr(l.trans), sr, sc, 1.0f, mat, l.ld, x, xs, 0.0f, op.c, ys);
      else cblas_dgemv(CblasRowMajor, tr(l.trans), sr, sc, 1.0, mat, l.ld, x, xs, 0.0, op.c, ys);
      return true;
    }
    const blas_matrix lc = blas_layout(*op.cm, *op.cn);
    if (!lc.ok) return false;
    // A column-major C is the row-major C^T = B^T A^T.
    const bool swap = lc.trans;
    const blas_matrix l1 = swap ? blas_layout(*op.bn, *op.bk) : blas_layout(*op.am, *op.ak);
    const blas_matrix l2 = swap ? blas_layout(*op.ak, *op.am) : blas_layout(*op.bk, *op.bn);
    if (!l1.ok || !l2.ok) return false;
    const T* p1 = swap ? op.b : op.a;
    const T* p2 = swap ? op.a : op.b;
    const int r = swap ? ni : mi, c = swap ? mi : ni;
    if constexpr (single)
      cblas_sgemm(CblasRowMajor, tr(l1.trans), tr(l2.trans), r, c, ki, 1.0f, p1, l1.ld, p2, l2.ld,
                  0.0f, op.c, lc.ld);
    else
      cblas_dgemm(CblasRowMajor, tr(l1.trans), tr(l2.trans), r, c, ki, 1.0, p1, l1.ld, p2, l2.ld,
                  0.0, op.c, lc.ld);
    return true;
  }
}

}  // namespace dimgraph::detail
#endif
