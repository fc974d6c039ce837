// expect: dimgraph: nn::multi_head_attention: the query has no dim Time
// errors: 1
// names: Frames Time Model
// lines: 11
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Model : dg::dim<"model", 8> {};
struct Inner : dg::dim<"inner", 8> {};
struct Hidden : dg::dim<"hidden", 16> {};
struct Heads : dg::dim<"heads", 2> {};
struct Time : dg::dim<"time"> {};
struct Frames : dg::dim<"frames"> {};

int main() {
  dg::tensor<float, dg::batch, Time, Model> x(dg::extent<dg::batch>(2), dg::extent<Time>(3));
  dg::nn::encoder_layer_parameters<float, Model, Inner, Hidden> p;
#ifdef DIMGRAPH_FAIL
  // The positions are named by a dim x does not have (the encoder attends over Time).
  (void)dg::nn::transformer_encoder_layer<Heads, Frames>(x, p);
#else
  (void)dg::nn::transformer_encoder_layer<Heads, Time>(x, p);
#endif
  return 0;
}
