// expect: dimgraph: nn::conv1d: the weight must have exactly three dims [out, in, kernel], one of them the kernel dim
// errors: 1
// names: Kernel Out In Other
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct In : dg::dim<"in", 3> {};
struct Out : dg::dim<"out", 4> {};
struct Kernel : dg::dim<"kernel", 3> {};
struct Other : dg::dim<"other", 3> {};

int main() {
  dg::tensor<float, dg::batch, In, Time> x(dg::extent<dg::batch>(2), dg::extent<Time>(8));
#ifdef DIMGRAPH_FAIL
  // A weight whose third dim is not the kernel dim named in the call (same size: only the tags
  // tell them apart).
  dg::tensor<float, Out, In, Other> w;
#else
  dg::tensor<float, Out, In, Kernel> w;
#endif
  (void)dg::nn::conv1d<Time, Kernel>(x, w);
  return 0;
}
