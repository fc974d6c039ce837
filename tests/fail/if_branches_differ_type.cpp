// expect: dimgraph: if_: branches return different element types
// errors: 1
// names: A B
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct A : dg::dim<"a", 2> {};
struct B : dg::dim<"b", 4> {};

int main(int argc, char**) {
  auto input = dg::zeros<float, A, B>();
  auto r = dg::if_(
      argc > 1, [](const auto& x) { return x + 1.0f; },
#ifdef DIMGRAPH_FAIL
      [](const auto& x) { return dg::cast<double>(x); })(input);
#else
      [](const auto& x) { return x * 2.0f; })(input);
#endif
  return static_cast<int>(r.size()) - 8;
}
