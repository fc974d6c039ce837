// LibTorch's side of the run-time benchmarks (see torch_peers.hpp). Compiled as C++17.

#include "torch_peers.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <utility>
#include <vector>

namespace torch_peer {

struct tensor::impl {
  at::Tensor t;
};
struct lstm_params::impl {
  std::vector<at::Tensor> params;  // w_ih, w_hh, b_ih, b_hh
};
struct gru_params::impl {
  std::vector<at::Tensor> params;  // w_ih, w_hh, b_ih, b_hh
};

namespace {

at::Tensor& get(tensor& t) {
  return t.get().t;
}
const at::Tensor& get(const tensor& t) {
  return t.get().t;
}
tensor wrap(at::Tensor t) {
  return tensor(std::make_unique<tensor::impl>(tensor::impl{std::move(t)}));
}

}  // namespace

void init() {
  at::set_num_threads(1);
}

void set_threads(int n) {
  at::set_num_threads(n);
}

// from_blob takes a void*: outputs are written through it, inputs never are.
tensor::tensor(const float* data, std::initializer_list<std::int64_t> sizes)
    : impl_(std::make_unique<impl>(
          impl{at::from_blob(const_cast<float*>(data), at::IntArrayRef(sizes.begin(), sizes.size()),
                             at::TensorOptions().dtype(at::kFloat))})) {}
tensor::tensor(const float* data, std::size_t n) : tensor(data, {static_cast<std::int64_t>(n)}) {}
tensor::tensor(std::unique_ptr<impl> p) : impl_(std::move(p)) {}
tensor::tensor(tensor&&) noexcept = default;
tensor& tensor::operator=(tensor&&) noexcept = default;
tensor::~tensor() = default;

std::size_t tensor::size() const {
  return static_cast<std::size_t>(impl_->t.numel());
}
void tensor::copy_to(float* out) const {
  const at::Tensor c = impl_->t.contiguous();
  const float* p = c.data_ptr<float>();
  for (std::int64_t i = 0, n = c.numel(); i < n; ++i) out[i] = p[i];
}

void fma(tensor& out, const tensor& a, const tensor& b, const tensor& c) {
  at::addcmul_out(get(out), get(c), get(a), get(b));
}
void bias_add(tensor& out, const tensor& x, const tensor& bias) {
  at::add_out(get(out), get(x), get(bias));
}
void add_permuted(tensor& out, const tensor& x, const tensor& y_tbf) {
  at::add_out(get(out), get(x), get(y_tbf).permute({1, 0, 2}));
}
void sum_dim1(tensor& out, const tensor& x) {
  at::sum_out(get(out), get(x), at::IntArrayRef{1});
}
void softmax_last(tensor& out, const tensor& x) {
  at::softmax_out(get(out), get(x), 2);
}
void sum_last(tensor& out, const tensor& x) {
  at::sum_out(get(out), get(x), at::IntArrayRef{2});
}
void max_last(tensor& out, const tensor& x) {
  at::amax_out(get(out), get(x), at::IntArrayRef{2});
}
void softmax_dim1(tensor& out, const tensor& x) {
  at::softmax_out(get(out), get(x), 1);
}
void add_either(tensor& out, bool cond, const tensor& x, const tensor& z, const tensor& w) {
  at::add_out(get(out), get(x), cond ? get(z) : get(w));
}
void exp(tensor& out, const tensor& x) {
  at::exp_out(get(out), get(x));
}
void tanh(tensor& out, const tensor& x) {
  at::tanh_out(get(out), get(x));
}
void sigmoid(tensor& out, const tensor& x) {
  at::sigmoid_out(get(out), get(x));
}
void gelu(tensor& out, const tensor& x) {
  at::gelu_out(get(out), get(x), "none");
}
void relu(tensor& out, const tensor& x) {
  at::relu_out(get(out), get(x));
}
void leaky_relu(tensor& out, const tensor& x) {
  at::leaky_relu_out(get(out), get(x), 0.1);
}
void tanh_affine(tensor& out, const tensor& a) {
  at::mul_out(get(out), get(a), 2.0);
  get(out).add_(1.0).tanh_();
}
void scale_add(tensor& out, const tensor& a, const tensor& z) {
  at::add_out(get(out), get(z), get(a), 2.0);
}

lstm_params::lstm_params(const float* w, const float* bias, std::int64_t input, std::int64_t hidden)
    : impl_(std::make_unique<impl>()) {
  const auto options = at::TensorOptions().dtype(at::kFloat);
  // from_blob does not write through a const pointer; the copies below own their memory.
  const at::Tensor fused =
      at::from_blob(const_cast<float*>(w), {4 * hidden, input + hidden}, options);
  const at::Tensor b = at::from_blob(const_cast<float*>(bias), {4 * hidden}, options);
  impl_->params = {fused.narrow(1, 0, input).contiguous(),
                   fused.narrow(1, input, hidden).contiguous(), b.clone(),
                   at::zeros({4 * hidden}, options)};
}
lstm_params::lstm_params(lstm_params&&) noexcept = default;
lstm_params::~lstm_params() = default;

lstm_result lstm(const tensor& x, const tensor& h0, const tensor& c0, const lstm_params& p) {
  auto [out, h, c] = at::lstm(get(x), {get(h0), get(c0)}, p.get().params, /*has_biases=*/true,
                              /*num_layers=*/1, /*dropout=*/0.0, /*train=*/false,
                              /*bidirectional=*/false, /*batch_first=*/true);
  return {wrap(std::move(out)), wrap(std::move(h)), wrap(std::move(c))};
}

gru_params::gru_params(const float* w_ih, const float* w_hh, const float* b_ih, const float* b_hh,
                       std::int64_t input, std::int64_t hidden)
    : impl_(std::make_unique<impl>()) {
  const auto options = at::TensorOptions().dtype(at::kFloat);
  const auto copy = [&](const float* p, std::initializer_list<std::int64_t> sizes) {
    return at::from_blob(const_cast<float*>(p), at::IntArrayRef(sizes.begin(), sizes.size()),
                         options)
        .clone();
  };
  impl_->params = {copy(w_ih, {3 * hidden, input}), copy(w_hh, {3 * hidden, hidden}),
                   copy(b_ih, {3 * hidden}), copy(b_hh, {3 * hidden})};
}
gru_params::gru_params(gru_params&&) noexcept = default;
gru_params::~gru_params() = default;

gru_result gru(const tensor& x, const tensor& h0, const gru_params& p) {
  auto [out, h] = at::gru(get(x), get(h0), p.get().params, /*has_biases=*/true,
                          /*num_layers=*/1, /*dropout=*/0.0, /*train=*/false,
                          /*bidirectional=*/false, /*batch_first=*/true);
  return {wrap(std::move(out)), wrap(std::move(h))};
}

}  // namespace torch_peer
