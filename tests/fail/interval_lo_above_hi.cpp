// expect: dimgraph: dim: the size interval is empty (lo > hi) or the size is negative
// errors: 1
// names: beam
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;

#ifdef DIMGRAPH_FAIL
struct Beam : dg::dim<"beam", dg::range{8, 1}> {};
#else
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
#endif

int main() {
  return dg::bounds_v<Beam>.hi == 8 ? 0 : 1;
}
