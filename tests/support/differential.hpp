// What the randomized differential tests share: a seeded generator, random extents, fills
// and slice bounds, and Python's slice rule written out independently of dimgraph's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <dimgraph.hpp>

namespace support {

// SplitMix64: the same numbers on every platform and standard library (unlike the
// <random> distributions), so a failing case reproduces from its seed.
class generator {
 public:
  explicit generator(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  // Uniform in [lo, hi].
  long between(long lo, long hi) {
    return lo + static_cast<long>(below(static_cast<std::size_t>(hi - lo + 1)));
  }
  bool coin() { return (next() & 1) != 0; }
  // An extent, 0 and 1 among the likely ones.
  std::size_t extent(std::size_t most = 5) { return below(most + 1); }

 private:
  std::uint64_t state_;
};

// Every element of a tensor (row-major, contiguous) set to a small integer in [lo, hi], so
// that sums and products in float are exact.
template <class Tensor>
void fill(Tensor& t, generator& r, long lo = -4, long hi = 4) {
  using value = typename Tensor::value_type;
  for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<value>(r.between(lo, hi));
}

// One slice bound or none (Python's None).
using bound = std::optional<long>;

// Python's range(*slice(start, stop, step).indices(n)): the positions a slice selects.
inline std::vector<std::size_t> python_slice(std::size_t n, bound start, bound stop, long step) {
  const long len = static_cast<long>(n);
  auto clamp = [&](bound b, long if_none) {
    if (!b) return if_none;
    long v = *b;
    if (v < 0) {
      v += len;
      if (v < 0) v = step < 0 ? -1 : 0;
    } else if (v >= len) {
      v = step < 0 ? len - 1 : len;
    }
    return v;
  };
  const long first = clamp(start, step < 0 ? len - 1 : 0);
  const long last = clamp(stop, step < 0 ? -1 : len);
  std::vector<std::size_t> out;
  for (long i = first; step > 0 ? i < last : i > last; i += step)
    out.push_back(static_cast<std::size_t>(i));
  return out;
}

// Random slice bounds over an extent n: indices inside and beyond both ends, negative ones,
// none; steps of either sign up to 3.
struct slice_bounds {
  bound start, stop;
  long step = 1;
  std::string text() const {
    auto b = [](bound v) { return v ? std::to_string(*v) : std::string("none"); };
    return "[" + b(start) + ":" + b(stop) + ":" + std::to_string(step) + "]";
  }
};
// A bound as dimgraph takes it.
inline dimgraph::slice_index slice_arg(bound b) {
  return b ? dimgraph::slice_index(*b) : dimgraph::slice_index(dimgraph::none);
}

inline slice_bounds random_slice(generator& r, std::size_t n) {
  const long len = static_cast<long>(n);
  auto one = [&]() -> bound {
    if (r.below(4) == 0) return std::nullopt;
    return r.between(-len - 2, len + 2);
  };
  slice_bounds s;
  s.start = one();
  s.stop = one();
  do s.step = r.between(-3, 3);
  while (s.step == 0);
  return s;
}

}  // namespace support
