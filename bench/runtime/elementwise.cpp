// Element-wise run-time benchmarks (float32, inputs uniform in [-1, 1]), each timed as
// dimgraph code, as the equivalent hand-written loop, and as Eigen and LibTorch code when the
// binary was built with them, all in the same binary:
//   W1a  out = a * b + c             N = 2^24       memory bandwidth, fusion
//   W1b  the same                    N = 4096       in-cache SIMD throughput, per-call overhead
//   W2   x[B,T,F] + bias[F]          32 x 128 x 512 broadcasting loop nest
//   W3   x[B,T,F] + y[T,B,F]         32 x 128 x 512 stride reordering
//   W5   dg::if_(cond, x + z, x + w)  [2, 4] static  per-op overhead on tiny tensors
// W1a has extra references: the hand loop with streaming (non-temporal) stores,
// "hand_stream", and, in a build with DIMGRAPH_BENCH_OPENMP, dimgraph and the streaming
// hand loop on 2 threads, "dimgraph_2t" and "hand_stream_2t" (every other side runs on one).
//
// Eigen's side is Array maps over the same buffers (for W3 one block per b: faster than the
// Tensor module's shuffle);
// LibTorch's is one eager call on tensors that view the same buffers (torch_peers.hpp),
// views made at the start of each run (an assignment may give dimgraph's output new memory).
// Every side's result is checked against the hand loop before anything is timed.
//
//   dimgraph_bench_elementwise [--benchmark_filter=W2] [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and ratios

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <dimgraph.hpp>

#include "support.hpp"

// Set to 1 by bench/CMakeLists.txt when the peer is linked.
#ifndef DIMGRAPH_BENCH_EIGEN
#define DIMGRAPH_BENCH_EIGEN 0
#endif
#ifndef DIMGRAPH_BENCH_TORCH
#define DIMGRAPH_BENCH_TORCH 0
#endif
#ifndef DIMGRAPH_BENCH_OPENMP
#define DIMGRAPH_BENCH_OPENMP 0
#endif
#if DIMGRAPH_BENCH_EIGEN
#include <Eigen/Core>
#endif
#if DIMGRAPH_BENCH_TORCH
#include "torch_peers.hpp"
#endif
#if defined(__SSE2__)
#include <immintrin.h>
#endif

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

// ---- The kernels, each out of line. ------------------------------------------------------
// The hand loops take restrict-qualified pointers, as a careful hand-written loop would: no
// run-time alias checks, like dimgraph's inner loop (whose overlap check runs once per call).
// They get their sizes at run time, as dimgraph does (compile-time constants would let the
// compiler specialise the hand side alone).

DIMGRAPH_BENCH_NOINLINE void w1_dimgraph(vec& out, const vec& a, const vec& b, const vec& c) {
  out = a * b + c;
}
DIMGRAPH_BENCH_NOINLINE void w1_hand(float* __restrict out, const float* __restrict a,
                                     const float* __restrict b, const float* __restrict c,
                                     std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] * b[i] + c[i];
}

// The same with streaming stores: the output goes to memory without being read into the
// cache first (a plain store's write-allocate reads every output line), the reference for
// outputs much larger than the cache. Scalar until out is aligned for the widest store the
// target has, then one vector per step; the fence orders the streamed stores before
// anything that follows.
DIMGRAPH_BENCH_NOINLINE void w1_hand_stream(float* __restrict out, const float* __restrict a,
                                            const float* __restrict b, const float* __restrict c,
                                            std::size_t n) {
  std::size_t i = 0;
#if defined(__AVX512F__)
  for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % 64 != 0; ++i)
    out[i] = a[i] * b[i] + c[i];
  for (; i + 16 <= n; i += 16)
    _mm512_stream_ps(out + i, _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i),
                                              _mm512_loadu_ps(c + i)));
#elif defined(__AVX__)
  for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % 32 != 0; ++i)
    out[i] = a[i] * b[i] + c[i];
  for (; i + 8 <= n; i += 8) {
#if defined(__FMA__)
    const __m256 r =
        _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), _mm256_loadu_ps(c + i));
#else
    const __m256 r = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)),
                                   _mm256_loadu_ps(c + i));
#endif
    _mm256_stream_ps(out + i, r);
  }
