// dg::nn::gru_cell against a plain-loop GRU step written here with PyTorch's formulas:
// batch 1 and 3, static, dynamic and no batch, dynamic dims, weights given as one Hana
// struct, a traced graph, and run-time errors.
#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct In : dg::dim<"input", 7> {};
struct Hid : dg::dim<"hidden", 5> {};
struct Three : dg::dim<"three", 3> {};
struct One : dg::dim<"one", 1> {};
struct DynIn : dg::dim<"dyn_input"> {};
struct DynHid : dg::dim<"dyn_hidden"> {};

// Seeded values in [-scale, scale] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(gen);
}

float sigmoid(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

template <class X>
std::vector<float> elements(const X& x) {
  return std::vector<float>(x.data(), x.data() + x.size());
}

// One GRU step on plain arrays, PyTorch's GRUCell: rows r, z, n of H each;
//   r = sigmoid(W_r x + b_ir + R_r h + b_hr), z = sigmoid(W_z x + b_iz + R_z h + b_hz),
//   n = tanh(W_n x + b_in + r * (R_n h + b_hn)), h' = (1 - z) * n + z * h.
// x [n][in], h [n][hid]; w [3 hid][in], r [3 hid][hid]; bi, bh [3 hid].
std::vector<float> reference_gru(std::size_t n, std::size_t in, std::size_t hid,
                                 const std::vector<float>& x, const std::vector<float>& h,
                                 const std::vector<float>& w, const std::vector<float>& r,
                                 const std::vector<float>& bi, const std::vector<float>& bh) {
  std::vector<float> out(n * hid), gx(3 * hid), gh(3 * hid);
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t g = 0; g < 3 * hid; ++g) {
      double ax = bi[g], ah = bh[g];
      for (std::size_t k = 0; k < in; ++k) ax += double(w[g * in + k]) * x[s * in + k];
      for (std::size_t k = 0; k < hid; ++k) ah += double(r[g * hid + k]) * h[s * hid + k];
      gx[g] = static_cast<float>(ax);
      gh[g] = static_cast<float>(ah);
    }
    for (std::size_t j = 0; j < hid; ++j) {
      const float rr = sigmoid(gx[j] + gh[j]);
      const float z = sigmoid(gx[hid + j] + gh[hid + j]);
      const float nn = std::tanh(gx[2 * hid + j] + rr * gh[2 * hid + j]);
      out[s * hid + j] = (1.0f - z) * nn + z * h[s * hid + j];
    }
  }
  return out;
}

template <class X>
std::size_t mismatches(const X& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    bad += !(std::fabs(got.data()[i] - want[i]) <= 1e-5f);
  return bad;
}

// x [Bt..., I], h [Bt..., H] and the weights (allocated by the caller, filled here) against
// the plain loop.
template <class X, class H, class W, class R, class B>
void check_gru(X& x, H& h, W& w, R& r, B& bi, B& bh, std::size_t n, std::size_t in, std::size_t hid,
               unsigned seed) {
  fill(x, seed);
  fill(h, seed + 1);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hid));  // PyTorch's init range
  fill(w, seed + 2, scale);
  fill(r, seed + 3, scale);
  fill(bi, seed + 4, scale);
  fill(bh, seed + 5, scale);
  const auto want = reference_gru(n, in, hid, elements(x), elements(h), elements(w), elements(r),
                                  elements(bi), elements(bh));
  const auto got = dg::nn::gru_cell(x, h, w, r, bi, bh);
  static_assert(std::is_same_v<decltype(got), const H>);
  CHECK(mismatches(got, want) == 0);
}

template <class Bt, class... Es>
void check_static_sizes(std::size_t n, unsigned seed, Es... es) {
  using gate = decltype(dg::c<3> * Hid{});
  dg::tensor<float, Bt, In> x(es...);
  dg::tensor<float, Bt, Hid> h(es...);
  dg::tensor<float, gate, In> w;
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> bi, bh;
  check_gru(x, h, w, r, bi, bh, n, 7, 5, seed);
}

using Gate3 = decltype(dg::c<3> * Hid{});

// The weights as one struct, in PyTorch's state-dict order.
struct gru_weights {
  BOOST_HANA_DEFINE_STRUCT(gru_weights, (dg::tensor<float, Gate3, In>, weight_ih),
                           (dg::tensor<float, Gate3, Hid>, weight_hh),
                           (dg::tensor<float, Gate3>, bias_ih),
                           (dg::tensor<float, Gate3>, bias_hh));
};

}  // namespace

TEST_CASE("gru_cell: equals the plain loop with a dynamic batch of 1 and 3") {
  check_static_sizes<dg::batch>(1, 10, dg::extent<dg::batch>(1));
  check_static_sizes<dg::batch>(3, 20, dg::extent<dg::batch>(3));
}

TEST_CASE("gru_cell: equals the plain loop with a static batch of 1 and 3") {
  check_static_sizes<One>(1, 30);
  check_static_sizes<Three>(3, 40);
}

TEST_CASE("gru_cell: one unbatched step equals the plain loop") {
  using gate = decltype(dg::c<3> * Hid{});
  dg::tensor<float, In> x;
  dg::tensor<float, Hid> h;
  dg::tensor<float, gate, In> w;
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> bi, bh;
  check_gru(x, h, w, r, bi, bh, 1, 7, 5, 50);
}

