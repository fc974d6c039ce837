// expect: dimgraph: slice: the dim is the batch dim of a ragged dim
// errors: 1
// names: Batch Time Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Feature : dg::dim<"feature", 4> {};

int main() {
  dg::tensor<float, Batch, Time, Feature> x(dg::extent<Batch>(3), dg::lengths<Time>({3, 1, 2}));
#ifdef DIMGRAPH_FAIL
  auto s = dg::slice<Batch>(x, 0, 2);
#else
  auto s = dg::slice<Feature>(x, 0, 2);
#endif
  return static_cast<int>(s.size()) - 18;
}
