// Reduction run-time benchmarks (float32, inputs uniform in [-1, 1]), each timed as dimgraph
// code, as the equivalent hand-written loop, and as Eigen and LibTorch code when the binary
// was built with them, all in the same binary:
//   W4a  sum over T: x[B,T,F] -> [B,F]    32 x 128 x 512   reduction over a non-inner dim
//   W4b  softmax over F of x[B,T,F]       32 x 128 x 512   reduction + element-wise, inner dim
//   W4c  sum over F: x[B,T,F] -> [B,T]    32 x 128 x 512   reduction over the inner dim
//   W4d  max over F: x[B,T,F] -> [B,T]    32 x 128 x 512   the same, NaN-propagating max
//   W4e  softmax over T of x[B,T,F]       32 x 128 x 512   softmax over an outer dim
//
// Eigen's side, with Array maps: W4a as row sums of each [F, T] block, W4b row by row
// (maxCoeff, the vectorised exp, sum; Eigen has no softmax), W4c and W4d as column sums and
// maxima of the [F, B*T] array (W4e has no Eigen side). LibTorch's: sum_out, softmax_out and
// amax_out. The hand and Eigen sides of W4a-W4d are reduce_sides.hpp's, shared with
// short_rows.cpp. As in elementwise.cpp: every kernel is a named noinline function called once
// per iteration, and each side's result is checked against the hand loop before anything is
// timed.
//
//   dimgraph_bench_reduce [--benchmark_filter=W4a] [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and ratios

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <dimgraph.hpp>

#include "reduce_sides.hpp"
#include "support.hpp"

// Set to 1 by bench/CMakeLists.txt when the peer is linked.
#ifndef DIMGRAPH_BENCH_EIGEN
#define DIMGRAPH_BENCH_EIGEN 0
#endif
#ifndef DIMGRAPH_BENCH_TORCH
#define DIMGRAPH_BENCH_TORCH 0
#endif
#if DIMGRAPH_BENCH_EIGEN
#include <Eigen/Core>
#endif
#if DIMGRAPH_BENCH_TORCH
#include "torch_peers.hpp"
#endif

namespace dg = dimgraph;

namespace {

struct B : dg::dim<"b"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f"> {};

using btf = dg::tensor<float, B, T, F>;
using bf = dg::tensor<float, B, F>;
using bt = dg::tensor<float, B, T>;

constexpr std::size_t batch = 32, time_steps = 128, features = 512;

// ---- The kernels, each out of line. ------------------------------------------------------

DIMGRAPH_BENCH_NOINLINE void w4a_dimgraph(bf& out, const btf& x) {
  out = dg::sum<T>(x);
}

DIMGRAPH_BENCH_NOINLINE void w4b_dimgraph(btf& out, const btf& x) {
  out = dg::softmax<F>(x);
}

DIMGRAPH_BENCH_NOINLINE void w4c_dimgraph(bt& out, const btf& x) {
  out = dg::sum<F>(x);
}
DIMGRAPH_BENCH_NOINLINE void w4d_dimgraph(bt& out, const btf& x) {
  out = dg::max<F>(x);
}

DIMGRAPH_BENCH_NOINLINE void w4e_dimgraph(btf& out, const btf& x) {
  out = dg::softmax<T>(x);
}
// For each b, the columns over t, each pass over the rows in memory order (the max and sum of
// every column in scratch), as a user would write it to keep the inner loop contiguous.
DIMGRAPH_BENCH_NOINLINE void w4e_hand(float* __restrict out, const float* __restrict x,
                                      std::size_t nb, std::size_t nt, std::size_t nf,
                                      float* __restrict m, float* __restrict s) {
  for (std::size_t b = 0; b < nb; ++b) {
    const float* xb = x + b * nt * nf;
    float* ob = out + b * nt * nf;
    for (std::size_t f = 0; f < nf; ++f) {
      m[f] = xb[f];
      s[f] = 0.0f;
    }
    for (std::size_t t = 1; t < nt; ++t)
      for (std::size_t f = 0; f < nf; ++f) m[f] = xb[t * nf + f] > m[f] ? xb[t * nf + f] : m[f];
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t f = 0; f < nf; ++f) {
        ob[t * nf + f] = std::exp(xb[t * nf + f] - m[f]);
        s[f] += ob[t * nf + f];
      }
    for (std::size_t f = 0; f < nf; ++f) s[f] = 1.0f / s[f];
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t f = 0; f < nf; ++f) ob[t * nf + f] *= s[f];
  }
}

