// expect: dimgraph: tensor: a dim appears more than once
// errors: 1
// names: Row Col
// lines: 9
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};

int main() {
#ifdef DIMGRAPH_FAIL
  dg::tensor<float, Row, Col, Row> t;
#else
  dg::tensor<float, Row, Col> t;
#endif
  return static_cast<int>(t.size()) - 6;
}