TEST_CASE("gru_cell: dynamic input and hidden dims give the plain loop's values") {
  using gate = decltype(dg::c<3> * DynHid{});
  dg::tensor<float, Three, DynIn> x(dg::extent<DynIn>(6));
  dg::tensor<float, Three, DynHid> h(dg::extent<DynHid>(4));
  dg::tensor<float, gate, DynIn> w(dg::extent<gate>(12), dg::extent<DynIn>(6));
  dg::tensor<float, gate, DynHid> r(dg::extent<gate>(12), dg::extent<DynHid>(4));
  dg::tensor<float, gate> bi(dg::extent<gate>(12)), bh(dg::extent<gate>(12));
  check_gru(x, h, w, r, bi, bh, 3, 6, 4, 60);
}

TEST_CASE("gru_cell: the result keeps h's dim order when h is stored transposed") {
  using gate = decltype(dg::c<3> * Hid{});
  const std::size_t n = 3;
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(n));
  dg::tensor<float, Hid, dg::batch> h_t(dg::extent<dg::batch>(n));
  dg::tensor<float, gate, In> w;
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> bi, bh;
  fill(x, 70);
  fill(h_t, 71);
  fill(w, 72, 0.5f);
  fill(r, 73, 0.5f);
  fill(bi, 74, 0.5f);
  fill(bh, 75, 0.5f);
  std::vector<float> h(n * 5);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t j = 0; j < 5; ++j) h[s * 5 + j] = h_t(j, s);
  const auto want =
      reference_gru(n, 7, 5, elements(x), h, elements(w), elements(r), elements(bi), elements(bh));
  const auto got = dg::nn::gru_cell(x, h_t, w, r, bi, bh);
  static_assert(std::is_same_v<decltype(got), const dg::tensor<float, Hid, dg::batch>>);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(std::fabs(got(j, i) - want[i * 5 + j]) <= 1e-5f);
}

TEST_CASE("gru_cell: a traced step runs to the plain loop's values") {
  using gate = decltype(dg::c<3> * Hid{});
  const std::size_t n = 3;
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(n));
  dg::tensor<float, dg::batch, Hid> h(dg::extent<dg::batch>(n));
  dg::tensor<float, gate, In> w;
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> bi, bh;
  fill(x, 80);
  fill(h, 81);
  fill(w, 82, 0.5f);
  fill(r, 83, 0.5f);
  fill(bi, 84, 0.5f);
  fill(bh, 85, 0.5f);
  const auto want = reference_gru(n, 7, 5, elements(x), elements(h), elements(w), elements(r),
                                  elements(bi), elements(bh));
  auto g = dg::trace(
      [&](const auto& x_, const auto& h_) { return dg::nn::gru_cell(x_, h_, w, r, bi, bh); },
      dg::input<float, dg::batch, In>{}, dg::input<float, dg::batch, Hid>{});
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, dg::batch, Hid>>);
  CHECK(mismatches(g(x, h), want) == 0);
}

TEST_CASE("gru_cell: extents that disagree at run time throw shape_error naming nn::gru_cell") {
  using gate = decltype(dg::c<3> * DynHid{});
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(2));
  dg::tensor<float, dg::batch, DynHid> h3(dg::extent<dg::batch>(3), dg::extent<DynHid>(4));
  dg::tensor<float, dg::batch, DynHid> h(dg::extent<dg::batch>(2), dg::extent<DynHid>(4));
  dg::tensor<float, gate, In> w(dg::extent<gate>(12));
  dg::tensor<float, gate, DynHid> r(dg::extent<gate>(12), dg::extent<DynHid>(4));
  dg::tensor<float, gate> b(dg::extent<gate>(12)), b15(dg::extent<gate>(15));
  fill(h3, 30);
  const std::vector<float> h3_before = elements(h3);
  // x has 2 batch entries, h 3: the first op that meets both (the gates' sum) throws, after
  // the layer's name. h3 takes the result, and keeps its values when the step throws.
  CHECK_THROWS_WITH_AS(
      h3 = dg::nn::gru_cell(x, h3, w, r, b, b),
      "dimgraph: nn::gru_cell: add: dim 'batch' has extent 3 in operand 1 and 2 in operand 2",
      dg::shape_error);
  CHECK(elements(h3) == h3_before);
  // A bias of 15 gate rows against the products' 12: the gates are views of 3 parts along the
  // gate dim, dyn_hidden 4 in the product and 5 in the bias.
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::gru_cell(x, h, w, r, b15, b),
      "dimgraph: nn::gru_cell: add: dim 'dyn_hidden' has extent 4 in operand 1 and 5 in operand 2",
      dg::shape_error);
  // Through a parameter struct the layer is named once.
  dg::tensor<float, dg::batch, Hid> hs(dg::extent<dg::batch>(3));
  const gru_weights p{};
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::gru_cell(x, hs, p),
      "dimgraph: nn::gru_cell: add: dim 'batch' has extent 3 in operand 1 and 2 in operand 2",
      dg::shape_error);
}

TEST_CASE("gru_cell: weights given as one Hana struct equal the plain loop") {
  const std::size_t n = 3;
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(n));
  dg::tensor<float, dg::batch, Hid> h(dg::extent<dg::batch>(n));
  gru_weights p{};
  fill(x, 200);
  fill(h, 201);
  fill(p.weight_ih, 202, 0.5f);
  fill(p.weight_hh, 203, 0.5f);
  fill(p.bias_ih, 204, 0.5f);
  fill(p.bias_hh, 205, 0.5f);
  const auto want = reference_gru(n, 7, 5, elements(x), elements(h), elements(p.weight_ih),
                                  elements(p.weight_hh), elements(p.bias_ih), elements(p.bias_hh));
  const auto got = dg::nn::gru_cell(x, h, p);
  static_assert(std::is_same_v<decltype(got), const dg::tensor<float, dg::batch, Hid>>);
  CHECK(mismatches(got, want) == 0);
}
