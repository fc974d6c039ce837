// expect: dimgraph: add: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Batch Feature Hidden
// lines: 8
// A sum over the result of the mistake says nothing more.
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, Batch, Feature> x(dg::extent<Batch>(2));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch, Hidden> y(dg::extent<Batch>(2));
#else
  dg::tensor<float, Batch, Feature> y(dg::extent<Batch>(2));
#endif
  dg::tensor<float, Batch> s = dg::sum<Feature>(x + y);
  return static_cast<int>(s.size()) - 2;
}
