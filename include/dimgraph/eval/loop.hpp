// for_each_row: the one loop nest that every kernel runs in (rows of a loop plan), and threads.
#pragma once

#include <array>
#include <cstddef>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/threads.hpp"

namespace dimgraph::detail {

// body(off, n) for every row of the plan: off[op] is operand op's offset (in elements) at
// the start of the row, n the row's length; consecutive elements of the row are
// plan.inner_stride(op) apart. A rank-0 plan is one row of one element.
//
// With OpenMP and Parallel (the rows write disjoint memory), a plan of at least
// DIMGRAPH_CONFIG_PARALLEL_GRAIN elements is split into one contiguous range of rows per thread
// (or, for a single long row, into pieces of it, each a multiple of Align elements, unless
// split_rows is false); the body sees the same rows either way, so results do not depend on the
// thread count. weight: the work of one element of the plan, in elements (a body that runs
// over several rows per call), for the grain.
template <std::size_t Align = 1, bool Parallel = true, std::size_t R, std::size_t N, class Body>
DIMGRAPH_ALWAYS_INLINE inline void for_each_row(const loop_plan<R, N>& p, Body&& body,
                                                [[maybe_unused]] std::size_t weight = 1,
                                                [[maybe_unused]] bool split_rows = true) {
  if constexpr (R == 0) {
    body(std::array<std::ptrdiff_t, N>{}, std::size_t{1});
  } else {
    if (p.depth == 0) return;
    const std::size_t n = p.inner_extent();
    std::size_t rows = 1;
    for (std::size_t k = 0; k + 1 < p.depth; ++k) rows *= p.extent[k];
    // rows [first, last) of the flattened outer levels.
    const auto run_rows = [&](std::size_t first, std::size_t last) DIMGRAPH_ALWAYS_INLINE {
      if (first >= last) return;
      std::array<std::ptrdiff_t, N> off{};
      std::array<std::size_t, R> idx{};
      // (Skipped when starting at row 0, where the compiler would turn it into a memset.)
      for (std::size_t k = p.depth - 1, rest = first; rest != 0 && k-- > 0;) {
        idx[k] = rest % p.extent[k];
        rest /= p.extent[k];
        for (std::size_t op = 0; op < N; ++op)
          off[op] += p.stride[op][k] * static_cast<std::ptrdiff_t>(idx[k]);
      }
      for (std::size_t r = first;;) {
        body(off, n);
        if (++r == last) return;
        std::size_t k = p.depth - 1;
        for (;;) {
          --k;
          for (std::size_t op = 0; op < N; ++op) off[op] += p.stride[op][k];
          if (++idx[k] < p.extent[k]) break;
          for (std::size_t op = 0; op < N; ++op)
            off[op] -= p.stride[op][k] * static_cast<std::ptrdiff_t>(p.extent[k]);
          idx[k] = 0;
        }
      }
    };
#if defined(_OPENMP)
    std::size_t threads = Parallel ? parallel_threads_for(rows * n * weight) : 1;
    if (!split_rows && rows < threads) threads = rows;
    if (threads > 1) {
      if (rows >= threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t t = 0; t < threads; ++t)
          run_rows(rows * t / threads, rows * (t + 1) / threads);
      } else {
        // One long row (or a few): pieces of each row, aligned to Align elements.
        for (std::size_t r = 0; r < rows; ++r) {
          std::array<std::ptrdiff_t, N> off{};
          std::size_t rest = r;
          for (std::size_t k = p.depth - 1; k-- > 0;) {
            const std::size_t i = rest % p.extent[k];
            rest /= p.extent[k];
            for (std::size_t op = 0; op < N; ++op)
              off[op] += p.stride[op][k] * static_cast<std::ptrdiff_t>(i);
          }
#pragma omp parallel for num_threads(threads) schedule(static)
          for (std::size_t t = 0; t < threads; ++t) {
            const std::size_t a = n * t / threads / Align * Align;
            const std::size_t b = t + 1 == threads ? n : n * (t + 1) / threads / Align * Align;
            if (a >= b) continue;
            std::array<std::ptrdiff_t, N> at = off;
            for (std::size_t op = 0; op < N; ++op)
              at[op] += p.stride[op][p.depth - 1] * static_cast<std::ptrdiff_t>(a);
            body(at, b - a);
          }
        }
      }
      return;
    }
#endif
    run_rows(0, rows);
  }
}

}  // namespace dimgraph::detail
