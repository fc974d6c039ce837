// dimgraph::interval: constexpr bounds {lo, hi} of a dim's extent, with an unbounded top.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

namespace dimgraph {

// The upper bound of an interval with no upper limit ("dynamic": [0, unbounded]).
inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

// A set of extents {lo, lo + 1, ..., hi}; hi == unbounded means no upper limit.
// lo > hi is the empty interval: the result of intersecting disjoint intervals.
// Every operation is sound (each concrete result of concrete members lies in the
// result) and the result is the tightest interval with that property; operations
// on an empty interval give the empty interval. Arithmetic saturates at unbounded.
struct interval {
  std::size_t lo = 0;
  std::size_t hi = unbounded;

  static constexpr interval empty() { return {1, 0}; }
  static constexpr interval exactly(std::size_t n) { return {n, n}; }

  constexpr bool is_empty() const { return lo > hi; }
  constexpr bool is_static() const { return lo == hi; }
  constexpr bool is_bounded() const { return hi != unbounded; }
  constexpr bool is_dynamic() const { return lo == 0 && hi == unbounded; }
  constexpr bool contains(std::size_t n) const { return lo <= n && n <= hi; }
  // o is a subset of *this (the empty interval is a subset of every interval).
  constexpr bool contains(interval o) const { return o.is_empty() || (lo <= o.lo && o.hi <= hi); }

  friend constexpr bool operator==(interval a, interval b) {
    return (a.is_empty() && b.is_empty()) || (a.lo == b.lo && a.hi == b.hi);
  }

  // {x + y}: [a.lo + b.lo, a.hi + b.hi]
  friend constexpr interval operator+(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    return {add_(a.lo, b.lo), add_(a.hi, b.hi)};
  }
  // {max(x - y, 0)}: the clamped difference (a padding removed from a length).
  friend constexpr interval operator-(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    const std::size_t low = (b.hi != unbounded && a.lo > b.hi) ? a.lo - b.hi : 0;
    const std::size_t high = a.hi == unbounded ? unbounded : (a.hi > b.lo ? a.hi - b.lo : 0);
    return {low, high};
  }
  // {x * y}: [a.lo * b.lo, a.hi * b.hi], with 0 * unbounded = 0.
  friend constexpr interval operator*(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    return {mul_(a.lo, b.lo), mul_(a.hi, b.hi)};
  }

 private:
  static constexpr std::size_t add_(std::size_t x, std::size_t y) {
    return (x > unbounded - y) ? unbounded : x + y;
  }
  static constexpr std::size_t mul_(std::size_t x, std::size_t y) {
    if (x == 0 || y == 0) return 0;
    return (x > unbounded / y) ? unbounded : x * y;
  }
};

// The name dim tags use for an interval size: dg::dim<"t", dg::range{1, 8}>.
using range = interval;

// {floor(x / k)} for k > 0.
constexpr interval floordiv(interval a, std::size_t k) {
  if (a.is_empty()) return interval::empty();
  return {a.lo / k, a.hi == unbounded ? unbounded : a.hi / k};
}
// {ceil(x / k)} for k > 0.
constexpr interval ceildiv(interval a, std::size_t k) {
  if (a.is_empty()) return interval::empty();
  auto up = [k](std::size_t x) { return x / k + (x % k != 0); };
  return {up(a.lo), a.hi == unbounded ? unbounded : up(a.hi)};
}
// {x / y : y divides x}: a sound bound of an exact split (y = 0 is never a divisor).
constexpr interval exact_div(interval a, interval b) {
  if (a.is_empty() || b.is_empty() || b.hi == 0) return interval::empty();
  std::size_t b_lo = std::max<std::size_t>(b.lo, 1);
  // A divisor of x >= 1 is at most x, so a non-zero x gives a quotient >= 1.
  std::size_t lo = a.lo == 0           ? 0
                   : b.hi == unbounded ? 1
                                       : std::max<std::size_t>(1, a.lo / b.hi + (a.lo % b.hi != 0));
  std::size_t hi = a.hi == unbounded ? unbounded : a.hi / b_lo;
  return {lo, hi};
}

// Merge (nGraph's Dimension::merge): the extents both intervals allow. Dims that
// must agree are merged; an empty result means they cannot agree (an error for the
// caller, which knows the op and the dims).
constexpr interval intersect(interval a, interval b) {
  if (a.is_empty() || b.is_empty()) return interval::empty();
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}
// The smallest interval containing both.
constexpr interval hull(interval a, interval b) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
// nGraph's Dimension::broadcast_merge, for size-1 broadcasting by position:
//   both may be 1      -> hull (either side may be the one broadcast);
//   only one may be 1  -> the other (if it broadcasts, the result is the other;
//                         if not, the two must agree, which also gives the other);
//   neither may be 1   -> intersect (they must agree).
// dimgraph aligns by tag and never broadcasts a size-1 dim itself; the rule is here
// for importing position-aligned shapes.
constexpr interval broadcast_merge(interval a, interval b) {
  if (a.is_empty() || b.is_empty()) return interval::empty();
  bool a1 = a.contains(std::size_t{1}), b1 = b.contains(std::size_t{1});
  if (a1 && b1) return hull(a, b);
  if (a1) return b;
  if (b1) return a;
  return intersect(a, b);
}

// An interval as text, as messages print it: "[1, 8]", "[4, inf]", "[0, inf]" (dynamic).
// (Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "[" + std::string.)
inline std::string to_string(interval i) {
  std::string out(1, '[');
  out += std::to_string(i.lo);
  out += ", ";
  out += i.is_bounded() ? std::to_string(i.hi) : std::string("inf");
  out += ']';
  return out;
}

}  // namespace dimgraph
