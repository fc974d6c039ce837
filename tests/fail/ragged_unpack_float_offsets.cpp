// expect: dimgraph: unpack: the offsets must be an integer tensor over dg::offsets_dim_t<D> alone
// errors: 1
// names: Time Batch
// lines: 8
#include <dimgraph.hpp>
namespace dg = dimgraph;
struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct F : dg::dim<"f", 2> {};
void f(const dg::tensor<float, dg::packed_dim<Time>, F>& v,
       const dg::tensor<float, dg::offsets_dim_t<Time>>& fo,
       const dg::tensor<int, dg::offsets_dim_t<Time>>& io) {
#ifdef DIMGRAPH_FAIL
  auto p = dg::unpack<Time>(v, fo);
  (void)io;
#else
  auto p = dg::unpack<Time>(v, io);
  (void)fo;
#endif
  (void)p;
}

int main() {}
