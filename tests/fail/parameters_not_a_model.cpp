// expect: dimgraph: parameters: the model must be a dg::tensor, a std::array of models or a Boost.Hana struct
// errors: 1
// names: Weights
// lines: 8
#include <dimgraph.hpp>

#include <string>

namespace dg = dimgraph;
struct Feat : dg::dim<"feat", 2> {};

// A plain struct, not adapted to Boost.Hana.
struct Weights {
  dg::tensor<float, Feat> w;
};

int main() {
  Weights m;
  int n = 0;
#ifdef DIMGRAPH_FAIL
  dg::parameters(m, [&](const std::string&, auto&) { ++n; });
#else
  dg::parameters(m.w, [&](const std::string&, auto&) { ++n; });
#endif
  return n - 1;
}
