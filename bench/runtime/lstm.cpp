// LSTM over time, timed as dimgraph code and as the equivalent hand-written loop in the same
// binary (float32; x, h0 and c0 uniform in [-1, 1]):
//   W6   batch 1,  T = 25, input 512, hidden 256   loop combinator + GEMV + fused gates
//   W6b  batch 32, the same                         the few-rows GEMM path
// Fused weights W [4H, I + H] = [1024, 768] (input columns first) and bias [4H]; gate order
// i, f, g, o (PyTorch). W and the bias are uniform in [-1/sqrt(H), 1/sqrt(H)], PyTorch's
// initialisation: with weights in [-1, 1] a sum of 768 products saturates every gate, which
// makes the check say little and sends tanhf down its fast path for large arguments.
//
// dimgraph: dg::scan<Time, dg::hoist> of dg::nn::lstm_cell with the fused weights, all dims
// static: x_t . W[:, input] + b for every step is one product before the loop, h . W[:, hidden]
// one per step (dimgraph_naive: the same scan without dg::hoist).
// hand_hoisted: the loop every RNN library runs, over raw arrays: the input's product for all
// steps first, then per step h . W_h and the gate update in vectors (dimgraph's vectorised
// sigmoid and tanh), with the products through the kernels dimgraph's dot picks.
// Hand: the same recurrence over raw arrays, its gate product done by the kernel dimgraph's
// dot dispatches to for that shape (include/dimgraph/eval/matmul.hpp, detail::matmul, for the
// widest instruction set the CPU has), called directly, so that the two sides differ only in
// what dimgraph adds around it:
//   batch 1   [1, 768] . W[1024, 768]: m = 1, W's rows contiguous   -> detail::gemv
//   batch 32  [32, 768] . W[1024, 768]: m = 32 <= gemm_dots_rows, both operands contiguous
//             along the depth, W's columns not                       -> detail::gemm_dots
// (With DIMGRAPH_CONFIG_USE_CBLAS dimgraph sends both to CBLAS instead; the binary says so.)
//
// LibTorch (when the binary was built with it): at::lstm, one layer, batch first, one
// thread, with w_ih and w_hh split from the fused weights once and b_hh = 0; its result is a
// new tuple of tensors per call, as dimgraph's is.
//
// In a build with OpenMP (the bench-gcc-native-omp preset), "dimgraph_2t", "hand_hoisted_2t"
// and "torch_2t" run the same on 2 threads; every other side runs on one. Run them with
// OMP_WAIT_POLICY=passive: with libgomp's default (threads spin after a parallel region),
// Debian's LibTorch on 2 threads took 148 ms for W6b against 33 ms on one (OpenBLAS's own
// threads and the spinning ones shared 2 cores); passive, 31 ms.
//
// Every kernel is a named noinline function. Before anything is timed, the hand loop is
// checked against a plain loop with its own dot products, then dimgraph's (and LibTorch's)
// stacked output [Batch, Time, Hidden] and last h and c against the hand loop (largest
// absolute difference at most 1e-5, on stderr; stdout stays Google Benchmark's).
//
//   dimgraph_bench_lstm [--benchmark_filter=W6b] [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and ratios

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include <dimgraph.hpp>

#include "products.hpp"
#include "support.hpp"

// Set to 1 by bench/CMakeLists.txt when LibTorch is linked.
#ifndef DIMGRAPH_BENCH_TORCH
#define DIMGRAPH_BENCH_TORCH 0
#endif
// Set to 1 by bench/CMakeLists.txt when the build has OpenMP (DIMGRAPH_USE_OPENMP).
#ifndef DIMGRAPH_BENCH_OPENMP
#define DIMGRAPH_BENCH_OPENMP 0
#endif
#if DIMGRAPH_BENCH_TORCH
#include "torch_peers.hpp"
#endif

namespace dg = dimgraph;

