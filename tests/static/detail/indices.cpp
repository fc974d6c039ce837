// for_each_index<N> and with_indices<N>: every index once, in order, as a compile-time value.
#include <dimgraph.hpp>

#include <array>
#include <cstddef>
#include <tuple>

namespace dgd = dimgraph::detail;

namespace {

template <std::size_t I>
constexpr std::size_t square() {
  return I * I;
}

// Each index in turn, usable as a template argument.
constexpr std::array<std::size_t, 4> squares = [] {
  std::array<std::size_t, 4> out{};
  std::size_t next = 0;
  dgd::for_each_index<4>([&]<std::size_t I>(dgd::index_constant<I>) { out[next++] = square<I>(); });
  return out;
}();
static_assert(squares == std::array<std::size_t, 4>{0, 1, 4, 9});

// No index: f is not called.
static_assert([] {
  int calls = 0;
  dgd::for_each_index<0>([&](auto) { ++calls; });
  return calls == 0;
}());

// All indices at once; f's result is with_indices' result.
constexpr std::tuple<int, long, char> values{1, 20, 'a'};
static_assert(dgd::with_indices<3>([]<std::size_t... I>(dgd::index_constant<I>...) {
                return (0L + ... + static_cast<long>(std::get<I>(values)));
              }) == 1 + 20 + 'a');
static_assert(dgd::with_indices<0>([](auto... i) { return sizeof...(i); }) == 0);

}  // namespace