#elif defined(__SSE2__)
  for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % 16 != 0; ++i)
    out[i] = a[i] * b[i] + c[i];
  for (; i + 4 <= n; i += 4)
    _mm_stream_ps(out + i, _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)),
                                      _mm_loadu_ps(c + i)));
#endif
  for (; i < n; ++i) out[i] = a[i] * b[i] + c[i];
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

#if DIMGRAPH_BENCH_OPENMP
// The streaming loop on `threads` threads, each over one contiguous part (parts cut at
// multiples of 64 floats, so every part starts as aligned as the whole).
DIMGRAPH_BENCH_NOINLINE void w1_hand_stream_threads(float* out, const float* a, const float* b,
                                                    const float* c, std::size_t n, int threads) {
  const auto parts = static_cast<std::size_t>(threads);
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t begin = (n * p / parts) / 64 * 64;
    const std::size_t end = p + 1 == parts ? n : (n * (p + 1) / parts) / 64 * 64;
    w1_hand_stream(out + begin, a + begin, b + begin, c + begin, end - begin);
  }
}
#endif

DIMGRAPH_BENCH_NOINLINE void w2_dimgraph(btf& out, const btf& x, const bias_t& bias) {
  out = x + bias;
}
DIMGRAPH_BENCH_NOINLINE void w2_hand(float* __restrict out, const float* __restrict x,
                                     const float* __restrict bias, std::size_t rows,
                                     std::size_t f) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < f; ++i) out[r * f + i] = x[r * f + i] + bias[i];
}

