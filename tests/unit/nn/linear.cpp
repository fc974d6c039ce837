// dg::nn::linear against plain loops: with and without bias, batch 1 and 3, static and
// dynamic batch, more than one outer dim, W in either dim order, weights given as one Hana
// struct, a traced graph, errors.
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

struct In : dg::dim<"in", 7> {};
struct Out : dg::dim<"out", 5> {};
struct Time : dg::dim<"time"> {};
struct Three : dg::dim<"three", 3> {};
struct DynIn : dg::dim<"dyn_in"> {};

template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(gen);
}

// y[s][o] = sum_k x[s][k] w[o][k] (+ b[o]) for n rows, in double.
std::vector<float> reference_linear(std::size_t n, std::size_t in, std::size_t out, const float* x,
                                    const float* w, const float* b) {
  std::vector<float> y(n * out);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t o = 0; o < out; ++o) {
      double acc = b ? b[o] : 0.0;
      for (std::size_t k = 0; k < in; ++k) acc += double(x[s * in + k]) * w[o * in + k];
      y[s * out + o] = static_cast<float>(acc);
    }
  return y;
}

template <class X>
std::size_t mismatches(const X& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    bad += !(std::fabs(got.data()[i] - want[i]) <= 1e-5f);
  return bad;
}

template <class Bt, class... Es>
void check_batch(std::size_t n, unsigned seed, Es... es) {
  dg::tensor<float, Bt, In> x(es...);
  dg::tensor<float, Out, In> w;
  dg::tensor<float, Out> b;
  fill(x, seed);
  fill(w, seed + 1);
  fill(b, seed + 2);
  const auto y = dg::nn::linear(x, w);
  const auto yb = dg::nn::linear(x, w, b);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, Bt, Out>>);
  static_assert(std::is_same_v<decltype(yb), const dg::tensor<float, Bt, Out>>);
  CHECK(mismatches(y, reference_linear(n, 7, 5, x.data(), w.data(), nullptr)) == 0);
  CHECK(mismatches(yb, reference_linear(n, 7, 5, x.data(), w.data(), b.data())) == 0);
}

// Weights as one struct: W alone, and W and b with a member that is not an operand between.
struct weight_only {
  BOOST_HANA_DEFINE_STRUCT(weight_only, (dg::tensor<float, Out, In>, w));
};
struct weight_and_bias {
  BOOST_HANA_DEFINE_STRUCT(weight_and_bias, (dg::tensor<float, Out, In>, weight), (bool, frozen),
                           (dg::tensor<float, Out>, bias));
};

}  // namespace

TEST_CASE("linear: equals the plain loop with and without bias, dynamic batch of 1 and 3") {
  check_batch<dg::batch>(1, 10, dg::extent<dg::batch>(1));
  check_batch<dg::batch>(3, 20, dg::extent<dg::batch>(3));
}

TEST_CASE("linear: equals the plain loop with a static batch and with no batch") {
  check_batch<Three>(3, 30);
  dg::tensor<float, In> x;
  dg::tensor<float, Out, In> w;
  dg::tensor<float, Out> b;
  fill(x, 40);
  fill(w, 41);
  fill(b, 42);
  const auto y = dg::nn::linear(x, w, b);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, Out>>);
  CHECK(mismatches(y, reference_linear(1, 7, 5, x.data(), w.data(), b.data())) == 0);
}

TEST_CASE("linear: the feature dim is found anywhere, x's other dims are kept in order") {
  // x [in, batch, time] and W stored [in, out]: the result is [batch, time, out].
  const std::size_t nb = 2, nt = 4;
  dg::tensor<float, In, dg::batch, Time> x(dg::extent<dg::batch>(nb), dg::extent<Time>(nt));
  dg::tensor<float, In, Out> w_t;
  dg::tensor<float, Out> b;
  fill(x, 50);
  fill(w_t, 51);
  fill(b, 52);
  std::vector<float> rows(nb * nt * 7), w(5 * 7);
  for (std::size_t i = 0; i < nb; ++i)
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t k = 0; k < 7; ++k) rows[(i * nt + t) * 7 + k] = x(k, i, t);
  for (std::size_t o = 0; o < 5; ++o)
    for (std::size_t k = 0; k < 7; ++k) w[o * 7 + k] = w_t(k, o);
  const auto y = dg::nn::linear(x, w_t, b);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, dg::batch, Time, Out>>);
  CHECK(mismatches(y, reference_linear(nb * nt, 7, 5, rows.data(), w.data(), b.data())) == 0);
}

