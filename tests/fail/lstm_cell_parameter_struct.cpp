// expect: dimgraph: lstm_cell: a parameter struct must hold W, R and b; W, R, b_ih and b_hh; or the fused W and b
// errors: 1
// names: Input Hidden
// lines: 9
#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>

namespace dg = dimgraph;
struct Input : dg::dim<"input", 6> {};
struct Hidden : dg::dim<"hidden", 4> {};
using Gate = decltype(dg::c<4> * Hidden{});

#ifdef DIMGRAPH_FAIL
// One tensor too many: a projection that belongs to another layer.
struct weights {
  BOOST_HANA_DEFINE_STRUCT(weights, (dg::tensor<float, Gate, Input>, w),
                           (dg::tensor<float, Gate, Hidden>, r), (dg::tensor<float, Gate>, b_ih),
                           (dg::tensor<float, Gate>, b_hh), (dg::tensor<float, Hidden>, proj));
};
#else
struct weights {
  BOOST_HANA_DEFINE_STRUCT(weights, (dg::tensor<float, Gate, Input>, w),
                           (dg::tensor<float, Gate, Hidden>, r), (dg::tensor<float, Gate>, b_ih),
                           (dg::tensor<float, Gate>, b_hh));
};
#endif

int main() {
  dg::tensor<float, dg::batch, Input> x(dg::extent<dg::batch>(1));
  dg::tensor<float, dg::batch, Hidden> h(dg::extent<dg::batch>(1)), c(dg::extent<dg::batch>(1));
  weights p{};
  (void)dg::nn::lstm_cell(x, h, c, p);
  return 0;
}
