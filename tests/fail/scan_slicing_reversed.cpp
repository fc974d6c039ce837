// expect: dimgraph: scan: the slicing's start is past its end in the direction of its stride
// errors: 1
// names: Time
// lines: 11
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time", 8> {};
struct Feature : dg::dim<"feature", 4> {};

#ifdef DIMGRAPH_FAIL
constexpr dg::slicing walk{.start = 5, .end = 2};
#else
constexpr dg::slicing walk{.start = 2, .end = 5};
#endif

int main() {
  auto x = dg::zeros<float, Time, Feature>();
  auto [ys] = dg::scan<Time>([](const auto& x_t) { return dg::step(dg::emit(x_t)); })(
      dg::sliced<Time, walk>(x));
  return static_cast<int>(ys.size()) - 16;
}
