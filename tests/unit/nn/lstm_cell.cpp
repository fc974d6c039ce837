// dg::nn::lstm_cell against a plain-loop LSTM step written here with PyTorch's formulas:
// separate and fused weights, batch 1 and 3, static, dynamic and no batch, dynamic dims,
// the opset example's sizes, PyTorch's two biases and weights given as one Hana struct, a
// traced graph, and run-time errors.
#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct In : dg::dim<"input", 7> {};
struct Hid : dg::dim<"hidden", 5> {};
struct Three : dg::dim<"three", 3> {};  // a static batch dim
struct One : dg::dim<"one", 1> {};      // a static batch of one
struct DynIn : dg::dim<"dyn_input"> {};
struct DynHid : dg::dim<"dyn_hidden"> {};
struct In512 : dg::dim<"input", 512> {};
struct Hid256 : dg::dim<"hidden", 256> {};

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

// One LSTM step on plain arrays, PyTorch's LSTMCell with one bias: gates = W x + R h + b,
// rows i, f, g, o of H each. x [n][in], h and c [n][hid] row-major; w [4 hid][in],
// r [4 hid][hid], b [4 hid]. Accumulates in double; returns h' and c' as floats.
struct lstm_result {
  std::vector<float> h, c;
};
lstm_result reference_lstm(std::size_t n, std::size_t in, std::size_t hid,
                           const std::vector<float>& x, const std::vector<float>& h,
                           const std::vector<float>& c, const std::vector<float>& w,
                           const std::vector<float>& r, const std::vector<float>& b) {
  lstm_result out{std::vector<float>(n * hid), std::vector<float>(n * hid)};
  std::vector<float> gates(4 * hid);
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t g = 0; g < 4 * hid; ++g) {
      double acc = b[g];
      for (std::size_t k = 0; k < in; ++k) acc += double(w[g * in + k]) * x[s * in + k];
      for (std::size_t k = 0; k < hid; ++k) acc += double(r[g * hid + k]) * h[s * hid + k];
      gates[g] = static_cast<float>(acc);
    }
    for (std::size_t j = 0; j < hid; ++j) {
      const float i = sigmoid(gates[j]), f = sigmoid(gates[hid + j]);
      const float g = std::tanh(gates[2 * hid + j]), o = sigmoid(gates[3 * hid + j]);
      const float c2 = f * c[s * hid + j] + i * g;
      out.c[s * hid + j] = c2;
      out.h[s * hid + j] = o * std::tanh(c2);
    }
  }
  return out;
}

// A row-major copy of a tensor's elements.
template <class X>
std::vector<float> elements(const X& x) {
  return std::vector<float>(x.data(), x.data() + x.size());
}

// |got[i] - want[i]| <= 1e-5 for every element (counted, so a failure says how many).
template <class X>
std::size_t mismatches(const X& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    bad += !(std::fabs(got.data()[i] - want[i]) <= 1e-5f);
  return bad;
}

// The fused weights [4H, I + H] built by copying W [4H, I] and R [4H, H] row by row.
template <class Wf, class W, class R>
void fuse(Wf& wf, const W& w, const R& r, std::size_t in, std::size_t hid) {
  for (std::size_t g = 0; g < 4 * hid; ++g) {
    for (std::size_t k = 0; k < in; ++k) wf.data()[g * (in + hid) + k] = w.data()[g * in + k];
    for (std::size_t k = 0; k < hid; ++k)
      wf.data()[g * (in + hid) + in + k] = r.data()[g * hid + k];
  }
}

// Both layouts on x [Bt, I], h and c [Bt, H] (allocated by the caller, filled here)
// against the plain loop, and against each other.
template <class Bt, class I, class H, class G, class Both>
void check_both_layouts(dg::tensor<float, Bt, I>& x, dg::tensor<float, Bt, H>& h,
                        dg::tensor<float, Bt, H>& c, dg::tensor<float, G, I>& w,
                        dg::tensor<float, G, H>& r, dg::tensor<float, G>& b,
                        dg::tensor<float, G, Both>& wf, unsigned seed) {
  static_assert(std::is_same_v<G, decltype(dg::c<4> * H{})>);
  static_assert(std::is_same_v<Both, decltype(I{} + H{})>);
  const std::size_t n = x.template extent<Bt>(), in = x.template extent<I>(),
                    hid = h.template extent<H>();
  fill(x, seed);
  fill(h, seed + 1);
  fill(c, seed + 2);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hid));  // PyTorch's init range
  fill(w, seed + 3, scale);
  fill(r, seed + 4, scale);
  fill(b, seed + 5, scale);
  fuse(wf, w, r, in, hid);

  const auto want = reference_lstm(n, in, hid, elements(x), elements(h), elements(c), elements(w),
                                   elements(r), elements(b));
  auto [h1, c1] = dg::nn::lstm_cell(x, h, c, w, r, b);
  const auto s2 = dg::nn::lstm_cell(x, h, c, wf, b);
  static_assert(std::is_same_v<decltype(h1), dg::tensor<float, Bt, H>>);
  static_assert(std::is_same_v<decltype(s2.c), dg::tensor<float, Bt, H>>);
  CHECK(mismatches(h1, want.h) == 0);
  CHECK(mismatches(c1, want.c) == 0);
  CHECK(mismatches(s2.h, want.h) == 0);
  CHECK(mismatches(s2.c, want.c) == 0);
  CHECK(mismatches(s2.h, elements(h1)) == 0);
}

