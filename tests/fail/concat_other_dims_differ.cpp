// expect: dimgraph: concat: the operands' other dims differ
// errors: 1
// names: Feature Extra Time Hidden
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Extra : dg::dim<"extra"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

int main() {
  dg::tensor<float, Time, Feature> x(dg::extent<Time>(3));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Extra, Hidden> y(dg::extent<Extra>(2));  // other dim hidden, not time
#else
  dg::tensor<float, Extra, Time> y(dg::extent<Extra>(2), dg::extent<Time>(3));
#endif
  dg::tensor<float, decltype(Feature{} + Extra{}), Time> z =
      dg::concat(dg::along<Feature>(x), dg::along<Extra>(y));
  return static_cast<int>(z.size()) - 30;
}
