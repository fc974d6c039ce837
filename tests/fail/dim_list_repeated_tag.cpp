// expect: dimgraph: dim_list: a tag appears more than once
// errors: 1
// names: Time Feature
// lines: 8
#include <dimgraph.hpp>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};
struct Feature : dg::dim<"feature", 8> {};

#ifdef DIMGRAPH_FAIL
constexpr auto size = dg::dim_list<Time, Feature, Time>::size;
#else
constexpr auto size = dg::dim_list<Time, Feature>::size;
#endif

int main() {
  return static_cast<int>(size) - 2;
}
