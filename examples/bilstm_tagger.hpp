// The model of examples/bilstm_tagger.cpp: a sequence tagger, embedding -> bidirectional LSTM
// -> linear -> argmax, over a batch of token sequences of different lengths (a ragged time
// dim). The backward LSTM starts at each sequence's own last token, and each sequence's final
// states are its own: no padding enters any result.
#pragma once

#include <dimgraph.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

namespace tagger_example {

namespace dg = dimgraph;

struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};  // a length per sentence
struct Vocab : dg::dim<"vocab", 20> {};
struct Embed : dg::dim<"embed", 8> {};
struct Forward : dg::dim<"forward", 6> {};    // the forward LSTM's hidden dim
struct Backward : dg::dim<"backward", 6> {};  // the backward LSTM's
struct Tags : dg::dim<"tags", 5> {};

using tokens_t = dg::tensor<dg::index<Vocab>, Batch, Time>;

// One direction's weights in PyTorch's layout (weight_ih [4H, E], weight_hh [4H, H], bias_ih,
// bias_hh), gates i, f, g, o.
template <class Hidden>
struct lstm_params {
  using gates = decltype(dg::c<4> * Hidden{});
  dg::tensor<float, gates, Embed> weight_ih;
  dg::tensor<float, gates, Hidden> weight_hh;
  dg::tensor<float, gates> bias_ih, bias_hh;
};

struct params_t {
  dg::tensor<float, Vocab, Embed> embedding;
  lstm_params<Forward> forward;
  lstm_params<Backward> backward;
  dg::tensor<float, Tags, decltype(Forward{} + Backward{})> out_weight;
  dg::tensor<float, Tags> out_bias;
};

template <class Hidden>
lstm_params<Hidden> make_lstm(std::uint64_t seed) {
  using g = typename lstm_params<Hidden>::gates;
  const float k = 0.4f;  // torch's range 1 / sqrt(hidden size)
  return {dg::uniform<float, g, Embed>(seed, -k, k), dg::uniform<float, g, Hidden>(seed + 1, -k, k),
          dg::uniform<float, g>(seed + 2, -k, k), dg::uniform<float, g>(seed + 3, -k, k)};
}

inline params_t make_params() {
  return {dg::uniform<float, Vocab, Embed>(1, -1.0f, 1.0f), make_lstm<Forward>(10),
          make_lstm<Backward>(20),
          dg::uniform<float, Tags, decltype(Forward{} + Backward{})>(57, -2.0f, 2.0f),
          dg::uniform<float, Tags>(31, -0.1f, 0.1f)};
}

// One direction over the whole batch: every step's h stacked over time, and the last h of
// each sequence (at its own end).
template <dg::slicing S, class Hidden, class X>
auto lstm(const lstm_params<Hidden>& p, const X& x) {
  const std::size_t nb = x.template extent<Batch>();
  const auto h0 = dg::zeros<float, Batch, Hidden>(dg::extent<Batch>(nb));
  auto [ys, h_last, c_last] = dg::scan<Time>([&](const auto& xt, const auto& h, const auto& c) {
    auto next = dg::nn::lstm_cell(xt, h, c, p.weight_ih, p.weight_hh, p.bias_ih, p.bias_hh);
    return dg::step(dg::carry(next.h, next.c), dg::emit(next.h));
  })(dg::sliced<Time, S>(x), h0, h0);
  return std::tuple{std::move(ys), std::move(h_last)};
}

inline constexpr dg::slicing forwards{};
inline constexpr dg::slicing backwards{.start = -1, .end = 0, .stride = -1};

// The tagger: per-token scores [batch, time, tags] and the best tag of each token.
inline auto tag(const params_t& p, const tokens_t& tokens) {
  const auto x = dg::nn::embedding(tokens, p.embedding);
  const auto [yf, hf] = lstm<forwards>(p.forward, x);
  const auto [yb, hb] = lstm<backwards>(p.backward, x);
  const auto both = dg::concat(dg::along<Forward>(yf), dg::along<Backward>(yb));
  dg::tensor<float, Batch, Time, Tags> scores = dg::nn::linear(both, p.out_weight, p.out_bias);
  dg::tensor<dg::index<Tags>, Batch, Time> best = dg::argmax<Tags>(scores);
  return std::tuple{std::move(scores), std::move(best)};
}

// A padded batch of token sequences (the padding holds `pad`, which may be any value).
inline tokens_t make_tokens(const std::vector<std::vector<int>>& sentences, int pad) {
  std::vector<std::int64_t> lengths;
  std::size_t longest = 0;
  for (const auto& s : sentences) {
    lengths.push_back(static_cast<std::int64_t>(s.size()));
    longest = std::max(longest, s.size());
  }
  tokens_t t(dg::extent<Batch>(sentences.size()), dg::extent<Time>(longest),
             dg::lengths<Time>(std::span<const std::int64_t>(lengths)));
  for (std::size_t b = 0; b < sentences.size(); ++b)
    for (std::size_t i = 0; i < longest; ++i)
      t(b, i) = dg::index<Vocab>(i < sentences[b].size() ? sentences[b][i] : pad);
  return t;
}

}  // namespace tagger_example
