// GRU over time, timed as dimgraph code, a hand-written loop and LibTorch's GRU in the same
// binary (float32; x and h0 uniform in [-1, 1]; weights and biases uniform in
// [-1/sqrt(H), 1/sqrt(H)], PyTorch's initialisation):
//   W6g   batch 1,  T = 25, input 512, hidden 256
//   W6gb  batch 32, the same
// Weights as PyTorch's GRU: W [3H, I] (weight_ih), R [3H, H] (weight_hh), b_ih and b_hh [3H];
// gate order r, z, n, with b_hn inside the reset product: n = tanh(W_n x + b_in + r (R_n h +
// b_hn)), h' = (1 - z) n + z h.
//
// dimgraph: dg::scan<Time, dg::hoist> of dg::nn::gru_cell, all dims static: x_t . W + b_ih for
// every step is one product before the loop (dimgraph_naive: the same scan without dg::hoist).
// hand: the hoisted loop over raw arrays: x . W for all steps first, then per step h . R (R
// packed once) and the gate update in vectors (dimgraph's vectorised sigmoid and tanh), the
// products through the kernels dimgraph's dot picks (detail::matmul). torch: at::gru, one
// layer, batch first, one thread. Before anything is timed, the hand loop is checked against a
// plain loop with its own dot products, then dimgraph's and LibTorch's outputs against the hand
// loop (largest absolute difference at most 1e-5, on stderr).
//
//   dimgraph_bench_gru [google benchmark flags]
//   python3 bench/runtime/ratios.py <this binary>     medians and ratios

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

#ifndef DIMGRAPH_BENCH_TORCH
#define DIMGRAPH_BENCH_TORCH 0
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
using Gate = decltype(dg::c<3> * Hidden{});  // r, z, n one after the other: 768

template <class Batch>
using sequence_t = dg::tensor<float, Batch, Time, Input>;
template <class Batch>
using state_t = dg::tensor<float, Batch, Hidden>;
template <class Batch>
using outputs_t = dg::tensor<float, Batch, Time, Hidden>;
template <class Batch>
using result_t = std::tuple<outputs_t<Batch>, state_t<Batch>>;

struct weights {
  dg::tensor<float, Gate, Input> w;
  dg::tensor<float, Gate, Hidden> r;
  dg::tensor<float, Gate> b_ih, b_hh;
  weights() {
    const float scale = 1.0f / std::sqrt(256.0f);
    bench::fill_uniform(w.data(), w.size(), 1, scale);
    bench::fill_uniform(r.data(), r.size(), 2, scale);
    bench::fill_uniform(b_ih.data(), b_ih.size(), 3, scale);
    bench::fill_uniform(b_hh.data(), b_hh.size(), 4, scale);
  }
};
weights& shared_weights() {
  static weights d;
  return d;
}

template <class Opt, class Batch>
DIMGRAPH_BENCH_NOINLINE result_t<Batch> gru_dimgraph(const sequence_t<Batch>& x,
                                                     const state_t<Batch>& h0, const weights& p) {
  auto r = dg::scan<Time, Opt>([&](const auto& xt, const auto& h) {
    auto next = dg::nn::gru_cell(xt, h, p.w, p.r, p.b_ih, p.b_hh);
    return dg::step(dg::carry(next), dg::emit(next));
  })(dg::sliced<Time>(x), h0);
  static_assert(std::is_same_v<decltype(r), result_t<Batch>>);
  return r;
}

struct gru_sizes {
  std::size_t batch, time, input, hidden;
};

