// expect: dimgraph: rename: the dims have different static sizes
// errors: 1
// names: Feature Hidden
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};
struct Channels : dg::dim<"channels", 8> {};

int main() {
  dg::tensor<float, Feature> x;
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Hidden> y = dg::rename<Feature, Hidden>(x);
#else
  dg::tensor<float, Channels> y = dg::rename<Feature, Channels>(x);
#endif
  return static_cast<int>(y.size()) - 8;
}