TEST_CASE("linear: a traced layer runs to the plain loop's values") {
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(3));
  dg::tensor<float, Out, In> w;
  dg::tensor<float, Out> b;
  fill(x, 60);
  fill(w, 61);
  fill(b, 62);
  auto g = dg::trace([&](const auto& x_) { return dg::nn::linear(x_, w, b); },
                     dg::input<float, dg::batch, In>{});
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, dg::batch, Out>>);
  CHECK(mismatches(g(x), reference_linear(3, 7, 5, x.data(), w.data(), b.data())) == 0);
}

TEST_CASE(
    "linear: a feature or output extent that differs at run time throws shape_error "
    "naming nn::linear") {
  dg::tensor<float, dg::batch, DynIn> x(dg::extent<dg::batch>(2), dg::extent<DynIn>(4));
  dg::tensor<float, Out, DynIn> w(dg::extent<DynIn>(3));
  dg::tensor<float, dg::batch, Out> y(dg::extent<dg::batch>(2));
  fill(y, 63);
  const std::vector<float> y_before(y.data(), y.data() + y.size());
  // y takes the result, and keeps its values when the layer throws.
  CHECK_THROWS_WITH_AS(y = dg::nn::linear(x, w),
                       "dimgraph: nn::linear: dot: dim 'dyn_in' has extent 4 in the left operand "
                       "and 3 in the right operand",
                       dg::shape_error);
  CHECK(std::vector<float>(y.data(), y.data() + y.size()) == y_before);
  // A bias of another output extent than W's (the product is operand 1 of the add).
  struct DynOut : dg::dim<"dyn_out"> {};
  dg::tensor<float, DynOut, DynIn> w2(dg::extent<DynOut>(5), dg::extent<DynIn>(4));
  dg::tensor<float, DynOut> b6(dg::extent<DynOut>(6));
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::linear(x, w2, b6),
      "dimgraph: nn::linear: add: dim 'dyn_out' has extent 5 in operand 1 and 6 in operand 2",
      dg::shape_error);
  // Through a parameter struct the layer is named once.
  struct dyn_weights {
    BOOST_HANA_DEFINE_STRUCT(dyn_weights, (dg::tensor<float, Out, DynIn>, w));
  };
  const dyn_weights p{w};
  CHECK_THROWS_WITH_AS((void)dg::nn::linear(x, p),
                       "dimgraph: nn::linear: dot: dim 'dyn_in' has extent 4 in the left operand "
                       "and 3 in the right operand",
                       dg::shape_error);
}

TEST_CASE("linear: weights given as one Hana struct equal the plain loop") {
  dg::tensor<float, dg::batch, In> x(dg::extent<dg::batch>(3));
  weight_only p1{};
  weight_and_bias p2{};
  fill(x, 300);
  fill(p1.w, 301);
  fill(p2.weight, 302);
  fill(p2.bias, 303);
  const auto y1 = dg::nn::linear(x, p1);
  const auto y2 = dg::nn::linear(x, p2);
  static_assert(std::is_same_v<decltype(y2), const dg::tensor<float, dg::batch, Out>>);
  CHECK(mismatches(y1, reference_linear(3, 7, 5, x.data(), p1.w.data(), nullptr)) == 0);
  CHECK(mismatches(y2, reference_linear(3, 7, 5, x.data(), p2.weight.data(), p2.bias.data())) == 0);
}
