// Short rows: shapes whose inner dim is shorter than a vector or a few vectors long (heads,
// RGB, boxes [N, 4], small feature dims), where a row's setup and its last partial piece cost
// more than its arithmetic. 2^16 floats each (in L2), uniform in [-1, 1], run-time extents;
// dimgraph, the hand-written loop and Eigen (Array maps) in the same binary:
//   S1.sum_f8     sum over F: x[R, F] -> [R]      8192 x 8      a row of 8 folded per row
//   S2.max_f3     max over F: x[R, F] -> [R]      21845 x 3     a row shorter than any vector
//   S3.bias_f8    x * 2 + bias[F] -> [R, F]       8192 x 8      a broadcast operand per row
//   S4.bias_f33   x * 2 + bias[F] -> [R, F]       1985 x 33     whole vectors and a last piece
//   S5.sum_t4     sum over T: x[B, T, F] -> [B, F]  4 x 4096 x 4  a result row of 4
//   S6.softmax_f8 softmax over F of x[R, F]       8192 x 8      exp per row of 8
// Eigen's side: S1 and S2 as column sums and maxima of the [F, R] array, S3 and S4 as a
// column-wise broadcast add, S5 as row sums of each [F, T] block, S6 column by column
// (maxCoeff, exp, sum); the reductions' hand and Eigen sides are reduce_sides.hpp's. Each side
// is checked against the hand loop before anything is timed.
//
//   dimgraph_bench_short_rows [--benchmark_filter=S1] [google benchmark flags]
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
#if DIMGRAPH_BENCH_EIGEN
#include <Eigen/Core>
#endif

namespace dg = dimgraph;

namespace {

struct B : dg::dim<"b"> {};
struct R : dg::dim<"r"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f"> {};

using rf = dg::tensor<float, R, F>;
using r1 = dg::tensor<float, R>;
using f1 = dg::tensor<float, F>;
using btf = dg::tensor<float, B, T, F>;
using bf = dg::tensor<float, B, F>;

constexpr std::size_t total = std::size_t{1} << 16;

// ---- The kernels, each out of line. ------------------------------------------------------

DIMGRAPH_BENCH_NOINLINE void sum_f_dimgraph(r1& out, const rf& x) {
  out = dg::sum<F>(x);
}

DIMGRAPH_BENCH_NOINLINE void max_f_dimgraph(r1& out, const rf& x) {
  out = dg::max<F>(x);
}

DIMGRAPH_BENCH_NOINLINE void bias_dimgraph(rf& out, const rf& x, const f1& bias) {
  out = x * 2.0f + bias;
}
DIMGRAPH_BENCH_NOINLINE void bias_hand(float* __restrict out, const float* __restrict x,
                                       const float* __restrict bias, std::size_t rows,
                                       std::size_t nf) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < nf; ++i) out[r * nf + i] = x[r * nf + i] * 2.0f + bias[i];
}

DIMGRAPH_BENCH_NOINLINE void sum_t_dimgraph(bf& out, const btf& x) {
  out = dg::sum<T>(x);
}

DIMGRAPH_BENCH_NOINLINE void softmax_dimgraph(rf& out, const rf& x) {
  out = dg::softmax<F>(x);
}

#if DIMGRAPH_BENCH_EIGEN
using array_map = Eigen::Map<Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic>>;
using const_array_map = Eigen::Map<const Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic>>;
using column_map = Eigen::Map<Eigen::Array<float, Eigen::Dynamic, 1>>;
using const_column_map = Eigen::Map<const Eigen::Array<float, Eigen::Dynamic, 1>>;

using bench::eigen::idx;

DIMGRAPH_BENCH_NOINLINE void bias_eigen(float* out, const float* x, const float* bias,
                                        std::size_t rows, std::size_t nf) {
  array_map(out, idx(nf), idx(rows)) =
      (const_array_map(x, idx(nf), idx(rows)) * 2.0f).colwise() + const_column_map(bias, idx(nf));
}
#endif

// ---- The data, made once. ----------------------------------------------------------------

