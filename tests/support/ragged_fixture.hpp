// What the tests of ragged dims (tests/unit/ragged/) share: their dims, seeded lengths and padded
// operands whose valid part does not depend on the padding, one row taken out alone, and the
// comparisons of results.
#pragma once

#include <dimgraph.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace ragged_fixture {

struct Batch : dimgraph::dim<"batch", dimgraph::interval{}, dimgraph::dim_kind::batch> {};
struct Time : dimgraph::dim<"time", dimgraph::ragged<Batch>> {};
struct Key : dimgraph::dim<"key", dimgraph::ragged<Batch>> {};
struct Step : dimgraph::dim<"step"> {};  // one sequence alone: a plain dynamic dim
struct Pair : dimgraph::dim<"pair", 2, dimgraph::dim_kind::batch> {};  // a static batch dim
struct Word : dimgraph::dim<"word", dimgraph::ragged<Pair>> {};

using lens_t = std::vector<std::int64_t>;
inline constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf = std::numeric_limits<double>::infinity();

// n lengths up to max: the first max, the second 0 (1 unless empty), the rest seeded in
// [0, max] ([1, max] unless empty).
inline lens_t random_lengths(std::size_t n, std::int64_t max, unsigned seed, bool empty = true) {
  std::mt19937 gen(seed);
  lens_t l(n);
  for (auto& v : l)
    v = empty ? static_cast<std::int64_t>(gen() % static_cast<unsigned>(max + 1))
              : 1 + static_cast<std::int64_t>(gen() % static_cast<unsigned>(max));
  l[0] = max;
  if (n > 1) l[1] = empty ? 0 : 1;
  return l;
}

inline bool valid(const lens_t& l, std::size_t b, std::size_t t) {
  return static_cast<std::int64_t>(t) < l[b];
}

inline std::size_t row_length(const lens_t& l, std::size_t b) {
  return static_cast<std::size_t>(l[b]);
}

// x [Batch, Time, D] with lengths l (Time's extent the longest, or steps if above it): seeded
// multiples of scale / 1000 in [-scale, scale] at valid positions, the same for a seed whatever
// the padding; pad at the padding.
template <class T, class D>
dimgraph::tensor<T, Batch, Time, D> padded(const lens_t& l, unsigned seed, double pad = qnan,
                                           double scale = 1.0, std::size_t steps = 0) {
  std::size_t extent = steps;
  for (auto n : l) extent = std::max(extent, static_cast<std::size_t>(n));
  dimgraph::tensor<T, Batch, Time, D> x(dimgraph::extent<Batch>(l.size()),
                                        dimgraph::extent<Time>(extent), dimgraph::lengths<Time>(l));
  std::mt19937 gen(seed);
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < extent; ++t)
      for (std::size_t d = 0; d < dimgraph::static_size_v<D>; ++d) {
        const double v = scale * (static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
        x(b, t, d) = static_cast<T>(valid(l, b, t) ? v : pad);
      }
  return x;
}

// Row b's valid part as a sequence of its own, without padding: [Batch = 1, S = l[b], D]. S is
// Step, a plain dim without lengths, or Time: a batch of one whose row fills the extent.
template <class S = Step, class T, class D>
dimgraph::tensor<T, Batch, S, D> alone(const dimgraph::tensor<T, Batch, Time, D>& x,
                                       const lens_t& l, std::size_t b) {
  const std::size_t n = row_length(l, b);
  auto r = [&] {
    if constexpr (std::is_same_v<S, Time>)
      return dimgraph::tensor<T, Batch, Time, D>(dimgraph::extent<Batch>(1),
                                                 dimgraph::lengths<Time>(lens_t{l[b]}));
    else
      return dimgraph::tensor<T, Batch, S, D>(dimgraph::extent<Batch>(1), dimgraph::extent<S>(n));
  }();
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t d = 0; d < dimgraph::static_size_v<D>; ++d) r(0, t, d) = x(b, t, d);
  return r;
}

template <class D = Time, class X>
lens_t lengths_vector(const X& x) {
  return dimgraph::lengths_of<D>(x).to_vector();
}

// got is want up to a relative tolerance (tol 0: exactly); NaN and infinities only as themselves.
inline bool close(double got, double want, double tol = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * (1.0 + std::fabs(want));
}

// Equal, NaN equal to NaN: a result that the padding must not change at all.
inline bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// How many elements of a and b differ (by same), or 1 + the larger size when the sizes differ.
template <class A, class B>
std::size_t count_different(const A& a, const B& b) {
  if (a.size() != b.size()) return 1 + std::max(a.size(), b.size());
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto u = a.data()[i];
    const auto v = b.data()[i];
    if constexpr (std::is_arithmetic_v<std::remove_cv_t<decltype(u)>>)
      n += !same(static_cast<double>(u), static_cast<double>(v));
    else n += !(u == v);
  }
  return n;
}

}  // namespace ragged_fixture
