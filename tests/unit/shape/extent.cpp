// runtime_size: extents of derived dims from the extents of their tags.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Time : dg::dim<"time"> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Feat : dg::dim<"feat", 6> {};
struct Heads : dg::dim<"heads"> {};

// Extents by tag name; a static tag must never be asked.
struct extents {
  std::map<std::string_view, std::size_t> by_name;
  mutable int asked_static = 0;
  template <class T>
  std::size_t operator()(std::type_identity<T>) const {
    if (dg::is_static_v<T>) ++asked_static;
    return by_name.at(T::name);
  }
};

std::string message_of(auto f) {
  try {
    f();
  } catch (const dg::shape_error& e) {
    return e.what();
  }
  return "no exception";
}
}  // namespace

TEST_CASE("runtime_size: sums, products and windows use the tags' extents") {
  extents e{{{"time", 25}, {"beam", 3}, {"heads", 4}}};
  CHECK(dg::runtime_size<Time>(e) == 25);
  CHECK(dg::runtime_size<Feat>(e) == 6);
  CHECK(dg::runtime_size<decltype(dg::c<2> + Time{} + dg::c<2>)>(e) == 29);
  CHECK(dg::runtime_size<decltype(Beam{} * Feat{})>(e) == 18);
  CHECK(dg::runtime_size<decltype((Time{} + Beam{}) * Feat{})>(e) == 28 * 6);
  CHECK(dg::runtime_size<decltype(dg::ceildiv(Time{}, dg::c<4>))>(e) == 7);
  CHECK(dg::runtime_size<decltype(dg::floordiv(Time{}, dg::c<4>))>(e) == 6);
  CHECK(dg::runtime_size<decltype(Time{} - Beam{})>(e) == 22);
  CHECK(dg::runtime_size<decltype(dg::sub_left(dg::c<5>, Time{}))>(e) == 20);
  CHECK(e.asked_static == 0);
}

TEST_CASE("runtime_size: a dynamic split divides or throws shape_error naming the dims") {
  extents e{{{"time", 24}, {"heads", 4}}};
  CHECK(dg::runtime_size<decltype(Time{} / Heads{})>(e) == 6);
  CHECK(dg::runtime_size<decltype(dg::div_left(Heads{}, Time{}))>(e) == 6);
  e.by_name["heads"] = 5;
  const std::string msg =
      message_of([&] { (void)dg::runtime_size<decltype(Time{} / Heads{})>(e); });
  CHECK(msg ==
        "dimgraph: split: dim 'time/heads': extent 24 of 'time' is not divisible by extent 5 of "
        "'heads'");
  e.by_name["heads"] = 0;
  CHECK_THROWS_AS((void)dg::runtime_size<decltype(Time{} / Heads{})>(e), dg::shape_error);
}

TEST_CASE("runtime_size: removing more than the dim has throws shape_error") {
  extents e{{{"time", 3}}};
  const std::string msg =
      message_of([&] { (void)dg::runtime_size<decltype(Time{} - dg::c<5>)>(e); });
  CHECK(msg == "dimgraph: sub: dim 'time-5': extent 3 of 'time' is smaller than extent 5 of '5'");
  static_assert(std::is_base_of_v<dg::error, dg::shape_error>);
  static_assert(std::is_base_of_v<dg::error, dg::index_error>);
  static_assert(std::is_base_of_v<dg::error, dg::overlap_error>);
}