// x [total / nf, nf], its [nf] bias, the outputs, and the hand loop's outputs.
struct rows_data {
  std::size_t nf, rows;
  rf x, out;
  f1 bias;
  r1 reduced;
  std::vector<float> hand_out, hand_reduced;
  explicit rows_data(std::size_t f)
      : nf(f),
        rows(total / f),
        x(dg::extent<R>(total / f), dg::extent<F>(f)),
        out(dg::extent<R>(total / f), dg::extent<F>(f)),
        bias(dg::extent<F>(f)),
        reduced(dg::extent<R>(total / f)),
        hand_out(rows * nf),
        hand_reduced(rows) {
    bench::fill_uniform(x.data(), x.size(), 31 + static_cast<std::uint32_t>(f));
    bench::fill_uniform(bias.data(), bias.size(), 71 + static_cast<std::uint32_t>(f));
  }
};

rows_data& rows_of(std::size_t nf) {
  static rows_data f3(3), f8(8), f33(33);
  return nf == 3 ? f3 : nf == 8 ? f8 : f33;
}

struct time_data {
  static constexpr std::size_t nb = 4, nf = 4, nt = total / (nb * nf);
  btf x{dg::extent<B>(nb), dg::extent<T>(nt), dg::extent<F>(nf)};
  bf out{dg::extent<B>(nb), dg::extent<F>(nf)};
  std::vector<float> hand = std::vector<float>(nb * nf);
  time_data() { bench::fill_uniform(x.data(), x.size(), 97); }
};

time_data& over_time() {
  static time_data d;
  return d;
}

// ---- Checks against the hand loop, then the timed loops. ---------------------------------

void check() {
  {
    auto& d = rows_of(8);
    bench::hand::sum_rows(d.hand_reduced.data(), d.x.data(), d.rows, d.nf);
    sum_f_dimgraph(d.reduced, d.x);
    bench::expect_close("S1.sum_f8", "dimgraph", d.reduced.data(), d.hand_reduced.data(), d.rows);
#if DIMGRAPH_BENCH_EIGEN
    bench::eigen::sum_rows(d.reduced.data(), d.x.data(), d.rows, d.nf);
    bench::expect_close("S1.sum_f8", "eigen", d.reduced.data(), d.hand_reduced.data(), d.rows);
#endif
  }
  {
    auto& d = rows_of(3);
    bench::hand::max_rows(d.hand_reduced.data(), d.x.data(), d.rows, d.nf);
    max_f_dimgraph(d.reduced, d.x);
    bench::expect_close("S2.max_f3", "dimgraph", d.reduced.data(), d.hand_reduced.data(), d.rows);
#if DIMGRAPH_BENCH_EIGEN
    bench::eigen::max_rows(d.reduced.data(), d.x.data(), d.rows, d.nf);
    bench::expect_close("S2.max_f3", "eigen", d.reduced.data(), d.hand_reduced.data(), d.rows);
#endif
  }
  for (std::size_t nf : {8u, 33u}) {
    auto& d = rows_of(nf);
    const char* workload = nf == 8 ? "S3.bias_f8" : "S4.bias_f33";
    bias_hand(d.hand_out.data(), d.x.data(), d.bias.data(), d.rows, d.nf);
    bias_dimgraph(d.out, d.x, d.bias);
    bench::expect_close(workload, "dimgraph", d.out.data(), d.hand_out.data(), d.out.size());
#if DIMGRAPH_BENCH_EIGEN
    bias_eigen(d.out.data(), d.x.data(), d.bias.data(), d.rows, d.nf);
    bench::expect_close(workload, "eigen", d.out.data(), d.hand_out.data(), d.out.size());
#endif
  }
  {
    auto& d = over_time();
    bench::hand::sum_middle(d.hand.data(), d.x.data(), d.nb, d.nt, d.nf);
    sum_t_dimgraph(d.out, d.x);
    bench::expect_close("S5.sum_t4", "dimgraph", d.out.data(), d.hand.data(), d.out.size());
#if DIMGRAPH_BENCH_EIGEN
    bench::eigen::sum_middle(d.out.data(), d.x.data(), d.nb, d.nt, d.nf);
    bench::expect_close("S5.sum_t4", "eigen", d.out.data(), d.hand.data(), d.out.size());
#endif
  }
  {
    auto& d = rows_of(8);
    bench::hand::softmax_rows(d.hand_out.data(), d.x.data(), d.rows, d.nf);
    softmax_dimgraph(d.out, d.x);
    bench::expect_close("S6.softmax_f8", "dimgraph", d.out.data(), d.hand_out.data(), d.out.size());
#if DIMGRAPH_BENCH_EIGEN
    bench::eigen::softmax_rows(d.out.data(), d.x.data(), d.rows, d.nf);
    bench::expect_close("S6.softmax_f8", "eigen", d.out.data(), d.hand_out.data(), d.out.size());
#endif
  }
}