DIMGRAPH_BENCH_NOINLINE void w3_dimgraph(btf& out, const btf& x, const tbf& y) {
  out = x + y;
}
DIMGRAPH_BENCH_NOINLINE void w3_hand(float* __restrict out, const float* __restrict x,
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
DIMGRAPH_BENCH_NOINLINE_ALIGNED small w5_dimgraph(bool cond, const small& x, const small& z,
                                                  const small& w) {
  auto r = dg::if_(
      cond, [](const auto& x_, const auto& z_, const auto&) { return x_ + z_; },
      [](const auto& x_, const auto&, const auto& w_) { return x_ + w_; })(x, z, w);
  static_assert(std::is_same_v<decltype(r), small>);  // returned as is, no conversion
  return r;
}
struct alignas(32) floats8 {
  float v[8];
};
DIMGRAPH_BENCH_NOINLINE_ALIGNED floats8 w5_hand(bool cond, const floats8& x, const floats8& z,
                                                const floats8& w) {
  floats8 r;
  if (cond) {
    for (int i = 0; i < 8; ++i) r.v[i] = x.v[i] + z.v[i];
  } else {
    for (int i = 0; i < 8; ++i) r.v[i] = x.v[i] + w.v[i];
  }
  return r;
}

#if DIMGRAPH_BENCH_EIGEN
using eigen_array = Eigen::Map<Eigen::ArrayXf>;
using eigen_const_array = Eigen::Map<const Eigen::ArrayXf>;
// Column-major [F, rows]: a column is one row of F features, contiguous.
using eigen_rows = Eigen::Map<Eigen::ArrayXXf>;
using eigen_const_rows = Eigen::Map<const Eigen::ArrayXXf>;
using eigen_small = Eigen::Array<float, 2, 4, Eigen::RowMajor>;

DIMGRAPH_BENCH_NOINLINE void w1_eigen(float* out, const float* a, const float* b, const float* c,
                                      std::size_t n) {
  const auto size = static_cast<Eigen::Index>(n);
  eigen_array(out, size) =
      eigen_const_array(a, size) * eigen_const_array(b, size) + eigen_const_array(c, size);
}
DIMGRAPH_BENCH_NOINLINE void w2_eigen(float* out, const float* x, const float* bias,
                                      std::size_t rows, std::size_t f) {
  const auto nf = static_cast<Eigen::Index>(f), nr = static_cast<Eigen::Index>(rows);
  eigen_rows(out, nf, nr) = eigen_const_rows(x, nf, nr).colwise() + eigen_const_array(bias, nf);
}
// For each b, [T, F] of x plus the same block of y, whose rows lie B * F apart (an outer
// stride): faster than the Tensor module's shuffle of y from [T,B,F] to [B,T,F].
DIMGRAPH_BENCH_NOINLINE void w3_eigen(float* out, const float* x, const float* y, std::size_t nb,
                                      std::size_t nt, std::size_t nf) {
  const auto t = static_cast<Eigen::Index>(nt), f = static_cast<Eigen::Index>(nf);
  const Eigen::OuterStride<> y_rows(static_cast<Eigen::Index>(nb * nf));
  for (std::size_t b = 0; b < nb; ++b)
    eigen_rows(out + b * nt * nf, f, t) =
        eigen_const_rows(x + b * nt * nf, f, t) +
        Eigen::Map<const Eigen::ArrayXXf, 0, Eigen::OuterStride<>>(y + b * nf, f, t, y_rows);
}
DIMGRAPH_BENCH_NOINLINE_ALIGNED eigen_small w5_eigen(bool cond, const eigen_small& x,
                                                     const eigen_small& z, const eigen_small& w) {
  eigen_small r;
  if (cond) r = x + z;
  else r = x + w;
  return r;
}
#endif

// ---- Inputs and outputs of each workload, made once. -------------------------------------
// Every side writes the same output buffer (the `hand` outputs serve the check only): where
// a buffer lands relative to the inputs (4K aliasing between a store stream and a load
// stream) changes the time markedly, and must not favour any side.

struct w1_data {
  vec a, b, c, out, hand;
  explicit w1_data(std::size_t n, std::uint32_t seed)
      : a(dg::extent<N>(n)),
        b(dg::extent<N>(n)),
        c(dg::extent<N>(n)),
        out(dg::extent<N>(n)),
        hand(dg::extent<N>(n)) {
    bench::fill_uniform(a.data(), n, seed);
    bench::fill_uniform(b.data(), n, seed + 100);
    bench::fill_uniform(c.data(), n, seed + 200);
  }
  std::size_t size() const { return a.size(); }
#if DIMGRAPH_BENCH_TORCH
  struct torch_views {
    torch_peer::tensor out, a, b, c;
  };
  torch_views torch() const {
    return {{out.data(), size()}, {a.data(), size()}, {b.data(), size()}, {c.data(), size()}};
  }
#endif
};
w1_data& w1a() {
  static w1_data d(w1a_n, 1);
  return d;
}
w1_data& w1b() {
  static w1_data d(w1b_n, 2);
  return d;
}

btf make_btf() {
  return btf(dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features));
}
std::size_t rows_of(const btf& x) {
  return x.extent<B>() * x.extent<T>();
}
#if DIMGRAPH_BENCH_TORCH
torch_peer::tensor torch_view(const btf& x) {
  return {x.data(),
          {static_cast<std::int64_t>(x.extent<B>()), static_cast<std::int64_t>(x.extent<T>()),
           static_cast<std::int64_t>(x.extent<F>())}};
}
torch_peer::tensor torch_view(const tbf& y) {
  return {y.data(),
          {static_cast<std::int64_t>(y.extent<T>()), static_cast<std::int64_t>(y.extent<B>()),
           static_cast<std::int64_t>(y.extent<F>())}};
}
#endif

struct w2_data {
  btf x = make_btf(), out = make_btf(), hand = make_btf();
  bias_t bias{dg::extent<F>(features)};
  w2_data() {
    bench::fill_uniform(x.data(), x.size(), 3);
    bench::fill_uniform(bias.data(), bias.size(), 33);
  }
#if DIMGRAPH_BENCH_TORCH
  struct torch_views {
    torch_peer::tensor out, x, bias;
  };
  torch_views torch() const { return {torch_view(out), torch_view(x), {bias.data(), bias.size()}}; }
#endif
};
w2_data& w2() {
  static w2_data d;
  return d;
}

