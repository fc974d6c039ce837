// The model of examples/if_branch.cpp, shared with its test: the OpenVINO opset's If
// example. Inputs cond, x, y, z, w with x, y, z, w of [2, 4] float; the then-branch gives
// x + z, the else-branch x + w.
#pragma once

#include <dimgraph.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace if_example {

namespace dg = dimgraph;

struct Rows : dg::dim<"rows", 2> {};
struct Cols : dg::dim<"cols", 4> {};

using value_t = dg::tensor<float, Rows, Cols>;

// The branches take every input (as the opset's bodies take all of the If's inputs) and use
// what they need.
inline constexpr auto then_branch = [](const auto& x, const auto&, const auto& z, const auto&) {
  return x + z;
};
inline constexpr auto else_branch = [](const auto& x, const auto&, const auto&, const auto& w) {
  return x + w;
};

// A run-time condition: a boolean input of the graph (rank 0). Traced, one "if" node with
// both branches as sub-graphs; run, only the chosen branch computes.
inline constexpr auto model = [](const auto& cond, const auto& x, const auto& y, const auto& z,
                                 const auto& w) {
  return dg::if_(cond, then_branch, else_branch)(x, y, z, w);
};

// A compile-time condition: only the chosen branch is instantiated, so the graph holds its
// nodes alone.
template <bool Cond>
inline constexpr auto static_model =
    [](const auto& x, const auto& y, const auto& z, const auto& w) {
      return dg::if_(std::bool_constant<Cond>{}, then_branch, else_branch)(x, y, z, w);
    };

inline auto graph() {
  return dg::trace(model, dg::input<bool>{}, dg::input<float, Rows, Cols>{},
                   dg::input<float, Rows, Cols>{}, dg::input<float, Rows, Cols>{},
                   dg::input<float, Rows, Cols>{});
}
template <bool Cond>
auto static_graph() {
  return dg::trace(static_model<Cond>, dg::input<float, Rows, Cols>{},
                   dg::input<float, Rows, Cols>{}, dg::input<float, Rows, Cols>{},
                   dg::input<float, Rows, Cols>{});
}

// The graphs' types, checked by the compiler.
using graph_t = decltype(graph());
static_assert(std::is_same_v<graph_t::output_t<0>, value_t>);
static_assert(std::is_same_v<graph_t::inputs,
                             std::tuple<dg::tensor<bool>, value_t, value_t, value_t, value_t>>);
static_assert(std::is_same_v<decltype(static_graph<true>())::output_t<0>, value_t>);

}  // namespace if_example
