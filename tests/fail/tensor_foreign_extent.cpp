// expect: dimgraph: tensor: an extent is given for a dim the tensor does not have
// errors: 1
// names: Time Beam
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};

int main() {
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Time> x(dg::extent<Time>(3), dg::extent<Beam>(2));
#else
  dg::tensor<float, Time> x(dg::extent<Time>(3));
#endif
  return static_cast<int>(x.size()) - 3;
}