struct w3_data {
  btf x = make_btf(), out = make_btf(), hand = make_btf();
  tbf y{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  w3_data() {
    bench::fill_uniform(x.data(), x.size(), 4);
    bench::fill_uniform(y.data(), y.size(), 44);
  }
#if DIMGRAPH_BENCH_TORCH
  struct torch_views {
    torch_peer::tensor out, x, y;
  };
  torch_views torch() const { return {torch_view(out), torch_view(x), torch_view(y)}; }
#endif
};
w3_data& w3() {
  static w3_data d;
  return d;
}

struct w5_data {
  small x, z, w;
  floats8 hx, hz, hw;
#if DIMGRAPH_BENCH_EIGEN
  eigen_small ex, ez, ew;
#endif
#if DIMGRAPH_BENCH_TORCH
  floats8 torch_out;
  struct torch_views {
    torch_peer::tensor out, x, z, w;
  };
  torch_views torch() const {
    return {{torch_out.v, {2, 4}}, {hx.v, {2, 4}}, {hz.v, {2, 4}}, {hw.v, {2, 4}}};
  }
#endif
  w5_data() {
    std::uint32_t seed = 5;
    for (auto [t, h] : {std::pair{&x, &hx}, std::pair{&z, &hz}, std::pair{&w, &hw}}) {
      bench::fill_uniform(t->data(), 8, seed++);
      for (int i = 0; i < 8; ++i) h->v[i] = t->data()[i];
    }
#if DIMGRAPH_BENCH_EIGEN
    for (int i = 0; i < 8; ++i) {
      ex.data()[i] = hx.v[i];
      ez.data()[i] = hz.v[i];
      ew.data()[i] = hw.v[i];
    }
#endif
  }
};
w5_data& w5() {
  static w5_data d;
  return d;
}

// ---- The check before timing. ------------------------------------------------------------
// Each side writes its output buffer, which is then compared with the hand loop's.

void check_w1(const char* workload, w1_data& d) {
  const std::size_t n = d.size();
  w1_hand(d.hand.data(), d.a.data(), d.b.data(), d.c.data(), n);
  w1_dimgraph(d.out, d.a, d.b, d.c);
  bench::expect_close(workload, "dimgraph", d.out.data(), d.hand.data(), n);
  if (&d == &w1a()) {
    w1_hand_stream(d.out.data(), d.a.data(), d.b.data(), d.c.data(), n);
    bench::expect_close(workload, "hand_stream", d.out.data(), d.hand.data(), n);
#if DIMGRAPH_BENCH_OPENMP
    w1_hand_stream_threads(d.out.data(), d.a.data(), d.b.data(), d.c.data(), n, 2);
    bench::expect_close(workload, "hand_stream_2t", d.out.data(), d.hand.data(), n);
    dg::set_num_threads(2);
    w1_dimgraph(d.out, d.a, d.b, d.c);
    dg::set_num_threads(1);
    bench::expect_close(workload, "dimgraph_2t", d.out.data(), d.hand.data(), n);
#endif
  }
#if DIMGRAPH_BENCH_EIGEN
  w1_eigen(d.out.data(), d.a.data(), d.b.data(), d.c.data(), n);
  bench::expect_close(workload, "eigen", d.out.data(), d.hand.data(), n);
#endif
#if DIMGRAPH_BENCH_TORCH
  auto t = d.torch();
  torch_peer::fma(t.out, t.a, t.b, t.c);
  bench::expect_close(workload, "torch", d.out.data(), d.hand.data(), n);
#endif
}

void check_w2() {
  auto& d = w2();
  w2_hand(d.hand.data(), d.x.data(), d.bias.data(), rows_of(d.x), d.x.extent<F>());
  w2_dimgraph(d.out, d.x, d.bias);
  bench::expect_close("W2", "dimgraph", d.out.data(), d.hand.data(), d.out.size());
#if DIMGRAPH_BENCH_EIGEN
  w2_eigen(d.out.data(), d.x.data(), d.bias.data(), rows_of(d.x), d.x.extent<F>());
  bench::expect_close("W2", "eigen", d.out.data(), d.hand.data(), d.out.size());
#endif
#if DIMGRAPH_BENCH_TORCH
  auto t = d.torch();
  torch_peer::bias_add(t.out, t.x, t.bias);
  bench::expect_close("W2", "torch", d.out.data(), d.hand.data(), d.out.size());
#endif
}

void check_w3() {
  auto& d = w3();
  const std::size_t nb = d.x.extent<B>(), nt = d.x.extent<T>(), nf = d.x.extent<F>();
  w3_hand(d.hand.data(), d.x.data(), d.y.data(), nb, nt, nf);
  w3_dimgraph(d.out, d.x, d.y);
  bench::expect_close("W3", "dimgraph", d.out.data(), d.hand.data(), d.out.size());
#if DIMGRAPH_BENCH_EIGEN
  w3_eigen(d.out.data(), d.x.data(), d.y.data(), nb, nt, nf);
  bench::expect_close("W3", "eigen", d.out.data(), d.hand.data(), d.out.size());
#endif
#if DIMGRAPH_BENCH_TORCH
  auto t = d.torch();
  torch_peer::add_permuted(t.out, t.x, t.y);
  bench::expect_close("W3", "torch", d.out.data(), d.hand.data(), d.out.size());
#endif
}

void check_w5() {
  auto& d = w5();
  for (bool cond : {true, false}) {
    const char* workload = cond ? "W5 (then)" : "W5 (else)";
    const floats8 want = w5_hand(cond, d.hx, d.hz, d.hw);
    const small got = w5_dimgraph(cond, d.x, d.z, d.w);
    bench::expect_close(workload, "dimgraph", got.data(), want.v, 8);
#if DIMGRAPH_BENCH_EIGEN
    const eigen_small e = w5_eigen(cond, d.ex, d.ez, d.ew);
    bench::expect_close(workload, "eigen", e.data(), want.v, 8);
#endif
#if DIMGRAPH_BENCH_TORCH
    auto t = d.torch();
    torch_peer::add_either(t.out, cond, t.x, t.z, t.w);
    bench::expect_close(workload, "torch", d.torch_out.v, want.v, 8);
#endif
  }
}

// ---- The timed loops. --------------------------------------------------------------------

void set_bytes(benchmark::State& state, std::size_t bytes_per_call) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(bytes_per_call));
}

