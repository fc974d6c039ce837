// Factories: zeros, ones, full, iota, uniform (values, shapes, errors, portable random values).
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Feat : dg::dim<"feat", 3> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Rows : dg::dim<"rows", 4> {};
struct Vocab : dg::dim<"vocab", 10> {};

template <class E>
std::string message_of(auto f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no exception";
}
bool starts_with(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The first two outputs of std::mt19937_64 seeded with its default seed 5489, and its
// 10000th output (the value the C++ standard requires, [rand.predef]).
constexpr std::uint64_t mt_first = 14514284786278117030ull;
constexpr std::uint64_t mt_second = 4620546740167642908ull;
constexpr std::uint64_t mt_10000th = 9981545732273789042ull;
}  // namespace

TEST_CASE("zeros: every element 0, extents by tag in any order") {
  auto x = dg::zeros<float, Beam, Time, Feat>(dg::extent<Time>(2), dg::extent<Beam>(3));
  static_assert(std::is_same_v<decltype(x), dg::tensor<float, Beam, Time, Feat>>);
  CHECK(x.extent<Beam>() == 3);
  CHECK(x.extent<Time>() == 2);
  CHECK(x.size() == 18);
  for (std::size_t i = 0; i < 18; ++i) CHECK(x.data()[i] == 0.0f);
  auto s = dg::zeros<int, Rows, Feat>();  // static: no extents
  static_assert(std::is_same_v<decltype(s), dg::tensor<int, Rows, Feat>>);
  CHECK(s.size() == 12);
  for (std::size_t i = 0; i < 12; ++i) CHECK(s.data()[i] == 0);
  auto b = dg::zeros<bool, Time>(dg::extent<Time>(3));
  CHECK((!b(0) && !b(1) && !b(2)));
}

TEST_CASE("ones: 1, true, or index 1") {
  auto x = dg::ones<double, Time, Feat>(dg::extent<Time>(2));
  for (std::size_t i = 0; i < 6; ++i) CHECK(x.data()[i] == 1.0);
  auto b = dg::ones<bool, Rows>();
  for (std::size_t i = 0; i < 4; ++i) CHECK(b(i) == true);
  auto k = dg::ones<dg::index<Vocab>, Time>(dg::extent<Time>(2));
  CHECK(k(0).value() == 1);
  CHECK(k(1).value() == 1);
  auto u = dg::ones<std::uint8_t, Feat>();
  CHECK(u(2) == 1);
}

TEST_CASE("full: every element the given value") {
  auto x = dg::full<float, Time, Feat>(0.25f, dg::extent<Time>(3));
  for (std::size_t i = 0; i < 9; ++i) CHECK(x.data()[i] == 0.25f);
  auto y = dg::full<std::int16_t, Rows>(-7);
  for (std::size_t i = 0; i < 4; ++i) CHECK(y(i) == -7);
  auto k = dg::full<dg::index<Vocab>, Time>(dg::index<Vocab>(7), dg::extent<Time>(2));
  CHECK(k(0) == dg::index<Vocab>(7));
  CHECK(k(1) == dg::index<Vocab>(7));
  auto e = dg::full<double, Time>(3.0, dg::extent<Time>(0));
  CHECK(e.size() == 0);
}

TEST_CASE("iota: 0, 1, 2, ... in row-major order of the listed dims") {
  auto x = dg::iota<int, Time, Feat>(dg::extent<Time>(4));
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t f = 0; f < 3; ++f) CHECK(x(t, f) == static_cast<int>(3 * t + f));
  auto y = dg::iota<int, Feat, Time>(dg::extent<Time>(4));
  for (std::size_t f = 0; f < 3; ++f)
    for (std::size_t t = 0; t < 4; ++t) CHECK(y(f, t) == static_cast<int>(4 * f + t));
  auto d = dg::iota<double, Rows>();
  CHECK(d(3) == 3.0);
  auto k = dg::iota<dg::index<Vocab>, Time>(dg::extent<Time>(5));
  for (std::size_t i = 0; i < 5; ++i) CHECK(k(i).value() == static_cast<std::int64_t>(i));
}

