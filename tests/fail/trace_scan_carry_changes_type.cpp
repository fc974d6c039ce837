// expect: dimgraph: scan: a carry changes type
// errors: 1
// names: F G
// lines: 12
// A traced scan (on symbols) is checked as the eager one is.
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct F : dg::dim<"f", 3> {};
struct G : dg::dim<"g", 3> {};

int main() {
  auto g = dg::trace(
      [](const auto& xs, const auto& h0) {
        return dg::scan<Time>([](const auto& x, const auto& h) {
#ifdef DIMGRAPH_FAIL
          return dg::step(dg::carry(dg::rename<F, G>(h + x)));
#else
          return dg::step(dg::carry(h + x));
#endif
        })(dg::sliced<Time>(xs), h0);
      },
      dg::input<float, Time, F>{}, dg::input<float, F>{});
  return static_cast<int>(decltype(g)::output_count) - 1;
}
