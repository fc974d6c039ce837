// The model of examples/load_pytorch_lstm.cpp, shared with tools/lstm_checkpoint/ (which
// writes its checkpoint with LibTorch): a one-layer PyTorch nn.LSTM over [time, batch, input].
#pragma once

#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>

#include <map>
#include <string>

namespace torch_lstm {

namespace dg = dimgraph;

struct Time : dg::dim<"time"> {};
struct Batch : dg::dim<"batch"> {};
struct Input : dg::dim<"input", 4> {};
struct Hidden : dg::dim<"hidden", 3> {};
using Gates = decltype(dg::c<4> * Hidden{});  // i, f, g, o, as PyTorch orders them

// The weights, named as this program likes; rename() gives their state-dict names.
struct weights {
  BOOST_HANA_DEFINE_STRUCT(weights, (dg::tensor<float, Gates, Input>, w),
                           (dg::tensor<float, Gates, Hidden>, r),
                           (dg::tensor<float, Gates>, b_input),
                           (dg::tensor<float, Gates>, b_hidden));
};
inline std::map<std::string, std::string, std::less<>> rename() {
  return {{"w", "lstm.weight_ih_l0"},
          {"r", "lstm.weight_hh_l0"},
          {"b_input", "lstm.bias_ih_l0"},
          {"b_hidden", "lstm.bias_hh_l0"}};
}

// An input sequence and what LibTorch computed from it: every step's h, and the last h and c.
struct reference {
  dg::tensor<float, Time, Batch, Input> x{dg::extent<Time>(0), dg::extent<Batch>(0)};
  dg::tensor<float, Time, Batch, Hidden> y{dg::extent<Time>(0), dg::extent<Batch>(0)};
  dg::tensor<float, Batch, Hidden> h{dg::extent<Batch>(0)};
  dg::tensor<float, Batch, Hidden> c{dg::extent<Batch>(0)};
};

}  // namespace torch_lstm
BOOST_HANA_ADAPT_STRUCT(torch_lstm::reference, x, y, h, c);
