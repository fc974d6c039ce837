// detail::add_overflows, mul_overflows: sums and products of sizes that report overflow.
#pragma once

#include <cstddef>

namespace dimgraph::detail {

// r = a + b; true when the exact sum does not fit a std::size_t (r is then unspecified).
constexpr bool add_overflows(std::size_t a, std::size_t b, std::size_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_add_overflow(a, b, &r);
#else
  r = a + b;
  return r < a;
#endif
}

// r = a * b; true when the exact product does not fit a std::size_t (r is then unspecified).
constexpr bool mul_overflows(std::size_t a, std::size_t b, std::size_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_mul_overflow(a, b, &r);
#else
  r = a * b;
  return a != 0 && r / a != b;
#endif
}

}  // namespace dimgraph::detail