namespace {

struct Batch1 : dg::dim<"batch", 1> {};
struct Batch32 : dg::dim<"batch", 32> {};
struct Time : dg::dim<"time", 25> {};
struct Input : dg::dim<"input", 512> {};
struct Hidden : dg::dim<"hidden", 256> {};
using Gate = decltype(dg::c<4> * Hidden{});  // i, f, g, o one after the other: 1024
using Both = decltype(Input{} + Hidden{});   // the fused columns, input first: 768

using weights_t = dg::tensor<float, Gate, Both>;
using bias_t = dg::tensor<float, Gate>;
template <class Batch>
using sequence_t = dg::tensor<float, Batch, Time, Input>;
template <class Batch>
using state_t = dg::tensor<float, Batch, Hidden>;
template <class Batch>
using outputs_t = dg::tensor<float, Batch, Time, Hidden>;
// What the scan returns: every step's h stacked along Time, then the last h and c.
template <class Batch>
using result_t = std::tuple<outputs_t<Batch>, state_t<Batch>, state_t<Batch>>;

// ---- The kernels: dimgraph and hand-written, each out of line. ---------------------------

// The scan's result is returned as is: a tuple of static tensors, whose storage is inline.
template <class Batch>
DIMGRAPH_BENCH_NOINLINE result_t<Batch> w6_dimgraph(const sequence_t<Batch>& x,
                                                    const state_t<Batch>& h0,
                                                    const state_t<Batch>& c0, const weights_t& w,
                                                    const bias_t& b) {
  auto r = dg::scan<Time>([&](const auto& xt, const auto& h, const auto& c) {
    auto s = dg::nn::lstm_cell(xt, h, c, w, b);
    return dg::step(dg::carry(s.h, s.c), dg::emit(s.h));
  })(dg::sliced<Time>(x), h0, c0);
  static_assert(std::is_same_v<decltype(r), result_t<Batch>>);
  return r;
}

// The same with dg::hoist: x_t . W_x + b for every step is one product before the loop.
template <class Batch>
DIMGRAPH_BENCH_NOINLINE result_t<Batch> w6_dimgraph_hoist(const sequence_t<Batch>& x,
                                                          const state_t<Batch>& h0,
                                                          const state_t<Batch>& c0,
                                                          const weights_t& w, const bias_t& b) {
  auto r = dg::scan<Time, dg::hoist>([&](const auto& xt, const auto& h, const auto& c) {
    auto s = dg::nn::lstm_cell(xt, h, c, w, b);
    return dg::step(dg::carry(s.h, s.c), dg::emit(s.h));
  })(dg::sliced<Time>(x), h0, c0);
  static_assert(std::is_same_v<decltype(r), result_t<Batch>>);
  return r;
}

// The sizes of one run, passed at run time (as dimgraph's product kernels get theirs; the
// benchmark hides them from the optimiser, so no clone of the hand loop is specialised).
struct lstm_sizes {
  std::size_t batch, time, input, hidden;
};

// gates[b, r] = sum_k W[r, k] xh[b, k] for r < 4H, k < I + H: the kernel dimgraph's dot runs
// for dot<Both>(xh [Batch, Both], W [Gate, Both]) -> [Batch, Gate] (its detail::matmul with
// m = batch, n = 4H, k = I + H, A = xh, B = W).
void gate_product(const float* w, const float* xh, float* gates, std::size_t batch,
                  std::size_t rows, std::size_t cols) {
  bench::product(xh, cols, w, cols, gates, rows, batch, rows, cols);
}

float sigmoid(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

// x [batch, time, input], h0 and c0 [batch, hidden], w [4H, I + H], bias [4H]. Writes every
// step's h to out [batch, time, hidden] and the last h and c to h and c. xh [batch, I + H]
// and gates [batch, 4H] are scratch space. Per step: concatenate x_t and h into xh, one
// gate product for the whole batch, one pass of the i, f, g, o update.
DIMGRAPH_BENCH_NOINLINE void w6_hand(const float* __restrict x, const float* __restrict h0,
                                     const float* __restrict c0, const float* __restrict w,
                                     const float* __restrict bias, float* __restrict out,
                                     float* __restrict h, float* __restrict c, float* __restrict xh,
                                     float* __restrict gates, lstm_sizes s) {
  const std::size_t nb = s.batch, nt = s.time, ni = s.input, nh = s.hidden, cols = ni + nh;
  for (std::size_t i = 0; i < nb * nh; ++i) {
    h[i] = h0[i];
    c[i] = c0[i];
  }
  for (std::size_t t = 0; t < nt; ++t) {
    for (std::size_t b = 0; b < nb; ++b) {
      const float* xr = x + (b * nt + t) * ni;
      float* row = xh + b * cols;
      for (std::size_t k = 0; k < ni; ++k) row[k] = xr[k];
      for (std::size_t k = 0; k < nh; ++k) row[ni + k] = h[b * nh + k];
    }
    gate_product(w, xh, gates, nb, 4 * nh, cols);
    for (std::size_t b = 0; b < nb; ++b) {
      const float* g = gates + b * 4 * nh;
      float* hr = h + b * nh;
      float* cr = c + b * nh;
      float* o = out + (b * nt + t) * nh;
      for (std::size_t j = 0; j < nh; ++j) {
        const float ig = sigmoid(g[j] + bias[j]);
        const float fg = sigmoid(g[nh + j] + bias[nh + j]);
        const float gg = std::tanh(g[2 * nh + j] + bias[2 * nh + j]);
        const float og = sigmoid(g[3 * nh + j] + bias[3 * nh + j]);
        const float c2 = cr[j] * fg + ig * gg;
        const float h2 = std::tanh(c2) * og;
        cr[j] = c2;
        hr[j] = h2;
        o[j] = h2;
      }
    }
  }
}

// The hoisted hand loop (what every RNN library does): the input's product x . W_x for all
// steps as one product before the loop into xw [batch, time, 4H], then per step h . W_h into
// gates [batch, 4H] (over W_h packed once) and the i, f, g, o update in vectors (dimgraph's
// vectorised sigmoid and tanh, the fastest this binary has), bias added there.
DIMGRAPH_BENCH_NOINLINE void w6_hand_hoisted(const float* __restrict x, const float* __restrict h0,
                                             const float* __restrict c0, const float* __restrict w,
                                             const float* __restrict bias, float* __restrict out,
                                             float* __restrict h, float* __restrict c,
                                             float* __restrict xw, float* __restrict gates,
                                             lstm_sizes s) {
  namespace simd = dg::detail::simd;
  using V = dg::detail::gemm_blocking<float>::vector;
  constexpr std::size_t L = sizeof(V) / sizeof(float);
  const std::size_t nb = s.batch, nt = s.time, ni = s.input, nh = s.hidden, cols = ni + nh,
                    ng = 4 * nh;
  for (std::size_t i = 0; i < nb * nh; ++i) {
    h[i] = h0[i];
    c[i] = c0[i];
  }
  bench::product(x, ni, w, cols, xw, ng, nb * nt, ng, ni);
  const auto load = [](const float* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
  };
  const bench::packed_weights packed(w, ng * cols, nt);
  for (std::size_t t = 0; t < nt; ++t) {
    bench::product(h, nh, w + ni, cols, gates, ng, nb, ng, nh);
    for (std::size_t b = 0; b < nb; ++b) {
      const float* g = gates + b * ng;
      const float* p = xw + (b * nt + t) * ng;
      float* hr = h + b * nh;
      float* cr = c + b * nh;
      float* o = out + (b * nt + t) * nh;
      std::size_t j = 0;
      const auto pre = [&](std::size_t gate, std::size_t at) {
        const std::size_t q = gate * nh + at;
        return load(g + q) + load(p + q) + load(bias + q);
      };
      for (; j + L <= nh; j += L) {
        const V ig = simd::sigmoid(pre(0, j)), fg = simd::sigmoid(pre(1, j));
        const V gg = simd::tanh(pre(2, j)), og = simd::sigmoid(pre(3, j));
        const V c2 = load(cr + j) * fg + ig * gg;
        const V h2 = simd::tanh(c2) * og;
        std::memcpy(cr + j, &c2, sizeof(V));
        std::memcpy(hr + j, &h2, sizeof(V));
        std::memcpy(o + j, &h2, sizeof(V));
      }
      for (; j < nh; ++j) {
        const auto one = [&](std::size_t gate) {
          const std::size_t q = gate * nh + j;
          return g[q] + p[q] + bias[q];
        };
        const float c2 = cr[j] * sigmoid(one(1)) + sigmoid(one(0)) * std::tanh(one(2));
        const float h2 = std::tanh(c2) * sigmoid(one(3));
        cr[j] = c2;
        hr[j] = h2;
        o[j] = h2;
      }
    }
  }
}

// ---- Inputs, hand outputs and scratch of each workload, made once. -----------------------
// All static tensors: their storage is inline, so they live in static storage here (the
// weights alone are 3 MiB), never on the stack.

struct weights {
  weights_t w;
  bias_t b;
  weights() {
    const float scale = 1.0f / std::sqrt(256.0f);  // PyTorch's init range 1 / sqrt(H)
    bench::fill_uniform(w.data(), w.size(), 1, scale);
    bench::fill_uniform(b.data(), b.size(), 2, scale);
  }
};
weights& shared_weights() {
  static weights d;
  return d;
}

#if DIMGRAPH_BENCH_TORCH
torch_peer::lstm_params& torch_weights() {
  const auto& p = shared_weights();
  static torch_peer::lstm_params t(p.w.data(), p.b.data(), dg::static_size_v<Input>,
                                   dg::static_size_v<Hidden>);
  return t;
}
#endif

template <class Batch>
struct w6_data {
  sequence_t<Batch> x;
  state_t<Batch> h0, c0;
  outputs_t<Batch> hand_out;
  state_t<Batch> hand_h, hand_c;
  dg::tensor<float, Batch, Both> xh;
  dg::tensor<float, Batch, Gate> gates;
  std::vector<float> xw = std::vector<float>(dg::static_size_v<Batch> * dg::static_size_v<Time> *
                                             dg::static_size_v<Gate>);
  outputs_t<Batch> hoisted_out;
  state_t<Batch> hoisted_h, hoisted_c;
  explicit w6_data(std::uint32_t seed) {
    bench::fill_uniform(x.data(), x.size(), seed);
    bench::fill_uniform(h0.data(), h0.size(), seed + 1);
    bench::fill_uniform(c0.data(), c0.size(), seed + 2);
  }
  lstm_sizes sizes() const {
    return {x.template extent<Batch>(), x.template extent<Time>(), x.template extent<Input>(),
            h0.template extent<Hidden>()};
  }
#if DIMGRAPH_BENCH_TORCH
  // Views of x [B, T, I], h0 and c0 [1, B, H].
  struct torch_views {
    torch_peer::tensor x, h0, c0;
  };
  torch_views torch() const {
    const lstm_sizes s = sizes();
    const auto b = static_cast<std::int64_t>(s.batch), t = static_cast<std::int64_t>(s.time),
               i = static_cast<std::int64_t>(s.input), h = static_cast<std::int64_t>(s.hidden);
    return {{x.data(), {b, t, i}}, {h0.data(), {1, b, h}}, {c0.data(), {1, b, h}}};
  }
#endif
};
template <class Batch>
w6_data<Batch>& data_of() {
  static w6_data<Batch> d(static_cast<std::uint32_t>(10 + dg::static_size_v<Batch>));
  return d;
}

template <class Batch>
void run_hand(w6_data<Batch>& d, lstm_sizes s) {
  const auto& p = shared_weights();
  w6_hand(d.x.data(), d.h0.data(), d.c0.data(), p.w.data(), p.b.data(), d.hand_out.data(),
          d.hand_h.data(), d.hand_c.data(), d.xh.data(), d.gates.data(), s);
}

template <class Batch>
void run_hand_hoisted(w6_data<Batch>& d, lstm_sizes s) {
  const auto& p = shared_weights();
  w6_hand_hoisted(d.x.data(), d.h0.data(), d.c0.data(), p.w.data(), p.b.data(),
                  d.hoisted_out.data(), d.hoisted_h.data(), d.hoisted_c.data(), d.xw.data(),
                  d.gates.data(), s);
}

// ---- The check before timing. ------------------------------------------------------------

// The same recurrence with a plain dot product per gate, summed in double: the hand loop's
// product is dimgraph's own kernel, so this is what checks that kernel independently.
void plain_lstm(const float* x, const float* h0, const float* c0, const float* w, const float* bias,
                lstm_sizes s, float* out, float* h, float* c) {
  const std::size_t nb = s.batch, nt = s.time, ni = s.input, nh = s.hidden, cols = ni + nh;
  std::vector<float> gates(4 * nh);
  for (std::size_t b = 0; b < nb; ++b) {
    float* hr = h + b * nh;
    float* cr = c + b * nh;
    std::copy_n(h0 + b * nh, nh, hr);
    std::copy_n(c0 + b * nh, nh, cr);
    for (std::size_t t = 0; t < nt; ++t) {
      const float* xr = x + (b * nt + t) * ni;
      for (std::size_t r = 0; r < 4 * nh; ++r) {
        double acc = bias[r];
        for (std::size_t k = 0; k < ni; ++k) acc += double(w[r * cols + k]) * xr[k];
        for (std::size_t k = 0; k < nh; ++k) acc += double(w[r * cols + ni + k]) * hr[k];
        gates[r] = static_cast<float>(acc);
      }
      for (std::size_t j = 0; j < nh; ++j) {
        const float i = sigmoid(gates[j]), f = sigmoid(gates[nh + j]);
        const float g = std::tanh(gates[2 * nh + j]), o = sigmoid(gates[3 * nh + j]);
        cr[j] = f * cr[j] + i * g;
        hr[j] = o * std::tanh(cr[j]);
        out[(b * nt + t) * nh + j] = hr[j];
      }
    }
  }
}

template <class Batch>
void check(const char* workload) {
  auto& d = data_of<Batch>();
  const auto& p = shared_weights();
  const lstm_sizes s = d.sizes();
  run_hand(d, s);
  std::vector<float> out(d.hand_out.size()), h(d.hand_h.size()), c(d.hand_c.size());
  plain_lstm(d.x.data(), d.h0.data(), d.c0.data(), p.w.data(), p.b.data(), s, out.data(), h.data(),
             c.data());
  bench::expect_absolute(workload, "outputs", "hand vs plain loop", d.hand_out.data(), out.data(),
                         out.size());
  bench::expect_absolute(workload, "last h", "hand vs plain loop", d.hand_h.data(), h.data(),
                         h.size());
  bench::expect_absolute(workload, "last c", "hand vs plain loop", d.hand_c.data(), c.data(),
                         c.size());

  run_hand_hoisted(d, s);
  const char* hoisted_sides = "hand hoisted vs hand";
  bench::expect_absolute(workload, "outputs", hoisted_sides, d.hoisted_out.data(),
                         d.hand_out.data(), out.size());
  bench::expect_absolute(workload, "last h", hoisted_sides, d.hoisted_h.data(), d.hand_h.data(),
                         h.size());
  bench::expect_absolute(workload, "last c", hoisted_sides, d.hoisted_c.data(), d.hand_c.data(),
                         c.size());

  const auto got = w6_dimgraph(d.x, d.h0, d.c0, p.w, p.b);
  const auto& [ys, h_last, c_last] = got;
  const char* sides = "dimgraph vs hand";
  bench::expect_absolute(workload, "outputs", sides, ys.data(), d.hand_out.data(), ys.size());
  bench::expect_absolute(workload, "last h", sides, h_last.data(), d.hand_h.data(), h_last.size());
  bench::expect_absolute(workload, "last c", sides, c_last.data(), d.hand_c.data(), c_last.size());
  {
    const auto hoisted = w6_dimgraph_hoist(d.x, d.h0, d.c0, p.w, p.b);
    const auto& [ys2, h2, c2] = hoisted;
    sides = "hoisted vs hand";
    bench::expect_absolute(workload, "outputs", sides, ys2.data(), d.hand_out.data(), ys2.size());
    bench::expect_absolute(workload, "last h", sides, h2.data(), d.hand_h.data(), h2.size());
    bench::expect_absolute(workload, "last c", sides, c2.data(), d.hand_c.data(), c2.size());
  }

#if DIMGRAPH_BENCH_TORCH
  const auto views = d.torch();
  const auto t = torch_peer::lstm(views.x, views.h0, views.c0, torch_weights());
  t.out.copy_to(out.data());
  t.h.copy_to(h.data());
  t.c.copy_to(c.data());
  sides = "torch vs hand";
  bench::expect_absolute(workload, "outputs", sides, out.data(), d.hand_out.data(), out.size());
  bench::expect_absolute(workload, "last h", sides, h.data(), d.hand_h.data(), h.size());
  bench::expect_absolute(workload, "last c", sides, c.data(), d.hand_c.data(), c.size());
#endif
}

// ---- The timed loops. --------------------------------------------------------------------
// dimgraph's result is a fresh tuple of static tensors per call (in the loop's frame), and
// LibTorch's a fresh tuple of tensors; the hand loop writes its outputs to memory made once.
// All are forced to memory.

template <class Batch>
void register_sides(const char* workload, benchmark::TimeUnit unit) {
  bench::add(workload, "dimgraph", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    const auto& p = shared_weights();
    for (auto _ : state) {
      auto r = w6_dimgraph_hoist(d.x, d.h0, d.c0, p.w, p.b);
      benchmark::DoNotOptimize(r);
    }
  });
  bench::add(workload, "dimgraph_naive", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    const auto& p = shared_weights();
    for (auto _ : state) {
      auto r = w6_dimgraph(d.x, d.h0, d.c0, p.w, p.b);
      benchmark::DoNotOptimize(r);
    }
  });
  bench::add(workload, "hand", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    lstm_sizes s = d.sizes();
    benchmark::DoNotOptimize(s);  // run-time sizes: the hand loop is not specialised for them
    bench::time_calls(state, [&] { run_hand(d, s); });
  });
  bench::add(workload, "hand_hoisted", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    lstm_sizes s = d.sizes();
    benchmark::DoNotOptimize(s);
    bench::time_calls(state, [&] { run_hand_hoisted(d, s); });
  });
