// expect: dimgraph: slice: the tensor has no such dim
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
  dg::tensor<float, Time, dg::slice_dim_t<Hidden, 1, -1>> y = dg::slice<Hidden, 1, -1>(x);
#else
  dg::tensor<float, Time, dg::slice_dim_t<Feature, 1, -1>> y = dg::slice<Feature, 1, -1>(x);
#endif
  return static_cast<int>(y.size()) - 18;
}
