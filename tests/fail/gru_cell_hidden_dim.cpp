// expect: dimgraph: gru_cell: h must have exactly one dim that x lacks (the hidden dim)
// errors: 1
// names: Input Layer Hidden
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Input : dg::dim<"input", 6> {};
struct Hidden : dg::dim<"hidden", 4> {};
struct Layer : dg::dim<"layer", 2> {};
using Gate = decltype(dg::c<3> * Hidden{});

int main() {
  dg::tensor<float, dg::batch, Input> x(dg::extent<dg::batch>(2));
  dg::tensor<float, Gate, Input> w;
  dg::tensor<float, Gate, Hidden> r;
  dg::tensor<float, Gate> b;
#ifdef DIMGRAPH_FAIL
  // h has two dims of its own (hidden and layer): which one is the hidden dim?
  dg::tensor<float, dg::batch, Layer, Hidden> h(dg::extent<dg::batch>(2));
#else
  dg::tensor<float, dg::batch, Hidden> h(dg::extent<dg::batch>(2));
#endif
  (void)dg::nn::gru_cell(x, h, w, r, b, b);
  return 0;
}
