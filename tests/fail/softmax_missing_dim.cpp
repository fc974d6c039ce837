// expect: dimgraph: softmax: the tensor has no such dim
// errors: 1
// names: Hidden Time Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, Time, Feature> x(dg::extent<Time>(3));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Time, Feature> y = dg::softmax<Hidden>(x);
#else
  dg::tensor<float, Time, Feature> y = dg::softmax<Feature>(x);
#endif
  return static_cast<int>(y.size()) - 24;
}
