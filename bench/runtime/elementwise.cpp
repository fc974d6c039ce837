// Element-wise run-time benchmarks, each timed as dimgraph code and as the equivalent
// hand-written loop in the same binary (float32, inputs uniform in [-1, 1]):
//   W1a  out = a * b + c             N = 2^24       memory bandwidth, fusion
//   W1b  the same                    N = 4096       in-cache SIMD throughput, per-call overhead
//   W2   x[B,T,F] + bias[F]          32 x 128 x 512 broadcasting loop nest
//   W3   x[B,T,F] + y[T,B,F]         32 x 128 x 512 stride reordering
//   W5   dg::if_(cond, x + z, x + w)  [2, 4] static  per-op overhead on tiny tensors
//
// Every kernel is a named noinline function, so both sides are timed through the same call
// structure: one call per iteration, arguments in memory, the result observed afterwards.
// Before anything is timed, each dimgraph result is checked against its hand loop (on
// stderr; stdout stays Google Benchmark's, e.g. JSON).
//
//   dimgraph_bench_elementwise [--benchmark_filter=W2] [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and dimgraph / hand ratios

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

#include <dimgraph.hpp>

namespace dg = dimgraph;

namespace {

struct N : dg::dim<"n"> {};
struct B : dg::dim<"b"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f"> {};
struct R2 : dg::dim<"r", 2> {};
struct C4 : dg::dim<"c", 4> {};

using vec = dg::tensor<float, N>;
using btf = dg::tensor<float, B, T, F>;
using tbf = dg::tensor<float, T, B, F>;
using bias_t = dg::tensor<float, F>;
using small = dg::tensor<float, R2, C4>;

constexpr std::size_t w1a_n = std::size_t{1} << 24;
constexpr std::size_t w1b_n = 4096;
constexpr std::size_t batch = 32, time_steps = 128, features = 512;

// Inputs: uniform in [-1, 1], from a fixed seed (the mapping is ours, so every standard
// library gives the same numbers).
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
// The hand loops take restrict-qualified pointers, as a careful hand-written loop would: no
// run-time alias checks, like dimgraph's inner loop (whose overlap check runs once per call).

DIMGRAPH_NOINLINE void w1_dimgraph(vec& out, const vec& a, const vec& b, const vec& c) {
  out = a * b + c;
}
DIMGRAPH_NOINLINE void w1_hand(float* __restrict out, const float* __restrict a,
                               const float* __restrict b, const float* __restrict c,
                               std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] * b[i] + c[i];
}

DIMGRAPH_NOINLINE void w2_dimgraph(btf& out, const btf& x, const bias_t& bias) {
  out = x + bias;
}
DIMGRAPH_NOINLINE void w2_hand(float* __restrict out, const float* __restrict x,
                               const float* __restrict bias, std::size_t rows, std::size_t f) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < f; ++i) out[r * f + i] = x[r * f + i] + bias[i];
}

DIMGRAPH_NOINLINE void w3_dimgraph(btf& out, const btf& x, const tbf& y) {
  out = x + y;
}
DIMGRAPH_NOINLINE void w3_hand(float* __restrict out, const float* __restrict x,
                               const float* __restrict y, std::size_t nb, std::size_t nt,
                               std::size_t nf) {
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < nt; ++t) {
      float* o = out + (b * nt + t) * nf;
      const float* xr = x + (b * nt + t) * nf;
      const float* yr = y + (t * nb + b) * nf;
      for (std::size_t i = 0; i < nf; ++i) o[i] = xr[i] + yr[i];
    }
}

// W5: If on [2, 4], as dg::if_ with a run-time condition (OpenVINO If-8: both branches
// take all the inputs; the chosen one runs and its result is evaluated into a fresh static
// tensor, 32 bytes inline and 32-byte aligned). The hand side returns a struct of 8 floats
// aligned to the vector width, as are its inputs.
DIMGRAPH_NOINLINE small w5_dimgraph(bool cond, const small& x, const small& z, const small& w) {
  auto r = dg::if_(
      cond, [](const auto& x_, const auto& z_, const auto&) { return x_ + z_; },
      [](const auto& x_, const auto&, const auto& w_) { return x_ + w_; })(x, z, w);
  static_assert(std::is_same_v<decltype(r), small>);  // returned as is, no conversion
  return r;
}
struct alignas(32) floats8 {
  float v[8];
};
DIMGRAPH_NOINLINE floats8 w5_hand(bool cond, const floats8& x, const floats8& z, const floats8& w) {
  floats8 r;
  if (cond) {
    for (int i = 0; i < 8; ++i) r.v[i] = x.v[i] + z.v[i];
  } else {
    for (int i = 0; i < 8; ++i) r.v[i] = x.v[i] + w.v[i];
  }
  return r;
}