// The same for static input and hidden dims, with extents es... for a non-static Bt.
template <class Bt, class I, class H, class... Es>
void check_static_sizes(unsigned seed, Es... es) {
  using gate = decltype(dg::c<4> * H{});
  using both = decltype(I{} + H{});
  dg::tensor<float, Bt, I> x(es...);
  dg::tensor<float, Bt, H> h(es...), c(es...);
  dg::tensor<float, gate, I> w;
  dg::tensor<float, gate, H> r;
  dg::tensor<float, gate> b;
  dg::tensor<float, gate, both> wf;
  check_both_layouts(x, h, c, w, r, b, wf, seed);
}

using Gate = decltype(dg::c<4> * Hid{});

// Weights as one struct, in PyTorch's state-dict order; the int is not an operand.
struct torch_weights {
  BOOST_HANA_DEFINE_STRUCT(torch_weights, (dg::tensor<float, Gate, In>, weight_ih),
                           (dg::tensor<float, Gate, Hid>, weight_hh), (int, layer),
                           (dg::tensor<float, Gate>, bias_ih), (dg::tensor<float, Gate>, bias_hh));
};
struct one_bias {
  BOOST_HANA_DEFINE_STRUCT(one_bias, (dg::tensor<float, Gate, In>, w),
                           (dg::tensor<float, Gate, Hid>, r), (dg::tensor<float, Gate>, b));
};
struct fused {
  BOOST_HANA_DEFINE_STRUCT(fused, (dg::tensor<float, Gate, decltype(In{} + Hid{})>, w),
                           (dg::tensor<float, Gate>, b));
};

}  // namespace

TEST_CASE("lstm_cell: separate and fused weights equal the plain loop with a dynamic batch") {
  check_static_sizes<dg::batch, In, Hid>(10, dg::extent<dg::batch>(1));
  check_static_sizes<dg::batch, In, Hid>(20, dg::extent<dg::batch>(3));
}

TEST_CASE("lstm_cell: separate and fused weights equal the plain loop with a static batch") {
  check_static_sizes<One, In, Hid>(30);
  check_static_sizes<Three, In, Hid>(40);
}

TEST_CASE("lstm_cell: dynamic input and hidden dims give the plain loop's values") {
  using gate = decltype(dg::c<4> * DynHid{});
  using both = decltype(DynIn{} + DynHid{});
  dg::tensor<float, Three, DynIn> x(dg::extent<DynIn>(6));
  dg::tensor<float, Three, DynHid> h(dg::extent<DynHid>(4)), c(dg::extent<DynHid>(4));
  dg::tensor<float, gate, DynIn> w(dg::extent<gate>(16), dg::extent<DynIn>(6));
  dg::tensor<float, gate, DynHid> r(dg::extent<gate>(16), dg::extent<DynHid>(4));
  dg::tensor<float, gate> b(dg::extent<gate>(16));
  dg::tensor<float, gate, both> wf(dg::extent<gate>(16), dg::extent<both>(10));
  check_both_layouts(x, h, c, w, r, b, wf, 50);
}

TEST_CASE("lstm_cell: the opset example's sizes, batch 1, input 512, hidden 256") {
  check_static_sizes<dg::batch, In512, Hid256>(60, dg::extent<dg::batch>(1));
}

TEST_CASE("lstm_cell: one unbatched step has no batch dim and equals the plain loop") {
  using gate = decltype(dg::c<4> * Hid{});
  dg::tensor<float, In> x;
  dg::tensor<float, Hid> h, c;
  dg::tensor<float, gate, In> w;
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> b;
  fill(x, 70);
  fill(h, 71);
  fill(c, 72);
  fill(w, 73, 0.5f);
  fill(r, 74, 0.5f);
  fill(b, 75, 0.5f);
  const auto want = reference_lstm(1, 7, 5, elements(x), elements(h), elements(c), elements(w),
                                   elements(r), elements(b));
  const auto s = dg::nn::lstm_cell(x, h, c, w, r, b);
  static_assert(std::is_same_v<decltype(s), const dg::nn::lstm_state<dg::tensor<float, Hid>>>);
  CHECK(mismatches(s.h, want.h) == 0);
  CHECK(mismatches(s.c, want.c) == 0);
}

