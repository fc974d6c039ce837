// Math and selection run-time benchmarks (float32), each timed as dimgraph code, as a plain
// hand-written loop, and as Eigen and LibTorch code when the binary was built with them:
//   W8.exp, W8.tanh, W8.sigmoid, W8.gelu   out = f(x), N = 2^20, x uniform in [-4, 4]
//   W9.relu, W9.where                      relu(x) and where(x > 0, x, 0.1 x), N = 2^20
//   W9.relu_btf, W9.where_btf              the same over [32, 128, 512] (run-time dims)
//   tanh_affine                            tanh(a * 2 + 1) on [512, 512] (run-time dims)
//   scale_add                              a * 2 + z on [512, 512] (run-time dims)
// W8's inputs span [-4, 4] so that tanh, sigmoid and gelu run through their linear and their
// saturated ranges; everything else is uniform in [-1, 1].
//
// The hand loops call the std:: functions element by element: for W8 and tanh_affine they
// are the reference for the values, not the bar for speed. The bar is Eigen's vectorised
// Array functions (exp, tanh, logistic, erf; Eigen's own polynomials); for where, also
// max(x, 0.1 x), the same function through a vectorised op. The exact gelu is
// 0.5 x (1 + erf(x / sqrt 2)) on every side (LibTorch's approximate="none").
// Every side's result is checked against the hand loop before anything is timed.
//
//   dimgraph_bench_math [--benchmark_filter=W8] [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and ratios

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <dimgraph.hpp>

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
#include <unsupported/Eigen/SpecialFunctions>
#endif
#if DIMGRAPH_BENCH_TORCH
#include "torch_peers.hpp"
#endif

namespace dg = dimgraph;

namespace {

struct N : dg::dim<"n"> {};
struct B : dg::dim<"b"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f"> {};
struct R : dg::dim<"r"> {};
struct C : dg::dim<"c"> {};

using vec = dg::tensor<float, N>;
using btf = dg::tensor<float, B, T, F>;
using mat = dg::tensor<float, R, C>;

constexpr std::size_t flat_n = std::size_t{1} << 20;
constexpr std::size_t batch = 32, time_steps = 128, features = 512;
constexpr std::size_t side = 512;

constexpr float inv_sqrt2 = 0.70710678118654752440f;

// ---- The kernels, each out of line. ------------------------------------------------------
// dimgraph takes its tensors; every other side takes the same buffers as pointers and the
// element count at run time (restrict-qualified for the hand loops).

template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void exp_dimgraph(Tensor& out, const Tensor& x) {
  out = dg::exp(x);
}
template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void tanh_dimgraph(Tensor& out, const Tensor& x) {
  out = dg::tanh(x);
}
template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void sigmoid_dimgraph(Tensor& out, const Tensor& x) {
  out = dg::sigmoid(x);
}
template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void gelu_dimgraph(Tensor& out, const Tensor& x) {
  out = dg::gelu(x);
}
template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void relu_dimgraph(Tensor& out, const Tensor& x) {
  out = dg::relu(x);
}
template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void where_dimgraph(Tensor& out, const Tensor& x) {
  out = dg::where(dg::greater(x, 0.0f), x, 0.1f * x);
}
template <class Tensor>
DIMGRAPH_BENCH_NOINLINE void tanh_affine_dimgraph(Tensor& out, const Tensor& a) {
  out = dg::tanh(a * 2.0f + 1.0f);
}
DIMGRAPH_BENCH_NOINLINE void scale_add_dimgraph(mat& out, const mat& a, const mat& z) {
  out = a * 2.0f + z;
}

DIMGRAPH_BENCH_NOINLINE void exp_hand(float* __restrict out, const float* __restrict x,
                                      std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::exp(x[i]);
}
DIMGRAPH_BENCH_NOINLINE void tanh_hand(float* __restrict out, const float* __restrict x,
                                       std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::tanh(x[i]);
}
DIMGRAPH_BENCH_NOINLINE void sigmoid_hand(float* __restrict out, const float* __restrict x,
                                          std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = 1.0f / (1.0f + std::exp(-x[i]));
}
DIMGRAPH_BENCH_NOINLINE void gelu_hand(float* __restrict out, const float* __restrict x,
                                       std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * inv_sqrt2));
}
DIMGRAPH_BENCH_NOINLINE void relu_hand(float* __restrict out, const float* __restrict x,
                                       std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
DIMGRAPH_BENCH_NOINLINE void where_hand(float* __restrict out, const float* __restrict x,
                                        std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = x[i] > 0.0f ? x[i] : 0.1f * x[i];
}
DIMGRAPH_BENCH_NOINLINE void tanh_affine_hand(float* __restrict out, const float* __restrict a,
                                              std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = std::tanh(a[i] * 2.0f + 1.0f);
}
DIMGRAPH_BENCH_NOINLINE void scale_add_hand(float* __restrict out, const float* __restrict a,
                                            const float* __restrict z, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] * 2.0f + z[i];
}

