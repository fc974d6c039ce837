// dg::nn::feed_forward against double loops: relu, gelu and gelu_tanh, with and without biases,
// a run-time batch and time, an output dim other than the model dim, weights as one Hana
// struct, a traced graph, a run-time extent mismatch.
#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Model : dg::dim<"model", 6> {};
struct Hidden : dg::dim<"hidden", 10> {};
struct Out : dg::dim<"out", 4> {};
struct Time : dg::dim<"time"> {};
struct DynHidden : dg::dim<"dyn_hidden"> {};

using dg::nn::activation;

double activate(activation a, double v) {
  const double pi = 3.14159265358979323846;
  switch (a) {
    case activation::relu:
      return v > 0 ? v : 0.0;
    case activation::gelu:
      return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
    case activation::gelu_tanh:
      return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (v + 0.044715 * v * v * v)));
  }
  return 0;
}

// Two torch.nn.Linear with the activation between, on rows of x [rows, model] in double:
// h[j] = act(sum_k w1[j][k] x[k] + b1[j]), y[o] = sum_j w2[o][j] h[j] + b2[o] (b empty: 0).
std::vector<double> reference(activation a, std::size_t rows, std::size_t out, const float* x,
                              const float* w1, const float* b1, const float* w2, const float* b2) {
  std::vector<double> y(rows * out), h(10);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < 10; ++j) {
      double acc = b1 ? b1[j] : 0.0;
      for (std::size_t k = 0; k < 6; ++k) acc += double(w1[j * 6 + k]) * x[r * 6 + k];
      h[j] = activate(a, acc);
    }
    for (std::size_t o = 0; o < out; ++o) {
      double acc = b2 ? b2[o] : 0.0;
      for (std::size_t j = 0; j < 10; ++j) acc += double(w2[o * 10 + j]) * h[j];
      y[r * out + o] = acc;
    }
  }
  return y;
}

template <class Y>
void check_near(const Y& y, const std::vector<double>& want) {
  REQUIRE(y.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    CHECK(y.data()[i] == doctest::Approx(want[i]).epsilon(1e-5));
}

struct block {
  BOOST_HANA_DEFINE_STRUCT(block, (dg::tensor<float, Hidden, Model>, w1),
                           (dg::tensor<float, Hidden>, b1), (dg::tensor<float, Model, Hidden>, w2),
                           (dg::tensor<float, Model>, b2));
  block()
      : w1(dg::uniform<float, Hidden, Model>(1, -0.5f, 0.5f)),
        b1(dg::uniform<float, Hidden>(2, -0.5f, 0.5f)),
        w2(dg::uniform<float, Model, Hidden>(3, -0.5f, 0.5f)),
        b2(dg::uniform<float, Model>(4, -0.5f, 0.5f)) {}
};
struct block_without_biases {
  BOOST_HANA_DEFINE_STRUCT(block_without_biases, (dg::tensor<float, Hidden, Model>, w1),
                           (dg::tensor<float, Model, Hidden>, w2));
};

template <activation A>
void check_activation(const block& p, std::size_t batch) {
  CAPTURE(batch);
  const auto x = dg::uniform<float, dg::batch, Model>(5, -2.0f, 2.0f, dg::extent<dg::batch>(batch));
  const auto y = dg::nn::feed_forward<A>(x, p.w1, p.b1, p.w2, p.b2);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, dg::batch, Model>>);
  check_near(y,
             reference(A, batch, 6, x.data(), p.w1.data(), p.b1.data(), p.w2.data(), p.b2.data()));
  check_near(dg::nn::feed_forward<A>(x, p),
             reference(A, batch, 6, x.data(), p.w1.data(), p.b1.data(), p.w2.data(), p.b2.data()));
  check_near(dg::nn::feed_forward<A>(x, p.w1, p.w2),
             reference(A, batch, 6, x.data(), p.w1.data(), nullptr, p.w2.data(), nullptr));
}

}  // namespace

TEST_CASE("nn::feed_forward: equals the double loop with relu, gelu and gelu_tanh, batch 1 and 3") {
  const block p;
  for (std::size_t batch : {1u, 3u}) {
    check_activation<activation::relu>(p, batch);
    check_activation<activation::gelu>(p, batch);
    check_activation<activation::gelu_tanh>(p, batch);
  }
}

TEST_CASE("nn::feed_forward: relu is the default, as in torch.nn.TransformerEncoderLayer") {
  const block p;
  const auto x = dg::uniform<float, dg::batch, Model>(6, -2.0f, 2.0f, dg::extent<dg::batch>(2));
  check_near(dg::nn::feed_forward(x, p), reference(activation::relu, 2, 6, x.data(), p.w1.data(),
                                                   p.b1.data(), p.w2.data(), p.b2.data()));
}

TEST_CASE("nn::feed_forward: over batch and time, to an output dim of its own, no biases") {
  // x [time, batch, model] with W2 [out, hidden]: the result is [time, batch, out].
  block_without_biases p{};
  p.w1 = dg::uniform<float, Hidden, Model>(7, -0.5f, 0.5f);
  const auto w2 = dg::uniform<float, Out, Hidden>(8, -0.5f, 0.5f);
  const auto x = dg::uniform<float, Time, dg::batch, Model>(9, -2.0f, 2.0f, dg::extent<Time>(3),
                                                            dg::extent<dg::batch>(2));
  const auto y = dg::nn::feed_forward<activation::gelu>(x, p.w1, w2);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, Time, dg::batch, Out>>);
  check_near(y,
             reference(activation::gelu, 6, 4, x.data(), p.w1.data(), nullptr, w2.data(), nullptr));
}

TEST_CASE("nn::feed_forward: traced, it runs to the double loop's values") {
  const block p;
  auto g =
      dg::trace([&](const auto& x) { return dg::nn::feed_forward<activation::gelu_tanh>(x, p); },
                dg::input<float, dg::batch, Model>{});
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, dg::batch, Model>>);
  const auto x = dg::uniform<float, dg::batch, Model>(10, -2.0f, 2.0f, dg::extent<dg::batch>(4));
  check_near(g(x), reference(activation::gelu_tanh, 4, 6, x.data(), p.w1.data(), p.b1.data(),
                             p.w2.data(), p.b2.data()));
}

TEST_CASE("nn::feed_forward: a hidden extent that differs at run time throws shape_error") {
  const auto x = dg::uniform<float, dg::batch, Model>(11, -1.0f, 1.0f, dg::extent<dg::batch>(2));
  const auto w1 = dg::uniform<float, DynHidden, Model>(12, -1.0f, 1.0f, dg::extent<DynHidden>(8));
  const auto w2 = dg::uniform<float, Model, DynHidden>(13, -1.0f, 1.0f, dg::extent<DynHidden>(7));
  // The second linear layer's product meets the hidden activations (8) and W2's columns (7).
  CHECK_THROWS_WITH_AS((void)dg::nn::feed_forward(x, w1, w2),
                       "dimgraph: nn::feed_forward: nn::linear: dot: dim 'dyn_hidden' has extent "
                       "8 in the left operand and 7 in the right operand",
                       dg::shape_error);
}
