// expect: dimgraph: permute: the tensor is a temporary and the view would dangle
// errors: 1
// names: Feature Time
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};

dg::tensor<float, Time, Feature> make() {
  return dg::tensor<float, Time, Feature>(dg::extent<Time>(3));
}

int main() {
#ifdef DIMGRAPH_FAIL
  auto v = dg::permute<Feature, Time>(make());
#else
  auto x = make();
  auto v = dg::permute<Feature, Time>(x);
#endif
  return static_cast<int>(v.size()) - 24;
}
