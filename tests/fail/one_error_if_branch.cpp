// expect: dimgraph: sub: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// lines: 11
// names: Batch Feature Hidden
// A mistake inside one branch of if_: the comparison of the branches, the result and the
// structured binding of its outputs say nothing more.
#include <tuple>

#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, Batch, Feature> x(dg::extent<Batch>(2));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch, Hidden> offset(dg::extent<Batch>(2));
#else
  dg::tensor<float, Batch, Feature> offset(dg::extent<Batch>(2));
#endif
  const bool shift = x.size() > 4;
  auto [y, total] = dg::if_(
      shift,
      [&](const auto& v) {
        return std::tuple{dg::eval(v - offset), dg::eval(dg::sum<Feature>(v))};
      },
      [&](const auto& v) {
        return std::tuple{dg::eval(v), dg::eval(dg::sum<Feature>(v))};
      })(x);
  dg::tensor<float, Batch, Feature> out = y;
  dg::tensor<float, Batch> sums = total;
  return static_cast<int>(out.size() + sums.size()) - 18;
}
