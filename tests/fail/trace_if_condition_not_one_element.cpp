// expect: dimgraph: if_: the condition must have one element
// errors: 1
// names: C
// lines: 11
// A traced condition whose dims cannot all have extent 1 is rejected at compile time.
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct A : dg::dim<"a", 2> {};
#ifdef DIMGRAPH_FAIL
struct C : dg::dim<"c", 3> {};
#else
struct C : dg::dim<"c", dg::range{1, 4}> {};
#endif

int main() {
  auto g = dg::trace(
      [](const auto& cond, const auto& x) {
        return dg::if_(
            cond, [](const auto& a) { return a + 1.0f; }, [](const auto& a) { return a; })(x);
      },
      dg::input<bool, C>{}, dg::input<float, A>{});
  return static_cast<int>(decltype(g)::output_count) - 1;
}
