// expect: dimgraph: nn::multi_head_attention: traced, the head size (the projections' inner dim over the heads) must be static
// errors: 1
// names: Heads Inner
// lines: 12
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Model : dg::dim<"model", 8> {};
#ifdef DIMGRAPH_FAIL
// An inner dim of any size: the head size, and so the scale 1 / sqrt(head size), is known only
// when the graph runs, but a traced graph holds the scale as a constant.
struct Inner : dg::dim<"inner"> {};
#else
struct Inner : dg::dim<"inner", 8> {};
#endif
struct Heads : dg::dim<"heads", 2> {};
struct Time : dg::dim<"time"> {};

using Inner3 = decltype(dg::c<3> * Inner{});

int main() {
  // The weights are inputs of the graph too (tensors of a dynamic dim need extents).
  auto g = dg::trace(
      [](const auto& x, const auto& w, const auto& b, const auto& wo, const auto& bo) {
        return dg::nn::multi_head_attention<Heads, Time>(x, x, x, w, b, wo, bo);
      },
      dg::input<float, dg::batch, Time, Model>{}, dg::input<float, Inner3, Model>{},
      dg::input<float, Inner3>{}, dg::input<float, Model, Inner>{}, dg::input<float, Model>{});
  (void)g;
  return 0;
}
