// What every run-time benchmark shares: seeded inputs, the check before timing, registration.
//
// Each workload is timed as up to four sides in one binary, registered as
// "<workload>/<side>": dimgraph, hand (a hand-written loop), eigen and torch (when the
// binary was built with them), plus named extra references (e.g. hand_stream). Before
// anything is timed every side's result is checked against the hand loop; the check's
// lines go to stderr, so stdout stays Google Benchmark's (e.g. JSON for ratios.py).
#pragma once

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>

// Out of line, so that every side is timed through the same call structure: one call per
// iteration, arguments in memory, the result observed afterwards. (`used`: the function's
// address escapes, so no side's signature is rewritten across the call; clang otherwise
// promotes a static function's by-reference tensors to vector registers loaded by the caller
// for some sides and not others.)
#define DIMGRAPH_BENCH_NOINLINE __attribute__((noinline, used))
// For kernels of a few instructions timed one call at a time (W5): every side starts on a
// 64-byte boundary. The sides compile to the same dozen instructions, and where the linker
// happens to put them (across a 32- or 64-byte fetch block or not) otherwise moved the ratio
// by up to 1.3x between builds of one source.
#define DIMGRAPH_BENCH_NOINLINE_ALIGNED __attribute__((noinline, used, aligned(64)))

namespace bench {

// Uniform in [-scale, scale] from a fixed seed (the mapping is ours, so every standard
// library gives the same numbers).
inline void fill_uniform(float* p, std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 engine(seed);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(engine()) >> 8;  // 24 bits
    p[i] = (static_cast<float>(bits) * (2.0f / 16777215.0f) - 1.0f) * scale;
  }
}

// max|got - want| / max|want| (the absolute difference when want is all zero); a NaN in
// got makes it NaN.
inline double relative_difference(const float* got, const float* want, std::size_t n) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (!(d <= diff)) diff = d;  // a NaN sticks
    scale = std::fmax(scale, std::fabs(static_cast<double>(want[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// Aborts the binary (nothing is timed) when `side` and the hand loop disagree by `limit`
// or more in relative_difference.
inline void expect_close(const char* workload, const char* side, const float* got,
                         const float* want, std::size_t n, double limit = 1e-4) {
  const double rel = relative_difference(got, want, n);
  if (!(rel < limit)) {
    std::fprintf(stderr,
                 "bench: %s: %s and the hand loop disagree (relative difference %g, limit %g); "
                 "nothing was timed\n",
                 workload, side, rel, limit);
    std::abort();
  }
  std::fprintf(stderr, "check %-16s %-14s vs hand: relative difference %.3g\n", workload, side,
               rel);
}

// Aborts the binary (nothing is timed) when two sides of a recurrent workload differ by more
// than `limit` in any element (absolute; a NaN sticks): `what` is the compared output, `sides`
// names the two.
inline void expect_absolute(const char* workload, const char* what, const char* sides,
                            const float* got, const float* want, std::size_t n,
                            double limit = 1e-5) {
  double diff = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (!(d <= diff)) diff = d;
  }
  if (!(diff <= limit)) {
    std::fprintf(stderr,
                 "bench: %s: %s: %s disagree (largest absolute difference %g, limit %g); nothing "
                 "was timed\n",
                 workload, what, sides, diff, limit);
    std::abort();
  }
  std::fprintf(stderr, "check %-5s %-7s %-20s largest absolute difference %.3g\n", workload, what,
               sides, diff);
}

// Calls `kernel` once per iteration; whatever it wrote is forced to memory.
template <class Kernel>
void time_calls(benchmark::State& state, Kernel&& kernel) {
  for (auto _ : state) {
    kernel();
    benchmark::ClobberMemory();
  }
}

// Registers "<workload>/<side>": 5 repetitions, aggregates only (ratios.py reads medians).
template <class Body>
void add(const std::string& workload, const char* side, benchmark::TimeUnit unit, Body body) {
  benchmark::RegisterBenchmark((workload + "/" + side).c_str(), std::move(body))
      ->Unit(unit)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

}  // namespace bench
