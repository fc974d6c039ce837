// Distance in ulp between a result and a reference in a wider type, for the math tests.
#pragma once

#include <cmath>
#include <limits>

namespace support {

// |got - want| in units of the last place of want rounded to T (subnormal spacing below the
// normals). A result that is infinite or NaN must match want exactly.
template <class T>
double ulp_error(T got, long double want) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got) ? 0 : 1e30;
  const T rounded = static_cast<T>(want);
  if (std::isinf(got) || std::isinf(rounded)) return got == rounded ? 0 : 1e30;
  int e;
  std::frexp(want, &e);
  using limits = std::numeric_limits<T>;
  const int digits = limits::digits, lowest = limits::min_exponent - digits;
  const long double ulp = std::ldexp(1.0L, e - digits > lowest ? e - digits : lowest);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

}  // namespace support
