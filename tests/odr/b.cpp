// Second of two translation units that include all of dimgraph (ODR check).
#include <dimgraph.hpp>

int dimgraph_odr_b() {
  return DIMGRAPH_VERSION;
}
