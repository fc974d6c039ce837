// expect: dimgraph: scan: a carry changes type
// errors: 1
// names: Feature
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 4> {};

int main() {
  auto x = dg::zeros<float, Time, Feature>(dg::extent<Time>(3));
  auto h0 = dg::zeros<float, Feature>();
  auto [ys, h_last] = dg::scan<Time>([](const auto& x_t, const auto& h) {
#ifdef DIMGRAPH_FAIL
    return dg::step(dg::carry(dg::cast<double>(h + x_t)), dg::emit(x_t));
#else
    return dg::step(dg::carry(h + x_t), dg::emit(x_t));
#endif
  })(dg::sliced<Time>(x), h0);
  return static_cast<int>(ys.size() + h_last.size()) - 16;
}
