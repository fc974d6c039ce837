// The model of examples/lstm_sequence.cpp, shared with its test: the OpenVINO opset's
// TensorIterator example, an LSTM over 25 time steps written as an ordinary C++ function.
#pragma once

#include <dimgraph.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace lstm_example {

namespace dg = dimgraph;

struct Batch : dg::dim<"batch", 1> {};
struct Time : dg::dim<"time", 25> {};
struct Input : dg::dim<"input", 512> {};
struct Hidden : dg::dim<"hidden", 256> {};

// The gates i, f, g, o one after the other (4 * 256 = 1024), and the fused weights' columns:
// the input's, then the hidden state's (512 + 256 = 768).
using Gates = decltype(dg::c<4> * Hidden{});
using Columns = decltype(Input{} + Hidden{});
static_assert(dg::static_size_v<Gates> == 1024 && dg::static_size_v<Columns> == 768);

using weights_t = dg::tensor<float, Gates, Columns>;
using bias_t = dg::tensor<float, Gates>;
using sequence_t = dg::tensor<float, Batch, Time, Input>;
using state_t = dg::tensor<float, Batch, Hidden>;
using outputs_t = dg::tensor<float, Batch, Time, Hidden>;

// Time walked forwards (the opset's default port map) and backwards (start -1, end 0,
// stride -1: the last step first; outputs still land at their own time positions).
inline constexpr dg::slicing forward{};
inline constexpr dg::slicing backward{.start = -1, .end = 0, .stride = -1};

// The model: x [batch, time, input] sliced along time, h and c carried, every step's h
// stacked into [batch, time, hidden]; returns (outputs, last h, last c). The weights are
// captured: traced, they are the graph's constants.
template <dg::slicing S>
auto lstm(const weights_t& w, const bias_t& b) {
  return [&w, &b](const auto& x, const auto& h0, const auto& c0) {
    auto [ys, h_last, c_last] =
        dg::scan<Time, dg::hoist>([&](const auto& xt, const auto& h, const auto& c) {
          auto next = dg::nn::lstm_cell(xt, h, c, w, b);
          return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
        })(dg::sliced<Time, S>(x), h0, c0);
    return std::tuple{ys, h_last, c_last};
  };
}

// The model traced into a graph over its three inputs.
template <dg::slicing S>
auto lstm_graph(const weights_t& w, const bias_t& b) {
  return dg::trace(lstm<S>(w, b), dg::input<float, Batch, Time, Input>{},
                   dg::input<float, Batch, Hidden>{}, dg::input<float, Batch, Hidden>{});
}

// The graph's types are the model's shapes, checked by the compiler.
using graph_t =
    decltype(lstm_graph<forward>(std::declval<const weights_t&>(), std::declval<const bias_t&>()));
static_assert(std::is_same_v<graph_t::output_t<0>, outputs_t>);
static_assert(std::is_same_v<graph_t::output_t<1>, state_t>);
static_assert(std::is_same_v<graph_t::output_t<2>, state_t>);
static_assert(std::is_same_v<graph_t::inputs, std::tuple<sequence_t, state_t, state_t>>);

}  // namespace lstm_example
