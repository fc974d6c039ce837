// expect: dimgraph: nn::feed_forward: W2 lacks W1's hidden dim
// errors: 1
// names: Model Hidden Other
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Model : dg::dim<"model", 8> {};
struct Hidden : dg::dim<"hidden", 16> {};
struct Other : dg::dim<"other", 16> {};

int main() {
  dg::tensor<float, dg::batch, Model> x(dg::extent<dg::batch>(2));
  dg::tensor<float, Hidden, Model> w1;
#ifdef DIMGRAPH_FAIL
  // The second weight contracts a dim the first product does not give (same size: only the
  // tags tell them apart).
  dg::tensor<float, Model, Other> w2;
#else
  dg::tensor<float, Model, Hidden> w2;
#endif
  (void)dg::nn::feed_forward(x, w1, w2);
  return 0;
}