void register_all() {
  const auto unit = benchmark::kMicrosecond;
  bench::add("S1.sum_f8", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = rows_of(8);
    bench::time_calls(s, [&] { sum_f_dimgraph(d.reduced, d.x); });
  });
  bench::add("S1.sum_f8", "hand", unit, [](benchmark::State& s) {
    auto& d = rows_of(8);
    bench::time_calls(s,
                      [&] { bench::hand::sum_rows(d.reduced.data(), d.x.data(), d.rows, d.nf); });
  });
  bench::add("S2.max_f3", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = rows_of(3);
    bench::time_calls(s, [&] { max_f_dimgraph(d.reduced, d.x); });
  });
  bench::add("S2.max_f3", "hand", unit, [](benchmark::State& s) {
    auto& d = rows_of(3);
    bench::time_calls(s,
                      [&] { bench::hand::max_rows(d.reduced.data(), d.x.data(), d.rows, d.nf); });
  });
  for (std::size_t nf : {8u, 33u}) {
    const char* workload = nf == 8 ? "S3.bias_f8" : "S4.bias_f33";
    bench::add(workload, "dimgraph", unit, [nf](benchmark::State& s) {
      auto& d = rows_of(nf);
      bench::time_calls(s, [&] { bias_dimgraph(d.out, d.x, d.bias); });
    });
    bench::add(workload, "hand", unit, [nf](benchmark::State& s) {
      auto& d = rows_of(nf);
      bench::time_calls(s,
                        [&] { bias_hand(d.out.data(), d.x.data(), d.bias.data(), d.rows, d.nf); });
    });
  }
  bench::add("S5.sum_t4", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = over_time();
    bench::time_calls(s, [&] { sum_t_dimgraph(d.out, d.x); });
  });
  bench::add("S5.sum_t4", "hand", unit, [](benchmark::State& s) {
    auto& d = over_time();
    bench::time_calls(s,
                      [&] { bench::hand::sum_middle(d.out.data(), d.x.data(), d.nb, d.nt, d.nf); });
  });
  bench::add("S6.softmax_f8", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = rows_of(8);
    bench::time_calls(s, [&] { softmax_dimgraph(d.out, d.x); });
  });
  bench::add("S6.softmax_f8", "hand", unit, [](benchmark::State& s) {
    auto& d = rows_of(8);
    bench::time_calls(s,
                      [&] { bench::hand::softmax_rows(d.out.data(), d.x.data(), d.rows, d.nf); });
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("S1.sum_f8", "eigen", unit, [](benchmark::State& s) {
    auto& d = rows_of(8);
    bench::time_calls(s,
                      [&] { bench::eigen::sum_rows(d.reduced.data(), d.x.data(), d.rows, d.nf); });
  });
  bench::add("S2.max_f3", "eigen", unit, [](benchmark::State& s) {
    auto& d = rows_of(3);
    bench::time_calls(s,
                      [&] { bench::eigen::max_rows(d.reduced.data(), d.x.data(), d.rows, d.nf); });
  });
  for (std::size_t nf : {8u, 33u}) {
    const char* workload = nf == 8 ? "S3.bias_f8" : "S4.bias_f33";
    bench::add(workload, "eigen", unit, [nf](benchmark::State& s) {
      auto& d = rows_of(nf);
      bench::time_calls(s,
                        [&] { bias_eigen(d.out.data(), d.x.data(), d.bias.data(), d.rows, d.nf); });
    });
  }
  bench::add("S5.sum_t4", "eigen", unit, [](benchmark::State& s) {
    auto& d = over_time();
    bench::time_calls(
        s, [&] { bench::eigen::sum_middle(d.out.data(), d.x.data(), d.nb, d.nt, d.nf); });
  });
  bench::add("S6.softmax_f8", "eigen", unit, [](benchmark::State& s) {
    auto& d = rows_of(8);
    bench::time_calls(s,
                      [&] { bench::eigen::softmax_rows(d.out.data(), d.x.data(), d.rows, d.nf); });
  });
#endif
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
