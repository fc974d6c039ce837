// expect: dimgraph: dot: an operand does not have a contracted dim
// errors: 1
// names: Hidden Batch Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

// Contract over a dim one operand lacks.
int main() {
  dg::tensor<float, Batch, Feature> x(dg::extent<Batch>(3));
  dg::tensor<float, Hidden, Feature> w;
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch> y = dg::dot<Hidden>(x, w);
#else
  dg::tensor<float, Batch, Hidden> y = dg::dot<Feature>(x, w);
#endif
  return static_cast<int>(y.size()) - 12;
}
