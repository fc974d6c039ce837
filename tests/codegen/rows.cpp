// Row kernels (softmax, reductions) whose machine code is checked by
// cmake/run_codegen_check.cmake under the loop rule: their set-up allocates the result, but
// the loops over a row hold packed SIMD float instructions (the vectorised exp included) and
// no call. A reduction runs out of line, in code shared by the reductions of one input type:
// sum_kernel's vertical sum in reduce_block, its across path (a reduced inner dim) in
// accumulate_strided.
// codegen: softmax_kernel *reduce_block<dimgraph::detail::fn::sum_reduce,*
// codegen: *accumulate_strided<dimgraph::detail::fn::sum_reduce,*

#include <dimgraph.hpp>

namespace dg = dimgraph;

struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature"> {};

extern "C" {

// W4b: softmax over the inner dim, run-time dims.
DIMGRAPH_NOINLINE void softmax_kernel(dg::tensor<float, Batch, Time, Feature>& out,
                                      const dg::tensor<float, Batch, Time, Feature>& x) {
  out = dg::softmax<Feature>(x);
}

// W4a: a sum over a non-inner dim, run-time dims.
DIMGRAPH_NOINLINE void sum_kernel(dg::tensor<float, Batch, Feature>& out,
                                  const dg::tensor<float, Batch, Time, Feature>& x) {
  out = dg::sum<Time>(x);
}

}  // extern "C"
