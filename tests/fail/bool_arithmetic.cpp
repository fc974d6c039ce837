// expect: dimgraph: mul: arithmetic on two bool operands makes no sense; use a logical op or dg::cast
// errors: 1
// names: Time
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time", 5> {};

int main() {
  dg::tensor<bool, Time> a, b;
#ifdef DIMGRAPH_FAIL
  auto both = dg::eval(a * b);
#else
  auto both = dg::eval(dg::logical_and(a, b));
#endif
  return static_cast<int>(both.size()) - 5;
}
