// Writes examples/data/lstm_weights.safetensors (a PyTorch nn.LSTM's state dict, fixed seed)
// and examples/data/lstm_reference.safetensors (an input sequence and LibTorch's outputs for
// it), read by examples/load_pytorch_lstm.cpp. Needs LibTorch (Debian: libtorch-dev) and GCC:
//   g++ -std=c++20 -O1 -Iinclude -Iexamples -isystem /usr/include/torch/csrc/api/include \
//     tools/lstm_checkpoint/make_lstm_checkpoint.cpp -ltorch -ltorch_cpu -lc10 -o /tmp/make_lstm
//   /tmp/make_lstm examples/data
#include <dimgraph.hpp>
#include <dimgraph/interop/torch.hpp>
#include <dimgraph/io/safetensors.hpp>

#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "load_pytorch_lstm.hpp"

int main(int argc, char** argv) {
  namespace dg = dimgraph;
  using namespace torch_lstm;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  torch::manual_seed(20261124);
  torch::NoGradGuard no_grad;
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(4, 3));
  const at::Tensor x = torch::randn({5, 2, 4});  // [time, batch, input]
  const auto [y, state] = lstm->forward(x);
  const at::Tensor h = std::get<0>(state)[0], c = std::get<1>(state)[0];

  const auto params = lstm->named_parameters();
  weights w;
  w.w = dg::torch::view<float, Gates, Input>(params["weight_ih_l0"].contiguous());
  w.r = dg::torch::view<float, Gates, Hidden>(params["weight_hh_l0"].contiguous());
  w.b_input = dg::torch::view<float, Gates>(params["bias_ih_l0"].contiguous());
  w.b_hidden = dg::torch::view<float, Gates>(params["bias_hh_l0"].contiguous());
  dg::io::save_options names;
  names.rename = rename();
  names.metadata = {{"format", "pt"}, {"made_by", "tools/lstm_checkpoint"}};
  dg::io::save(dir + "/lstm_weights.safetensors", w, names);

  reference ref;
  const at::Tensor xc = x.contiguous(), yc = y.contiguous(), hc = h.contiguous(),
                   cc = c.contiguous();
  ref.x = dg::torch::view<float, Time, Batch, Input>(xc);
  ref.y = dg::torch::view<float, Time, Batch, Hidden>(yc);
  ref.h = dg::torch::view<float, Batch, Hidden>(hc);
  ref.c = dg::torch::view<float, Batch, Hidden>(cc);
  dg::io::save(dir + "/lstm_reference.safetensors", ref);
  std::printf("wrote %s/lstm_weights.safetensors and %s/lstm_reference.safetensors\n", dir.c_str(),
              dir.c_str());
}