// ---- Inputs and outputs of each workload, made once. -------------------------------------

struct w1_data {
  vec a, b, c, out, hand;
  explicit w1_data(std::size_t n, std::uint32_t seed)
      : a(dg::extent<N>(n)),
        b(dg::extent<N>(n)),
        c(dg::extent<N>(n)),
        out(dg::extent<N>(n)),
        hand(dg::extent<N>(n)) {
    uniform_source u(seed);
    u.fill(a.data(), n);
    u.fill(b.data(), n);
    u.fill(c.data(), n);
  }
};
w1_data& w1a_data() {
  static w1_data d(w1a_n, 1);
  return d;
}
w1_data& w1b_data() {
  static w1_data d(w1b_n, 2);
  return d;
}

btf make_btf() {
  return btf(dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features));
}

struct w2_data {
  btf x = make_btf(), out = make_btf(), hand = make_btf();
  bias_t bias{dg::extent<F>(features)};
  w2_data() {
    uniform_source u(3);
    u.fill(x.data(), x.size());
    u.fill(bias.data(), bias.size());
  }
};
w2_data& w2() {
  static w2_data d;
  return d;
}

struct w3_data {
  btf x = make_btf(), out = make_btf(), hand = make_btf();
  tbf y{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  w3_data() {
    uniform_source u(4);
    u.fill(x.data(), x.size());
    u.fill(y.data(), y.size());
  }
};
w3_data& w3() {
  static w3_data d;
  return d;
}

struct w5_data {
  small x, z, w;
  floats8 hx, hz, hw;
  w5_data() {
    uniform_source u(5);
    for (auto [t, h] : {std::pair{&x, &hx}, std::pair{&z, &hz}, std::pair{&w, &hw}}) {
      u.fill(t->data(), 8);
      for (int i = 0; i < 8; ++i) h->v[i] = t->data()[i];
    }
  }
};
w5_data& w5() {
  static w5_data d;
  return d;
}

// The hand loops get their sizes from the tensors at run time, as dimgraph does (compile-time
// constants would let the compiler specialise the hand side alone).
std::size_t rows_of(const btf& x) {
  return x.extent<B>() * x.extent<T>();
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
                 "dimgraph_bench_elementwise: %s: dimgraph and the hand loop disagree (relative "
                 "difference %g, limit 1e-4); nothing was timed\n",
                 workload, rel);
    std::abort();
  }
  std::fprintf(stderr, "check %-9s dimgraph vs hand: relative difference %.3g\n", workload, rel);
}

void check_all() {
  for (auto [name, d] : {std::pair{"W1a", &w1a_data()}, std::pair{"W1b", &w1b_data()}}) {
    w1_dimgraph(d->out, d->a, d->b, d->c);
    w1_hand(d->hand.data(), d->a.data(), d->b.data(), d->c.data(), d->a.size());
    expect_close(name, d->out.data(), d->hand.data(), d->a.size());
  }
  {
    auto& d = w2();
    w2_dimgraph(d.out, d.x, d.bias);
    w2_hand(d.hand.data(), d.x.data(), d.bias.data(), rows_of(d.x), d.x.extent<F>());
    expect_close("W2", d.out.data(), d.hand.data(), d.out.size());
  }
  {
    auto& d = w3();
    w3_dimgraph(d.out, d.x, d.y);
    w3_hand(d.hand.data(), d.x.data(), d.y.data(), d.x.extent<B>(), d.x.extent<T>(),
            d.x.extent<F>());
    expect_close("W3", d.out.data(), d.hand.data(), d.out.size());
  }
  {
    auto& d = w5();
    for (bool cond : {true, false}) {
      const small got = w5_dimgraph(cond, d.x, d.z, d.w);
      const floats8 want = w5_hand(cond, d.hx, d.hz, d.hw);
      expect_close(cond ? "W5 (then)" : "W5 (else)", got.data(), want.v, 8);
    }
  }
}

