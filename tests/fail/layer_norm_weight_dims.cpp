// expect: dimgraph: nn::layer_norm: the weight must have exactly the normalized dims
// errors: 1
// names: Feature Hidden
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, dg::batch, Feature, Hidden> x(dg::extent<dg::batch>(2));
#ifdef DIMGRAPH_FAIL
  // Normalizing over feature with a weight over hidden (torch would need normalized_shape to
  // match the weight's shape).
  dg::tensor<float, Hidden> w, b;
#else
  dg::tensor<float, Feature> w, b;
#endif
  (void)dg::nn::layer_norm<Feature>(x, w, b);
  return 0;
}
