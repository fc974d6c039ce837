// Element-wise kernels that compute math functions, at every instruction-set level this CPU
// runs: run-time dispatch (eval/dispatch.hpp, eval/elementwise.hpp) compiles them for AVX2 and
// AVX-512 too when the build targets less, and an AVX-512 machine would otherwise never run the
// AVX2 kernels. Rows of every length around the vectors' (whole vectors, padded pieces), several
// rows with a broadcast operand, float, double and float beside double, and special values;
// each element against a long double loop within the function's bound in ulp.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include "ulp.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct R : dg::dim<"r"> {};
struct N : dg::dim<"n"> {};

using level = dg::detail::isa_level;

// The levels this build dispatches element-wise kernels to and this CPU runs (none at -O0),
// and the build's own.
std::vector<level> levels() {
  const level cpu = dg::detail::cpu_isa_level();
  std::vector<level> l{level::target};
  if (DIMGRAPH_DISPATCH_ELEMENTWISE_AVX2 && (cpu == level::avx2 || cpu == level::avx512))
    l.push_back(level::avx2);
  if (DIMGRAPH_DISPATCH_ELEMENTWISE_AVX512 && cpu == level::avx512) l.push_back(level::avx512);
  return l;
}

// Runs f with cpu_isa_level() capped at `at`, then lifts the cap.
template <class F>
void at_level(level at, F f) {
  dg::detail::isa_level_cap = at;
  try {
    f();
  } catch (...) {
    dg::detail::isa_level_cap = level::avx512;
    throw;
  }
  dg::detail::isa_level_cap = level::avx512;
}

using support::ulp_error;

// n values spread over [-12, 12] with the special ones first (as many as fit).
template <class T>
std::vector<T> inputs(std::size_t n, std::uint32_t seed) {
  using limits = std::numeric_limits<T>;
  const T special[] = {limits::quiet_NaN(),
                       limits::infinity(),
                       -limits::infinity(),
                       T(0),
                       T(-0.0),
                       limits::denorm_min(),
                       T(-100),
                       T(100),
                       T(1e-6),
                       T(-0.3)};
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t s = static_cast<std::uint32_t>(i) * 2654435761u + seed;
    s ^= s >> 13;
    s *= 0x5bd1e995u;
    s ^= s >> 15;
    v[i] = static_cast<T>(static_cast<double>(s % 24001u) / 1000.0 - 12.0);
  }
  for (std::size_t i = 0; i < n && i < std::size(special); ++i) v[(i * 7) % n] = special[i];
  return v;
}

// y[i] against ref(i) within bound ulp, for every i.
template <class T, class Ref>
void check_all(const T* y, std::size_t n, Ref ref, double bound, const std::string& what) {
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = ulp_error(y[i], ref(i));
    if (e > worst) worst = e, at = i;
  }
  INFO(what, ": worst at element ", at, ": got ", static_cast<double>(y[at]), ", expected ",
       static_cast<double>(ref(at)));
  CHECK(worst <= bound);
}

// tanh's bound: float's rational form with DIMGRAPH_CONFIG_FAST_MATH (6.3 ulp without fused
// multiply-adds, as level 0 has it), else 2.5 (detail/simd_math.hpp).
template <class T>
constexpr double tanh_bound = std::is_same_v<T, float> && DIMGRAPH_CONFIG_FAST_MATH ? 6.3 : 2.5;

template <class T>
void check_unary(level at, std::size_t n) {
  using vec = dg::tensor<T, N>;
  const std::vector<T> v = inputs<T>(n, 17);
  vec x(dg::extent<N>(n)), y(dg::extent<N>(n));
  for (std::size_t i = 0; i < n; ++i) x.data()[i] = v[i];
  const std::string what = "level " + std::to_string(static_cast<int>(at)) +
                           ", n = " + std::to_string(n) + ", " +
                           (sizeof(T) == 4 ? "float" : "double");
  const auto ld = [&](std::size_t i) { return static_cast<long double>(v[i]); };
  at_level(at, [&] { y = dg::tanh(x); });
  check_all(
      y.data(), n, [&](std::size_t i) { return std::tanh(ld(i)); }, tanh_bound<T>, what + ", tanh");
  at_level(at, [&] { y = dg::exp(x); });
  check_all(
      y.data(), n, [&](std::size_t i) { return std::exp(ld(i)); }, 1, what + ", exp");
  at_level(at, [&] { y = dg::sigmoid(x); });
  check_all(
      y.data(), n, [&](std::size_t i) { return 1 / (1 + std::exp(-ld(i))); }, 2.5,
      what + ", sigmoid");
  at_level(at, [&] { y = dg::log(x); });
  check_all(
      y.data(), n, [&](std::size_t i) { return v[i] < 0 ? std::nan("") : std::log(ld(i)); }, 1,
      what + ", log");
}

}  // namespace

TEST_CASE("dispatch: math kernels at each instruction-set level equal a long double loop") {
  for (const level at : levels()) {
    for (std::size_t n = 1; n <= 80; ++n) {
      check_unary<float>(at, n);
      check_unary<double>(at, n);
    }
    check_unary<float>(at, 1031);
    check_unary<double>(at, 1031);
  }
}

TEST_CASE("dispatch: rows with a broadcast operand, and float beside double, at each level") {
  for (const level at : levels()) {
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{33}, std::size_t{100}}) {
      const std::string what =
          "level " + std::to_string(static_cast<int>(at)) + ", n = " + std::to_string(n);
      // tanh(x + b) over 5 rows of n, b broadcast along N: a float rounding, then tanh.
      const std::size_t rows = 5;
      const std::vector<float> xv = inputs<float>(rows * n, 3), bv = inputs<float>(rows, 9);
      dg::tensor<float, R, N> x(dg::extent<R>(rows), dg::extent<N>(n)),
          y(dg::extent<R>(rows), dg::extent<N>(n));
      dg::tensor<float, R> b(dg::extent<R>(rows));
      for (std::size_t i = 0; i < rows * n; ++i) x.data()[i] = xv[i];
      for (std::size_t r = 0; r < rows; ++r) b.data()[r] = bv[r];
      at_level(at, [&] { y = dg::tanh(x + b); });
      check_all(
          y.data(), rows * n,
          [&](std::size_t i) { return std::tanh(static_cast<long double>(xv[i] + bv[i / n])); },
          tanh_bound<float>, what + ", tanh(x + b)");
      // exp(d) * f in double, f float (exact in double): one rounding after exp's 1 ulp.
      const std::vector<double> dv = inputs<double>(n, 5);
      const std::vector<float> fv = inputs<float>(n, 11);
      dg::tensor<double, N> d(dg::extent<N>(n)), z(dg::extent<N>(n));
      dg::tensor<float, N> f(dg::extent<N>(n));
      for (std::size_t i = 0; i < n; ++i) d.data()[i] = dv[i], f.data()[i] = fv[i];
      at_level(at, [&] { z = dg::exp(d) * dg::cast<double>(f); });
      check_all(
          z.data(), n,
          [&](std::size_t i) {
            return std::exp(static_cast<long double>(dv[i])) * static_cast<long double>(fv[i]);
          },
          2, what + ", exp(d) * f");
    }
  }
}
