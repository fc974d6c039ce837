// expect: dimgraph: graph: an argument's element type or dims differ from its input's
// errors: 1
// names: Time Hidden Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 8> {};

int main() {
  auto g = dg::trace([](const auto& x) { return dg::exp(x); }, dg::input<float, Time, Feature>{});
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Time, Hidden> x(dg::extent<Time>(3));
#else
  dg::tensor<float, Feature, Time> x(dg::extent<Time>(3));
#endif
  auto y = g(x);
  (void)y;
  return 0;
}
