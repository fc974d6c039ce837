// expect: dimgraph: mul: neither operand's dims contain the other's (an implicit outer broadcast); use dg::broadcast_to<...> or dg::outer
// errors: 1
// names: Time Feature Hidden
// lines: 11
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};
struct Hidden : dg::dim<"hidden", 4> {};

// An element-wise op on symbols is checked as on tensors of their types, once: the ops after
// it (tanh, +) and the traced graph say nothing more.
int main() {
#ifdef DIMGRAPH_FAIL
  using y_t = dg::input<float, Time, Hidden>;
#else
  using y_t = dg::input<float, Time, Feature>;
#endif
  auto g = dg::trace([](const auto& x, const auto& y) { return dg::tanh(x * y) + 1.0f; },
                     dg::input<float, Time, Feature>{}, y_t{});
  return static_cast<int>(g.output_count) - 1;
}
