// dg::nn::layer_norm and dg::nn::rms_norm against double-precision loops: a run-time batch and
// static feature dims, one and two normalized dims in any position, with and without weight
// and bias, closed forms (a constant row gives the bias), IEEE special values, a row far from
// zero, the default eps of rms_norm, weights as one Hana struct, a traced graph, errors.
#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct F : dg::dim<"f", 6> {};
struct A : dg::dim<"a", 3> {};
struct Time : dg::dim<"time"> {};
struct DynF : dg::dim<"dyn_f"> {};

template <class X>
void fill(X& x, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(gen);
}

// torch.nn.LayerNorm of one row in double: (x - mean) / sqrt(biased var + eps) * w + b (w, b
// empty: 1 and 0).
std::vector<double> ref_layer_norm(const std::vector<double>& x, const std::vector<double>& w,
                                   const std::vector<double>& b, double eps) {
  const double n = static_cast<double>(x.size());
  double mean = 0;
  for (double v : x) mean += v;
  mean /= n;
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  var /= n;
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] =
        (x[i] - mean) / std::sqrt(var + eps) * (w.empty() ? 1.0 : w[i]) + (b.empty() ? 0.0 : b[i]);
  return y;
}

// torch.nn.RMSNorm of one row in double: x / sqrt(mean(x^2) + eps) * w.
std::vector<double> ref_rms_norm(const std::vector<double>& x, const std::vector<double>& w,
                                 double eps) {
  double ms = 0;
  for (double v : x) ms += v * v;
  ms /= static_cast<double>(x.size());
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] = x[i] / std::sqrt(ms + eps) * (w.empty() ? 1.0 : w[i]);
  return y;
}

template <class T>
std::vector<double> as_doubles(const T* p, std::size_t n) {
  return std::vector<double>(p, p + n);
}

// The rows of a [batch, F] tensor, each against ref(row).
template <class Y, class X, class Ref>
void check_rows(const Y& y, const X& x, const Ref& ref, double tolerance = 1e-5) {
  const std::size_t rows = x.template extent<dg::batch>();
  REQUIRE(y.template extent<dg::batch>() == rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto want = ref(as_doubles(x.data() + r * 6, 6));
    for (std::size_t f = 0; f < 6; ++f)
      CHECK(y(r, f) == doctest::Approx(want[f]).epsilon(tolerance));
  }
}

struct norm_weights {
  BOOST_HANA_DEFINE_STRUCT(norm_weights, (dg::tensor<float, F>, weight),
                           (dg::tensor<float, F>, bias));
};
struct rms_weights {
  BOOST_HANA_DEFINE_STRUCT(rms_weights, (dg::tensor<float, F>, weight));
};

}  // namespace

TEST_CASE("nn::layer_norm: equals the double loop over a static feature dim, batch 1 and 4") {
  dg::tensor<float, F> w, b;
  fill(w, 1);
  fill(b, 2);
  const auto wd = as_doubles(w.data(), 6), bd = as_doubles(b.data(), 6);
  for (std::size_t batch : {1u, 4u}) {
    dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(batch));
    fill(x, 3 + static_cast<unsigned>(batch), -3.0f, 2.0f);
    const auto y = dg::nn::layer_norm<F>(x, w, b);
    static_assert(std::is_same_v<decltype(y), const dg::tensor<float, dg::batch, F>>);
    check_rows(y, x, [&](const auto& row) { return ref_layer_norm(row, wd, bd, 1e-5); });
    // The dims may be left out when a weight is given; eps may be given.
    check_rows(dg::nn::layer_norm(x, w, b), x,
               [&](const auto& row) { return ref_layer_norm(row, wd, bd, 1e-5); });
    check_rows(dg::nn::layer_norm<F>(x, w, b, 0.25), x,
               [&](const auto& row) { return ref_layer_norm(row, wd, bd, 0.25); });
    // elementwise_affine=False, and bias=False.
    check_rows(dg::nn::layer_norm<F>(x), x,
               [&](const auto& row) { return ref_layer_norm(row, {}, {}, 1e-5); });
    check_rows(dg::nn::layer_norm(x, w), x,
               [&](const auto& row) { return ref_layer_norm(row, wd, {}, 1e-5); });
  }
}

TEST_CASE("nn::layer_norm and nn::rms_norm: a lazy expression is evaluated once and normalized") {
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(3)), x2(dg::extent<dg::batch>(3));
  fill(x, 5, -1.0f, 1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x2.data()[i] = x.data()[i] * 3.0f - 1.0f;
  check_rows(dg::nn::layer_norm<F>(x * 3.0f - 1.0f), x2,
             [](const auto& row) { return ref_layer_norm(row, {}, {}, 1e-5); });
  check_rows(dg::nn::rms_norm<F>(x * 3.0f - 1.0f), x2, [](const auto& row) {
    return ref_rms_norm(row, {}, std::numeric_limits<float>::epsilon());
  });
}

