// expect: dimgraph: scan: the sliced input has no such dim
// errors: 1
// names: Hidden Time Feature
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 4> {};
struct Hidden : dg::dim<"hidden", 2> {};

int main() {
  auto x = dg::zeros<float, Time, Feature>(dg::extent<Time>(3));
#ifdef DIMGRAPH_FAIL
  auto [ys] = dg::scan<Hidden>([](const auto& x_t) { return dg::step(dg::emit(x_t)); })(
      dg::sliced<Hidden>(x));
#else
  auto [ys] =
      dg::scan<Time>([](const auto& x_t) { return dg::step(dg::emit(x_t)); })(dg::sliced<Time>(x));
#endif
  return static_cast<int>(ys.size()) - 12;
}
