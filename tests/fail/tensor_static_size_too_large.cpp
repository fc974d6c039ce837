// expect: dimgraph: shape: the static dims have more elements than a tensor can address
// errors: 1
// names: Rows Cols
// lines: 12
#include <dimgraph.hpp>

#include <cstddef>

namespace dg = dimgraph;
struct Rows : dg::dim<"rows", (std::size_t{1} << 40)> {};
#ifdef DIMGRAPH_FAIL
struct Cols : dg::dim<"cols", (std::size_t{1} << 30)> {};  // 2^70 elements (2^64 wraps to 0)
#else
struct Cols : dg::dim<"cols", 2> {};
#endif

int main() {
  return sizeof(dg::tensor<float, Rows, Cols>) > 0 ? 0 : 1;
}