TEST_CASE("nn::layer_norm: two normalized dims, not trailing, weight in another dim order") {
  // x [A, batch, F] normalized over A and F; the weight and bias are stored [F, A].
  const std::size_t batch = 3;
  dg::tensor<float, A, dg::batch, F> x(dg::extent<dg::batch>(batch));
  dg::tensor<float, F, A> w, b;
  fill(x, 10, -2.0f, 2.0f);
  fill(w, 11);
  fill(b, 12);
  const auto y = dg::nn::layer_norm<A, F>(x, w, b);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, A, dg::batch, F>>);
  for (std::size_t i = 0; i < batch; ++i) {
    std::vector<double> row, wd, bd;
    for (std::size_t a = 0; a < 3; ++a)
      for (std::size_t f = 0; f < 6; ++f) {
        row.push_back(x(a, i, f));
        wd.push_back(w(f, a));
        bd.push_back(b(f, a));
      }
    const auto want = ref_layer_norm(row, wd, bd, 1e-5);
    for (std::size_t a = 0; a < 3; ++a)
      for (std::size_t f = 0; f < 6; ++f)
        CHECK(y(a, i, f) == doctest::Approx(want[a * 6 + f]).epsilon(1e-5));
  }
}

TEST_CASE("nn::layer_norm: over a run-time batch and time, per position") {
  dg::tensor<float, dg::batch, Time, F> x(dg::extent<dg::batch>(2), dg::extent<Time>(5));
  dg::tensor<float, F> w, b;
  fill(x, 20, -1.0f, 4.0f);
  fill(w, 21);
  fill(b, 22);
  const auto y = dg::nn::layer_norm<F>(x, w, b);
  const auto wd = as_doubles(w.data(), 6), bd = as_doubles(b.data(), 6);
  for (std::size_t r = 0; r < 10; ++r) {
    const auto want = ref_layer_norm(as_doubles(x.data() + r * 6, 6), wd, bd, 1e-5);
    for (std::size_t f = 0; f < 6; ++f)
      CHECK(y.data()[r * 6 + f] == doctest::Approx(want[f]).epsilon(1e-5));
  }
}

TEST_CASE("nn::layer_norm: a constant row gives the bias exactly") {
  // Constants whose sums are exact in float: the mean is the constant, every centred value 0.
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(3));
  const float constants[] = {2.5f, -7.0f, 0.0f};
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t f = 0; f < 6; ++f) x(r, f) = constants[r];
  dg::tensor<float, F> w, b;
  fill(w, 30);
  fill(b, 31);
  const auto y = dg::nn::layer_norm<F>(x, w, b);
  const auto plain = dg::nn::layer_norm<F>(x);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t f = 0; f < 6; ++f) {
      CHECK(y(r, f) == b(f));
      CHECK(plain(r, f) == 0.0f);
    }
}

TEST_CASE("nn::layer_norm: a row with an infinity or a NaN is NaN throughout, as torch") {
  // IEEE: the mean of a row holding +inf is +inf, so the centred +inf is inf - inf = NaN and
  // the others -inf; the variance is NaN, and so is every output. The other rows are untouched.
  constexpr float inf = std::numeric_limits<float>::infinity();
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(4));
  fill(x, 40);
  x(0, 2) = inf;
  x(1, 5) = -inf;
  x(2, 0) = std::numeric_limits<float>::quiet_NaN();
  dg::tensor<float, F> w, b;
  fill(w, 41);
  fill(b, 42);
  const auto y = dg::nn::layer_norm<F>(x, w, b);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t f = 0; f < 6; ++f) CHECK(std::isnan(y(r, f)));
  const auto want = ref_layer_norm(as_doubles(x.data() + 18, 6), as_doubles(w.data(), 6),
                                   as_doubles(b.data(), 6), 1e-5);
  for (std::size_t f = 0; f < 6; ++f) CHECK(y(3, f) == doctest::Approx(want[f]).epsilon(1e-5));
}

TEST_CASE("nn::layer_norm: a row far from zero keeps its precision (centred variance)") {
  // Values 1000 + [-1, 1]: E[x^2] - E[x]^2 in float would lose the variance (about 0.3 of
  // 1e6, below one ulp of E[x^2] = 0.06 times a few); the mean of the centred squares keeps
  // it. The mean itself carries a rounding of about 1e-4, hence the tolerance.
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(5));
  fill(x, 50, 999.0f, 1001.0f);
  const auto y = dg::nn::layer_norm<F>(x);
  check_rows(
      y, x, [](const auto& row) { return ref_layer_norm(row, {}, {}, 1e-5); }, 2e-3);
}