void register_w1(const char* workload, w1_data& (*data)(), benchmark::TimeUnit unit) {
  const std::size_t bytes = 4 * sizeof(float) * data().size();
  bench::add(workload, "dimgraph", unit, [=](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(s, [&] { w1_dimgraph(d.out, d.a, d.b, d.c); });
    set_bytes(s, bytes);
  });
  bench::add(workload, "hand", unit, [=](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(s,
                      [&] { w1_hand(d.out.data(), d.a.data(), d.b.data(), d.c.data(), d.size()); });
    set_bytes(s, bytes);
  });
  if (data == w1a) {
    bench::add(workload, "hand_stream", unit, [=](benchmark::State& s) {
      auto& d = data();
      bench::time_calls(
          s, [&] { w1_hand_stream(d.out.data(), d.a.data(), d.b.data(), d.c.data(), d.size()); });
      set_bytes(s, bytes);
    });
#if DIMGRAPH_BENCH_OPENMP
    bench::add(workload, "hand_stream_2t", unit, [=](benchmark::State& s) {
      auto& d = data();
      bench::time_calls(s, [&] {
        w1_hand_stream_threads(d.out.data(), d.a.data(), d.b.data(), d.c.data(), d.size(), 2);
      });
      set_bytes(s, bytes);
    });
    bench::add(workload, "dimgraph_2t", unit, [=](benchmark::State& s) {
      auto& d = data();
      dg::set_num_threads(2);
      bench::time_calls(s, [&] { w1_dimgraph(d.out, d.a, d.b, d.c); });
      dg::set_num_threads(1);
      set_bytes(s, bytes);
    });
#endif
  }
#if DIMGRAPH_BENCH_EIGEN
  bench::add(workload, "eigen", unit, [=](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(
        s, [&] { w1_eigen(d.out.data(), d.a.data(), d.b.data(), d.c.data(), d.size()); });
    set_bytes(s, bytes);
  });
#endif
#if DIMGRAPH_BENCH_TORCH
  bench::add(workload, "torch", unit, [=](benchmark::State& s) {
    auto& d = data();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::fma(t.out, t.a, t.b, t.c); });
    set_bytes(s, bytes);
  });
#endif
}

