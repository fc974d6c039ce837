// Contraction run-time benchmarks (float32, inputs uniform in [-1, 1]), each timed as dimgraph
// code, as the loop a user would write by hand, and (when OpenBLAS was found at configure
// time) as a direct single-threaded CBLAS call, all in the same binary:
//   GEMV  y[h] = W[h, i] . x[i]                      1024 x 768
//   GEMM  C[b, h] = A[b, i] . B[i, h]                32 x 768 . 768 x 1024
// Each benchmark reports its throughput as a FLOP rate (2 m n k per call).
//
// Every kernel is a named noinline function; each result is checked against the hand loop
// before anything is timed (relative difference < 1e-4, on stderr; stdout stays Google
// Benchmark's). Built with DIMGRAPH_USE_CBLAS=ON, dimgraph's side goes through CBLAS too.
//
//   dimgraph_bench_contract [--benchmark_filter=GEMM] [google benchmark flags]

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <dimgraph.hpp>

// Set to 1 by bench/CMakeLists.txt when OpenBLAS is linked.
#ifndef DIMGRAPH_BENCH_OPENBLAS
#define DIMGRAPH_BENCH_OPENBLAS 0
#endif
#if DIMGRAPH_BENCH_OPENBLAS
#include <cblas.h>
#endif

namespace dg = dimgraph;

namespace {

struct Bt : dg::dim<"b"> {};
struct In : dg::dim<"i"> {};
struct Hid : dg::dim<"h"> {};

constexpr std::size_t rows = 1024, depth = 768, batch = 32;

// Inputs: uniform in [-1, 1] from a fixed seed.
void fill(float* p, std::size_t n, std::uint32_t seed) {
  std::mt19937 engine(seed);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(engine()) >> 8;  // 24 bits
    p[i] = static_cast<float>(bits) * (2.0f / 16777215.0f) - 1.0f;
  }
}

// ---- The kernels: dimgraph, hand-written and CBLAS, each out of line. --------------------

DIMGRAPH_NOINLINE void gemv_dimgraph(dg::tensor<float, Hid>& y, const dg::tensor<float, Hid, In>& w,
                                     const dg::tensor<float, In>& x) {
  y = dg::dot<In>(w, x);
}
// One dot product per row.
DIMGRAPH_NOINLINE void gemv_hand(float* __restrict y, const float* __restrict w,
                                 const float* __restrict x, std::size_t nh, std::size_t ni) {
  for (std::size_t h = 0; h < nh; ++h) {
    float s = 0.0f;
    for (std::size_t i = 0; i < ni; ++i) s += w[h * ni + i] * x[i];
    y[h] = s;
  }
}

