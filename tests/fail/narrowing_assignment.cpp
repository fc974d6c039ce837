// expect: dimgraph: assign: the expression's element type would narrow to the destination's; use dg::cast<T>
// errors: 1
// names: Time
// lines: 10
#include <dimgraph.hpp>

#include <cstdint>

namespace dg = dimgraph;
struct Time : dg::dim<"time", 5> {};

int main() {
  dg::tensor<float, Time> x;
  dg::tensor<std::int32_t, Time> counts;
#ifdef DIMGRAPH_FAIL
  counts = x * 2.0f;
#else
  counts = dg::cast<std::int32_t>(x * 2.0f);
#endif
  return counts(0);
}
