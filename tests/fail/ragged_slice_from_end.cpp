// expect: dimgraph: slice: a slice of a ragged dim must start from the front
// errors: 1
// names: Time Batch Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Feature : dg::dim<"feature", 4> {};

int main() {
  dg::tensor<float, Batch, Time, Feature> x(dg::extent<Batch>(3), dg::lengths<Time>({3, 1, 2}));
#ifdef DIMGRAPH_FAIL
  auto s = dg::slice<Time, -2>(x);  // the last two of each row: a different offset per row
#else
  auto s = dg::slice<Time, 1>(x);
#endif
  return static_cast<int>(s.size()) - 24;
}
