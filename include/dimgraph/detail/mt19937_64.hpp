// mt19937_64: the 64-bit Mersenne twister of the C++ standard ([rand.eng.mers],
// std::mt19937_64), written out. The standard fixes its parameters and so its output for a
// seed on every platform; <random>, which holds it, is a large header (every distribution),
// and the library uses only this engine (dg::uniform).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace dimgraph::detail {

class mt19937_64 {
 public:
  using result_type = std::uint64_t;

  // Seeded as the standard's seed(value): x[0] = seed, x[i] = f (x[i-1] ^ (x[i-1] >> 62)) + i.
  explicit mt19937_64(std::uint64_t seed = 5489) {
    x_[0] = seed;
    for (std::size_t i = 1; i < n; ++i)
      x_[i] = 6364136223846793005ull * (x_[i - 1] ^ (x_[i - 1] >> 62)) + i;
  }

  // The next output: the next state word, tempered.
  std::uint64_t operator()() {
    if (next_ == n) twist();
    std::uint64_t z = x_[next_++];
    z ^= (z >> 29) & 0x5555555555555555ull;
    z ^= (z << 17) & 0x71d67fffeda60000ull;
    z ^= (z << 37) & 0xfff7eee000000000ull;
    return z ^ (z >> 43);
  }

 private:
  static constexpr std::size_t n = 312, m = 156;

  // The next n state words, in place: the top 33 bits of x[k] and the low 31 of x[k + 1],
  // shifted right, with a xored in when odd, xored into x[k + m].
  void twist() {
    constexpr std::uint64_t upper = ~std::uint64_t{0} << 31, lower = ~upper;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t y = (x_[k] & upper) | (x_[(k + 1) % n] & lower);
      x_[k] = x_[(k + m) % n] ^ (y >> 1) ^ ((y & 1) != 0 ? 0xb5026f5aa96619e9ull : 0);
    }
    next_ = 0;
  }

  std::array<std::uint64_t, n> x_;
  std::size_t next_ = n;
};

}  // namespace dimgraph::detail
