// detail::mt19937_64 (dg::uniform's engine) gives the standard's mt19937_64 sequence: the
// 10000th output from the default seed that [rand.predef] requires, and std::mt19937_64's
// outputs for several seeds across several twists of the state.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <random>

#include <dimgraph.hpp>

TEST_CASE("mt19937_64: the standard's 10000th output from the default seed") {
  dimgraph::detail::mt19937_64 gen;
  std::uint64_t v = 0;
  for (int i = 0; i < 10000; ++i) v = gen();
  CHECK(v == 9981545732273789042ull);
}

TEST_CASE("mt19937_64: the same outputs as std::mt19937_64 for any seed") {
  for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5489},
                                   std::uint64_t{0x123456789abcdefull}, ~std::uint64_t{0}}) {
    CAPTURE(seed);
    dimgraph::detail::mt19937_64 ours(seed);
    std::mt19937_64 reference(seed);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < 5 * 312 + 7; ++i) differ += ours() != reference() ? 1u : 0u;
    CHECK(differ == 0);
  }
}