TEST_CASE("iota: narrow integer types wrap around") {
  auto x = dg::iota<std::int8_t, Time>(dg::extent<Time>(200));
  CHECK(x(127) == 127);
  CHECK(x(128) == -128);
  CHECK(x(130) == -126);  // 130 - 256
  CHECK(x(199) == -57);   // 199 - 256
  auto u = dg::iota<std::uint8_t, Time>(dg::extent<Time>(300));
  CHECK(u(255) == 255);
  CHECK(u(256) == 0);
  CHECK(u(299) == 43);
}

TEST_CASE("make: an extent outside the dim's interval is a shape_error naming the factory") {
  auto z = message_of<dg::shape_error>([] { (void)dg::zeros<float, Beam>(dg::extent<Beam>(9)); });
  CHECK(starts_with(z, "dimgraph: zeros: "));
  CHECK(contains(z, "'beam'"));
  CHECK(contains(z, "extent 9"));
  auto o = message_of<dg::shape_error>([] { (void)dg::ones<float, Beam>(dg::extent<Beam>(0)); });
  CHECK(starts_with(o, "dimgraph: ones: "));
  auto f = message_of<dg::shape_error>(
      [] { (void)dg::full<float, Time, Feat>(1.0f, dg::extent<Time>(2), dg::extent<Feat>(5)); });
  CHECK(starts_with(f, "dimgraph: full: "));
  CHECK(contains(f, "'feat'"));
  CHECK(contains(f, "extent 5"));
  auto i = message_of<dg::shape_error>([] { (void)dg::iota<int, Beam>(dg::extent<Beam>(10)); });
  CHECK(starts_with(i, "dimgraph: iota: "));
  auto u = message_of<dg::shape_error>(
      [] { (void)dg::uniform<float, Beam>(1, 0.0f, 1.0f, dg::extent<Beam>(11)); });
  CHECK(starts_with(u, "dimgraph: uniform: "));
  CHECK(contains(u, "extent 11"));
}

TEST_CASE("uniform: integers follow the documented mapping of mt19937_64's output") {
  // The full 64-bit range takes each draw as it is.
  auto raw = dg::uniform<std::uint64_t, Time>(5489, 0, std::numeric_limits<std::uint64_t>::max(),
                                              dg::extent<Time>(10000));
  CHECK(raw(0) == mt_first);
  CHECK(raw(1) == mt_second);
  CHECK(raw(9999) == mt_10000th);
  // [lo, hi] with 10 values: draws below 2^64 mod 10 = 6 are rejected (these are not),
  // then lo + draw mod 10.
  auto digits = dg::uniform<int, Time>(5489, 0, 9, dg::extent<Time>(2));
  CHECK(digits(0) == static_cast<int>(mt_first % 10));   // 0
  CHECK(digits(1) == static_cast<int>(mt_second % 10));  // 8
  auto shifted = dg::uniform<std::int64_t, Time>(5489, -5, 4, dg::extent<Time>(2));
  CHECK(shifted(0) == -5);
  CHECK(shifted(1) == 3);
  auto labels = dg::uniform<dg::index<Vocab>, Time>(5489, 0, 9, dg::extent<Time>(2));
  CHECK(labels(0).value() == 0);
  CHECK(labels(1).value() == 8);
  // The full signed range: the draw's bits as two's complement.
  auto any = dg::uniform<std::int64_t, Time>(5489, std::numeric_limits<std::int64_t>::min(),
                                             std::numeric_limits<std::int64_t>::max(),
                                             dg::extent<Time>(1));
  static_assert(mt_first >= std::uint64_t{1} << 63);
  CHECK(any(0) == static_cast<std::int64_t>(mt_first - (std::uint64_t{1} << 63)));  // -2^63 + draw
}

TEST_CASE("uniform: floating point follows the documented mapping of mt19937_64's output") {
  // float: the top 24 bits / 2^24; double: the top 53 bits / 2^53; then lo + (hi - lo) * u.
  auto f = dg::uniform<float, Time>(5489, 0.0f, 1.0f, dg::extent<Time>(2));
  CHECK(f(0) == static_cast<float>(mt_first >> 40) / 16777216.0f);
  CHECK(f(1) == static_cast<float>(mt_second >> 40) / 16777216.0f);
  auto g = dg::uniform<float, Time>(5489, -1.0f, 1.0f, dg::extent<Time>(1));
  CHECK(g(0) == -1.0f + 2.0f * (static_cast<float>(mt_first >> 40) / 16777216.0f));
  auto d = dg::uniform<double, Time>(5489, 0.0, 1.0, dg::extent<Time>(2));
  CHECK(d(0) == static_cast<double>(mt_first >> 11) / 9007199254740992.0);
  CHECK(d(1) == static_cast<double>(mt_second >> 11) / 9007199254740992.0);
}