#if DIMGRAPH_BENCH_EIGEN
using eigen_array = Eigen::Map<Eigen::ArrayXf>;
using eigen_const_array = Eigen::Map<const Eigen::ArrayXf>;
Eigen::Index eigen_size(std::size_t n) {
  return static_cast<Eigen::Index>(n);
}

DIMGRAPH_BENCH_NOINLINE void exp_eigen(float* out, const float* x, std::size_t n) {
  eigen_array(out, eigen_size(n)) = eigen_const_array(x, eigen_size(n)).exp();
}
DIMGRAPH_BENCH_NOINLINE void tanh_eigen(float* out, const float* x, std::size_t n) {
  eigen_array(out, eigen_size(n)) = eigen_const_array(x, eigen_size(n)).tanh();
}
DIMGRAPH_BENCH_NOINLINE void sigmoid_eigen(float* out, const float* x, std::size_t n) {
  eigen_array(out, eigen_size(n)) = eigen_const_array(x, eigen_size(n)).logistic();
}
DIMGRAPH_BENCH_NOINLINE void gelu_eigen(float* out, const float* x, std::size_t n) {
  const eigen_const_array v(x, eigen_size(n));
  eigen_array(out, eigen_size(n)) = 0.5f * v * (1.0f + (v * inv_sqrt2).erf());
}
DIMGRAPH_BENCH_NOINLINE void relu_eigen(float* out, const float* x, std::size_t n) {
  eigen_array(out, eigen_size(n)) = eigen_const_array(x, eigen_size(n)).max(0.0f);
}
DIMGRAPH_BENCH_NOINLINE void where_eigen(float* out, const float* x, std::size_t n) {
  const eigen_const_array v(x, eigen_size(n));
  eigen_array(out, eigen_size(n)) = (v > 0.0f).select(v, 0.1f * v);
}
// The same function as max(x, 0.1 x): Eigen 3.4's select has no vector path (GCC makes it a
// branch per element), its max has one.
DIMGRAPH_BENCH_NOINLINE void where_max_eigen(float* out, const float* x, std::size_t n) {
  const eigen_const_array v(x, eigen_size(n));
  eigen_array(out, eigen_size(n)) = v.max(0.1f * v);
}
DIMGRAPH_BENCH_NOINLINE void tanh_affine_eigen(float* out, const float* a, std::size_t n) {
  eigen_array(out, eigen_size(n)) = (eigen_const_array(a, eigen_size(n)) * 2.0f + 1.0f).tanh();
}
DIMGRAPH_BENCH_NOINLINE void scale_add_eigen(float* out, const float* a, const float* z,
                                             std::size_t n) {
  eigen_array(out, eigen_size(n)) =
      eigen_const_array(a, eigen_size(n)) * 2.0f + eigen_const_array(z, eigen_size(n));
}
#endif

// ---- Inputs and outputs of each workload, made once. -------------------------------------
// Every side writes the same output buffer (`hand` serves the check only), so that where a
// buffer lands in memory affects all sides alike.

vec make(std::type_identity<vec>) {
  return vec(dg::extent<N>(flat_n));
}
btf make(std::type_identity<btf>) {
  return btf(dg::extent<B>(batch), dg::extent<T>(time_steps), dg::extent<F>(features));
}
mat make(std::type_identity<mat>) {
  return mat(dg::extent<R>(side), dg::extent<C>(side));
}

template <class Tensor>
struct unary_data {
  Tensor x = make(std::type_identity<Tensor>{}), out = make(std::type_identity<Tensor>{}),
         hand = make(std::type_identity<Tensor>{});
  unary_data(std::uint32_t seed, float scale) {
    bench::fill_uniform(x.data(), x.size(), seed, scale);
  }
  std::size_t size() const { return x.size(); }
#if DIMGRAPH_BENCH_TORCH
  // Flat views, made where they are used: an assignment may give out new memory.
  torch_peer::tensor torch_x() const { return {x.data(), x.size()}; }
  torch_peer::tensor torch_out() const { return {out.data(), out.size()}; }
#endif
};

