// dg::nn::gelu, exact and tanh forms, against torch's formulas in double: a grid over [-8, 8],
// relative accuracy in the negative tail, special values, a run-time batch, a traced graph.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace dg = dimgraph;

namespace {

struct N : dg::dim<"n", 161> {};
struct F : dg::dim<"f", 5> {};

// torch.nn.functional.gelu in double: approximate='none', x / 2 (1 + erf(x / sqrt 2)), and
// 'tanh', x / 2 (1 + tanh(u)) with u = sqrt(2 / pi) (x + 0.044715 x^3); written as
// x / 2 erfc(-x / sqrt 2) and x / (1 + exp(-2u)), the same functions without the cancellation
// of 1 + erf and 1 + tanh in the negative tail (which in double would leave ~1e-16 / gelu(x)
// of relative error there).
double gelu_exact(double x) {
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}
double gelu_tanh(double x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return x / (1.0 + std::exp(-2.0 * k * (x + 0.044715 * x * x * x)));
}

}  // namespace

TEST_CASE("nn::gelu: both forms equal torch's formulas on a grid over [-8, 8]") {
  dg::tensor<float, N> x;
  for (std::size_t i = 0; i < 161; ++i) x(i) = -8.0f + 0.1f * static_cast<float>(i);
  const auto exact = dg::nn::gelu(x);
  const auto approx = dg::nn::gelu<dg::nn::gelu_approximate::tanh>(x);
  static_assert(std::is_same_v<decltype(exact), const dg::tensor<float, N>>);
  for (std::size_t i = 0; i < 161; ++i) {
    CAPTURE(x(i));
    CHECK(exact(i) == doctest::Approx(gelu_exact(x(i))).epsilon(1e-5));
    CHECK(approx(i) == doctest::Approx(gelu_tanh(x(i))).epsilon(1e-5));
  }
  // The forms differ by up to about 4.7e-4 (at x = -2.7), far above the tolerance: each form
  // is checked against its own formula.
  CHECK(std::fabs(gelu_exact(-2.7) - gelu_tanh(-2.7)) > 4e-4);
}

TEST_CASE("nn::gelu: accuracy in the negative tail") {
  // gelu_tanh(-5) ~ -2.3e-7: 1 + tanh(u) in float would cancel to a few ulp of 1; computed as
  // x sigmoid(2u) it keeps about 1e-5 relative accuracy. The exact form keeps it with
  // DIMGRAPH_CONFIG_FAST_MATH=0 (x / 2 erfc(-x / sqrt2)); by default it is torch's and Eigen's
  // x / 2 (1 + erf(x / sqrt2)), whose error there is absolute: at most 2^-22 |x|.
  dg::tensor<float, F> x;
  const float xs[] = {-3.0f, -4.0f, -5.0f, -6.0f, -7.0f};
  for (std::size_t i = 0; i < 5; ++i) x(i) = xs[i];
  const auto y = dg::nn::gelu<dg::nn::gelu_approximate::tanh>(x);
  const auto e = dg::nn::gelu(x);
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(xs[i]);
    CHECK(y(i) == doctest::Approx(gelu_tanh(xs[i])).epsilon(2e-5).scale(0));
    if constexpr (DIMGRAPH_CONFIG_FAST_MATH)
      CHECK(std::fabs(double(e(i)) - gelu_exact(xs[i])) <= std::fabs(xs[i]) * 0x1p-22);
    else CHECK(e(i) == doctest::Approx(gelu_exact(xs[i])).epsilon(2e-5).scale(0));
  }
}

TEST_CASE("nn::gelu: special values") {
  // +inf stays +inf and NaN NaN in both forms; at -inf the exact form gives its limit -0
  // (dg::gelu), the tanh form -inf * sigmoid(-inf) = -inf * 0 = NaN, as torch's formula.
  constexpr float inf = std::numeric_limits<float>::infinity();
  dg::tensor<float, F> x;
  const float xs[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f};
  for (std::size_t i = 0; i < 5; ++i) x(i) = xs[i];
  const auto e = dg::nn::gelu(x);
  const auto t = dg::nn::gelu<dg::nn::gelu_approximate::tanh>(x);
  CHECK(e(0) == inf);
  CHECK(t(0) == inf);
  CHECK(e(1) == 0.0f);
  CHECK(std::isnan(t(1)));
  CHECK(std::isnan(e(2)));
  CHECK(std::isnan(t(2)));
  for (std::size_t i = 3; i < 5; ++i) {
    CHECK(e(i) == 0.0f);
    CHECK(t(i) == 0.0f);
  }
}

TEST_CASE("nn::gelu: over a run-time batch, eager and traced") {
  dg::tensor<float, dg::batch, F> x =
      dg::uniform<float, dg::batch, F>(1, -4.0f, 4.0f, dg::extent<dg::batch>(3));
  auto g = dg::trace(
      [](const auto& v) {
        return std::tuple{dg::nn::gelu(v), dg::nn::gelu<dg::nn::gelu_approximate::tanh>(v)};
      },
      dg::input<float, dg::batch, F>{});
  const auto [ge, gt] = g(x);
  const auto e = dg::nn::gelu(x);
  static_assert(std::is_same_v<decltype(e), const dg::tensor<float, dg::batch, F>>);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t f = 0; f < 5; ++f) {
      CHECK(e(b, f) == doctest::Approx(gelu_exact(x(b, f))).epsilon(1e-5));
      CHECK(ge(b, f) == doctest::Approx(gelu_exact(x(b, f))).epsilon(1e-5));
      CHECK(gt(b, f) == doctest::Approx(gelu_tanh(x(b, f))).epsilon(1e-5));
    }
}
