// expect: dimgraph: nn::multi_head_attention: the number of heads does not divide the projections' inner dim
// errors: 1
// names: Heads Inner
// lines: 10
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Model : dg::dim<"model", 8> {};
struct Inner : dg::dim<"inner", 8> {};
struct Time : dg::dim<"time"> {};
#ifdef DIMGRAPH_FAIL
// 8 embedding channels cannot be cut into 3 heads (torch: "embed_dim must be divisible by
// num_heads").
struct Heads : dg::dim<"heads", 3> {};
#else
struct Heads : dg::dim<"heads", 4> {};
#endif

int main() {
  dg::tensor<float, dg::batch, Time, Model> x(dg::extent<dg::batch>(2), dg::extent<Time>(3));
  dg::nn::attention_parameters<float, Model, Inner> p;
  (void)dg::nn::multi_head_attention<Heads, Time>(x, x, x, p);
  return 0;
}
