// First of two translation units that include all of dimgraph (ODR check).
#include <dimgraph.hpp>

int dimgraph_odr_a() {
  return DIMGRAPH_VERSION;
}
