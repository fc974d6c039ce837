// expect: dimgraph: lstm_cell: R must have the dims [c<4> * hidden, hidden]
// errors: 1
// names: Hidden Input
// lines: 11
// A wrong weight inside a scan body: the binding of the cell's state, the ops after it, the
// step, the scan and the structured binding of its results say nothing more.
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Input : dg::dim<"input", 6> {};
struct Hidden : dg::dim<"hidden", 4> {};
using Gate = decltype(dg::c<4> * Hidden{});

int main() {
  dg::tensor<float, Time, dg::batch, Input> xs(dg::extent<Time>(5), dg::extent<dg::batch>(2));
  dg::tensor<float, dg::batch, Hidden> h0(dg::extent<dg::batch>(2)), c0(dg::extent<dg::batch>(2));
  dg::tensor<float, Gate, Input> w;
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Gate, Input> r;  // [c<4> * hidden, input]: W's dims, not R's
#else
  dg::tensor<float, Gate, Hidden> r;
#endif
  dg::tensor<float, Gate> b;
  auto [ys, h, c] = dg::scan<Time>([&](const auto& x, const auto& h_prev, const auto& c_prev) {
    auto [h_next, c_next] = dg::nn::lstm_cell(x, h_prev, c_prev, w, r, b);
    return dg::step(dg::carry(h_next, c_next), dg::emit(dg::relu(h_next) * 0.5f));
  })(dg::sliced<Time>(xs), h0, c0);
  dg::tensor<float, Time, dg::batch, Hidden> all = ys;
  dg::tensor<float, dg::batch, Hidden> last = h + c;
  return static_cast<int>(all.size() + last.size()) - 48;
}
