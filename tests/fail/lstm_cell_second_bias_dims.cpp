// expect: dimgraph: lstm_cell: b_hh must have the one dim c<4> * hidden
// errors: 1
// names: Hidden
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Input : dg::dim<"input", 6> {};
struct Hidden : dg::dim<"hidden", 4> {};
using Gate = decltype(dg::c<4> * Hidden{});

int main() {
  dg::tensor<float, dg::batch, Input> x(dg::extent<dg::batch>(1));
  dg::tensor<float, dg::batch, Hidden> h(dg::extent<dg::batch>(1)), c(dg::extent<dg::batch>(1));
  dg::tensor<float, Gate, Input> w;
  dg::tensor<float, Gate, Hidden> r;
  dg::tensor<float, Gate> b_ih;
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Hidden> b_hh;  // one gate's worth, not four
#else
  dg::tensor<float, Gate> b_hh;
#endif
  (void)dg::nn::lstm_cell(x, h, c, w, r, b_ih, b_hh);
  return 0;
}
