// A ragged LSTM (dg::scan over a ragged time dim, dg::nn::lstm_cell) against LibTorch's
// torch::nn::LSTM on torch::nn::utils::rnn::pack_padded_sequence, one direction and
// bidirectional, with LibTorch's weights copied in (gate order i, f, g, o in both); and
// dg::pack of the padded input against LibTorch's own packing of each sequence.
#include <dimgraph.hpp>
#include <dimgraph/interop/torch.hpp>

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct In : dg::dim<"input", 7> {};
struct Hid : dg::dim<"hidden", 6> {};
using Gates = decltype(dg::c<4> * Hid{});

constexpr std::int64_t in = 7, hid = 6;

// One direction's weights, copied out of LibTorch: W [4H, I], R [4H, H], b_ih, b_hh [4H].
struct direction {
  dg::tensor<float, Gates, In> w;
  dg::tensor<float, Gates, Hid> r;
  dg::tensor<float, Gates> b_ih, b_hh;
};

direction weights_of(torch::nn::LSTM& lstm, const std::string& suffix) {
  auto p = lstm->named_parameters();
  auto get = [&](const std::string& name) { return p[name + suffix].detach().contiguous(); };
  direction d;
  d.w = dg::torch::view<float, Gates, In>(get("weight_ih_l0"));
  d.r = dg::torch::view<float, Gates, Hid>(get("weight_hh_l0"));
  d.b_ih = dg::torch::view<float, Gates>(get("bias_ih_l0"));
  d.b_hh = dg::torch::view<float, Gates>(get("bias_hh_l0"));
  return d;
}

template <dg::slicing S, class X, class H>
auto ragged_lstm(const direction& d, const X& x, const H& h0, const H& c0) {
  return dg::scan<Time>([&](const auto& xt, const auto& h, const auto& c) {
    auto next = dg::nn::lstm_cell(xt, h, c, d.w, d.r, d.b_ih, d.b_hh);
    return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
  })(dg::sliced<Time, S>(x), h0, c0);
}

// [Batch, Hid] state k of LibTorch's [directions, batch, hidden] state tensor.
dg::tensor<float, Batch, Hid> state_of(const at::Tensor& s, std::int64_t k) {
  const at::Tensor part = s[k].contiguous();
  return dg::tensor<float, Batch, Hid>(
      std::span<const float>(part.data_ptr<float>(), static_cast<std::size_t>(part.numel())),
      dg::extent<Batch>(static_cast<std::size_t>(part.size(0))));
}

std::size_t mismatches(const at::Tensor& want, const std::vector<float>& got) {
  const at::Tensor w = want.contiguous();
  REQUIRE(static_cast<std::size_t>(w.numel()) == got.size());
  const float* p = w.data_ptr<float>();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += !(std::fabs(p[i] - got[i]) <= 1e-5f);
  return bad;
}