TEST_CASE("uniform: the same seed gives the same tensor, another seed another") {
  auto a = dg::uniform<float, Time, Feat>(7, -2.0f, 2.0f, dg::extent<Time>(50));
  auto b = dg::uniform<float, Time, Feat>(7, -2.0f, 2.0f, dg::extent<Time>(50));
  auto c = dg::uniform<float, Time, Feat>(8, -2.0f, 2.0f, dg::extent<Time>(50));
  std::size_t same = 0, same_other_seed = 0;
  for (std::size_t i = 0; i < 150; ++i) {
    same += a.data()[i] == b.data()[i];
    same_other_seed += a.data()[i] == c.data()[i];
  }
  CHECK(same == 150);
  CHECK(same_other_seed < 5);
}

TEST_CASE("uniform: floats stay in lo..hi exclusive, integers in lo..hi inclusive") {
  auto f = dg::uniform<float, Time>(3, 10.0f, 10.5f, dg::extent<Time>(5000));
  float lo = 11, hi = 0;
  for (std::size_t i = 0; i < 5000; ++i) {
    lo = f(i) < lo ? f(i) : lo;
    hi = f(i) > hi ? f(i) : hi;
  }
  CHECK(lo >= 10.0f);
  CHECK(hi < 10.5f);
  CHECK(lo < 10.01f);  // spread over the range
  CHECK(hi > 10.49f);

  auto s = dg::uniform<std::int8_t, Time>(3, -128, 127, dg::extent<Time>(10000));
  std::set<int> seen;
  for (std::size_t i = 0; i < 10000; ++i) seen.insert(s(i));
  CHECK(seen.size() == 256);  // every value of int8 drawn at least once

  auto small = dg::uniform<std::uint16_t, Time>(3, 5, 7, dg::extent<Time>(300));
  std::set<int> few;
  for (std::size_t i = 0; i < 300; ++i) few.insert(small(i));
  CHECK(few == std::set<int>{5, 6, 7});

  auto one = dg::uniform<int, Time>(3, 4, 4, dg::extent<Time>(3));  // lo == hi: a constant
  CHECK((one(0) == 4 && one(1) == 4 && one(2) == 4));

  auto flags = dg::uniform<bool, Time>(3, false, true, dg::extent<Time>(100));
  std::size_t trues = 0;
  for (std::size_t i = 0; i < 100; ++i) trues += flags(i);
  CHECK(trues > 20);
  CHECK(trues < 80);

  auto labels = dg::uniform<dg::index<Vocab>, Rows, Feat>(3, 2, 5);
  for (std::size_t i = 0; i < 12; ++i) {
    CHECK(labels.data()[i].value() >= 2);
    CHECK(labels.data()[i].value() <= 5);
  }
}

TEST_CASE("uniform: an empty or infinite range is a dg::error") {
  auto e1 = message_of<dg::error>(
      [] { (void)dg::uniform<float, Time>(1, 1.0f, 1.0f, dg::extent<Time>(2)); });
  CHECK(starts_with(e1, "dimgraph: uniform: "));
  auto e2 = message_of<dg::error>(
      [] { (void)dg::uniform<double, Time>(1, 2.0, 1.0, dg::extent<Time>(2)); });
  CHECK(starts_with(e2, "dimgraph: uniform: "));
  auto e3 = message_of<dg::error>([] {
    (void)dg::uniform<float, Time>(1, -std::numeric_limits<float>::infinity(), 0.0f,
                                   dg::extent<Time>(2));
  });
  CHECK(starts_with(e3, "dimgraph: uniform: "));
  auto e4 = message_of<dg::error>([] {  // hi - lo overflows to infinity
    (void)dg::uniform<float, Time>(1, std::numeric_limits<float>::lowest(),
                                   std::numeric_limits<float>::max(), dg::extent<Time>(2));
  });
  CHECK(starts_with(e4, "dimgraph: uniform: "));
  auto e5 =
      message_of<dg::error>([] { (void)dg::uniform<int, Time>(1, 3, 2, dg::extent<Time>(2)); });
  CHECK(starts_with(e5, "dimgraph: uniform: "));
  CHECK(contains(e5, "[3, 2]"));
}
