// expect: dimgraph: if_: a branch takes an input by value and returns a lazy expression
// errors: 1
// names: Rows Cols
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Rows : dg::dim<"rows", 2> {};
struct Cols : dg::dim<"cols", 4> {};

int main() {
  const auto x = dg::full<float, Rows, Cols>(1.0f);
  const auto y = dg::full<float, Rows, Cols>(2.0f);
#ifdef DIMGRAPH_FAIL
  // p + q would refer to the branch's own copies of x and y, dead once it returns.
  auto add = [](auto p, auto q) { return p + q; };
#else
  auto add = [](const auto& p, const auto& q) { return p + q; };
#endif
  auto sub = [](const auto& p, const auto& q) { return p - q; };
  const auto r = dg::if_(x(0, 0) > 0.0f, add, sub)(x, y);
  return r(1, 3) == 3.0f ? 0 : 1;
}
