// The OpenVINO opset's TensorIterator example as a dimgraph program: an LSTM with fused
// weights [1024, 768] and bias [1024] over 25 steps of a [1, 25, 512] sequence, h and c
// carried, every step's h stacked into [1, 25, 256]; then the same run backwards. The model
// (lstm_sequence.hpp) is one C++ function: traced, it is a graph whose types the compiler
// checks; run, it is the compiled kernels. Prints a summary of each run and the graph.
#include "lstm_sequence.hpp"

#include <cmath>
#include <cstddef>
#include <iostream>

using namespace lstm_example;

namespace {

// "[batch=1, time=25, hidden=256]  mean 0.0123  max |.| 0.456  y[0, 0, :4] = ..."
void summarize(const char* name, const outputs_t& ys, const state_t& h, const state_t& c) {
  double sum = 0, largest = 0;
  for (std::size_t k = 0; k < ys.size(); ++k) {
    sum += ys.data()[k];
    largest = std::max(largest, std::abs(double(ys.data()[k])));
  }
  std::cout << name << ": outputs " << ys.shape() << ", mean " << sum / double(ys.size())
            << ", max |y| " << largest << "\n  y at time 0, hidden 0..3:";
  for (std::size_t j = 0; j < 4; ++j) std::cout << ' ' << ys(0, 0, j);
  std::cout << "\n  y at time 24, hidden 0..3:";
  for (std::size_t j = 0; j < 4; ++j) std::cout << ' ' << ys(0, 24, j);
  std::cout << "\n  last h, hidden 0..3:";
  for (std::size_t j = 0; j < 4; ++j) std::cout << ' ' << h(0, j);
  std::cout << "\n  last c, hidden 0..3:";
  for (std::size_t j = 0; j < 4; ++j) std::cout << ' ' << c(0, j);
  std::cout << '\n';
}

}  // namespace

int main() {
  // PyTorch's initialisation range for an LSTM of hidden size 256: 1 / sqrt(256).
  const weights_t w = dg::uniform<float, Gates, Columns>(1, -0.0625f, 0.0625f);
  const bias_t b = dg::uniform<float, Gates>(2, -0.0625f, 0.0625f);
  const sequence_t x = dg::uniform<float, Batch, Time, Input>(3, -1.0f, 1.0f);
  const state_t h0 = dg::zeros<float, Batch, Hidden>();
  const state_t c0 = dg::zeros<float, Batch, Hidden>();

  const auto g = lstm_graph<forward>(w, b);
  const auto [ys, h, c] = g(x, h0, c0);
  summarize("forward", ys, h, c);

  const auto g_back = lstm_graph<backward>(w, b);
  const auto [ys_back, h_back, c_back] = g_back(x, h0, c0);
  summarize("backward", ys_back, h_back, c_back);

  // The forward run's last output is its last h; the backward run's is at time 0.
  const bool last_ok = ys(0, 24, 0) == h(0, 0) && ys_back(0, 0, 0) == h_back(0, 0);
  std::cout << "last outputs are the last states: " << (last_ok ? "yes" : "NO") << "\n\n";

  std::cout << "graph (forward):\n" << g;
  return last_ok ? 0 : 1;
}