void check_against_torch(bool bidirectional, const std::vector<std::int64_t>& lens) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(bidirectional ? 2 : 1);
  const auto rows = static_cast<std::int64_t>(lens.size());
  const std::int64_t steps = 6, dirs = bidirectional ? 2 : 1;
  torch::nn::LSTM lstm(
      torch::nn::LSTMOptions(in, hid).batch_first(true).bidirectional(bidirectional));
  at::Tensor x = torch::randn({rows, steps, in});
  // Padding LibTorch never reads; dimgraph must not either.
  for (std::int64_t b = 0; b < rows; ++b)
    if (lens[static_cast<std::size_t>(b)] < steps)
      x[b].slice(0, lens[static_cast<std::size_t>(b)]).fill_(NAN);
  const at::Tensor h0 = torch::randn({dirs, rows, hid}), c0 = torch::randn({dirs, rows, hid});

  const auto packed = torch::nn::utils::rnn::pack_padded_sequence(
      x, torch::tensor(lens, torch::kInt64), /*batch_first=*/true, /*enforce_sorted=*/false);
  auto [out_packed, state] = lstm->forward_with_packed_input(packed, std::make_tuple(h0, c0));
  const at::Tensor out = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(
      out_packed, /*batch_first=*/true, 0.0, steps));  // [batch, time, dirs * hidden]
  const at::Tensor h_n = std::get<0>(state), c_n = std::get<1>(state);

  const dg::tensor<float, Batch, Time, In> xd(
      std::span<const float>(x.data_ptr<float>(), static_cast<std::size_t>(x.numel())),
      dg::extent<Batch>(static_cast<std::size_t>(rows)),
      dg::extent<Time>(static_cast<std::size_t>(steps)), dg::lengths<Time>(lens));
  const direction fw = weights_of(lstm, "");
  auto [ys, h, c] = ragged_lstm<dg::slicing{}>(fw, xd, state_of(h0, 0), state_of(c0, 0));
  CHECK(dg::lengths_of<Time>(ys).to_vector() == lens);
  CHECK(mismatches(h_n[0], h.to_vector()) == 0);
  CHECK(mismatches(c_n[0], c.to_vector()) == 0);
  if (!bidirectional) {
    CHECK(mismatches(out, ys.to_vector()) == 0);
    return;
  }
  const direction bw = weights_of(lstm, "_reverse");
  auto [ys_b, h_b, c_b] = ragged_lstm<dg::slicing{.start = -1, .end = 0, .stride = -1}>(
      bw, xd, state_of(h0, 1), state_of(c0, 1));
  CHECK(mismatches(h_n[1], h_b.to_vector()) == 0);
  CHECK(mismatches(c_n[1], c_b.to_vector()) == 0);
  const auto both = dg::eval(dg::concat(dg::along<Hid>(ys), dg::along<Hid>(ys_b)));
  CHECK(mismatches(out, both.to_vector()) == 0);
}

}  // namespace

TEST_CASE("ragged LSTM equals torch::nn::LSTM on pack_padded_sequence, one direction") {
  check_against_torch(false, {6, 3, 1, 5});
  check_against_torch(false, {2});
}

TEST_CASE("ragged bidirectional LSTM equals torch::nn::LSTM on pack_padded_sequence") {
  check_against_torch(true, {4, 6, 1});
  check_against_torch(true, {3});
}

TEST_CASE("ragged pack: dg::pack equals each sequence of the padded batch, packed by LibTorch") {
  // LibTorch's PackedSequence is time-major; its NestedTensor-style layout is the sequences one
  // after the other, which torch::cat of each row's valid part gives.
  torch::manual_seed(3);
  const std::vector<std::int64_t> lens{3, 5, 2};
  const at::Tensor x = torch::randn({3, 5, in});
  std::vector<at::Tensor> parts;
  for (std::size_t b = 0; b < 3; ++b)
    parts.push_back(x[static_cast<std::int64_t>(b)].slice(0, 0, lens[b]));
  const at::Tensor flat = torch::cat(parts, 0);
  const dg::tensor<float, Batch, Time, In> xd(
      std::span<const float>(x.data_ptr<float>(), static_cast<std::size_t>(x.numel())),
      dg::extent<Batch>(3), dg::lengths<Time>(lens));
  const auto p = dg::pack<Time>(xd);
  CHECK(mismatches(flat, p.values.to_vector()) == 0);
  CHECK(p.offsets.to_vector() == std::vector<std::int64_t>{0, 3, 8, 10});
  // And back through LibTorch's memory.
  const auto y =
      dg::unpack<Time>(dg::torch::view<float, dg::packed_dim<Time>, In>(flat), p.offsets);
  const at::Tensor padded = torch::nn::utils::rnn::pad_sequence(
      {x[0].slice(0, 0, 3), x[1], x[2].slice(0, 0, 2)}, /*batch_first=*/true);
  CHECK(mismatches(padded, y.to_vector()) == 0);
}
