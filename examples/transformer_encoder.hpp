// The model of examples/transformer_encoder.cpp: one torch.nn.TransformerEncoderLayer (model 8,
// 2 heads, feed-forward 12, post-norm, relu) over a padded batch whose time dim is ragged: each
// sequence sees only its own positions (the key-length mask comes from the lengths).
#pragma once

#include <dimgraph.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace encoder_example {

namespace dg = dimgraph;

struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};  // a length per sequence
struct Model : dg::dim<"model", 8> {};
struct Inner : dg::dim<"inner", 8> {};
struct Hidden : dg::dim<"hidden", 12> {};
struct Heads : dg::dim<"heads", 2> {};
using Inner3 = decltype(dg::c<3> * Inner{});
using params_t = dg::nn::encoder_layer_parameters<float, Model, Inner, Hidden>;
using batch_t = dg::tensor<float, Batch, Time, Model>;

// Weights in PyTorch's layout and names (self_attn.in_proj_weight, linear1.weight, ...), here
// seeded at random in the range torch initialises them in.
inline params_t make_params() {
  params_t p;
  p.self_attn.in_proj_weight = dg::uniform<float, Inner3, Model>(1, -0.35f, 0.35f);
  p.self_attn.in_proj_bias = dg::uniform<float, Inner3>(2, -0.1f, 0.1f);
  p.self_attn.out_proj.weight = dg::uniform<float, Model, Inner>(3, -0.35f, 0.35f);
  p.self_attn.out_proj.bias = dg::uniform<float, Model>(4, -0.1f, 0.1f);
  p.linear1.weight = dg::uniform<float, Hidden, Model>(5, -0.35f, 0.35f);
  p.linear1.bias = dg::uniform<float, Hidden>(6, -0.35f, 0.35f);
  p.linear2.weight = dg::uniform<float, Model, Hidden>(7, -0.25f, 0.25f);
  p.linear2.bias = dg::uniform<float, Model>(8, -0.25f, 0.25f);
  p.norm1.weight = dg::ones<float, Model>();
  p.norm1.bias = dg::zeros<float, Model>();
  p.norm2.weight = dg::ones<float, Model>();
  p.norm2.bias = dg::zeros<float, Model>();
  return p;
}

// The layer over a batch (ragged or not).
template <class X>
auto encode(const params_t& p, const X& x) {
  return dg::nn::transformer_encoder_layer<Heads, Time>(x, p);
}

// A padded batch of sequences of the given lengths, numbered from `first`: element (t, m) of
// sequence s is sin(0.3 (t + 1) + 0.7 m + s); the padding holds `pad` (it must not matter).
inline batch_t make_batch(const std::vector<std::int64_t>& lengths, float pad,
                          std::size_t first = 0) {
  const std::size_t nb = lengths.size();
  std::size_t longest = 0;
  for (auto n : lengths) longest = std::max(longest, static_cast<std::size_t>(n));
  batch_t x(dg::extent<Batch>(nb), dg::extent<Time>(longest),
            dg::lengths<Time>(std::span<const std::int64_t>(lengths)));
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < longest; ++t)
      for (std::size_t m = 0; m < 8; ++m)
        x(b, t, m) = static_cast<std::int64_t>(t) < lengths[b]
                         ? static_cast<float>(
                               std::sin(0.3 * double(t + 1) + 0.7 * double(m) + double(first + b)))
                         : pad;
  return x;
}

}  // namespace encoder_example
