// expect: dimgraph: assign: evaluating an expression needs <dimgraph/eval/assign.hpp> (or <dimgraph.hpp>)
// errors: 1
// lines: 10
// With the tensor and expression headers alone, x + x is built but cannot be evaluated: the
// compiler says which header defines the assignment (the control includes it).
#include <dimgraph/tensor/tensor.hpp>
#include <dimgraph/ops/elementwise.hpp>
#ifndef DIMGRAPH_FAIL
#include <dimgraph/eval/assign.hpp>
#endif

namespace dg = dimgraph;
struct Feature : dg::dim<"feature", 4> {};

int main() {
  dg::tensor<float, Feature> x;
  dg::tensor<float, Feature> y = x + x;
  y = y * 2.0f;
  return static_cast<int>(y(0));
}
