// dimgraph::interval: every operation checked against brute force over all
// intervals inside [0, 8], plus the unbounded cases.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dg = dimgraph;

namespace {

constexpr std::size_t top = 8;

std::vector<dg::interval> all_intervals() {
  std::vector<dg::interval> out;
  for (std::size_t lo = 0; lo <= top; ++lo)
    for (std::size_t hi = lo; hi <= top; ++hi) out.push_back({lo, hi});
  return out;
}

// The tightest interval holding every value in `values` (empty when none).
dg::interval tightest(const std::vector<std::size_t>& values) {
  if (values.empty()) return dg::interval::empty();
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {*lo, *hi};
}

template <class Op, class Concrete>
void check_binary(Op op, Concrete concrete, bool must_be_tight) {
  for (auto a : all_intervals())
    for (auto b : all_intervals()) {
      std::vector<std::size_t> results;
      for (std::size_t x = a.lo; x <= a.hi; ++x)
        for (std::size_t y = b.lo; y <= b.hi; ++y) concrete(x, y, results);
      dg::interval got = op(a, b);
      CAPTURE(a.lo);
      CAPTURE(a.hi);
      CAPTURE(b.lo);
      CAPTURE(b.hi);
      for (std::size_t r : results) CHECK(got.contains(r));
      if (must_be_tight) CHECK(got == tightest(results));
    }
}

}  // namespace

TEST_CASE("interval: + is sound and tight") {
  check_binary([](auto a, auto b) { return a + b; },
               [](std::size_t x, std::size_t y, auto& out) { out.push_back(x + y); }, true);
}

TEST_CASE("interval: * is sound and tight") {
  check_binary([](auto a, auto b) { return a * b; },
               [](std::size_t x, std::size_t y, auto& out) { out.push_back(x * y); }, true);
}

TEST_CASE("interval: - is the difference clamped at 0, sound and tight") {
  check_binary([](auto a, auto b) { return a - b; },
               [](std::size_t x, std::size_t y, auto& out) { out.push_back(x > y ? x - y : 0); },
               true);
}

TEST_CASE("interval: intersect (merge) is exactly the common extents") {
  check_binary([](auto a, auto b) { return dg::intersect(a, b); },
               [](std::size_t x, std::size_t y, auto& out) {
                 if (x == y) out.push_back(x);
               },
               true);
}

TEST_CASE("interval: hull is the smallest interval holding both") {
  for (auto a : all_intervals())
    for (auto b : all_intervals()) {
      std::vector<std::size_t> members;
      for (std::size_t x = a.lo; x <= a.hi; ++x) members.push_back(x);
      for (std::size_t y = b.lo; y <= b.hi; ++y) members.push_back(y);
      CHECK(dg::hull(a, b) == tightest(members));
    }
}

TEST_CASE("interval: exact division holds every exact quotient") {
  check_binary([](auto a, auto b) { return dg::exact_div(a, b); },
               [](std::size_t x, std::size_t y, auto& out) {
                 if (y != 0 && x % y == 0) out.push_back(x / y);
               },
               false);
}

TEST_CASE("interval: broadcast_merge holds every outcome of size-1 broadcasting") {
  check_binary([](auto a, auto b) { return dg::broadcast_merge(a, b); },
               [](std::size_t x, std::size_t y, auto& out) {
                 if (x == 1) out.push_back(y);
                 else if (y == 1 || x == y) out.push_back(x);
               },
               false);
  // nGraph's documented cases
  CHECK(dg::broadcast_merge({1, 1}, {10, 10}) == dg::interval{10, 10});
  CHECK(dg::broadcast_merge({1, 5}, {10, 15}) == dg::interval{10, 15});
  CHECK(dg::broadcast_merge({0, 4}, {1, 9}) == dg::interval{0, 9});
  CHECK(dg::broadcast_merge({2, 4}, {3, 9}) == dg::interval{3, 4});
  CHECK(dg::broadcast_merge({2, 2}, {3, 3}).is_empty());
}

TEST_CASE("interval: floor and ceil division by a constant are sound and tight") {
  for (std::size_t k = 1; k <= 4; ++k)
    for (auto a : all_intervals()) {
      std::vector<std::size_t> fl, ce;
      for (std::size_t x = a.lo; x <= a.hi; ++x) {
        fl.push_back(x / k);
        ce.push_back((x + k - 1) / k);
      }
      CHECK(dg::floordiv(a, k) == tightest(fl));
      CHECK(dg::ceildiv(a, k) == tightest(ce));
    }
}

TEST_CASE("interval: an unbounded top stays unbounded, and 0 * unbounded is 0") {
  const dg::interval dyn{};
  const dg::interval from3{3, dg::unbounded};
  CHECK(dyn.is_dynamic());
  CHECK((from3 + dg::interval{1, 2}) == dg::interval{4, dg::unbounded});
  CHECK((from3 * dg::interval{0, 0}) == dg::interval{0, 0});
  CHECK((from3 * dg::interval{2, 2}) == dg::interval{6, dg::unbounded});
  CHECK((dg::interval{5, 9} - from3) == dg::interval{0, 6});
  CHECK((from3 - dg::interval{1, 1}) == dg::interval{2, dg::unbounded});
  CHECK(dg::intersect(from3, dg::interval{0, 4}) == dg::interval{3, 4});
  CHECK(dg::hull(from3, dg::interval{1, 1}) == dg::interval{1, dg::unbounded});
  CHECK(dg::ceildiv(from3, 2) == dg::interval{2, dg::unbounded});
  CHECK(dg::interval{dg::unbounded - 1, dg::unbounded - 1}.contains(
      dg::interval{dg::unbounded - 1, dg::unbounded - 1}));
  CHECK((dg::interval{dg::unbounded - 1, dg::unbounded - 1} + dg::interval{5, 5}).hi ==
        dg::unbounded);
  CHECK(!from3.is_bounded());
  CHECK(from3.contains(std::size_t{1000000}));
  CHECK(!from3.contains(std::size_t{2}));
}

TEST_CASE("interval: operations on the empty interval give the empty interval") {
  const auto e = dg::interval::empty();
  const dg::interval a{1, 3};
  CHECK((e + a).is_empty());
  CHECK((a * e).is_empty());
  CHECK((a - e).is_empty());
  CHECK(dg::intersect(a, e).is_empty());
  CHECK(dg::hull(a, e) == a);
  CHECK(a.contains(e));
  CHECK(!e.contains(std::size_t{0}));
}
