// expect: dimgraph: nn::embedding: the indices must be a tensor of dg::index<Vocab>
// errors: 1
// names: Time Vocab Embed
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Vocab : dg::dim<"vocab", 10> {};
struct Embed : dg::dim<"embed", 4> {};
struct Time : dg::dim<"time"> {};

int main() {
#ifdef DIMGRAPH_FAIL
  // Token ids held as floats: no vocabulary dim to look them up in.
  dg::tensor<float, Time> ids(dg::extent<Time>(3));
#else
  dg::tensor<dg::index<Vocab>, Time> ids(dg::extent<Time>(3));
#endif
  dg::tensor<float, Vocab, Embed> table;
  (void)dg::nn::embedding(ids, table);
  return 0;
}
