// Every float through exp, tanh, sigmoid, log and erf (tanh and erf in both forms, the one
// DIMGRAPH_CONFIG_FAST_MATH selects first): the largest error in ulp against double's libm and
// the argument where it occurs (NaN, infinity and signed-zero mismatches are counted apart).
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

template <class F, class R>
bool run(const char* name, F f, R ref) {
  constexpr std::size_t L = simd::lanes_for(4);
  double worst = 0;
  float worst_at = 0;
  std::uint64_t wrong_special = 0;
  float in[L], out[L];
  for (std::uint64_t b = 0; b < (std::uint64_t(1) << 32); b += L) {
    for (std::size_t l = 0; l < L; ++l) {
      const auto bits = static_cast<std::uint32_t>(b + l);
      std::memcpy(&in[l], &bits, 4);
    }
    simd::store<L>(out, f(simd::load<L>(in)));
    for (std::size_t l = 0; l < L; ++l) {
      const double e = ulp_error(out[l], ref(double(in[l])));
      if (e < 0) {
        if (wrong_special++ == 0)
          std::printf("  %s(%a) = %a, expected %a\n", name, double(in[l]), double(out[l]),
                      ref(double(in[l])));
      } else if (e > worst) {
        worst = e, worst_at = in[l];
      }
    }
  }
  std::printf("%-10s max %.4f ulp at x = %a (%.9g); special-value mismatches: %llu\n", name, worst,
              double(worst_at), double(worst_at), static_cast<unsigned long long>(wrong_special));
  std::fflush(stdout);
  return wrong_special == 0;
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
  return ok ? 0 : 1;
}
