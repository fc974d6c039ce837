// expect: dimgraph: concat: the concatenated dims are ragged over different batch dims
// errors: 1
// names: Time Step Batch Beam
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Batch : dg::dim<"batch"> {};
struct Beam : dg::dim<"beam"> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Step : dg::dim<"step", dg::ragged<Beam>> {};
struct Label : dg::dim<"label", dg::ragged<Batch>> {};

int main() {
  dg::tensor<float, Batch, Beam, Time> x(dg::extent<Batch>(2), dg::extent<Beam>(2),
                                         dg::lengths<Time>({3, 1}));
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Batch, Beam, Step> y(dg::extent<Batch>(2), dg::extent<Beam>(2),
                                         dg::lengths<Step>({2, 2}));
  auto c = dg::concat(dg::along<Time>(x), dg::along<Step>(y));
#else
  dg::tensor<float, Batch, Beam, Label> y(dg::extent<Batch>(2), dg::extent<Beam>(2),
                                          dg::lengths<Label>({2, 2}));
  auto c = dg::concat(dg::along<Time>(x), dg::along<Label>(y));
#endif
  return static_cast<int>(c.size()) - 20;
}
