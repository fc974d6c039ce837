// W7 at run time: one assignment of a chain of 100 fused element-wise ops over 5 distinct
// tensors a, b, c, d, e of [B, T, F] = [32, 128, 512], batch and time extents known at run
// time only, F static (the shape bench/compile/run.py compiles as its "w7" case), timed as
// dimgraph code, as a hand-written loop, and, when the binary was built with Eigen, as the
// same chain in one Eigen expression twice: over TensorMaps of [B, T, F] ("eigen", the
// Tensor module, as bench/compile/run.py compiles it) and over flat Array maps
// ("eigen_array"); which of the two is faster depends on the compiler and flags, and
// ratios.py compares with the faster.
//
// The chain starts from a and repeats ten ops, written once (chain_op) for all three sides:
//   + a, * b, - c, * 0.5, + d, * e, - b, * 0.5, + e, * 0.75
// Adds and subtractions of inputs in [-1, 1], products with inputs of magnitude at most 1,
// and the scalings by 0.5 and 0.75 keep every value below 4.4 in magnitude whatever the
// length (from |v| <= M a round of ten ends below 3M/16 + 1.875), with no math function: a
// hand loop calling scalar tanhf would time libm, not the chain. No op magnifies an earlier
// rounding error, and each op adds at most half an ulp of a value below 8 (2^-22) on
// either side, so the sides differ by less than 2 * 100 * 2^-22 ~ 4.8e-5 (the scalings shrink
// it further), whether or not the compiler contracts a product and a sum into an FMA: the
// usual limit, relative difference < 1e-4, holds for this chain and is checked before
// anything is timed. (The same ops as bench/compile/run.py's "w7" case.)
//
//   dimgraph_bench_chain [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and ratios

#include <cstddef>
#include <cstdint>
#include <utility>

#include <dimgraph.hpp>

#include "support.hpp"

// Set to 1 by bench/CMakeLists.txt when the peer is linked.
#ifndef DIMGRAPH_BENCH_EIGEN
#define DIMGRAPH_BENCH_EIGEN 0
#endif
#if DIMGRAPH_BENCH_EIGEN
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>
#endif

namespace dg = dimgraph;

