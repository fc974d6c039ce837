// The hand-written and Eigen sides of the reductions that reduce.cpp (W4, long rows) and
// short_rows.cpp (S, short rows) both time: the same kernels at other shapes. Row-major
// float32 inputs, sizes given at run time as dimgraph gets them.

#pragma once

#include <cmath>
#include <cstddef>

#include "support.hpp"

#ifndef DIMGRAPH_BENCH_EIGEN
#define DIMGRAPH_BENCH_EIGEN 0
#endif
#if DIMGRAPH_BENCH_EIGEN
#include <Eigen/Core>
#endif

namespace bench::hand {

// out[b, :] = the sum over t of x[b, t, :] (row by row: the inner loop is contiguous).
DIMGRAPH_BENCH_NOINLINE inline void sum_middle(float* __restrict out, const float* __restrict x,
                                               std::size_t nb, std::size_t nt, std::size_t nf) {
  for (std::size_t b = 0; b < nb; ++b) {
    float* o = out + b * nf;
    for (std::size_t i = 0; i < nf; ++i) o[i] = 0.0f;
    for (std::size_t t = 0; t < nt; ++t) {
      const float* xr = x + (b * nt + t) * nf;
      for (std::size_t i = 0; i < nf; ++i) o[i] += xr[i];
    }
  }
}

// Softmax of each row of nf (in cache): the max, exp(x - max) and its sum, then the scaling.
DIMGRAPH_BENCH_NOINLINE inline void softmax_rows(float* __restrict out, const float* __restrict x,
                                                 std::size_t rows, std::size_t nf) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * nf;
    float* o = out + r * nf;
    float m = -INFINITY;
    for (std::size_t i = 0; i < nf; ++i) m = xr[i] > m ? xr[i] : m;
    float s = 0.0f;
    for (std::size_t i = 0; i < nf; ++i) {
      o[i] = std::exp(xr[i] - m);
      s += o[i];
    }
    for (std::size_t i = 0; i < nf; ++i) o[i] /= s;
  }
}

// out[r] = the sum of row r, as a user would write it.
DIMGRAPH_BENCH_NOINLINE inline void sum_rows(float* __restrict out, const float* __restrict x,
                                             std::size_t rows, std::size_t nf) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * nf;
    float s = 0.0f;
    for (std::size_t i = 0; i < nf; ++i) s += xr[i];
    out[r] = s;
  }
}

// out[r] = the max of row r, NaN-propagating as dimgraph's (and PyTorch's) max, which no
// branch-free max instruction does alone.
DIMGRAPH_BENCH_NOINLINE inline void max_rows(float* __restrict out, const float* __restrict x,
                                             std::size_t rows, std::size_t nf) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * nf;
    float m = -INFINITY;
    for (std::size_t i = 0; i < nf; ++i) m = (xr[i] > m || xr[i] != xr[i]) ? xr[i] : m;
    out[r] = m;
  }
}

}  // namespace bench::hand

#if DIMGRAPH_BENCH_EIGEN
// The same with Eigen's Array maps: x [rows, nf] row-major is the column-major [nf, rows]
// array.
namespace bench::eigen {

inline Eigen::Index idx(std::size_t n) {
  return static_cast<Eigen::Index>(n);
}

// For each b, the row sums of x[b] seen as a column-major [F, T] array (Eigen's partial
// reduction: several times faster than the Tensor module's sum over dim 1).
DIMGRAPH_BENCH_NOINLINE inline void sum_middle(float* out, const float* x, std::size_t nb,
                                               std::size_t nt, std::size_t nf) {
  for (std::size_t b = 0; b < nb; ++b)
    Eigen::Map<Eigen::ArrayXf>(out + b * nf, idx(nf)) =
        Eigen::Map<const Eigen::ArrayXXf>(x + b * nt * nf, idx(nf), idx(nt)).rowwise().sum();
}

// The hand loop's passes in Eigen's vectorised Array functions (Eigen has no softmax).
DIMGRAPH_BENCH_NOINLINE inline void softmax_rows(float* out, const float* x, std::size_t rows,
                                                 std::size_t nf) {
  for (std::size_t r = 0; r < rows; ++r) {
    const Eigen::Map<const Eigen::ArrayXf> xr(x + r * nf, idx(nf));
    Eigen::Map<Eigen::ArrayXf> o(out + r * nf, idx(nf));
    o = (xr - xr.maxCoeff()).exp();
    o *= 1.0f / o.sum();
  }
}

// Column sums and maxima of the [nf, rows] array.
DIMGRAPH_BENCH_NOINLINE inline void sum_rows(float* out, const float* x, std::size_t rows,
                                             std::size_t nf) {
  Eigen::Map<Eigen::ArrayXXf>(out, 1, idx(rows)) =
      Eigen::Map<const Eigen::ArrayXXf>(x, idx(nf), idx(rows)).colwise().sum();
}
DIMGRAPH_BENCH_NOINLINE inline void max_rows(float* out, const float* x, std::size_t rows,
                                             std::size_t nf) {
  Eigen::Map<Eigen::ArrayXXf>(out, 1, idx(rows)) =
      Eigen::Map<const Eigen::ArrayXXf>(x, idx(nf), idx(rows)).colwise().maxCoeff();
}

}  // namespace bench::eigen
#endif
