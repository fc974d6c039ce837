// dg::set_num_threads, dg::num_threads: how many threads kernels may use (OpenMP builds).
#pragma once

#include <cstddef>
#include <exception>

#include "dimgraph/config.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dimgraph {

namespace detail {
inline std::size_t& thread_setting() {
  static std::size_t n = 0;  // 0: OpenMP's default (omp_get_max_threads)
  return n;
}
}  // namespace detail

// The number of threads kernels use: 1 without OpenMP; with OpenMP, the last value given to
// set_num_threads, else OpenMP's default (OMP_NUM_THREADS or the number of cores).
inline std::size_t num_threads() {
#if defined(_OPENMP)
  const std::size_t n = detail::thread_setting();
  return n ? n : static_cast<std::size_t>(omp_get_max_threads());
#else
  return 1;
#endif
}

// Sets the number of threads kernels use (0: OpenMP's default). Without OpenMP kernels run
// serially whatever is set. Not meant to be called while kernels run on other threads.
inline void set_num_threads(std::size_t n) {
  detail::thread_setting() = n;
}

namespace detail {
// Threads for a kernel over `elements` elements: at least DIMGRAPH_CONFIG_PARALLEL_GRAIN
// elements per thread, none inside a parallel region already.
inline std::size_t parallel_threads_for(std::size_t elements) {
#if defined(_OPENMP)
  if (elements < 2 * std::size_t{DIMGRAPH_CONFIG_PARALLEL_GRAIN} || omp_in_parallel()) return 1;
  const std::size_t most = elements / std::size_t{DIMGRAPH_CONFIG_PARALLEL_GRAIN};
  const std::size_t n = num_threads();
  return n < most ? n : most;
#else
  (void)elements;
  return 1;
#endif
}

// f(first, last) over `threads` contiguous parts of [0, count), one per thread (serially, as
// one part, without OpenMP or with one thread). An exception in a part is caught in its
// thread and the first one rethrown after all parts have ended (none escapes a thread).
template <class F>
void parallel_parts(std::size_t count, std::size_t threads, F&& f) {
#if defined(_OPENMP)
  if (threads > 1 && count > 1) {
    if (threads > count) threads = count;
    std::exception_ptr failed;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t t = 0; t < threads; ++t) {
      try {
        f(count * t / threads, count * (t + 1) / threads);
      } catch (...) {
#pragma omp critical(dimgraph_parallel_parts)
        if (!failed) failed = std::current_exception();
      }
    }
    if (failed) std::rethrow_exception(failed);
    return;
  }
#else
  (void)threads;
#endif
  f(std::size_t{0}, count);
}
}  // namespace detail

}  // namespace dimgraph
