// expect: dimgraph: pack: the dim is not ragged
// errors: 1
// names: Plain Batch
// lines: 8
#include <dimgraph.hpp>
namespace dg = dimgraph;
struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct F : dg::dim<"f", 2> {};
struct Plain : dg::dim<"plain"> {};
void f(const dg::tensor<float, Batch, Plain, F>& x, const dg::tensor<float, Batch, Time, F>& y) {
#ifdef DIMGRAPH_FAIL
  auto p = dg::pack<Plain>(x);
  (void)y;
#else
  auto p = dg::pack<Time>(y);
  (void)x;
#endif
  (void)p;
}

int main() {}
