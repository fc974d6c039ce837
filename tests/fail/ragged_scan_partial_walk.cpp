// expect: dimgraph: scan: over a ragged dim, a sliced input walks the whole dim one position at a time
// errors: 1
// names: Time
// lines: 11
#include <dimgraph.hpp>
namespace dg = dimgraph;
struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct F : dg::dim<"f", 2> {};
void f(const dg::tensor<float, Batch, Time, F>& x, const dg::tensor<float, Batch, F>& h0) {
#ifdef DIMGRAPH_FAIL
  constexpr dg::slicing s{.start = 1};
#else
  constexpr dg::slicing s{};
#endif
  auto r = dg::scan<Time>([](const auto& xt, const auto& h) {
    return dg::step(dg::carry(h + xt));
  })(dg::sliced<Time, s>(x), h0);
  (void)r;
}

int main() {}
