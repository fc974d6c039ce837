// A user's program: everything through the umbrella header.
#include <cstdio>
#include <dimgraph.hpp>

int main() {
  std::printf("dimgraph %d.%d.%d (DIMGRAPH_VERSION %d)\n", DIMGRAPH_VERSION_MAJOR,
              DIMGRAPH_VERSION_MINOR, DIMGRAPH_VERSION_PATCH, DIMGRAPH_VERSION);
  return DIMGRAPH_VERSION > 0 ? 0 : 1;
}
