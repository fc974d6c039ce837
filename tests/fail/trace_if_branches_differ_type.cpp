// expect: dimgraph: if_: branches return different element types
// errors: 1
// names: A
// lines: 12
// A traced if_ (on a boolean input) is checked as the eager one is.
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct A : dg::dim<"a", 2> {};

int main() {
  auto g = dg::trace(
      [](const auto& cond, const auto& x) {
        return dg::if_(
            cond, [](const auto& a) { return a + 1.0f; },
#ifdef DIMGRAPH_FAIL
            [](const auto& a) { return dg::cast<double>(a); })(x);
#else
            [](const auto& a) { return a * 2.0f; })(x);
#endif
      },
      dg::input<bool>{}, dg::input<float, A>{});
  return static_cast<int>(decltype(g)::output_count) - 1;
}
