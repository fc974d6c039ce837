// promote_t, promote_scalar_t, has_promotion_v, is_narrowing_v against PyTorch's tables.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace dg = dimgraph;

namespace {
struct Vocab : dg::dim<"vocab", 1000> {};
struct Label : dg::dim<"label", 10> {};

// The test's own names of the element types (independent of the library's).
template <class T>
std::string code() {
  if constexpr (std::is_same_v<T, bool>) return "b1";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "u64";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else return "?";
}

template <class A, class B>
std::string promoted() {
  if constexpr (dg::has_promotion_v<A, B>) return code<dg::promote_t<A, B>>();
  else return "none";
}
template <class E, class S>
std::string scalar_promoted() {
  if constexpr (dg::has_scalar_promotion_v<E, S>) return code<dg::promote_scalar_t<E, S>>();
  else return "none";
}

// The 8 types PyTorch's promoteTypes covers, in the order of the table below.
using torch_types = std::tuple<bool, std::uint8_t, std::int8_t, std::int16_t, std::int32_t,
                               std::int64_t, float, double>;

// torch.promote_types(row, column), copied from the promoteTypes table in PyTorch's
// c10/core/ScalarType.cpp (rows and columns b1, u1, i1, i2, i4, i8, f4, f8).
const char* const torch_table[8][8] = {
    /*         b1     u8     i8     i16    i32    i64    f32    f64  */
    /* b1  */ {"b1", "u8", "i8", "i16", "i32", "i64", "f32", "f64"},
    /* u8  */ {"u8", "u8", "i16", "i16", "i32", "i64", "f32", "f64"},
    /* i8  */ {"i8", "i16", "i8", "i16", "i32", "i64", "f32", "f64"},
    /* i16 */ {"i16", "i16", "i16", "i16", "i32", "i64", "f32", "f64"},
    /* i32 */ {"i32", "i32", "i32", "i32", "i32", "i64", "f32", "f64"},
    /* i64 */ {"i64", "i64", "i64", "i64", "i64", "i64", "f32", "f64"},
    /* f32 */ {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64"},
    /* f64 */ {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
};

template <std::size_t I, std::size_t... Js>
void check_torch_row(std::index_sequence<Js...>) {
  using A = std::tuple_element_t<I, torch_types>;
  auto one = [](auto j, std::string got) {
    INFO("promote_t<" << code<A>() << ", column " << j << ">");
    CHECK(got == torch_table[I][j]);
  };
  (one(Js, promoted<A, std::tuple_element_t<Js, torch_types>>()), ...);
}
template <std::size_t... Is>
void check_torch_table(std::index_sequence<Is...>) {
  (check_torch_row<Is>(std::make_index_sequence<8>{}), ...);
}
}  // namespace

TEST_CASE("promote_t: all 64 ordered pairs of PyTorch's types match torch.promote_types") {
  check_torch_table(std::make_index_sequence<8>{});
}

TEST_CASE("promote_t: a type promotes with itself to itself, including index and long long") {
  static_assert(std::is_same_v<dg::promote_t<long long, long long>, long long>);
  static_assert(
      std::is_same_v<dg::promote_t<dg::index<Vocab>, dg::index<Vocab>>, dg::index<Vocab>>);
  static_assert(std::is_same_v<dg::promote_t<std::uint64_t, std::uint64_t>, std::uint64_t>);
  // Equal width and signedness under two names promotes as the fixed-width type.
  static_assert(std::is_same_v<dg::promote_t<long long, std::int32_t>, std::int64_t>);
  static_assert(std::is_same_v<dg::promote_t<unsigned long long, bool>, std::uint64_t>);
}

TEST_CASE("promote_t: uint16, uint32, uint64 follow the documented extension") {
  // unsigned with unsigned: the wider
  CHECK(promoted<std::uint8_t, std::uint16_t>() == "u16");
  CHECK(promoted<std::uint16_t, std::uint32_t>() == "u32");
  CHECK(promoted<std::uint32_t, std::uint8_t>() == "u32");
  CHECK(promoted<std::uint64_t, std::uint16_t>() == "u64");
  // with bool: the unsigned type; with floating point: the floating type
  CHECK(promoted<bool, std::uint16_t>() == "u16");
  CHECK(promoted<std::uint64_t, bool>() == "u64");
  CHECK(promoted<std::uint16_t, float>() == "f32");
  CHECK(promoted<std::uint32_t, double>() == "f64");
  CHECK(promoted<float, std::uint64_t>() == "f32");
  // u_n with i_m: the smallest signed type holding both ranges
  CHECK(promoted<std::uint16_t, std::int8_t>() == "i32");
  CHECK(promoted<std::int16_t, std::uint16_t>() == "i32");
  CHECK(promoted<std::uint16_t, std::int32_t>() == "i32");
  CHECK(promoted<std::uint16_t, std::int64_t>() == "i64");
  CHECK(promoted<std::uint32_t, std::int8_t>() == "i64");
  CHECK(promoted<std::int32_t, std::uint32_t>() == "i64");
  CHECK(promoted<std::uint32_t, std::int64_t>() == "i64");
  // u64 with any signed integer: none
  CHECK(promoted<std::uint64_t, std::int8_t>() == "none");
  CHECK(promoted<std::int16_t, std::uint64_t>() == "none");
  CHECK(promoted<std::uint64_t, std::int32_t>() == "none");
  CHECK(promoted<std::int64_t, std::uint64_t>() == "none");
  static_assert(!dg::has_promotion_v<std::uint64_t, std::int64_t>);
}

TEST_CASE("promote_t: dg::index<D> promotes only with the same dg::index<D>") {
  static_assert(!dg::has_promotion_v<dg::index<Vocab>, float>);
  static_assert(!dg::has_promotion_v<float, dg::index<Vocab>>);
  static_assert(!dg::has_promotion_v<dg::index<Vocab>, std::int64_t>);
  static_assert(!dg::has_promotion_v<dg::index<Vocab>, bool>);
  static_assert(!dg::has_promotion_v<dg::index<Vocab>, dg::index<Label>>);
  static_assert(dg::has_promotion_v<dg::index<Vocab>, dg::index<Vocab>>);
  CHECK(promoted<dg::index<Vocab>, std::int32_t>() == "none");
}

TEST_CASE("promote_t: has no promotion for non-element types") {
  static_assert(!dg::has_promotion_v<char, int>);
  static_assert(!dg::has_promotion_v<long double, double>);
  static_assert(!dg::has_promotion_v<std::string, float>);
}

TEST_CASE("promote_scalar_t: a C++ scalar is a wrapped number") {
  // Rows: the tensor's type; columns: the scalar's type (bool, int, long, float, double).
  // PyTorch: a scalar of the tensor's category or lower keeps the tensor's type; an
  // integer scalar with a bool tensor gives int64; a floating scalar with a bool or
  // integer tensor gives float32 (the default dtype).
  auto row = [](std::string b, std::string i, std::string l, std::string f, std::string d) {
    return std::make_tuple(b, i, l, f, d);
  };
  CHECK(std::make_tuple(scalar_promoted<bool, bool>(), scalar_promoted<bool, int>(),
                        scalar_promoted<bool, long>(), scalar_promoted<bool, float>(),
                        scalar_promoted<bool, double>()) == row("b1", "i64", "i64", "f32", "f32"));
  CHECK(std::make_tuple(
            scalar_promoted<std::uint8_t, bool>(), scalar_promoted<std::uint8_t, int>(),
            scalar_promoted<std::uint8_t, long>(), scalar_promoted<std::uint8_t, float>(),
            scalar_promoted<std::uint8_t, double>()) == row("u8", "u8", "u8", "f32", "f32"));
  CHECK(std::make_tuple(scalar_promoted<std::int8_t, bool>(), scalar_promoted<std::int8_t, int>(),
                        scalar_promoted<std::int8_t, long>(), scalar_promoted<std::int8_t, float>(),
                        scalar_promoted<std::int8_t, double>()) ==
        row("i8", "i8", "i8", "f32", "f32"));
  CHECK(std::make_tuple(
            scalar_promoted<std::int16_t, bool>(), scalar_promoted<std::int16_t, int>(),
            scalar_promoted<std::int16_t, long>(), scalar_promoted<std::int16_t, float>(),
            scalar_promoted<std::int16_t, double>()) == row("i16", "i16", "i16", "f32", "f32"));
  CHECK(std::make_tuple(
            scalar_promoted<std::int32_t, bool>(), scalar_promoted<std::int32_t, int>(),
            scalar_promoted<std::int32_t, long>(), scalar_promoted<std::int32_t, float>(),
            scalar_promoted<std::int32_t, double>()) == row("i32", "i32", "i32", "f32", "f32"));
  CHECK(std::make_tuple(
            scalar_promoted<std::int64_t, bool>(), scalar_promoted<std::int64_t, int>(),
            scalar_promoted<std::int64_t, long>(), scalar_promoted<std::int64_t, float>(),
            scalar_promoted<std::int64_t, double>()) == row("i64", "i64", "i64", "f32", "f32"));
  CHECK(std::make_tuple(scalar_promoted<float, bool>(), scalar_promoted<float, int>(),
                        scalar_promoted<float, long>(), scalar_promoted<float, float>(),
                        scalar_promoted<float, double>()) ==
        row("f32", "f32", "f32", "f32", "f32"));
  CHECK(std::make_tuple(scalar_promoted<double, bool>(), scalar_promoted<double, int>(),
                        scalar_promoted<double, long>(), scalar_promoted<double, float>(),
                        scalar_promoted<double, double>()) ==
        row("f64", "f64", "f64", "f64", "f64"));
  // The unsigned extension behaves the same way.
  CHECK(scalar_promoted<std::uint16_t, int>() == "u16");
  CHECK(scalar_promoted<std::uint32_t, long long>() == "u32");
  CHECK(scalar_promoted<std::uint64_t, int>() == "u64");
  CHECK(scalar_promoted<std::uint64_t, double>() == "f32");
}

TEST_CASE("promote_scalar_t: dg::index<D> combines only with an dg::index<D> scalar") {
  static_assert(
      std::is_same_v<dg::promote_scalar_t<dg::index<Vocab>, dg::index<Vocab>>, dg::index<Vocab>>);
  static_assert(!dg::has_scalar_promotion_v<dg::index<Vocab>, int>);
  static_assert(!dg::has_scalar_promotion_v<dg::index<Vocab>, double>);
  static_assert(!dg::has_scalar_promotion_v<float, dg::index<Vocab>>);
  static_assert(!dg::has_scalar_promotion_v<dg::index<Vocab>, dg::index<Label>>);
  static_assert(!dg::has_scalar_promotion_v<float, char>);
}

TEST_CASE("is_narrowing_v: writing Src into Dst needs a cast exactly when promotion leaves Dst") {
  // widening or same: fine
  static_assert(!dg::is_narrowing_v<float, double>);
  static_assert(!dg::is_narrowing_v<std::int32_t, std::int64_t>);
  static_assert(!dg::is_narrowing_v<std::int32_t, float>);
  static_assert(!dg::is_narrowing_v<std::int64_t, float>);  // as PyTorch: int64 + f32 -> f32
  static_assert(!dg::is_narrowing_v<bool, std::int8_t>);
  static_assert(!dg::is_narrowing_v<std::uint8_t, std::int16_t>);
  static_assert(!dg::is_narrowing_v<std::uint16_t, std::int32_t>);
  static_assert(!dg::is_narrowing_v<std::uint32_t, std::uint64_t>);
  static_assert(!dg::is_narrowing_v<double, double>);
  static_assert(!dg::is_narrowing_v<long, long long>);
  static_assert(!dg::is_narrowing_v<long long, long>);
  static_assert(!dg::is_narrowing_v<dg::index<Vocab>, dg::index<Vocab>>);
  // narrowing
  static_assert(dg::is_narrowing_v<double, float>);
  static_assert(dg::is_narrowing_v<std::int64_t, std::int32_t>);
  static_assert(dg::is_narrowing_v<float, std::int32_t>);
  static_assert(dg::is_narrowing_v<std::int8_t, bool>);
  static_assert(dg::is_narrowing_v<std::uint8_t, std::int8_t>);
  static_assert(dg::is_narrowing_v<std::int8_t, std::uint8_t>);
  static_assert(dg::is_narrowing_v<std::int16_t, std::uint32_t>);
  // no promotion at all: narrowing (a cast is the only way)
  static_assert(dg::is_narrowing_v<std::uint64_t, std::int64_t>);
  static_assert(dg::is_narrowing_v<std::int64_t, std::uint64_t>);
  static_assert(dg::is_narrowing_v<std::int64_t, dg::index<Vocab>>);
  static_assert(dg::is_narrowing_v<dg::index<Vocab>, std::int64_t>);
  static_assert(dg::is_narrowing_v<dg::index<Vocab>, dg::index<Label>>);
}