TEST_CASE("lstm_cell: weights in the other dim order, views and an expression as operands") {
  using gate = decltype(dg::c<4> * Hid{});
  const std::size_t n = 3;
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(n));
  dg::tensor<float, Hid, dg::batch> h_t(dg::extent<dg::batch>(n));  // h stored transposed
  dg::tensor<float, dg::batch, Hid> c(dg::extent<dg::batch>(n));
  dg::tensor<float, In, gate> w_t;  // W stored [I, 4H]
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> b;
  fill(x, 80);
  fill(h_t, 81);
  fill(c, 82);
  fill(w_t, 83, 0.5f);
  fill(r, 84, 0.5f);
  fill(b, 85, 0.5f);
  std::vector<float> h(n * 5), w(20 * 7);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t j = 0; j < 5; ++j) h[s * 5 + j] = h_t(j, s);
  for (std::size_t g = 0; g < 20; ++g)
    for (std::size_t k = 0; k < 7; ++k) w[g * 7 + k] = w_t(k, g);
  const auto want =
      reference_lstm(n, 7, 5, elements(x), h, elements(c), w, elements(r), elements(b));
  // (A lazy expression as the bias is evaluated once by the cell.)
  const auto s = dg::nn::lstm_cell(x.view(), h_t, dg::permute<Hid, dg::batch>(c), w_t, r, b * 1.0f);
  // (h' and c' take c's dims in c's order: here the permuted [hidden, batch].)
  static_assert(std::is_same_v<decltype(s.h), dg::tensor<float, Hid, dg::batch>>);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < 5; ++j) {
      CHECK(std::fabs(s.h(j, i) - want.h[i * 5 + j]) <= 1e-5f);
      CHECK(std::fabs(s.c(j, i) - want.c[i * 5 + j]) <= 1e-5f);
    }
}

TEST_CASE("lstm_cell: a traced step runs to the plain loop's values") {
  using gate = decltype(dg::c<4> * Hid{});
  using both = decltype(In{} + Hid{});
  const std::size_t n = 3;
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(n));
  dg::tensor<float, dg::batch, Hid> h(dg::extent<dg::batch>(n)), c(dg::extent<dg::batch>(n));
  dg::tensor<float, gate, In> w;
  dg::tensor<float, gate, Hid> r;
  dg::tensor<float, gate> b;
  dg::tensor<float, gate, both> wf;
  fill(x, 90);
  fill(h, 91);
  fill(c, 92);
  fill(w, 93, 0.5f);
  fill(r, 94, 0.5f);
  fill(b, 95, 0.5f);
  fuse(wf, w, r, 7, 5);
  const auto want = reference_lstm(n, 7, 5, elements(x), elements(h), elements(c), elements(w),
                                   elements(r), elements(b));
  auto g = dg::trace(
      [&](const auto& x_, const auto& h_, const auto& c_) {
        auto [h2, c2] = dg::nn::lstm_cell(x_, h_, c_, wf, b);
        return std::pair{h2, c2};
      },
      dg::input<float, dg::batch, In>{}, dg::input<float, dg::batch, Hid>{},
      dg::input<float, dg::batch, Hid>{});
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, dg::batch, Hid>>);
  static_assert(std::is_same_v<decltype(g)::output_t<1>, dg::tensor<float, dg::batch, Hid>>);
  const auto [h2, c2] = g(x, h, c);
  CHECK(mismatches(h2, want.h) == 0);
  CHECK(mismatches(c2, want.c) == 0);
}