#if DIMGRAPH_BENCH_TORCH
  bench::add(workload, "torch", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    const auto& p = torch_weights();
    const auto t = d.torch();
    for (auto _ : state) {
      auto r = torch_peer::lstm(t.x, t.h0, t.c0, p);
      benchmark::DoNotOptimize(r);
    }
  });
#endif
#if DIMGRAPH_BENCH_OPENMP
  // The same on 2 threads: dimgraph's products and element-wise passes split their rows
  // among them (dg::set_num_threads), as do the hand loop's products; LibTorch with 2
  // intra-op threads.
  bench::add(workload, "dimgraph_2t", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    const auto& p = shared_weights();
    dg::set_num_threads(2);
    for (auto _ : state) {
      auto r = w6_dimgraph_hoist(d.x, d.h0, d.c0, p.w, p.b);
      benchmark::DoNotOptimize(r);
    }
    dg::set_num_threads(1);
  });
  bench::add(workload, "hand_hoisted_2t", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    lstm_sizes s = d.sizes();
    benchmark::DoNotOptimize(s);
    dg::set_num_threads(2);
    bench::time_calls(state, [&] { run_hand_hoisted(d, s); });
    dg::set_num_threads(1);
  });
#if DIMGRAPH_BENCH_TORCH
  bench::add(workload, "torch_2t", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    const auto& p = torch_weights();
    const auto t = d.torch();
    torch_peer::set_threads(2);
    for (auto _ : state) {
      auto r = torch_peer::lstm(t.x, t.h0, t.c0, p);
      benchmark::DoNotOptimize(r);
    }
    torch_peer::set_threads(1);
  });
#endif
#endif
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (DIMGRAPH_CONFIG_USE_CBLAS)
    std::fprintf(stderr,
                 "dimgraph_bench_lstm: note: dimgraph's CBLAS backend is on, so its gate product "
                 "goes to CBLAS while the hand loop still calls the built-in kernels\n");
#if DIMGRAPH_BENCH_TORCH
  torch_peer::init();
#endif
#if DIMGRAPH_BENCH_OPENMP
  dg::set_num_threads(1);  // every side on one thread but the *_2t ones
#endif
  check<Batch1>("W6");
  check<Batch32>("W6b");
  register_sides<Batch1>("W6", benchmark::kMicrosecond);
  register_sides<Batch32>("W6b", benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
