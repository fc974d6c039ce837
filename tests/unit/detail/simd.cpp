// SIMD vector helpers: all_lanes on masks from comparisons (a set lane is all ones, a clear one
// zero), all_lanes_less (a NaN lane compares false) and no_nan_lanes, for every lane type and width
// the kernels use, with one lane clear (or NaN) at each position; fold_lanes and
// fold_lanes_in_place (a sum and a max).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <dimgraph.hpp>

namespace {

namespace simd = dimgraph::detail::simd;

template <class T, std::size_t L>
void check_all_lanes() {
  using V = simd::vec<T, L>;
  V x{};
  for (std::size_t l = 0; l < L; ++l) x[l] = T(l + 1);
  INFO("lane type of ", sizeof(T), " bytes, ", L, " lanes");
  CHECK(simd::all_lanes(x > T(0)));
  CHECK_FALSE(simd::all_lanes(x > T(L)));
  for (std::size_t clear = 0; clear < L; ++clear) {
    V y = x;
    y[clear] = T(0);
    INFO("lane ", clear, " clear");
    CHECK_FALSE(simd::all_lanes(y > T(0)));
    if constexpr (std::is_floating_point_v<T>) {
      CHECK_FALSE(simd::all_lanes_less(x, y));
      CHECK(simd::all_lanes_less(y, x + T(1)));
      V z = x;
      z[clear] = std::numeric_limits<T>::quiet_NaN();
      CHECK_FALSE(simd::all_lanes_less(z, x + T(1)));
      CHECK_FALSE(simd::all_lanes_less(x, z + T(1)));
      CHECK_FALSE(simd::no_nan_lanes(z));
      z[clear] = std::numeric_limits<T>::infinity();
      CHECK(simd::no_nan_lanes(z));
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    CHECK(simd::all_lanes_less(x, x + T(1)));
    CHECK(simd::no_nan_lanes(x));
  }
  // fold_lanes: the sum of 1..L, and the max wherever it sits.
  if constexpr (sizeof(T) > 1) {
    CHECK(simd::fold_lanes(x, [](auto a, auto b) { return a + b; })[0] == T(L * (L + 1) / 2));
    for (std::size_t top = 0; top < L; ++top) {
      V y = x;
      y[top] = T(100);
      CHECK(simd::fold_lanes(y, [](auto a, auto b) { return a > b ? a : b; })[0] == T(100));
      // fold_lanes_in_place: the same max, in every lane.
      const V z = simd::fold_lanes_in_place(y, [](V a, V b) { return a > b ? a : b; });
      for (std::size_t l = 0; l < L; ++l) CHECK(z[l] == T(100));
    }
    const V sums = simd::fold_lanes_in_place(x, [](V a, V b) { return a + b; });
    for (std::size_t l = 0; l < L; ++l) CHECK(sums[l] == T(L * (L + 1) / 2));
  }
}

template <class T>
void check_all_widths() {
  check_all_lanes<T, 1>();
  // Widths up to the target's registers (a wider vector would be passed in memory).
  check_all_lanes<T, 16 / sizeof(T)>();
  if constexpr (simd::bytes >= 32) check_all_lanes<T, 32 / sizeof(T)>();
  if constexpr (simd::bytes >= 64) check_all_lanes<T, 64 / sizeof(T)>();
}

}  // namespace

TEST_CASE("simd: all_lanes is true only when every lane of the mask is set") {
  check_all_widths<float>();
  check_all_widths<double>();
  check_all_widths<std::int32_t>();
  check_all_widths<std::int64_t>();
  check_all_widths<std::int8_t>();
}
