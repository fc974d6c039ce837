// expect: dimgraph: gru_cell: W must have the dims [c<3> * hidden, input]
// errors: 1
// names: Input Hidden
// lines: 11
// A wrong weight inside a scan body: the layers after it, the step, the scan and the
// structured binding of its results say nothing more.
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Input : dg::dim<"input", 6> {};
struct Hidden : dg::dim<"hidden", 4> {};
struct Out : dg::dim<"out", 3> {};
using Gate = decltype(dg::c<3> * Hidden{});

int main() {
  dg::tensor<float, Time, dg::batch, Input> xs(dg::extent<Time>(5), dg::extent<dg::batch>(2));
  dg::tensor<float, dg::batch, Hidden> h0(dg::extent<dg::batch>(2));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Gate, Hidden> w;  // [c<3> * hidden, hidden]: R's dims, not W's
#else
  dg::tensor<float, Gate, Input> w;
#endif
  dg::tensor<float, Gate, Hidden> r;
  dg::tensor<float, Gate> b;
  dg::tensor<float, Out, Hidden> w_out;
  dg::tensor<float, Out> b_out;
  auto [ys, h] = dg::scan<Time>([&](const auto& x, const auto& h_prev) {
    const auto h_next = dg::nn::gru_cell(x, h_prev, w, r, b, b);
    const auto y = dg::nn::linear(dg::tanh(h_next), w_out, b_out);
    return dg::step(dg::carry(h_next), dg::emit(dg::softmax<Out>(y)));
  })(dg::sliced<Time>(xs), h0);
  dg::tensor<float, dg::batch, Out> total = dg::sum<Time>(ys);
  dg::tensor<float, dg::batch, Hidden> last = h;
  return static_cast<int>(total.size() + last.size()) - 14;
}
