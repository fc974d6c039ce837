// LibTorch's side of the run-time benchmarks, behind an interface free of LibTorch headers.
//
// The ATen headers are compiled once, in torch_peers.cpp, as C++17: Clang 16 rejects
// LibTorch 1.13's headers in C++20 mode (std::vector of an incomplete c10::IValue), and they
// take seconds to parse. Each function is one eager LibTorch call (or the shortest sequence
// of in-place calls) on tensors that view the benchmark's own buffers, one intra-op thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>

namespace torch_peer {

// One intra-op thread (at::set_num_threads(1)); call once before anything else.
void init();
// n intra-op threads from here on (at::set_num_threads(n)): for the sides that compare
// against dimgraph on as many threads; set it back to 1 after.
void set_threads(int n);

// A float32 at::Tensor: a view of memory the caller owns (no copy; written only when passed
// as an output), or a result of LibTorch. A view follows no reallocation of that memory:
// make views where they are used (outside the timed loop), not once for the whole run.
class tensor {
 public:
  struct impl;
  tensor(const float* data, std::initializer_list<std::int64_t> sizes);
  // A view of n contiguous floats, as a 1-d tensor.
  tensor(const float* data, std::size_t n);
  explicit tensor(std::unique_ptr<impl> p);
  tensor(tensor&&) noexcept;
  tensor& operator=(tensor&&) noexcept;
  ~tensor();
  std::size_t size() const;
  // The elements in row-major order, whatever the tensor's strides.
  void copy_to(float* out) const;
  impl& get() const { return *impl_; }

 private:
  std::unique_ptr<impl> impl_;
};

// W1: out = c + a * b (addcmul, fused).
void fma(tensor& out, const tensor& a, const tensor& b, const tensor& c);
// W2: out[B,T,F] = x + bias[F] (broadcast).
void bias_add(tensor& out, const tensor& x, const tensor& bias);
// W3: out[B,T,F] = x + y[T,B,F].permute(1, 0, 2).
void add_permuted(tensor& out, const tensor& x, const tensor& y_tbf);
// W4a: out[B,F] = x[B,T,F].sum(1).
void sum_dim1(tensor& out, const tensor& x);
// W4b: out = softmax(x, 2).
void softmax_last(tensor& out, const tensor& x);
// W4c, W4d: out[B,T] = x[B,T,F].sum(2), x.amax(2).
void sum_last(tensor& out, const tensor& x);
void max_last(tensor& out, const tensor& x);
// W4e: out = softmax(x, 1).
void softmax_dim1(tensor& out, const tensor& x);
// W5: out = cond ? x + z : x + w.
void add_either(tensor& out, bool cond, const tensor& x, const tensor& z, const tensor& w);
// W8: element-wise math; gelu is the exact (erf) one.
void exp(tensor& out, const tensor& x);
void tanh(tensor& out, const tensor& x);
void sigmoid(tensor& out, const tensor& x);
void gelu(tensor& out, const tensor& x);
// W9: relu, and where(x > 0, x, 0.1 x) as leaky_relu(x, 0.1) (the same function, fused).
void relu(tensor& out, const tensor& x);
void leaky_relu(tensor& out, const tensor& x);
// tanh(a * 2 + 1): mul into out, then in place add and tanh.
void tanh_affine(tensor& out, const tensor& a);
// a * 2 + z: add(z, a, alpha = 2), fused.
void scale_add(tensor& out, const tensor& a, const tensor& z);

// W6: one-layer LSTM, batch first, gate order i, f, g, o. The fused weights [4H, I + H]
// (input columns first) and bias [4H] are split into LibTorch's w_ih, w_hh, b_ih (copies
// made once) and b_hh = 0.
class lstm_params {
 public:
  lstm_params(const float* w, const float* bias, std::int64_t input, std::int64_t hidden);
  lstm_params(lstm_params&&) noexcept;
  ~lstm_params();
  struct impl;
  impl& get() const { return *impl_; }

 private:
  std::unique_ptr<impl> impl_;
};
struct lstm_result {
  tensor out, h, c;  // [B, T, H], [1, B, H], [1, B, H]
};
// x [B, T, I], h0 and c0 [1, B, H].
lstm_result lstm(const tensor& x, const tensor& h0, const tensor& c0, const lstm_params& p);

// W6g: one-layer GRU, batch first, gate order r, z, n: w_ih [3H, I], w_hh [3H, H], b_ih and
// b_hh [3H] (copies made once).
class gru_params {
 public:
  gru_params(const float* w_ih, const float* w_hh, const float* b_ih, const float* b_hh,
             std::int64_t input, std::int64_t hidden);
  gru_params(gru_params&&) noexcept;
  ~gru_params();
  struct impl;
  impl& get() const { return *impl_; }

 private:
  std::unique_ptr<impl> impl_;
};
struct gru_result {
  tensor out, h;  // [B, T, H], [1, B, H]
};
// x [B, T, I], h0 [1, B, H].
gru_result gru(const tensor& x, const tensor& h0, const gru_params& p);

}  // namespace torch_peer
