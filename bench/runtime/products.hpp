// The product C[m, n] = A[m, k] . B[n, k]^T of the recurrent benchmarks' hand loops (rows of A,
// B and C at strides lda, ldb and ldc, each contiguous along k or n), through the kernel
// dimgraph's dot picks for it (detail::matmul: gemv, dots or the packed blocked GEMM, for the
// widest instruction set the CPU has), so that a hand loop and dimgraph differ only in what
// dimgraph adds around the kernels.
#pragma once

#include <cstddef>

#include <dimgraph.hpp>

namespace bench {

inline void product(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                    std::size_t ldc, std::size_t m, std::size_t n, std::size_t k) {
  using dimgraph::detail::dim_group;
  const auto affine = [](std::size_t size, std::size_t stride) {
    dim_group g;
    g.size = size;
    g.stride = static_cast<std::ptrdiff_t>(stride);
    return g;
  };
  const dim_group am = affine(m, lda), ak = affine(k, 1), bk = affine(k, 1), bn = affine(n, ldb),
                  cm = affine(m, ldc), cn = affine(n, 1);
  const dimgraph::detail::matmul_operands<float> op{a, &am, &ak, b, &bk, &bn, c, &cm, &cn};
  dimgraph::detail::matmul(op, m, n, k);
}

// While it lives, products whose B is within the `count` floats at w, in a loop of `steps`
// iterations, run over a copy of B packed once (what dimgraph's hoisting scan does for the
// weights its body multiplies by a carry): a hand loop with the same kernels and the same
// packing.
class packed_weights {
 public:
  packed_weights(const float* w, std::size_t count, std::size_t steps) : scope_(cache_) {
    cache_.add_constant(reinterpret_cast<const char*>(w), reinterpret_cast<const char*>(w + count));
    cache_.expect_uses(steps);
  }

 private:
  dimgraph::detail::weight_cache cache_;
  dimgraph::detail::weight_cache_scope scope_;
};

}  // namespace bench
