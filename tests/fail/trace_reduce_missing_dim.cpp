// expect: dimgraph: sum: the tensor has no such dim
// errors: 1
// names: Hidden Time Feature
// lines: 12
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 8> {};

// A traced function is checked by the ops it calls, with their own messages.
int main() {
#ifdef DIMGRAPH_FAIL
  auto g = dg::trace([](const auto& x) { return dg::sum<Hidden>(x); },
                     dg::input<float, Time, Feature>{});
#else
  auto g = dg::trace([](const auto& x) { return dg::sum<Feature>(x); },
                     dg::input<float, Time, Feature>{});
#endif
  (void)g;
  return 0;
}