TEST_CASE("nn::rms_norm: equals the double loop, with and without weight") {
  dg::tensor<float, F> w;
  fill(w, 60);
  const auto wd = as_doubles(w.data(), 6);
  constexpr double eps_default = std::numeric_limits<float>::epsilon();
  for (std::size_t batch : {1u, 4u}) {
    dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(batch));
    fill(x, 61 + static_cast<unsigned>(batch), -2.0f, 3.0f);
    const auto y = dg::nn::rms_norm<F>(x, w);
    static_assert(std::is_same_v<decltype(y), const dg::tensor<float, dg::batch, F>>);
    check_rows(y, x, [&](const auto& row) { return ref_rms_norm(row, wd, eps_default); });
    check_rows(dg::nn::rms_norm(x, w, 0.5), x,
               [&](const auto& row) { return ref_rms_norm(row, wd, 0.5); });
    check_rows(dg::nn::rms_norm<F>(x), x,
               [&](const auto& row) { return ref_rms_norm(row, {}, eps_default); });
  }
}

TEST_CASE("nn::rms_norm: eps defaults to float's machine epsilon, as torch's eps=None") {
  // Rows of 1e-4: mean(x^2) = 1e-8 is below the default eps (2^-23 ~ 1.19e-7), so eps sets
  // the result: 1e-4 / sqrt(1e-8 + 2^-23) ~ 0.278; a row of zeros stays zero.
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(2));
  for (std::size_t f = 0; f < 6; ++f) {
    x(0, f) = 1e-4f;
    x(1, f) = 0.0f;
  }
  const auto y = dg::nn::rms_norm<F>(x);
  const double want = double(1e-4f) / std::sqrt(double(1e-4f) * double(1e-4f) + 0x1p-23);
  for (std::size_t f = 0; f < 6; ++f) {
    CHECK(y(0, f) == doctest::Approx(want).epsilon(1e-5));
    CHECK(y(1, f) == 0.0f);
  }
}

TEST_CASE("nn::layer_norm and nn::rms_norm: weights as one Hana struct") {
  norm_weights p{};
  rms_weights q{};
  fill(p.weight, 70);
  fill(p.bias, 71);
  fill(q.weight, 72);
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(3));
  fill(x, 73);
  const auto wd = as_doubles(p.weight.data(), 6), bd = as_doubles(p.bias.data(), 6),
             qd = as_doubles(q.weight.data(), 6);
  check_rows(dg::nn::layer_norm(x, p), x,
             [&](const auto& row) { return ref_layer_norm(row, wd, bd, 1e-5); });
  check_rows(dg::nn::layer_norm<F>(x, p, 1e-3), x,
             [&](const auto& row) { return ref_layer_norm(row, wd, bd, 1e-3); });
  check_rows(dg::nn::rms_norm(x, q), x, [&](const auto& row) {
    return ref_rms_norm(row, qd, std::numeric_limits<float>::epsilon());
  });
}

TEST_CASE("nn::layer_norm and nn::rms_norm: traced, they run to the double loop's values") {
  dg::tensor<float, F> w, b;
  fill(w, 80);
  fill(b, 81);
  auto g = dg::trace(
      [&](const auto& x) {
        return std::tuple{dg::nn::layer_norm<F>(x, w, b), dg::nn::rms_norm<F>(x, w)};
      },
      dg::input<float, dg::batch, F>{});
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, dg::batch, F>>);
  dg::tensor<float, dg::batch, F> x(dg::extent<dg::batch>(4));
  fill(x, 82, -2.0f, 2.0f);
  const auto [ln, rms] = g(x);
  const auto wd = as_doubles(w.data(), 6), bd = as_doubles(b.data(), 6);
  check_rows(ln, x, [&](const auto& row) { return ref_layer_norm(row, wd, bd, 1e-5); });
  check_rows(rms, x, [&](const auto& row) {
    return ref_rms_norm(row, wd, std::numeric_limits<float>::epsilon());
  });
}

TEST_CASE("nn::layer_norm: a weight whose run-time extent differs throws shape_error") {
  dg::tensor<float, dg::batch, DynF> x(dg::extent<dg::batch>(2), dg::extent<DynF>(4));
  dg::tensor<float, DynF> w(dg::extent<DynF>(5)), b(dg::extent<DynF>(5));
  fill(x, 90);
  // The normalized x (4) meets the weight (5) in the product that applies it.
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::layer_norm<DynF>(x, w, b),
      "dimgraph: nn::layer_norm: mul: dim 'dyn_f' has extent 4 in operand 1 and 5 in operand 2",
      dg::shape_error);
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::rms_norm(x, w),
      "dimgraph: nn::rms_norm: mul: dim 'dyn_f' has extent 4 in operand 1 and 5 in operand 2",
      dg::shape_error);
}
