// expect: dimgraph: split: the divisor's size does not divide the dim's size
// errors: 1
// names: KeyTotal Heads
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct KeyTotal : dg::dim<"key_total", 6> {};
struct Heads : dg::dim<"heads", 4> {};
struct Pairs : dg::dim<"pairs", 2> {};

#ifdef DIMGRAPH_FAIL
using per_head = decltype(KeyTotal{} / Heads{});
#else
using per_head = decltype(KeyTotal{} / Pairs{});
#endif

int main() {
  return dg::static_size_v<per_head> == 3 ? 0 : 1;
}
