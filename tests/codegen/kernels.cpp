// Element-wise kernels whose machine code is checked by cmake/run_codegen_check.cmake: built
// with -O3 -march=x86-64-v3 and with plain -O2, each function named on the line below must
// contain packed SIMD float instructions and no call (DESIGN §8: an element-wise kernel is the
// hand-written loop, with no calls; math functions are vectorised, never libm calls).
// codegen: w1a_kernel w2_kernel tanh_kernel
//
// The rules differ by compiler (tests/CMakeLists.txt). GCC is held to "no call in the whole
// body" (RULE body): the planner, the extent and overlap checks and the executor are inlined,
// and what is left behind branches — a resize of the destination (assign_resized) and the
// throws — is out of line and cold, so GCC moves those calls to w1a_kernel.cold. Clang 16 has
// no such hot/cold splitting without a profile: the calls to those cold functions (and to
// map_expr's extent check and make_loop_plan, which it declines to inline for three dims)
// stay in the body, before the loops. Clang is therefore held to "no call inside the
// innermost SIMD loop" (RULE loop), which is the part of the contract that costs time.

#include <dimgraph.hpp>

namespace dg = dimgraph;

struct N : dg::dim<"n"> {};
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature"> {};

// extern "C": the names appear as they are in the disassembly.
extern "C" {

// W1: out = a * b + c over one dynamic dim (one fused loop; a multiply-add).
DIMGRAPH_NOINLINE void w1a_kernel(dg::tensor<float, N>& out, const dg::tensor<float, N>& a,
                                  const dg::tensor<float, N>& b, const dg::tensor<float, N>& c) {
  out = a * b + c;
}

// W2: x[Batch, Time, Feature] + bias[Feature], every dim dynamic (bias broadcast by tag).
DIMGRAPH_NOINLINE void w2_kernel(dg::tensor<float, Batch, Time, Feature>& out,
                                 const dg::tensor<float, Batch, Time, Feature>& x,
                                 const dg::tensor<float, Feature>& bias) {
  out = x + bias;
}

// tanh(a * 2 + 1) with run-time dims: the vectorised tanh is inlined into the loop.
DIMGRAPH_NOINLINE void tanh_kernel(dg::tensor<float, Batch, Feature>& out,
                                   const dg::tensor<float, Batch, Feature>& a) {
  out = dg::tanh(a * 2.0f + 1.0f);
}

}  // extern "C"
