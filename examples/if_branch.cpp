// The OpenVINO opset's If example as a dimgraph program: then x + z, else x + w on [2, 4]
// floats, with a run-time condition (a graph input: one "if" node, two sub-graphs) and a
// compile-time one (only the chosen branch exists). Prints the results and the graphs.
#include "if_branch.hpp"

#include <cstddef>
#include <iostream>

using namespace if_example;

int main() {
  const value_t x = dg::iota<float, Rows, Cols>();        // 0 1 2 ... 7
  const value_t y = dg::full<float, Rows, Cols>(100.0f);  // not used by either branch
  const value_t z = dg::full<float, Rows, Cols>(10.0f);
  const value_t w = dg::full<float, Rows, Cols>(-10.0f);

  const auto g = graph();
  bool ok = true;
  for (bool c : {true, false}) {
    const auto r = g(dg::full<bool>(c), x, y, z, w);
    std::cout << "cond = " << (c ? "true" : "false") << " gives " << (c ? "x + z" : "x + w")
              << ":\n"
              << r << '\n';
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 4; ++j) ok = ok && r(i, j) == x(i, j) + (c ? z(i, j) : w(i, j));
  }
  std::cout << "\ngraph, run-time condition:\n" << g;

  const auto gt = static_graph<true>();
  const auto rt = gt(x, y, z, w);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 4; ++j) ok = ok && rt(i, j) == x(i, j) + z(i, j);
  std::cout << "\ngraph, compile-time condition true:\n" << gt;
  std::cout << "\nresults " << (ok ? "as expected" : "WRONG") << '\n';
  return ok ? 0 : 1;
}
