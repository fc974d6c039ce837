// expect: dimgraph: add: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Batch Feature Hidden
// lines: 8
// argmax and argmin of the result of the mistake say nothing more.
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
  dg::tensor<dg::index<Feature>, Batch> hi = dg::argmax<Feature>(x + y);
  dg::tensor<dg::index<Feature>, Batch> lo = dg::argmin<Feature>(x + y);
  return static_cast<int>(hi.size() + lo.size()) - 4;
}
