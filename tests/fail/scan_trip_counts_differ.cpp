// expect: dimgraph: scan: sliced inputs iterate a different number of times
// errors: 1
// names: Time
// lines: 12
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time", 6> {};
struct Feature : dg::dim<"feature", 4> {};

int main() {
  auto x = dg::zeros<float, Time, Feature>();
  auto y = dg::zeros<float, Time>();
#ifdef DIMGRAPH_FAIL
  constexpr dg::slicing first_five{.end = 4};  // 5 iterations against 6
#else
  constexpr dg::slicing first_five{.end = 5};
#endif
  auto [ys] = dg::scan<Time>([](const auto& x_t, const auto& y_t) {
    return dg::step(dg::emit(x_t * y_t));
  })(dg::sliced<Time>(x), dg::sliced<Time, first_five>(y));
  return static_cast<int>(ys.size()) - 24;
}
