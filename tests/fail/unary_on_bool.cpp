// expect: dimgraph: exp: the op makes no sense on dg::index<D> or bool
// errors: 1
// names: Time
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time", 5> {};

int main() {
  dg::tensor<bool, Time> mask;
#ifdef DIMGRAPH_FAIL
  auto e = dg::eval(dg::exp(mask) + 1.0f);
#else
  auto e = dg::eval(dg::exp(dg::cast<float>(mask)) + 1.0f);
#endif
  return static_cast<int>(e.size()) - 5;
}
