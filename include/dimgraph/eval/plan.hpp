// loop_plan: the loop nest of an element-wise assignment (reordered, coalesced).
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "dimgraph/config.hpp"

namespace dimgraph {

// The loops that run an assignment over R dims with N operands (operand 0 is the
// output). Levels are outermost first; the last level is the inner loop. Built the
// way ATen's TensorIterator builds its loops: dims of extent 1 are dropped, outer
// dims are ordered by the output's strides (largest outermost), and neighbouring
// levels are coalesced into one where every operand steps through them as through
// one dim (stride[outer] == stride[inner] * extent[inner]). The inner loop is always
// the output's last dim (the one each operand's inner-stride kind was decided for at
// compile time), extended by coalescing.
template <std::size_t R, std::size_t N>
struct loop_plan {
  std::size_t depth = 0;  // number of levels; 0 when there is nothing to do
  std::array<std::size_t, R> extent{};
  std::array<std::array<std::ptrdiff_t, R>, N> stride{};

  constexpr std::size_t inner_extent() const { return extent[depth - 1]; }
  constexpr std::ptrdiff_t inner_stride(std::size_t op) const { return stride[op][depth - 1]; }
  constexpr std::size_t elements() const {
    std::size_t n = depth ? 1 : 0;
    for (std::size_t k = 0; k < depth; ++k) n *= extent[k];
    return n;
  }
};

namespace detail {

constexpr std::ptrdiff_t magnitude(std::ptrdiff_t s) {
  return s < 0 ? -s : s;
}

// ext: the output's extents; strides[op][d]: operand op's stride along output dim d.
template <std::size_t R, std::size_t N>
DIMGRAPH_ALWAYS_INLINE constexpr loop_plan<R, N> make_loop_plan(
    const std::array<std::size_t, R>& ext,
    const std::array<std::array<std::ptrdiff_t, R>, N>& strides) {
  loop_plan<R, N> p;
  if constexpr (R == 0) {
    return p;  // a rank-0 assignment is one element; the executor handles it
  } else {
    for (std::size_t d = 0; d < R; ++d)
      if (ext[d] == 0) return p;  // nothing to do
    // Outer dims (all but the last), extent-1 dims dropped, ordered by output stride.
    std::array<std::size_t, R> order{};
    std::size_t n_outer = 0;
    for (std::size_t d = 0; d + 1 < R; ++d)
      if (ext[d] != 1) order[n_outer++] = d;
    for (std::size_t i = 1; i < n_outer; ++i)  // stable insertion sort, largest stride first
      for (std::size_t j = i;
           j > 0 && magnitude(strides[0][order[j - 1]]) < magnitude(strides[0][order[j]]); --j) {
        std::size_t t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    order[n_outer] = R - 1;
    const std::size_t levels = n_outer + 1;
    // Coalesce from the inner end outwards.
    std::array<std::size_t, R> e{};
    std::array<std::array<std::ptrdiff_t, R>, N> s{};
    std::size_t out = R;  // filled from the back
    for (std::size_t l = levels; l-- > 0;) {
      const std::size_t d = order[l];
      bool merge = out < R;
      for (std::size_t op = 0; merge && op < N; ++op)
        merge = strides[op][d] == s[op][out] * static_cast<std::ptrdiff_t>(e[out]);
      if (merge) {
        e[out] *= ext[d];
      } else {
        --out;
        e[out] = ext[d];
        for (std::size_t op = 0; op < N; ++op) s[op][out] = strides[op][d];
      }
    }
    p.depth = R - out;
    // Levels move to the front. A fixed trip count, so that this stays a few moves and
    // does not become a call to memcpy in the caller's hot path.
    for (std::size_t k = 0; k < R; ++k) {
      const bool used = k < p.depth;
      const std::size_t from = used ? out + k : 0;
      p.extent[k] = used ? e[from] : 0;
      for (std::size_t op = 0; op < N; ++op) p.stride[op][k] = used ? s[op][from] : 0;
    }
    return p;
  }
}

}  // namespace detail

// The plan as text, for tests and debugging: "2 loops: [4096 x 512]; strides out {512, 1}, in1 {0,
// 1}".
template <std::size_t R, std::size_t N>
std::string to_string(const loop_plan<R, N>& p) {
  std::string s = std::to_string(p.depth) + (p.depth == 1 ? " loop: [" : " loops: [");
  for (std::size_t k = 0; k < p.depth; ++k) s += (k ? " x " : "") + std::to_string(p.extent[k]);
  s += "]; strides";
  for (std::size_t op = 0; op < N; ++op) {
    s += op ? ", in" + std::to_string(op) + " {" : " out {";
    for (std::size_t k = 0; k < p.depth; ++k)
      s += (k ? ", " : "") + std::to_string(p.stride[op][k]);
    s += "}";
  }
  return s;
}

}  // namespace dimgraph
