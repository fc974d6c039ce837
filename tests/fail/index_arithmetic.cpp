// expect: dimgraph: add: arithmetic on dg::index<D> makes no sense; dg::cast it first
// errors: 1
// names: Time
// lines: 8
#include <dimgraph.hpp>

#include <cstdint>

namespace dg = dimgraph;
struct Vocab : dg::dim<"vocab", 100> {};
struct Time : dg::dim<"time", 5> {};

int main() {
  dg::tensor<dg::index<Vocab>, Time> tokens;
#ifdef DIMGRAPH_FAIL
  auto next = dg::eval(tokens + 1);
#else
  auto next = dg::eval(dg::cast<std::int64_t>(tokens) + 1);
#endif
  return static_cast<int>(next.size()) - 5;
}
