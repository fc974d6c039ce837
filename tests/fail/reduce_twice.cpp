// expect: dimgraph: max: a dim is reduced twice
// errors: 1
// names: Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};

int main() {
  dg::tensor<float, Time, Feature> x(dg::extent<Time>(3));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float> y = dg::max<Feature, Feature>(x);
#else
  dg::tensor<float> y = dg::max<Feature, Time>(x);
#endif
  return static_cast<int>(y.size()) - 1;
}
