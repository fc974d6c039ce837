// expect: dimgraph: zeros: a non-static dim has no extent
// errors: 1
// names: Time Feat
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feat : dg::dim<"feat", 4> {};

int main() {
#ifdef DIMGRAPH_FAIL
  auto x = dg::zeros<float, Time, Feat>();
#else
  auto x = dg::zeros<float, Time, Feat>(dg::extent<Time>(2));
#endif
  return static_cast<int>(x.size()) - 8;
}
