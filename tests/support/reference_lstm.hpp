// A plain-loop LSTM over time on raw arrays: the independent reference for dimgraph's LSTM
// (tests) and the hand-written side of the W6 benchmark. Gate order i, f, g, o as in PyTorch
// and the OpenVINO opset; fused weights W [4H, I + H] (input columns first) and bias [4H].
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace reference {

inline float sigmoid(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

// One step for one batch row: h and c (H each) are updated in place from x (I).
// gates is scratch space of 4H.
inline void lstm_step(const float* w, const float* bias, const float* x, float* h, float* c,
                      std::size_t input, std::size_t hidden, float* gates) {
  const std::size_t cols = input + hidden;
  for (std::size_t r = 0; r < 4 * hidden; ++r) {
    const float* row = w + r * cols;
    float acc = bias[r];
    for (std::size_t k = 0; k < input; ++k) acc += row[k] * x[k];
    for (std::size_t k = 0; k < hidden; ++k) acc += row[input + k] * h[k];
    gates[r] = acc;
  }
  for (std::size_t j = 0; j < hidden; ++j) {
    const float i = sigmoid(gates[j]);
    const float f = sigmoid(gates[hidden + j]);
    const float g = std::tanh(gates[2 * hidden + j]);
    const float o = sigmoid(gates[3 * hidden + j]);
    c[j] = f * c[j] + i * g;
    h[j] = o * std::tanh(c[j]);
  }
}

// The whole sequence: x [batch, time, input] row-major, h0 and c0 [batch, hidden]; writes
// every step's h to out [batch, time, hidden] at its time position and leaves the last h
// and c in h_last and c_last. Backward runs time from the end to the start.
inline void lstm_sequence(const float* w, const float* bias, const float* x, const float* h0,
                          const float* c0, std::size_t batch, std::size_t time, std::size_t input,
                          std::size_t hidden, bool backward, float* out, float* h_last,
                          float* c_last) {
  std::vector<float> gates(4 * hidden);
  for (std::size_t b = 0; b < batch; ++b) {
    float* h = h_last + b * hidden;
    float* c = c_last + b * hidden;
    for (std::size_t j = 0; j < hidden; ++j) {
      h[j] = h0[b * hidden + j];
      c[j] = c0[b * hidden + j];
    }
    for (std::size_t s = 0; s < time; ++s) {
      const std::size_t t = backward ? time - 1 - s : s;
      lstm_step(w, bias, x + (b * time + t) * input, h, c, input, hidden, gates.data());
      for (std::size_t j = 0; j < hidden; ++j) out[(b * time + t) * hidden + j] = h[j];
    }
  }
}

}  // namespace reference