DIMGRAPH_NOINLINE void gemm_dimgraph(dg::tensor<float, Bt, Hid>& c,
                                     const dg::tensor<float, Bt, In>& a,
                                     const dg::tensor<float, In, Hid>& b) {
  c = dg::dot<In>(a, b);
}
// The i-k-j loop: row i of C accumulates a[i, k] times row k of B (inner loop contiguous).
DIMGRAPH_NOINLINE void gemm_hand(float* __restrict c, const float* __restrict a,
                                 const float* __restrict b, std::size_t m, std::size_t k,
                                 std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) {
    float* ci = c + i * n;
    for (std::size_t j = 0; j < n; ++j) ci[j] = 0.0f;
    for (std::size_t p = 0; p < k; ++p) {
      const float aip = a[i * k + p];
      const float* bp = b + p * n;
      for (std::size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

#if DIMGRAPH_BENCH_OPENBLAS
DIMGRAPH_NOINLINE void gemv_blas(float* y, const float* w, const float* x, std::size_t nh,
                                 std::size_t ni) {
  cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(nh), static_cast<int>(ni), 1.0f, w,
              static_cast<int>(ni), x, 1, 0.0f, y, 1);
}
DIMGRAPH_NOINLINE void gemm_blas(float* c, const float* a, const float* b, std::size_t m,
                                 std::size_t k, std::size_t n) {
  const int mi = static_cast<int>(m), ki = static_cast<int>(k), ni = static_cast<int>(n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, mi, ni, ki, 1.0f, a, ki, b, ni, 0.0f, c,
              ni);
}
#endif

// ---- Inputs and outputs, made once. ------------------------------------------------------

struct data {
  dg::tensor<float, Hid, In> w{dg::extent<Hid>(rows), dg::extent<In>(depth)};
  dg::tensor<float, In> x{dg::extent<In>(depth)};
  dg::tensor<float, Hid> y{dg::extent<Hid>(rows)};
  std::vector<float> y_check = std::vector<float>(rows);
  dg::tensor<float, Bt, In> a{dg::extent<Bt>(batch), dg::extent<In>(depth)};
  dg::tensor<float, In, Hid> b{dg::extent<In>(depth), dg::extent<Hid>(rows)};
  dg::tensor<float, Bt, Hid> c{dg::extent<Bt>(batch), dg::extent<Hid>(rows)};
  std::vector<float> c_check = std::vector<float>(batch * rows);
  data() {
    fill(w.data(), w.size(), 1);
    fill(x.data(), x.size(), 2);
    fill(a.data(), a.size(), 3);
    fill(b.data(), b.size(), 4);
  }
};
data& inputs() {
  static data d;
  return d;
}

// ---- The check before timing. ------------------------------------------------------------

// Relative difference max|got - want| / max|want|; NaN-safe.
double relative_difference(const float* got, const float* want, std::size_t n) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (!(d <= diff)) diff = d;
    scale = std::fmax(scale, std::fabs(static_cast<double>(want[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

void expect_close(const char* what, const float* got, const float* want, std::size_t n) {
  const double rel = relative_difference(got, want, n);
  if (!(rel < 1e-4)) {
    std::fprintf(stderr,
                 "dimgraph_bench_contract: %s disagrees with the hand loop (relative difference "
                 "%g, limit 1e-4); nothing was timed\n",
                 what, rel);
    std::abort();
  }
  std::fprintf(stderr, "check %-14s vs hand: relative difference %.3g\n", what, rel);
}

void check_all() {
  auto& d = inputs();
  gemv_hand(d.y_check.data(), d.w.data(), d.x.data(), rows, depth);
  gemv_dimgraph(d.y, d.w, d.x);
  expect_close("GEMV dimgraph", d.y.data(), d.y_check.data(), rows);
  gemm_hand(d.c_check.data(), d.a.data(), d.b.data(), batch, depth, rows);
  gemm_dimgraph(d.c, d.a, d.b);
  expect_close("GEMM dimgraph", d.c.data(), d.c_check.data(), d.c.size());
#if DIMGRAPH_BENCH_OPENBLAS
  gemv_blas(d.y.data(), d.w.data(), d.x.data(), rows, depth);
  expect_close("GEMV openblas", d.y.data(), d.y_check.data(), rows);
  gemm_blas(d.c.data(), d.a.data(), d.b.data(), batch, depth, rows);
  expect_close("GEMM openblas", d.c.data(), d.c_check.data(), d.c.size());
#endif
}

// ---- The timed loops (every side writes dimgraph's output tensor). -----------------------

void count_flops(benchmark::State& state, double per_call) {
  state.counters["FLOP/s"] =
      benchmark::Counter(per_call, benchmark::Counter::kIsIterationInvariantRate);
}

void bm_gemv_dimgraph(benchmark::State& state) {
  auto& d = inputs();
  for (auto _ : state) {
    gemv_dimgraph(d.y, d.w, d.x);
    benchmark::ClobberMemory();
  }
  count_flops(state, 2.0 * rows * depth);
}
void bm_gemv_hand(benchmark::State& state) {
  auto& d = inputs();
  for (auto _ : state) {
    gemv_hand(d.y.data(), d.w.data(), d.x.data(), d.w.extent<Hid>(), d.w.extent<In>());
    benchmark::ClobberMemory();
  }
  count_flops(state, 2.0 * rows * depth);
}
void bm_gemm_dimgraph(benchmark::State& state) {
  auto& d = inputs();
  for (auto _ : state) {
    gemm_dimgraph(d.c, d.a, d.b);
    benchmark::ClobberMemory();
  }
  count_flops(state, 2.0 * batch * depth * rows);
}
void bm_gemm_hand(benchmark::State& state) {
  auto& d = inputs();
  for (auto _ : state) {
    gemm_hand(d.c.data(), d.a.data(), d.b.data(), d.a.extent<Bt>(), d.a.extent<In>(),
              d.b.extent<Hid>());
    benchmark::ClobberMemory();
  }
  count_flops(state, 2.0 * batch * depth * rows);
}
#if DIMGRAPH_BENCH_OPENBLAS
void bm_gemv_openblas(benchmark::State& state) {
  auto& d = inputs();
  for (auto _ : state) {
    gemv_blas(d.y.data(), d.w.data(), d.x.data(), d.w.extent<Hid>(), d.w.extent<In>());
    benchmark::ClobberMemory();
  }
  count_flops(state, 2.0 * rows * depth);
}
void bm_gemm_openblas(benchmark::State& state) {
  auto& d = inputs();
  for (auto _ : state) {
    gemm_blas(d.c.data(), d.a.data(), d.b.data(), d.a.extent<Bt>(), d.a.extent<In>(),
              d.b.extent<Hid>());
    benchmark::ClobberMemory();
  }
  count_flops(state, 2.0 * batch * depth * rows);
}
#endif

void add(const std::string& name, void (*fn)(benchmark::State&)) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

}  // namespace

int main(int argc, char** argv) {
#if DIMGRAPH_BENCH_OPENBLAS
  openblas_set_num_threads(1);  // single-threaded, as dimgraph's kernel
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::fprintf(stderr, "dimgraph CBLAS backend: %s; OpenBLAS side: %s\n",
               DIMGRAPH_CONFIG_USE_CBLAS ? "on" : "off",
               DIMGRAPH_BENCH_OPENBLAS ? "on" : "off (not found)");
  check_all();
  add("GEMV/dimgraph", bm_gemv_dimgraph);
  add("GEMV/hand", bm_gemv_hand);
  add("GEMM/dimgraph", bm_gemm_dimgraph);
  add("GEMM/hand", bm_gemm_hand);
#if DIMGRAPH_BENCH_OPENBLAS
  add("GEMV/openblas", bm_gemv_openblas);
  add("GEMM/openblas", bm_gemm_openblas);
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
