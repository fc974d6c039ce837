// Element types: the element concept, categories, and dg::index<D>.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <compare>
#include <cstdint>
#include <sstream>
#include <type_traits>

namespace dg = dimgraph;

namespace {
struct Vocab : dg::dim<"vocab", 1000> {};
struct Label : dg::dim<"label", 10> {};

template <class T>
concept has_index_dim = requires { typename dg::index_dim_t<T>; };
template <class T>
concept addable = requires(T x) { x + x; };
}  // namespace

TEST_CASE("element: exactly bool, 8-64-bit integers, float, double and index<D>") {
  static_assert(dg::element<bool>);
  static_assert(dg::element<std::int8_t> && dg::element<std::int16_t> &&
                dg::element<std::int32_t> && dg::element<std::int64_t>);
  static_assert(dg::element<std::uint8_t> && dg::element<std::uint16_t> &&
                dg::element<std::uint32_t> && dg::element<std::uint64_t>);
  static_assert(dg::element<long long> && dg::element<unsigned long long>);
  static_assert(dg::element<float> && dg::element<double>);
  static_assert(dg::element<dg::index<Vocab>>);
  // Characters, long double, cv-qualified and non-arithmetic types are not elements.
  static_assert(!dg::element<char> && !dg::element<wchar_t> && !dg::element<char8_t> &&
                !dg::element<char16_t> && !dg::element<char32_t>);
  static_assert(!dg::element<long double>);
  static_assert(!dg::element<const float> && !dg::element<float&>);
  static_assert(!dg::element<int*> && !dg::element<Vocab>);
}

TEST_CASE("element: categories order bool < integral < floating, index is apart") {
  static_assert(dg::element_category_v<bool> == dg::element_category::boolean);
  static_assert(dg::element_category_v<std::uint8_t> == dg::element_category::integral);
  static_assert(dg::element_category_v<std::int64_t> == dg::element_category::integral);
  static_assert(dg::element_category_v<float> == dg::element_category::floating);
  static_assert(dg::element_category_v<double> == dg::element_category::floating);
  static_assert(dg::element_category_v<dg::index<Vocab>> == dg::element_category::index);
  static_assert(dg::element_category::boolean < dg::element_category::integral &&
                dg::element_category::integral < dg::element_category::floating);
}

TEST_CASE("index: traits name the dim") {
  static_assert(dg::is_index_v<dg::index<Vocab>> && dg::is_index_v<const dg::index<Vocab>>);
  static_assert(!dg::is_index_v<std::int64_t> && !dg::is_index_v<Vocab>);
  static_assert(std::is_same_v<dg::index_dim_t<dg::index<Vocab>>, Vocab>);
  static_assert(std::is_same_v<dg::index_dim_t<const dg::index<Label>>, Label>);
  static_assert(!has_index_dim<int> && has_index_dim<dg::index<Vocab>>);
}

TEST_CASE("index: explicit from integers only, 8 bytes, trivially copyable") {
  static_assert(std::is_constructible_v<dg::index<Vocab>, int>);
  static_assert(std::is_constructible_v<dg::index<Vocab>, std::uint64_t>);
  static_assert(!std::is_convertible_v<int, dg::index<Vocab>>);
  static_assert(!std::is_constructible_v<dg::index<Vocab>, double>);
  static_assert(!std::is_constructible_v<dg::index<Vocab>, bool>);
  static_assert(!std::is_constructible_v<dg::index<Vocab>, dg::index<Label>>);
  static_assert(!std::is_convertible_v<dg::index<Vocab>, std::int64_t>);
  static_assert(sizeof(dg::index<Vocab>) == 8);
  static_assert(std::is_trivially_copyable_v<dg::index<Vocab>>);
  constexpr dg::index<Vocab> i(42);
  static_assert(i.value() == 42);
  CHECK(dg::index<Vocab>().value() == 0);
  CHECK(dg::index<Vocab>{}.value() == 0);
  CHECK(dg::index<Vocab>(-3).value() == -3);
}

TEST_CASE("index: compares with the same index type only") {
  dg::index<Vocab> a(3), b(7), c(3);
  CHECK(a == c);
  CHECK(a != b);
  CHECK(a < b);
  CHECK(b > a);
  CHECK(a <= c);
  CHECK((a <=> b) == std::strong_ordering::less);
  static_assert(!std::equality_comparable_with<dg::index<Vocab>, dg::index<Label>>);
  static_assert(!std::equality_comparable_with<dg::index<Vocab>, int>);
  static_assert(!addable<dg::index<Vocab>>);
}

TEST_CASE("index: prints the integer") {
  std::ostringstream os;
  os << dg::index<Vocab>(17) << ' ' << dg::index<Label>(-2);
  CHECK(os.str() == "17 -2");
}