// ---- The timed loops. --------------------------------------------------------------------
// Both sides write the same output tensor (the separate `hand` outputs serve the check
// only): where a buffer lands relative to the inputs (4K aliasing between a store stream
// and a load stream) changes the time by up to 1.7x, and must not favour either side.

void set_bytes(benchmark::State& state, std::size_t bytes_per_call) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes_per_call));
}

template <w1_data& (*Data)()>
void bm_w1_dimgraph(benchmark::State& state) {
  auto& d = Data();
  for (auto _ : state) {
    w1_dimgraph(d.out, d.a, d.b, d.c);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 4 * sizeof(float) * d.a.size());
}
template <w1_data& (*Data)()>
void bm_w1_hand(benchmark::State& state) {
  auto& d = Data();
  for (auto _ : state) {
    w1_hand(d.out.data(), d.a.data(), d.b.data(), d.c.data(), d.a.size());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 4 * sizeof(float) * d.a.size());
}

void bm_w2_dimgraph(benchmark::State& state) {
  auto& d = w2();
  for (auto _ : state) {
    w2_dimgraph(d.out, d.x, d.bias);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2 * sizeof(float) * d.x.size());
}
void bm_w2_hand(benchmark::State& state) {
  auto& d = w2();
  for (auto _ : state) {
    w2_hand(d.out.data(), d.x.data(), d.bias.data(), rows_of(d.x), d.x.extent<F>());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2 * sizeof(float) * d.x.size());
}

void bm_w3_dimgraph(benchmark::State& state) {
  auto& d = w3();
  for (auto _ : state) {
    w3_dimgraph(d.out, d.x, d.y);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 3 * sizeof(float) * d.x.size());
}
void bm_w3_hand(benchmark::State& state) {
  auto& d = w3();
  for (auto _ : state) {
    w3_hand(d.out.data(), d.x.data(), d.y.data(), d.x.extent<B>(), d.x.extent<T>(),
            d.x.extent<F>());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 3 * sizeof(float) * d.x.size());
}

// cond alternates per call and is hidden from the optimiser, so neither side can be
// specialised for a known branch; every result is forced to memory.
void bm_w5_dimgraph(benchmark::State& state) {
  auto& d = w5();
  bool cond = false;
  for (auto _ : state) {
    cond = !cond;
    benchmark::DoNotOptimize(cond);
    small r = w5_dimgraph(cond, d.x, d.z, d.w);
    benchmark::DoNotOptimize(r);
  }
}
void bm_w5_hand(benchmark::State& state) {
  auto& d = w5();
  bool cond = false;
  for (auto _ : state) {
    cond = !cond;
    benchmark::DoNotOptimize(cond);
    floats8 r = w5_hand(cond, d.hx, d.hz, d.hw);
    benchmark::DoNotOptimize(r);
  }
}

void register_pair(const char* workload, void (*dimgraph_fn)(benchmark::State&),
                   void (*hand_fn)(benchmark::State&), benchmark::TimeUnit unit) {
  const std::string name = workload;
  for (auto [side, fn] : {std::pair{"/dimgraph", dimgraph_fn}, std::pair{"/hand", hand_fn}}) {
    benchmark::RegisterBenchmark((name + side).c_str(), fn)
        ->Unit(unit)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_all();
  register_pair("W1a", bm_w1_dimgraph<w1a_data>, bm_w1_hand<w1a_data>, benchmark::kMillisecond);
  register_pair("W1b", bm_w1_dimgraph<w1b_data>, bm_w1_hand<w1b_data>, benchmark::kNanosecond);
  register_pair("W2", bm_w2_dimgraph, bm_w2_hand, benchmark::kMicrosecond);
  register_pair("W3", bm_w3_dimgraph, bm_w3_hand, benchmark::kMicrosecond);
  register_pair("W5", bm_w5_dimgraph, bm_w5_hand, benchmark::kNanosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
