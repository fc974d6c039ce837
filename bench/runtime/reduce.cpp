// Reduction run-time benchmarks, each timed as dimgraph code and as the equivalent
// hand-written loop in the same binary (float32, inputs uniform in [-1, 1]):
//   W4a  sum over T: x[B,T,F] -> [B,F]    32 x 128 x 512   reduction over a non-inner dim
//   W4b  softmax over F of x[B,T,F]       32 x 128 x 512   reduction + element-wise, inner dim
//
// As in elementwise.cpp: every kernel is a named noinline function called once per
// iteration, and each dimgraph result is checked against its hand loop before anything is
// timed (relative difference < 1e-4, on stderr; stdout stays Google Benchmark's).
//
//   dimgraph_bench_reduce [--benchmark_filter=W4a] [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary> [<dimgraph_bench_elementwise>]

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>

#include <dimgraph.hpp>

namespace dg = dimgraph;

namespace {

struct B : dg::dim<"b"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f"> {};

using btf = dg::tensor<float, B, T, F>;
using bf = dg::tensor<float, B, F>;

constexpr std::size_t batch = 32, time_steps = 128, features = 512;

// Inputs: uniform in [-1, 1] from a fixed seed (the same mapping as elementwise.cpp).
class uniform_source {
 public:
  explicit uniform_source(std::uint32_t seed) : engine_(seed) {}
  float next() {
    const std::uint32_t bits = static_cast<std::uint32_t>(engine_()) >> 8;  // 24 bits
    return static_cast<float>(bits) * (2.0f / 16777215.0f) - 1.0f;
  }
  void fill(float* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) p[i] = next();
  }

 private:
  std::mt19937 engine_;
};

// ---- The kernels: dimgraph and hand-written, each out of line. ---------------------------

DIMGRAPH_NOINLINE void w4a_dimgraph(bf& out, const btf& x) {
  out = dg::sum<T>(x);
}
// Row by row: out[b, :] accumulates x[b, t, :] over t (the inner loop is contiguous).
DIMGRAPH_NOINLINE void w4a_hand(float* __restrict out, const float* __restrict x, std::size_t nb,
                                std::size_t nt, std::size_t nf) {
  for (std::size_t b = 0; b < nb; ++b) {
    float* o = out + b * nf;
    for (std::size_t i = 0; i < nf; ++i) o[i] = 0.0f;
    for (std::size_t t = 0; t < nt; ++t) {
      const float* xr = x + (b * nt + t) * nf;
      for (std::size_t i = 0; i < nf; ++i) o[i] += xr[i];
    }
  }
}

DIMGRAPH_NOINLINE void w4b_dimgraph(btf& out, const btf& x) {
  out = dg::softmax<F>(x);
}
// Per row of F (in cache): the max, exp(x - max) and its sum, then the scaling.
DIMGRAPH_NOINLINE void w4b_hand(float* __restrict out, const float* __restrict x, std::size_t rows,
                                std::size_t nf) {
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

// ---- Inputs and outputs, made once. ------------------------------------------------------

struct w4_data {
  btf x{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  bf sum_out{dg::extent<B>(batch), dg::extent<F>(features)};
  bf sum_hand{dg::extent<B>(batch), dg::extent<F>(features)};
  btf softmax_out{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  btf softmax_hand{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  w4_data() {
    uniform_source u(6);
    u.fill(x.data(), x.size());
  }
};
w4_data& w4() {
  static w4_data d;
  return d;
}

// ---- The check before timing. ------------------------------------------------------------

// Relative difference max|got - want| / max|want| (0 when both are all zero); NaN-safe.
double relative_difference(const float* got, const float* want, std::size_t n) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (!(d <= diff)) diff = d;  // a NaN sticks
    scale = std::fmax(scale, std::fabs(static_cast<double>(want[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

void expect_close(const char* workload, const float* got, const float* want, std::size_t n) {
  const double rel = relative_difference(got, want, n);
  if (!(rel < 1e-4)) {
    std::fprintf(stderr,
                 "dimgraph_bench_reduce: %s: dimgraph and the hand loop disagree (relative "
                 "difference %g, limit 1e-4); nothing was timed\n",
                 workload, rel);
    std::abort();
  }
  std::fprintf(stderr, "check %-9s dimgraph vs hand: relative difference %.3g\n", workload, rel);
}

void check_all() {
  auto& d = w4();
  w4a_dimgraph(d.sum_out, d.x);
  w4a_hand(d.sum_hand.data(), d.x.data(), batch, time_steps, features);
  expect_close("W4a", d.sum_out.data(), d.sum_hand.data(), d.sum_out.size());
  w4b_dimgraph(d.softmax_out, d.x);
  w4b_hand(d.softmax_hand.data(), d.x.data(), batch * time_steps, features);
  expect_close("W4b", d.softmax_out.data(), d.softmax_hand.data(), d.softmax_out.size());
}

// ---- The timed loops. --------------------------------------------------------------------
// The hand loops get their sizes from the tensor at run time, as dimgraph does, and write
// dimgraph's output tensor (the `hand` outputs serve the check only), so that where a
// buffer lands in memory affects both sides alike.

void bm_w4a_dimgraph(benchmark::State& state) {
  auto& d = w4();
  for (auto _ : state) {
    w4a_dimgraph(d.sum_out, d.x);
    benchmark::ClobberMemory();
  }
}
void bm_w4a_hand(benchmark::State& state) {
  auto& d = w4();
  for (auto _ : state) {
    w4a_hand(d.sum_out.data(), d.x.data(), d.x.extent<B>(), d.x.extent<T>(), d.x.extent<F>());
    benchmark::ClobberMemory();
  }
}

void bm_w4b_dimgraph(benchmark::State& state) {
  auto& d = w4();
  for (auto _ : state) {
    w4b_dimgraph(d.softmax_out, d.x);
    benchmark::ClobberMemory();
  }
}
void bm_w4b_hand(benchmark::State& state) {
  auto& d = w4();
  for (auto _ : state) {
    w4b_hand(d.softmax_out.data(), d.x.data(), d.x.extent<B>() * d.x.extent<T>(), d.x.extent<F>());
    benchmark::ClobberMemory();
  }
}

void register_pair(const char* workload, void (*dimgraph_fn)(benchmark::State&),
                   void (*hand_fn)(benchmark::State&)) {
  const std::string name = workload;
  for (auto [side, fn] : {std::pair{"/dimgraph", dimgraph_fn}, std::pair{"/hand", hand_fn}}) {
    benchmark::RegisterBenchmark((name + side).c_str(), fn)
        ->Unit(benchmark::kMicrosecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_all();
  register_pair("W4a", bm_w4a_dimgraph, bm_w4a_hand);
  register_pair("W4b", bm_w4b_dimgraph, bm_w4b_hand);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
