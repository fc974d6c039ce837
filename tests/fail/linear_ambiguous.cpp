// expect: dimgraph: linear: x and W share more than one dim, so the feature dim is ambiguous
// errors: 1
// names: Feature Hidden
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};
struct Out : dg::dim<"out", 3> {};

int main() {
  dg::tensor<float, dg::batch, Feature, Hidden> x(dg::extent<dg::batch>(2));
#ifdef DIMGRAPH_FAIL
  // x and W share feature and hidden: which one is the feature dim to contract?
  dg::tensor<float, Hidden, Feature> w;
#else
  dg::tensor<float, Out, Feature> w;
#endif
  (void)dg::nn::linear(x, w);
  return 0;
}
