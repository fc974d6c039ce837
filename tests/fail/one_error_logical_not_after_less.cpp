// expect: dimgraph: less: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Batch Feature Hidden
// lines: 8
// Logical ops on the result of the mistake say nothing more.
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
  const auto below = dg::less(x, y);
  dg::tensor<bool, Batch, Feature> m =
      dg::logical_or(dg::logical_not(below), dg::logical_and(below, dg::greater(x, 0.0f)));
  dg::tensor<bool, Batch> any = dg::any<Feature>(m);
  return static_cast<int>(m.size() + any.size()) - 18;
}