TEST_CASE("lstm_cell: extents that disagree at run time throw shape_error naming nn::lstm_cell") {
  using gate = decltype(dg::c<4> * DynHid{});
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(2));
  dg::tensor<float, dg::batch, DynHid> h(dg::extent<dg::batch>(3), dg::extent<DynHid>(4));
  dg::tensor<float, dg::batch, DynHid> c(dg::extent<dg::batch>(2), dg::extent<DynHid>(4));
  dg::tensor<float, gate, In> w(dg::extent<gate>(16));
  dg::tensor<float, gate, DynHid> r(dg::extent<gate>(16), dg::extent<DynHid>(4));
  dg::tensor<float, gate> b(dg::extent<gate>(16));
  fill(h, 40);
  const std::vector<float> h_before = elements(h);
  // x has 2 batch entries, h 3: the first op that meets both (the gates' sum) throws, after
  // the layer's name. h takes the new state, and keeps its values when the step throws.
  const char* batch_mismatch =
      "dimgraph: nn::lstm_cell: add: dim 'batch' has extent 3 in operand 1 and 2 in operand 2";
  CHECK_THROWS_WITH_AS(h = dg::nn::lstm_cell(x, h, c, w, r, b).h, batch_mismatch, dg::shape_error);
  CHECK(elements(h) == h_before);
  CHECK_THROWS_WITH_AS((void)dg::nn::lstm_cell(x, h, c, w, r, b, b), batch_mismatch,
                       dg::shape_error);
  // The gate dim's extent (4 * 5) is not four times the hidden extent (4): the gates are views
  // of 4 parts along it, dyn_hidden 5 against c's 4.
  dg::tensor<float, dg::batch, DynHid> h2(dg::extent<dg::batch>(2), dg::extent<DynHid>(4));
  dg::tensor<float, gate, In> w5(dg::extent<gate>(20));
  dg::tensor<float, gate, DynHid> r5(dg::extent<gate>(20), dg::extent<DynHid>(4));
  dg::tensor<float, gate> b5(dg::extent<gate>(20));
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::lstm_cell(x, h2, c, w5, r5, b5),
      "dimgraph: nn::lstm_cell: mul: dim 'dyn_hidden' has extent 4 in operand 1 and 5 in operand 2",
      dg::shape_error);
  // Fused weights, and weights as one struct (named once).
  dg::tensor<float, dg::batch, Hid> hs(dg::extent<dg::batch>(3)), cs(dg::extent<dg::batch>(3));
  const dg::tensor<float, Gate, decltype(In{} + Hid{})> wf;
  const dg::tensor<float, Gate> bf;
  CHECK_THROWS_WITH_AS((void)dg::nn::lstm_cell(x, hs, cs, wf, bf), batch_mismatch, dg::shape_error);
  const one_bias p{};
  CHECK_THROWS_WITH_AS((void)dg::nn::lstm_cell(x, hs, cs, p), batch_mismatch, dg::shape_error);
}

TEST_CASE("lstm_cell: PyTorch's two biases, and weights given as one Hana struct") {
  const std::size_t n = 3;
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(n));
  dg::tensor<float, dg::batch, Hid> h(dg::extent<dg::batch>(n)), c(dg::extent<dg::batch>(n));
  torch_weights tw{};
  fill(x, 100);
  fill(h, 101);
  fill(c, 102);
  fill(tw.weight_ih, 103, 0.5f);
  fill(tw.weight_hh, 104, 0.5f);
  fill(tw.bias_ih, 105, 0.5f);
  fill(tw.bias_hh, 106, 0.5f);
  std::vector<float> b(20);  // the plain loop's one bias: the two added here
  for (std::size_t g = 0; g < 20; ++g) b[g] = tw.bias_ih.data()[g] + tw.bias_hh.data()[g];
  const auto want = reference_lstm(n, 7, 5, elements(x), elements(h), elements(c),
                                   elements(tw.weight_ih), elements(tw.weight_hh), b);

  const auto two = dg::nn::lstm_cell(x, h, c, tw.weight_ih, tw.weight_hh, tw.bias_ih, tw.bias_hh);
  CHECK(mismatches(two.h, want.h) == 0);
  CHECK(mismatches(two.c, want.c) == 0);
  const auto from_struct = dg::nn::lstm_cell(x, h, c, tw);
  static_assert(std::is_same_v<decltype(from_struct.h), dg::tensor<float, dg::batch, Hid>>);
  CHECK(mismatches(from_struct.h, want.h) == 0);
  CHECK(mismatches(from_struct.c, want.c) == 0);

  // Three members: W, R and one bias; two: the fused W and the bias.
  one_bias ob{};
  fused fw{};
  ob.w = tw.weight_ih;
  ob.r = tw.weight_hh;
  std::copy(b.begin(), b.end(), ob.b.data());
  fuse(fw.w, ob.w, ob.r, 7, 5);
  fw.b = ob.b;
  const auto s3 = dg::nn::lstm_cell(x, h, c, ob);
  const auto s2 = dg::nn::lstm_cell(x, h, c, fw);
  CHECK(mismatches(s3.h, want.h) == 0);
  CHECK(mismatches(s3.c, want.c) == 0);
  CHECK(mismatches(s2.h, want.h) == 0);
  CHECK(mismatches(s2.c, want.c) == 0);
  static_assert(dg::tensor_count_v<torch_weights> == 4);  // the same struct is a model
}
