// expect: dimgraph: tensor: lengths are given for a dim that is not ragged
// errors: 1
// names: Batch Time Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time"> {};
struct Steps : dg::dim<"steps", dg::ragged<Batch>> {};
struct Feature : dg::dim<"feature", 4> {};

int main() {
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch, Time, Feature> x(dg::extent<Batch>(2), dg::lengths<Time>({3, 1}));
#else
  dg::tensor<float, Batch, Steps, Feature> x(dg::extent<Batch>(2), dg::lengths<Steps>({3, 1}));
#endif
  return static_cast<int>(x.size()) - 24;
}
