// Loads a PyTorch nn.LSTM's state dict from a safetensors file, runs the LSTM with dimgraph
// over an input sequence and compares with the outputs LibTorch computed (both files in
// examples/data/, written by tools/lstm_checkpoint/). Exits 1 if any output differs by more
// than 1e-5.
#include <dimgraph.hpp>
#include <dimgraph/io/safetensors.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "load_pytorch_lstm.hpp"

#ifndef DIMGRAPH_EXAMPLE_DATA_DIR
#define DIMGRAPH_EXAMPLE_DATA_DIR "examples/data"
#endif

namespace {
float max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return a.size() == b.size() ? d : INFINITY;
}
}  // namespace

int main(int argc, char** argv) {
  namespace dg = dimgraph;
  using namespace torch_lstm;
  const std::string dir = argc > 1 ? argv[1] : DIMGRAPH_EXAMPLE_DATA_DIR;

  weights w;
  dg::io::load_options names;
  names.rename = rename();  // w -> lstm.weight_ih_l0, ...
  dg::io::load(dir + "/lstm_weights.safetensors", w, names);
  reference ref;  // the dynamic dims take the file's extents
  dg::io::load(dir + "/lstm_reference.safetensors", ref);
  std::printf("loaded %zu weights (%zu elements); input [time %zu, batch %zu, input 4]\n",
              dg::tensor_count_v<weights>, dg::parameter_count(w), ref.x.extent<Time>(),
              ref.x.extent<Batch>());

  // The struct the weights loaded into is what lstm_cell takes: its tensors in declaration
  // order are W, R and PyTorch's two biases.
  const auto h0 = dg::zeros<float, Batch, Hidden>(dg::extent<Batch>(ref.x.extent<Batch>()));
  // (dg::hoist: x_t . W for every step is one product before the loop.)
  auto [ys, h_last, c_last] =
      dg::scan<Time, dg::hoist>([&](const auto& xt, const auto& h, const auto& c) {
        auto next = dg::nn::lstm_cell(xt, h, c, w);
        return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
      })(dg::sliced<Time>(ref.x), h0, h0);

  const float dy =
      max_difference(dg::permute<Time, Batch, Hidden>(ys).to_vector(), ref.y.to_vector());
  const float dh =
      max_difference(dg::permute<Batch, Hidden>(h_last).to_vector(), ref.h.to_vector());
  const float dc =
      max_difference(dg::permute<Batch, Hidden>(c_last).to_vector(), ref.c.to_vector());
  const float worst = std::max({dy, dh, dc});
  std::printf("max |dimgraph - torch|: outputs %.3g, last h %.3g, last c %.3g\n", dy, dh, dc);
  return worst <= 1e-5f ? 0 : 1;
}