void register_w2() {
  const auto unit = benchmark::kMicrosecond;
  const std::size_t bytes = 2 * sizeof(float) * batch * time_steps * features;
  bench::add("W2", "dimgraph", unit, [=](benchmark::State& s) {
    auto& d = w2();
    bench::time_calls(s, [&] { w2_dimgraph(d.out, d.x, d.bias); });
    set_bytes(s, bytes);
  });
  bench::add("W2", "hand", unit, [=](benchmark::State& s) {
    auto& d = w2();
    bench::time_calls(s, [&] {
      w2_hand(d.out.data(), d.x.data(), d.bias.data(), rows_of(d.x), d.x.extent<F>());
    });
    set_bytes(s, bytes);
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("W2", "eigen", unit, [=](benchmark::State& s) {
    auto& d = w2();
    bench::time_calls(s, [&] {
      w2_eigen(d.out.data(), d.x.data(), d.bias.data(), rows_of(d.x), d.x.extent<F>());
    });
    set_bytes(s, bytes);
  });
#endif
#if DIMGRAPH_BENCH_TORCH
  bench::add("W2", "torch", unit, [=](benchmark::State& s) {
    auto& d = w2();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::bias_add(t.out, t.x, t.bias); });
    set_bytes(s, bytes);
  });
#endif
}

void register_w3() {
  const auto unit = benchmark::kMicrosecond;
  const std::size_t bytes = 3 * sizeof(float) * batch * time_steps * features;
  bench::add("W3", "dimgraph", unit, [=](benchmark::State& s) {
    auto& d = w3();
    bench::time_calls(s, [&] { w3_dimgraph(d.out, d.x, d.y); });
    set_bytes(s, bytes);
  });
  bench::add("W3", "hand", unit, [=](benchmark::State& s) {
    auto& d = w3();
    bench::time_calls(s, [&] {
      w3_hand(d.out.data(), d.x.data(), d.y.data(), d.x.extent<B>(), d.x.extent<T>(),
              d.x.extent<F>());
    });
    set_bytes(s, bytes);
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("W3", "eigen", unit, [=](benchmark::State& s) {
    auto& d = w3();
    bench::time_calls(s, [&] {
      w3_eigen(d.out.data(), d.x.data(), d.y.data(), d.x.extent<B>(), d.x.extent<T>(),
               d.x.extent<F>());
    });
    set_bytes(s, bytes);
  });
#endif
#if DIMGRAPH_BENCH_TORCH
  bench::add("W3", "torch", unit, [=](benchmark::State& s) {
    auto& d = w3();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::add_permuted(t.out, t.x, t.y); });
    set_bytes(s, bytes);
  });
#endif
}

// cond alternates per call and is hidden from the optimiser, so no side can be specialised
// for a known branch; every result is forced to memory.
template <class Call>
void time_alternating(benchmark::State& state, Call&& call) {
  bool cond = false;
  for (auto _ : state) {
    cond = !cond;
    benchmark::DoNotOptimize(cond);
    auto r = call(cond);
    benchmark::DoNotOptimize(r);
  }
}

void register_w5() {
  const auto unit = benchmark::kNanosecond;
  bench::add("W5", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = w5();
    time_alternating(s, [&](bool cond) { return w5_dimgraph(cond, d.x, d.z, d.w); });
  });
  bench::add("W5", "hand", unit, [](benchmark::State& s) {
    auto& d = w5();
    time_alternating(s, [&](bool cond) { return w5_hand(cond, d.hx, d.hz, d.hw); });
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("W5", "eigen", unit, [](benchmark::State& s) {
    auto& d = w5();
    time_alternating(s, [&](bool cond) { return w5_eigen(cond, d.ex, d.ez, d.ew); });
  });
#endif
#if DIMGRAPH_BENCH_TORCH
  // LibTorch writes a preallocated [2, 4] output (add_out); returning a new tensor would
  // add an allocation per call.
  bench::add("W5", "torch", unit, [](benchmark::State& s) {
    auto& d = w5();
    auto t = d.torch();
    time_alternating(s, [&](bool cond) {
      torch_peer::add_either(t.out, cond, t.x, t.z, t.w);
      return d.torch_out;
    });
  });
#endif
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
#if DIMGRAPH_BENCH_OPENMP
  dg::set_num_threads(1);  // every side on one thread but the *_2t ones
#endif
#if DIMGRAPH_BENCH_TORCH
  torch_peer::init();
#endif
  check_w1("W1a", w1a());
  check_w1("W1b", w1b());
  check_w2();
  check_w3();
  check_w5();
  register_w1("W1a", w1a, benchmark::kMillisecond);
  register_w1("W1b", w1b, benchmark::kNanosecond);
  register_w2();
  register_w3();
  register_w5();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