// One set of inputs per shape and range, shared by the workloads that use it.
unary_data<vec>& w8_data() {
  static unary_data<vec> d(8, 4.0f);
  return d;
}
unary_data<vec>& w9_data() {
  static unary_data<vec> d(9, 1.0f);
  return d;
}
unary_data<btf>& w9_btf_data() {
  static unary_data<btf> d(90, 1.0f);
  return d;
}
unary_data<mat>& mat_data() {
  static unary_data<mat> d(10, 1.0f);
  return d;
}
struct scale_add_data {
  unary_data<mat>& a = mat_data();
  mat z = make(std::type_identity<mat>{});
  scale_add_data() { bench::fill_uniform(z.data(), z.size(), 11); }
#if DIMGRAPH_BENCH_TORCH
  torch_peer::tensor torch_z() const { return {z.data(), z.size()}; }
#endif
};
scale_add_data& scale_add() {
  static scale_add_data d;
  return d;
}

// ---- One out = f(x) workload: its sides, checked, then registered. ----------------------

using flat_kernel = void (*)(float*, const float*, std::size_t);
#if DIMGRAPH_BENCH_TORCH
using torch_kernel = void (*)(torch_peer::tensor&, const torch_peer::tensor&);
#else
using torch_kernel = std::nullptr_t;
#endif

template <class Tensor>
struct unary_workload {
  const char* name;
  unary_data<Tensor>& (*data)();
  void (*dimgraph)(Tensor&, const Tensor&);
  flat_kernel hand;
  flat_kernel eigen;   // null without Eigen
  torch_kernel torch;  // null without LibTorch
  // Another Eigen formulation of the same function, timed as "eigen_max" (ratios.py compares
  // with the faster); null where there is none.
  flat_kernel eigen_max = nullptr;
};

template <class Tensor>
void check(const unary_workload<Tensor>& w) {
  auto& d = w.data();
  w.hand(d.hand.data(), d.x.data(), d.size());
  w.dimgraph(d.out, d.x);
  bench::expect_close(w.name, "dimgraph", d.out.data(), d.hand.data(), d.size());
#if DIMGRAPH_BENCH_EIGEN
  w.eigen(d.out.data(), d.x.data(), d.size());
  bench::expect_close(w.name, "eigen", d.out.data(), d.hand.data(), d.size());
  if (w.eigen_max) {
    w.eigen_max(d.out.data(), d.x.data(), d.size());
    bench::expect_close(w.name, "eigen_max", d.out.data(), d.hand.data(), d.size());
  }
#endif
#if DIMGRAPH_BENCH_TORCH
  auto out = d.torch_out();
  w.torch(out, d.torch_x());
  bench::expect_close(w.name, "torch", d.out.data(), d.hand.data(), d.size());
#endif
}

