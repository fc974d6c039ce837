// expect: dimgraph: lstm_cell: the fused W must have the dims [c<4> * hidden, input + hidden]
// errors: 1
// names: Input Hidden
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Input : dg::dim<"input", 6> {};
struct Hidden : dg::dim<"hidden", 4> {};
using Gate = decltype(dg::c<4> * Hidden{});

int main() {
  dg::tensor<float, dg::batch, Input> x(dg::extent<dg::batch>(1));
  dg::tensor<float, dg::batch, Hidden> h(dg::extent<dg::batch>(1)), c(dg::extent<dg::batch>(1));
  dg::tensor<float, Gate> b;
#ifdef DIMGRAPH_FAIL
  // The fused weights' columns are hidden + input: concat(x, h) is input + hidden.
  dg::tensor<float, Gate, decltype(Hidden{} + Input{})> w;
#else
  dg::tensor<float, Gate, decltype(Input{} + Hidden{})> w;
#endif
  (void)dg::nn::lstm_cell(x, h, c, w, b);
  return 0;
}