float sigmoid(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

// x [batch, time, input], h0 [batch, hidden]; out [batch, time, hidden], h the last state;
// xw [batch, time, 3H] and gates [batch, 3H] scratch.
DIMGRAPH_BENCH_NOINLINE void gru_hand(const float* __restrict x, const float* __restrict h0,
                                      const weights& p, float* __restrict out, float* __restrict h,
                                      float* __restrict xw, float* __restrict gates, gru_sizes s) {
  namespace simd = dg::detail::simd;
  using V = dg::detail::gemm_blocking<float>::vector;
  constexpr std::size_t L = sizeof(V) / sizeof(float);
  const std::size_t nb = s.batch, nt = s.time, ni = s.input, nh = s.hidden, ng = 3 * nh;
  const float* bi = p.b_ih.data();
  const float* bh = p.b_hh.data();
  for (std::size_t i = 0; i < nb * nh; ++i) h[i] = h0[i];
  bench::product(x, ni, p.w.data(), ni, xw, ng, nb * nt, ng, ni);
  const auto load = [](const float* q) {
    V v;
    std::memcpy(&v, q, sizeof(V));
    return v;
  };
  const V one = simd::math::fill<V>(1.0f);
  const bench::packed_weights packed(p.r.data(), ng * nh, nt);
  for (std::size_t t = 0; t < nt; ++t) {
    bench::product(h, nh, p.r.data(), nh, gates, ng, nb, ng, nh);
    for (std::size_t b = 0; b < nb; ++b) {
      const float* gh = gates + b * ng;
      const float* gi = xw + (b * nt + t) * ng;
      float* hr = h + b * nh;
      float* o = out + (b * nt + t) * nh;
      std::size_t j = 0;
      for (; j + L <= nh; j += L) {
        const auto in = [&](std::size_t g) {
          return load(gi + g * nh + j) + load(bi + g * nh + j);
        };
        const auto hid = [&](std::size_t g) {
          return load(gh + g * nh + j) + load(bh + g * nh + j);
        };
        const V rg = simd::sigmoid(in(0) + hid(0)), zg = simd::sigmoid(in(1) + hid(1));
        const V ng_ = simd::tanh(in(2) + rg * hid(2));
        const V h2 = (one - zg) * ng_ + zg * load(hr + j);
        std::memcpy(hr + j, &h2, sizeof(V));
        std::memcpy(o + j, &h2, sizeof(V));
      }
      for (; j < nh; ++j) {
        const auto in = [&](std::size_t g) { return gi[g * nh + j] + bi[g * nh + j]; };
        const auto hid = [&](std::size_t g) { return gh[g * nh + j] + bh[g * nh + j]; };
        const float rg = sigmoid(in(0) + hid(0)), zg = sigmoid(in(1) + hid(1));
        const float n = std::tanh(in(2) + rg * hid(2));
        const float h2 = (1.0f - zg) * n + zg * hr[j];
        hr[j] = h2;
        o[j] = h2;
      }
    }
  }
}

// The recurrence with plain dot products summed in double (checks the hand loop's kernels).
void plain_gru(const float* x, const float* h0, const weights& p, gru_sizes s, float* out,
               float* h) {
  const std::size_t nb = s.batch, nt = s.time, ni = s.input, nh = s.hidden;
  std::vector<double> gi(3 * nh), gh(3 * nh);
  for (std::size_t b = 0; b < nb; ++b) {
    float* hr = h + b * nh;
    for (std::size_t j = 0; j < nh; ++j) hr[j] = h0[b * nh + j];
    for (std::size_t t = 0; t < nt; ++t) {
      const float* xr = x + (b * nt + t) * ni;
      for (std::size_t q = 0; q < 3 * nh; ++q) {
        double a = p.b_ih.data()[q], c = p.b_hh.data()[q];
        for (std::size_t k = 0; k < ni; ++k) a += double(p.w.data()[q * ni + k]) * xr[k];
        for (std::size_t k = 0; k < nh; ++k) c += double(p.r.data()[q * nh + k]) * hr[k];
        gi[q] = a;
        gh[q] = c;
      }
      for (std::size_t j = 0; j < nh; ++j) {
        const double rg = 1 / (1 + std::exp(-(gi[j] + gh[j])));
        const double zg = 1 / (1 + std::exp(-(gi[nh + j] + gh[nh + j])));
        const double n = std::tanh(gi[2 * nh + j] + rg * gh[2 * nh + j]);
        hr[j] = static_cast<float>((1 - zg) * n + zg * hr[j]);
        out[(b * nt + t) * nh + j] = hr[j];
      }
    }
  }
}

#if DIMGRAPH_BENCH_TORCH
torch_peer::gru_params& torch_weights() {
  const auto& p = shared_weights();
  static torch_peer::gru_params t(p.w.data(), p.r.data(), p.b_ih.data(), p.b_hh.data(),
                                  dg::static_size_v<Input>, dg::static_size_v<Hidden>);
  return t;
}
#endif

template <class Batch>
struct gru_data {
  sequence_t<Batch> x;
  state_t<Batch> h0;
  outputs_t<Batch> hand_out;
  state_t<Batch> hand_h;
  std::vector<float> xw = std::vector<float>(dg::static_size_v<Batch> * dg::static_size_v<Time> *
                                             dg::static_size_v<Gate>);
  dg::tensor<float, Batch, Gate> gates;
  explicit gru_data(std::uint32_t seed) {
    bench::fill_uniform(x.data(), x.size(), seed);
    bench::fill_uniform(h0.data(), h0.size(), seed + 1);
  }
  gru_sizes sizes() const {
    return {x.template extent<Batch>(), x.template extent<Time>(), x.template extent<Input>(),
            h0.template extent<Hidden>()};
  }
};
template <class Batch>
gru_data<Batch>& data_of() {
  static gru_data<Batch> d(static_cast<std::uint32_t>(20 + dg::static_size_v<Batch>));
  return d;
}

template <class Batch>
void run_hand(gru_data<Batch>& d, gru_sizes s) {
  gru_hand(d.x.data(), d.h0.data(), shared_weights(), d.hand_out.data(), d.hand_h.data(),
           d.xw.data(), d.gates.data(), s);
}

template <class Batch>
void check(const char* workload) {
  auto& d = data_of<Batch>();
  const auto& p = shared_weights();
  const gru_sizes s = d.sizes();
  run_hand(d, s);
  std::vector<float> out(d.hand_out.size()), h(d.hand_h.size());
  plain_gru(d.x.data(), d.h0.data(), p, s, out.data(), h.data());
  bench::expect_absolute(workload, "outputs", "hand vs plain loop", d.hand_out.data(), out.data(),
                         out.size());
  bench::expect_absolute(workload, "last h", "hand vs plain loop", d.hand_h.data(), h.data(),
                         h.size());
  const auto hoisted = gru_dimgraph<dg::hoist>(d.x, d.h0, p);
  bench::expect_absolute(workload, "outputs", "dimgraph vs hand", std::get<0>(hoisted).data(),
                         d.hand_out.data(), out.size());
  bench::expect_absolute(workload, "last h", "dimgraph vs hand", std::get<1>(hoisted).data(),
                         d.hand_h.data(), h.size());
  const auto naive = gru_dimgraph<dg::no_hoist>(d.x, d.h0, p);
  bench::expect_absolute(workload, "outputs", "naive vs hand", std::get<0>(naive).data(),
                         d.hand_out.data(), out.size());
#if DIMGRAPH_BENCH_TORCH
  const auto b = static_cast<std::int64_t>(s.batch), t = static_cast<std::int64_t>(s.time),
             i = static_cast<std::int64_t>(s.input), hh = static_cast<std::int64_t>(s.hidden);
  const torch_peer::tensor x(d.x.data(), {b, t, i}), h0(d.h0.data(), {1, b, hh});
  const auto r = torch_peer::gru(x, h0, torch_weights());
  r.out.copy_to(out.data());
  r.h.copy_to(h.data());
  bench::expect_absolute(workload, "outputs", "torch vs hand", out.data(), d.hand_out.data(),
                         out.size());
  bench::expect_absolute(workload, "last h", "torch vs hand", h.data(), d.hand_h.data(), h.size());
#endif
}

template <class Batch>
void register_sides(const char* workload, benchmark::TimeUnit unit) {
  bench::add(workload, "dimgraph", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    for (auto _ : state) {
      auto r = gru_dimgraph<dg::hoist>(d.x, d.h0, shared_weights());
      benchmark::DoNotOptimize(r);
    }
  });
  bench::add(workload, "dimgraph_naive", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    for (auto _ : state) {
      auto r = gru_dimgraph<dg::no_hoist>(d.x, d.h0, shared_weights());
      benchmark::DoNotOptimize(r);
    }
  });
  bench::add(workload, "hand", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    gru_sizes s = d.sizes();
    benchmark::DoNotOptimize(s);
    bench::time_calls(state, [&] { run_hand(d, s); });
  });
#if DIMGRAPH_BENCH_TORCH
  bench::add(workload, "torch", unit, [](benchmark::State& state) {
    auto& d = data_of<Batch>();
    const gru_sizes s = d.sizes();
    const auto b = static_cast<std::int64_t>(s.batch), t = static_cast<std::int64_t>(s.time),
               i = static_cast<std::int64_t>(s.input), h = static_cast<std::int64_t>(s.hidden);
    const torch_peer::tensor x(d.x.data(), {b, t, i}), h0(d.h0.data(), {1, b, h});
    for (auto _ : state) {
      auto r = torch_peer::gru(x, h0, torch_weights());
      benchmark::DoNotOptimize(r);
    }
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
  check<Batch1>("W6g");
  check<Batch32>("W6gb");
  register_sides<Batch1>("W6g", benchmark::kMicrosecond);
  register_sides<Batch32>("W6gb", benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