template <class Tensor>
void register_sides(const unary_workload<Tensor>& w) {
  const auto unit = benchmark::kMicrosecond;
  bench::add(w.name, "dimgraph", unit, [w](benchmark::State& s) {
    auto& d = w.data();
    bench::time_calls(s, [&] { w.dimgraph(d.out, d.x); });
  });
  bench::add(w.name, "hand", unit, [w](benchmark::State& s) {
    auto& d = w.data();
    bench::time_calls(s, [&] { w.hand(d.out.data(), d.x.data(), d.size()); });
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add(w.name, "eigen", unit, [w](benchmark::State& s) {
    auto& d = w.data();
    bench::time_calls(s, [&] { w.eigen(d.out.data(), d.x.data(), d.size()); });
  });
  if (w.eigen_max) {
    bench::add(w.name, "eigen_max", unit, [w](benchmark::State& s) {
      auto& d = w.data();
      bench::time_calls(s, [&] { w.eigen_max(d.out.data(), d.x.data(), d.size()); });
    });
  }
#endif
#if DIMGRAPH_BENCH_TORCH
  bench::add(w.name, "torch", unit, [w](benchmark::State& s) {
    auto& d = w.data();
    auto out = d.torch_out();
    const auto x = d.torch_x();
    bench::time_calls(s, [&] { w.torch(out, x); });
  });
#endif
}

// A peer's kernel where the binary has the peer, else null.
#if DIMGRAPH_BENCH_EIGEN
#define DIMGRAPH_BENCH_EIGEN_SIDE(KERNEL) KERNEL
#else
#define DIMGRAPH_BENCH_EIGEN_SIDE(KERNEL) nullptr
#endif
#if DIMGRAPH_BENCH_TORCH
#define DIMGRAPH_BENCH_TORCH_SIDE(KERNEL) KERNEL
#else
#define DIMGRAPH_BENCH_TORCH_SIDE(KERNEL) nullptr
#endif

// Checks every out = f(x) workload, or registers its sides.
void for_unary_workloads(bool register_them) {
  const unary_workload<vec> flat[] = {
      {"W8.exp", w8_data, exp_dimgraph<vec>, exp_hand, DIMGRAPH_BENCH_EIGEN_SIDE(exp_eigen),
       DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::exp)},
      {"W8.tanh", w8_data, tanh_dimgraph<vec>, tanh_hand, DIMGRAPH_BENCH_EIGEN_SIDE(tanh_eigen),
       DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::tanh)},
      {"W8.sigmoid", w8_data, sigmoid_dimgraph<vec>, sigmoid_hand,
       DIMGRAPH_BENCH_EIGEN_SIDE(sigmoid_eigen), DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::sigmoid)},
      {"W8.gelu", w8_data, gelu_dimgraph<vec>, gelu_hand, DIMGRAPH_BENCH_EIGEN_SIDE(gelu_eigen),
       DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::gelu)},
      {"W9.relu", w9_data, relu_dimgraph<vec>, relu_hand, DIMGRAPH_BENCH_EIGEN_SIDE(relu_eigen),
       DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::relu)},
      {"W9.where", w9_data, where_dimgraph<vec>, where_hand, DIMGRAPH_BENCH_EIGEN_SIDE(where_eigen),
       DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::leaky_relu),
       DIMGRAPH_BENCH_EIGEN_SIDE(where_max_eigen)},
  };
  const unary_workload<btf> three_d[] = {
      {"W9.relu_btf", w9_btf_data, relu_dimgraph<btf>, relu_hand,
       DIMGRAPH_BENCH_EIGEN_SIDE(relu_eigen), DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::relu)},
      {"W9.where_btf", w9_btf_data, where_dimgraph<btf>, where_hand,
       DIMGRAPH_BENCH_EIGEN_SIDE(where_eigen), DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::leaky_relu),
       DIMGRAPH_BENCH_EIGEN_SIDE(where_max_eigen)},
  };
  const unary_workload<mat> matrix[] = {
      {"tanh_affine", mat_data, tanh_affine_dimgraph<mat>, tanh_affine_hand,
       DIMGRAPH_BENCH_EIGEN_SIDE(tanh_affine_eigen),
       DIMGRAPH_BENCH_TORCH_SIDE(torch_peer::tanh_affine)},
  };
  for (const auto& w : flat) register_them ? register_sides(w) : check(w);
  for (const auto& w : three_d) register_them ? register_sides(w) : check(w);
  for (const auto& w : matrix) register_them ? register_sides(w) : check(w);
}

#undef DIMGRAPH_BENCH_TORCH_SIDE
#undef DIMGRAPH_BENCH_EIGEN_SIDE

// ---- a * 2 + z: two inputs. ----------------------------------------------------------------

void check_scale_add() {
  auto& d = scale_add();
  mat& out = d.a.out;
  const std::size_t n = d.a.size();
  scale_add_hand(d.a.hand.data(), d.a.x.data(), d.z.data(), n);
  scale_add_dimgraph(out, d.a.x, d.z);
  bench::expect_close("scale_add", "dimgraph", out.data(), d.a.hand.data(), n);
#if DIMGRAPH_BENCH_EIGEN
  scale_add_eigen(out.data(), d.a.x.data(), d.z.data(), n);
  bench::expect_close("scale_add", "eigen", out.data(), d.a.hand.data(), n);
#endif
#if DIMGRAPH_BENCH_TORCH
  auto t_out = d.a.torch_out();
  torch_peer::scale_add(t_out, d.a.torch_x(), d.torch_z());
  bench::expect_close("scale_add", "torch", out.data(), d.a.hand.data(), n);
#endif
}

void register_scale_add() {
  const auto unit = benchmark::kMicrosecond;
  bench::add("scale_add", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = scale_add();
    bench::time_calls(s, [&] { scale_add_dimgraph(d.a.out, d.a.x, d.z); });
  });
  bench::add("scale_add", "hand", unit, [](benchmark::State& s) {
    auto& d = scale_add();
    bench::time_calls(
        s, [&] { scale_add_hand(d.a.out.data(), d.a.x.data(), d.z.data(), d.a.size()); });
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("scale_add", "eigen", unit, [](benchmark::State& s) {
    auto& d = scale_add();
    bench::time_calls(
        s, [&] { scale_add_eigen(d.a.out.data(), d.a.x.data(), d.z.data(), d.a.size()); });
  });
#endif
#if DIMGRAPH_BENCH_TORCH
  bench::add("scale_add", "torch", unit, [](benchmark::State& s) {
    auto& d = scale_add();
    auto out = d.a.torch_out();
    const auto a = d.a.torch_x(), z = d.torch_z();
    bench::time_calls(s, [&] { torch_peer::scale_add(out, a, z); });
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
  for_unary_workloads(false);
  check_scale_add();
  for_unary_workloads(true);
  register_scale_add();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
