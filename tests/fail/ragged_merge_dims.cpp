// expect: dimgraph: merge_dims: a ragged dim merges only as the major dim with a static one
// errors: 1
// names: Time Beam Batch Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Beam : dg::dim<"beam"> {};
struct Feature : dg::dim<"feature", 4> {};

int main() {
  dg::tensor<float, Batch, Time, Beam, Feature> x(dg::extent<Batch>(2), dg::lengths<Time>({3, 1}),
                                                  dg::extent<Beam>(2));
#ifdef DIMGRAPH_FAIL
  auto m = dg::merge_dims<Time, Beam>(x);
#else
  auto m = dg::merge_dims<Beam, Feature>(x);
#endif
  return static_cast<int>(m.size()) - 48;
}
