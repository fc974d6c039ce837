// expect: dimgraph: dim: a dim that is not a form of the algebra must be an atomic dim
// errors: 1
// names: Window
// lines: 12
#include <dimgraph.hpp>

#include <string_view>

namespace dg = dimgraph;
struct Time : dg::dim<"time"> {};

// A dim of its own rather than a tag: without a kind it is not an atomic dim.
struct Window : dg::dim_expr_base {
  static constexpr dg::interval bounds = dg::interval::exactly(4);
  static constexpr std::string_view name = "window";
#ifndef DIMGRAPH_FAIL
  static constexpr dg::dim_kind kind = dg::dim_kind::spatial;
#endif
};

using frames = decltype(Time{} * Window{});

int main() {
  return dg::kind_v<frames> == dg::dim_kind::spatial && dg::bounds_v<frames>.lo == 0 ? 0 : 1;
}
