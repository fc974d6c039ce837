// expect: dimgraph: scan: over a ragged dim, every emitted value needs the dim's batch dim
// errors: 1
// names: Batch
// lines: 10
#include <dimgraph.hpp>
namespace dg = dimgraph;
struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct F : dg::dim<"f", 2> {};
void f(const dg::tensor<float, Batch, Time, F>& x, const dg::tensor<float, Batch, F>& h0) {
#ifdef DIMGRAPH_FAIL
  auto r = dg::scan<Time>([](const auto& xt, const auto& h) {
    return dg::step(dg::carry(h + xt), dg::emit(dg::sum<Batch>(xt)));
  })(dg::sliced<Time>(x), h0);
#else
  auto r = dg::scan<Time>([](const auto& xt, const auto& h) {
    return dg::step(dg::carry(h + xt), dg::emit(xt));
  })(dg::sliced<Time>(x), h0);
#endif
  (void)r;
}

int main() {}
