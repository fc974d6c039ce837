// expect: dimgraph: add: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Batch Time Feature Hidden
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, Batch, Time, Feature> x(dg::extent<Batch>(2), dg::extent<Time>(3));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch, Time, Hidden> y(dg::extent<Batch>(2), dg::extent<Time>(3));
#else
  dg::tensor<float, Batch, Time, Feature> y(dg::extent<Batch>(2), dg::extent<Time>(3));
#endif
  auto z = dg::eval(x + y);
  return static_cast<int>(z.size()) - 48;
}
