// expect: dimgraph: add: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Batch Feature Hidden
// lines: 8
// A chain of element-wise ops (operators with C++ scalars, written outside namespace dimgraph),
// reductions, a product and an in-place update over the result of the mistake says nothing
// more.
#include <cstdint>

#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, Batch, Feature> x(dg::extent<Batch>(2));
  dg::tensor<float, Hidden, Feature> w;
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch, Hidden> y(dg::extent<Batch>(2));
#else
  dg::tensor<float, Batch, Feature> y(dg::extent<Batch>(2));
#endif
  const auto z = -(2.0f * dg::exp(x + y) - 1.0f) / 3.0f;
  dg::tensor<float> m = dg::mean<Batch>(dg::max<Feature>(z));
  dg::tensor<std::int64_t> n = dg::sum<Batch, Feature>(dg::cast<int>(z));
  dg::tensor<bool> all = dg::all<Batch, Feature>(dg::equal(z, z));
  dg::tensor<float, Batch, Hidden> h = dg::dot<Feature>(z, w);
  x += z;
  return static_cast<int>(m.size() + n.size() + all.size() + h.size() + x.size()) - 27;
}