// ---- Inputs and outputs, made once. ------------------------------------------------------
// The hand loops get their sizes from the tensor at run time, as dimgraph does. Every side
// writes dimgraph's output tensor (the `hand` outputs serve the check only), so that where a
// buffer lands in memory affects all sides alike.

struct w4_data {
  btf x{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  bf sum_out{dg::extent<B>(batch), dg::extent<F>(features)};
  bf sum_hand{dg::extent<B>(batch), dg::extent<F>(features)};
  btf softmax_out{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  btf softmax_hand{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  bt row_out{dg::extent<B>(batch), dg::extent<T>(time_steps)};
  bt row_hand{dg::extent<B>(batch), dg::extent<T>(time_steps)};
  btf columns_hand{dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features)};
  std::vector<float> column_scratch = std::vector<float>(2 * features);
  w4_data() { bench::fill_uniform(x.data(), x.size(), 6); }
  std::size_t nb() const { return x.extent<B>(); }
  std::size_t nt() const { return x.extent<T>(); }
  std::size_t nf() const { return x.extent<F>(); }
#if DIMGRAPH_BENCH_TORCH
  // Views made where they are used: an assignment may give an output new memory.
  struct torch_views {
    torch_peer::tensor x, sum_out, softmax_out, row_out;
  };
  torch_views torch() const {
    const auto b = static_cast<std::int64_t>(nb()), t = static_cast<std::int64_t>(nt()),
               f = static_cast<std::int64_t>(nf());
    return {{x.data(), {b, t, f}},
            {sum_out.data(), {b, f}},
            {softmax_out.data(), {b, t, f}},
            {row_out.data(), {b, t}}};
  }
#endif
};
w4_data& w4() {
  static w4_data d;
  return d;
}

// ---- The check before timing. ------------------------------------------------------------

void check_all() {
  auto& d = w4();
  bench::hand::sum_middle(d.sum_hand.data(), d.x.data(), d.nb(), d.nt(), d.nf());
  w4a_dimgraph(d.sum_out, d.x);
  bench::expect_close("W4a", "dimgraph", d.sum_out.data(), d.sum_hand.data(), d.sum_out.size());
  bench::hand::softmax_rows(d.softmax_hand.data(), d.x.data(), d.nb() * d.nt(), d.nf());
  w4b_dimgraph(d.softmax_out, d.x);
  bench::expect_close("W4b", "dimgraph", d.softmax_out.data(), d.softmax_hand.data(),
                      d.softmax_out.size());
  const std::size_t rows = d.nb() * d.nt();
  bench::hand::sum_rows(d.row_hand.data(), d.x.data(), rows, d.nf());
  w4c_dimgraph(d.row_out, d.x);
  bench::expect_close("W4c", "dimgraph", d.row_out.data(), d.row_hand.data(), rows);
#if DIMGRAPH_BENCH_EIGEN
  bench::eigen::sum_rows(d.row_out.data(), d.x.data(), rows, d.nf());
  bench::expect_close("W4c", "eigen", d.row_out.data(), d.row_hand.data(), rows);
#endif
#if DIMGRAPH_BENCH_TORCH
  {
    auto t = d.torch();
    torch_peer::sum_last(t.row_out, t.x);
    bench::expect_close("W4c", "torch", d.row_out.data(), d.row_hand.data(), rows);
  }
#endif
  w4e_hand(d.columns_hand.data(), d.x.data(), d.nb(), d.nt(), d.nf(), d.column_scratch.data(),
           d.column_scratch.data() + d.nf());
  w4e_dimgraph(d.softmax_out, d.x);
  bench::expect_close("W4e", "dimgraph", d.softmax_out.data(), d.columns_hand.data(),
                      d.softmax_out.size());
#if DIMGRAPH_BENCH_TORCH
  {
    auto t = d.torch();
    torch_peer::softmax_dim1(t.softmax_out, t.x);
    bench::expect_close("W4e", "torch", d.softmax_out.data(), d.columns_hand.data(),
                        d.softmax_out.size());
  }
#endif
  bench::hand::max_rows(d.row_hand.data(), d.x.data(), rows, d.nf());
  w4d_dimgraph(d.row_out, d.x);
  bench::expect_close("W4d", "dimgraph", d.row_out.data(), d.row_hand.data(), rows);
#if DIMGRAPH_BENCH_EIGEN
  bench::eigen::max_rows(d.row_out.data(), d.x.data(), rows, d.nf());
  bench::expect_close("W4d", "eigen", d.row_out.data(), d.row_hand.data(), rows);
#endif
#if DIMGRAPH_BENCH_TORCH
  {
    auto t = d.torch();
    torch_peer::max_last(t.row_out, t.x);
    bench::expect_close("W4d", "torch", d.row_out.data(), d.row_hand.data(), rows);
  }
#endif
#if DIMGRAPH_BENCH_EIGEN
  bench::eigen::sum_middle(d.sum_out.data(), d.x.data(), d.nb(), d.nt(), d.nf());
  bench::expect_close("W4a", "eigen", d.sum_out.data(), d.sum_hand.data(), d.sum_out.size());
  bench::eigen::softmax_rows(d.softmax_out.data(), d.x.data(), d.nb() * d.nt(), d.nf());
  bench::expect_close("W4b", "eigen", d.softmax_out.data(), d.softmax_hand.data(),
                      d.softmax_out.size());
#endif
#if DIMGRAPH_BENCH_TORCH
  auto t = d.torch();
  torch_peer::sum_dim1(t.sum_out, t.x);
  bench::expect_close("W4a", "torch", d.sum_out.data(), d.sum_hand.data(), d.sum_out.size());
  torch_peer::softmax_last(t.softmax_out, t.x);
  bench::expect_close("W4b", "torch", d.softmax_out.data(), d.softmax_hand.data(),
                      d.softmax_out.size());
#endif
}

// ---- The timed loops. --------------------------------------------------------------------

void register_all() {
  const auto unit = benchmark::kMicrosecond;
  bench::add("W4a", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] { w4a_dimgraph(d.sum_out, d.x); });
  });
  bench::add("W4a", "hand", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(
        s, [&] { bench::hand::sum_middle(d.sum_out.data(), d.x.data(), d.nb(), d.nt(), d.nf()); });
  });
  bench::add("W4b", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] { w4b_dimgraph(d.softmax_out, d.x); });
  });
  bench::add("W4b", "hand", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] {
      bench::hand::softmax_rows(d.softmax_out.data(), d.x.data(), d.nb() * d.nt(), d.nf());
    });
  });
  bench::add("W4c", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] { w4c_dimgraph(d.row_out, d.x); });
  });
  bench::add("W4c", "hand", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(
        s, [&] { bench::hand::sum_rows(d.row_out.data(), d.x.data(), d.nb() * d.nt(), d.nf()); });
  });
  bench::add("W4d", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] { w4d_dimgraph(d.row_out, d.x); });
  });
  bench::add("W4d", "hand", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(
        s, [&] { bench::hand::max_rows(d.row_out.data(), d.x.data(), d.nb() * d.nt(), d.nf()); });
  });
  bench::add("W4e", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] { w4e_dimgraph(d.softmax_out, d.x); });
  });
  bench::add("W4e", "hand", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] {
      w4e_hand(d.softmax_out.data(), d.x.data(), d.nb(), d.nt(), d.nf(), d.column_scratch.data(),
               d.column_scratch.data() + d.nf());
    });
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("W4c", "eigen", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(
        s, [&] { bench::eigen::sum_rows(d.row_out.data(), d.x.data(), d.nb() * d.nt(), d.nf()); });
  });
  bench::add("W4d", "eigen", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(
        s, [&] { bench::eigen::max_rows(d.row_out.data(), d.x.data(), d.nb() * d.nt(), d.nf()); });
  });
  bench::add("W4a", "eigen", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(
        s, [&] { bench::eigen::sum_middle(d.sum_out.data(), d.x.data(), d.nb(), d.nt(), d.nf()); });
  });
  bench::add("W4b", "eigen", unit, [](benchmark::State& s) {
    auto& d = w4();
    bench::time_calls(s, [&] {
      bench::eigen::softmax_rows(d.softmax_out.data(), d.x.data(), d.nb() * d.nt(), d.nf());
    });
  });
#endif
#if DIMGRAPH_BENCH_TORCH
  bench::add("W4e", "torch", unit, [](benchmark::State& s) {
    auto& d = w4();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::softmax_dim1(t.softmax_out, t.x); });
  });
  bench::add("W4c", "torch", unit, [](benchmark::State& s) {
    auto& d = w4();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::sum_last(t.row_out, t.x); });
  });
  bench::add("W4d", "torch", unit, [](benchmark::State& s) {
    auto& d = w4();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::max_last(t.row_out, t.x); });
  });
  bench::add("W4a", "torch", unit, [](benchmark::State& s) {
    auto& d = w4();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::sum_dim1(t.sum_out, t.x); });
  });
  bench::add("W4b", "torch", unit, [](benchmark::State& s) {
    auto& d = w4();
    auto t = d.torch();
    bench::time_calls(s, [&] { torch_peer::softmax_last(t.softmax_out, t.x); });
  });
#endif
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
#if DIMGRAPH_BENCH_TORCH
  torch_peer::init();
#endif
  check_all();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
