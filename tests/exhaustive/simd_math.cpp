// Every float through exp, tanh, sigmoid, log and erf (tanh and erf in both forms, the one
// DIMGRAPH_CONFIG_FAST_MATH selects first): the largest error in ulp against double's libm and
// the argument where it occurs (NaN, infinity and signed-zero mismatches are counted apart).
// Then float gelu's rational form: ulp for x >= 0 and on [-1, 0), and below -1, where it is
// accurate to 2^-22 |x| (not relative), the largest error in units of 2^-22 |x|.
// Built only with DIMGRAPH_BUILD_EXHAUSTIVE_TESTS=ON; takes minutes per function on one core.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "dimgraph/detail/simd_math.hpp"

namespace {

namespace simd = dimgraph::detail::simd;

double ulp_error(float r, double y) {
  const float yr = static_cast<float>(y);
  if (std::isnan(y) || std::isnan(r)) return std::isnan(y) && std::isnan(r) ? 0 : -1;
  if (std::isinf(r) || std::isinf(yr)) return r == yr ? 0 : -1;
  if (r == 0 && yr == 0 && std::signbit(r) != std::signbit(yr)) return -1;
  int e;
  std::frexp(y, &e);
  return std::fabs(double(r) - y) / std::ldexp(1.0, e - 24 > -149 ? e - 24 : -149);
}

// visit(x, f(x)) for every float x, f applied a vector at a time.
template <class F, class Visit>
void each_float(F f, Visit visit) {
  constexpr std::size_t L = simd::lanes_for(4);
  float in[L], out[L];
  for (std::uint64_t b = 0; b < (std::uint64_t(1) << 32); b += L) {
    for (std::size_t l = 0; l < L; ++l) {
      const auto bits = static_cast<std::uint32_t>(b + l);
      std::memcpy(&in[l], &bits, 4);
    }
    simd::store<L>(out, f(simd::load<L>(in)));
    for (std::size_t l = 0; l < L; ++l) visit(in[l], out[l]);
  }
}

template <class F, class R>
bool run(const char* name, F f, R ref) {
  double worst = 0;
  float worst_at = 0;
  std::uint64_t wrong_special = 0;
  each_float(f, [&](float x, float r) {
    const double e = ulp_error(r, ref(double(x)));
    if (e < 0) {
      if (wrong_special++ == 0)
        std::printf("  %s(%a) = %a, expected %a\n", name, double(x), double(r), ref(double(x)));
    } else if (e > worst) {
      worst = e, worst_at = x;
    }
  });
  std::printf("%-10s max %.4f ulp at x = %a (%.9g); special-value mismatches: %llu\n", name, worst,
              double(worst_at), double(worst_at), static_cast<unsigned long long>(wrong_special));
  std::fflush(stdout);
  return wrong_special == 0;
}

// gelu_rational over every float against x / 2 erfc(-x / sqrt2) in double; a positive result
// for a negative x, or a wrong special value, counts as a mismatch.
bool run_gelu() {
  double worst[3] = {0, 0, 0};
  float worst_at[3] = {0, 0, 0};
  std::uint64_t wrong = 0;
  const auto note = [&](int k, double e, float x) {
    if (e > worst[k]) worst[k] = e, worst_at[k] = x;
  };
  each_float(
      [](auto v) { return simd::math::gelu_rational(v); },
      [&](float xf, float rf) {
        const double x = xf, r = rf;
        if (std::isnan(x) || std::isinf(x)) {
          wrong += std::isnan(x) ? !std::isnan(r) : x > 0 ? r != x : !(r == 0 && std::signbit(r));
          return;
        }
        const double y = x / 2 * std::erfc(-x / std::sqrt(2.0));
        if (x < 0 && r > 0) ++wrong;
        if (x >= -1) {
          const double e = ulp_error(rf, y);
          if (e < 0) ++wrong;
          else note(x >= 0 ? 0 : 1, e, xf);
        } else {
          note(2, std::fabs(r - y) / (std::fabs(x) * 0x1p-22), xf);
        }
      });
  std::printf(
      "gelu       max %.4f ulp for x >= 0 at %a, %.4f ulp on [-1, 0) at %a, %.4f of "
      "2^-22 |x| below at %a; mismatches: %llu\n",
      worst[0], double(worst_at[0]), worst[1], double(worst_at[1]), worst[2], double(worst_at[2]),
      static_cast<unsigned long long>(wrong));
  std::fflush(stdout);
  return wrong == 0;
}

}  // namespace

int main() {
  bool ok = true;
  ok &= run(
      "exp", [](auto x) { return simd::exp(x); }, [](double x) { return std::exp(x); });
  ok &= run(
      "tanh", [](auto x) { return simd::tanh(x); }, [](double x) { return std::tanh(x); });
  ok &= run(
      "tanh_expm1", [](auto x) { return simd::math::tanh_expm1(x); },
      [](double x) { return std::tanh(x); });
  ok &= run(
      "sigmoid", [](auto x) { return simd::sigmoid(x); },
      [](double x) { return 1 / (1 + std::exp(-x)); });
  ok &= run(
      "log", [](auto x) { return simd::log(x); }, [](double x) { return std::log(x); });
  ok &= run(
      "erf", [](auto x) { return simd::erf(x); }, [](double x) { return std::erf(x); });
  ok &= run(
      "erf_erfc", [](auto x) { return simd::math::erf_erfc(x); },
      [](double x) { return std::erf(x); });
  ok &= run_gelu();
  return ok ? 0 : 1;
}
