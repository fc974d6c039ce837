// expect: dimgraph: add: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Batch Feature Hidden
// lines: 8
// A comparison and a where over the result of the mistake (as the condition and as a branch)
// say nothing more.
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
  const auto sum = x + y;
  dg::tensor<float, Batch, Feature> r = dg::where(dg::greater(sum, 0.0f), sum, 0.0f);
  dg::tensor<float, Batch, Feature> s = dg::where(dg::greater(x, 0.0f), x, sum);
  return static_cast<int>(r.size() + s.size()) - 32;
}
