// expect: dimgraph: tensor: an innermost initializer list must have as many elements as the last dim's size
// errors: 1
// names: Col
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};

int main() {
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Row, Col> t{{1, 2, 3}, {4, 5}};
#else
  dg::tensor<float, Row, Col> t{{1, 2, 3}, {4, 5, 6}};
#endif
  return static_cast<int>(t(1, 2)) - 6;
}
