// expect: dimgraph: tensor: the element type must be bool, an 8-64-bit integer, float, double or dg::index<D>
// errors: 1
// names: Feat char
// lines: 8
#include <dimgraph.hpp>

#include <cstdint>

namespace dg = dimgraph;
struct Feat : dg::dim<"feat", 4> {};

int main() {
#ifdef DIMGRAPH_FAIL
  dg::tensor<char, Feat> x;
#else
  dg::tensor<std::int8_t, Feat> x;
#endif
  return static_cast<int>(x.size()) - 4;
}
