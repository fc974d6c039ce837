// expect: dimgraph: logical_or: the operands must be bool
// errors: 1
// names: Time
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time", 5> {};

int main() {
  dg::tensor<bool, Time> mask;
  dg::tensor<float, Time> x;
#ifdef DIMGRAPH_FAIL
  auto e = dg::eval(dg::logical_not(dg::logical_or(mask, x)));
#else
  auto e = dg::eval(dg::logical_not(dg::logical_or(mask, dg::greater(x, 0.0f))));
#endif
  return static_cast<int>(e.size()) - 5;
}