namespace {

struct B : dg::dim<"b"> {};
struct T : dg::dim<"t"> {};
struct F : dg::dim<"f", 512> {};

using btf = dg::tensor<float, B, T, F>;

constexpr std::size_t batch = 32, time_steps = 128;  // F is 512, in its tag
constexpr std::size_t chain_length = 100;

// ---- The chain, for any side. ------------------------------------------------------------

// Op I of the chain applied to v. v is forwarded: the lazy nodes keep rvalue operands by
// value and lvalues (the input tensors) by reference.
template <std::size_t I, class V, class X>
auto chain_op(V&& v, const X& a, const X& b, const X& c, const X& d, const X& e) {
  constexpr std::size_t op = I % 10;
  if constexpr (op == 0) return std::forward<V>(v) + a;
  else if constexpr (op == 1) return std::forward<V>(v) * b;
  else if constexpr (op == 2) return std::forward<V>(v) - c;
  else if constexpr (op == 3) return std::forward<V>(v) * 0.5f;
  else if constexpr (op == 4) return std::forward<V>(v) + d;
  else if constexpr (op == 5) return std::forward<V>(v) * e;
  else if constexpr (op == 6) return std::forward<V>(v) - b;
  else if constexpr (op == 7) return std::forward<V>(v) * 0.5f;
  else if constexpr (op == 8) return std::forward<V>(v) + e;
  else return std::forward<V>(v) * 0.75f;
}

// Ops I, I + 1, ..., chain_length - 1 applied to v, as one expression.
template <std::size_t I, class V, class X>
auto chain_from(V&& v, const X& a, const X& b, const X& c, const X& d, const X& e) {
  if constexpr (I == chain_length) return std::forward<V>(v);
  else return chain_from<I + 1>(chain_op<I>(std::forward<V>(v), a, b, c, d, e), a, b, c, d, e);
}

// ---- The kernels, each out of line. ------------------------------------------------------

DIMGRAPH_BENCH_NOINLINE void chain_dimgraph(btf& out, const btf& a, const btf& b, const btf& c,
                                            const btf& d, const btf& e) {
  out = chain_from<0>(a, a, b, c, d, e);
}
// One pass over the elements, the whole chain per element in registers.
DIMGRAPH_BENCH_NOINLINE void chain_hand(float* __restrict out, const float* __restrict a,
                                        const float* __restrict b, const float* __restrict c,
                                        const float* __restrict d, const float* __restrict e,
                                        std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = chain_from<0>(a[i], a[i], b[i], c[i], d[i], e[i]);
}

#if DIMGRAPH_BENCH_EIGEN
using eigen_tensor3 = Eigen::TensorMap<Eigen::Tensor<float, 3, Eigen::RowMajor>>;
using eigen_const_tensor3 = Eigen::TensorMap<Eigen::Tensor<const float, 3, Eigen::RowMajor>>;
DIMGRAPH_BENCH_NOINLINE void chain_eigen(float* out, const float* a, const float* b, const float* c,
                                         const float* d, const float* e, std::size_t nb,
                                         std::size_t nt, std::size_t nf) {
  const auto i = static_cast<Eigen::Index>(nb), j = static_cast<Eigen::Index>(nt),
             k = static_cast<Eigen::Index>(nf);
  const eigen_const_tensor3 ta(a, i, j, k), tb(b, i, j, k), tc(c, i, j, k), td(d, i, j, k),
      te(e, i, j, k);
  eigen_tensor3(out, i, j, k) = chain_from<0>(ta, ta, tb, tc, td, te);
}
DIMGRAPH_BENCH_NOINLINE void chain_eigen_array(float* out, const float* a, const float* b,
                                               const float* c, const float* d, const float* e,
                                               std::size_t n) {
  using const_array = Eigen::Map<const Eigen::ArrayXf>;
  const auto size = static_cast<Eigen::Index>(n);
  const const_array ta(a, size), tb(b, size), tc(c, size), td(d, size), te(e, size);
  Eigen::Map<Eigen::ArrayXf>(out, size) = chain_from<0>(ta, ta, tb, tc, td, te);
}
#endif

// ---- Inputs and outputs, made once. ------------------------------------------------------

btf make_btf() {
  return btf(dg::extent<B>(batch), dg::extent<T>(time_steps));
}

struct chain_data {
  btf a = make_btf(), b = make_btf(), c = make_btf(), d = make_btf(), e = make_btf();
  btf out = make_btf(), hand = make_btf();
  chain_data() {
    std::uint32_t seed = 70;
    for (btf* x : {&a, &b, &c, &d, &e}) bench::fill_uniform(x->data(), x->size(), seed++);
  }
  // The sizes at run time, from the tensors, as dimgraph gets them.
  std::size_t size() const { return a.size(); }
  void run_hand(float* to) const {
    chain_hand(to, a.data(), b.data(), c.data(), d.data(), e.data(), size());
  }
#if DIMGRAPH_BENCH_EIGEN
  void run_eigen(float* to) const {
    chain_eigen(to, a.data(), b.data(), c.data(), d.data(), e.data(), a.extent<B>(), a.extent<T>(),
                a.extent<F>());
  }
  void run_eigen_array(float* to) const {
    chain_eigen_array(to, a.data(), b.data(), c.data(), d.data(), e.data(), size());
  }
#endif
};
chain_data& data() {
  static chain_data d;
  return d;
}

// ---- The check before timing, then the timed loops. --------------------------------------

void check_all() {
  auto& d = data();
  d.run_hand(d.hand.data());
  chain_dimgraph(d.out, d.a, d.b, d.c, d.d, d.e);
  bench::expect_close("W7", "dimgraph", d.out.data(), d.hand.data(), d.size());
#if DIMGRAPH_BENCH_EIGEN
  d.run_eigen(d.out.data());
  bench::expect_close("W7", "eigen", d.out.data(), d.hand.data(), d.size());
  d.run_eigen_array(d.out.data());
  bench::expect_close("W7", "eigen_array", d.out.data(), d.hand.data(), d.size());
#endif
}

void register_all() {
  const auto unit = benchmark::kMillisecond;
  bench::add("W7", "dimgraph", unit, [](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(s, [&] { chain_dimgraph(d.out, d.a, d.b, d.c, d.d, d.e); });
  });
  bench::add("W7", "hand", unit, [](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(s, [&] { d.run_hand(d.out.data()); });
  });
#if DIMGRAPH_BENCH_EIGEN
  bench::add("W7", "eigen", unit, [](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(s, [&] { d.run_eigen(d.out.data()); });
  });
  bench::add("W7", "eigen_array", unit, [](benchmark::State& s) {
    auto& d = data();
    bench::time_calls(s, [&] { d.run_eigen_array(d.out.data()); });
  });
#endif
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  check_all();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
