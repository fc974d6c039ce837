// The encoder layer tests' model: dims (model 8, inner 8, hidden 12, 2 heads), parameters with
// torch's state-dict names, and torch.nn.TransformerEncoderLayer.forward written out in double
// over support::attention_reference.
#pragma once

#include <dimgraph.hpp>

#include "reference_attention.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace support::encoder {

namespace dg = dimgraph;

struct Model : dg::dim<"model", 8> {};
struct Inner : dg::dim<"inner", 8> {};
struct Hidden : dg::dim<"hidden", 12> {};
struct Heads : dg::dim<"heads", 2> {};
struct Time : dg::dim<"time"> {};
using Batch = dg::batch;
using Inner3 = decltype(dg::c<3> * Inner{});
using params = dg::nn::encoder_layer_parameters<float, Model, Inner, Hidden>;
using support::array3;

inline params make_params() {
  params p;
  p.self_attn.in_proj_weight = dg::uniform<float, Inner3, Model>(1, -0.5f, 0.5f);
  p.self_attn.in_proj_bias = dg::uniform<float, Inner3>(2, -0.5f, 0.5f);
  p.self_attn.out_proj.weight = dg::uniform<float, Model, Inner>(3, -0.5f, 0.5f);
  p.self_attn.out_proj.bias = dg::uniform<float, Model>(4, -0.5f, 0.5f);
  p.linear1.weight = dg::uniform<float, Hidden, Model>(5, -0.5f, 0.5f);
  p.linear1.bias = dg::uniform<float, Hidden>(6, -0.5f, 0.5f);
  p.linear2.weight = dg::uniform<float, Model, Hidden>(7, -0.5f, 0.5f);
  p.linear2.bias = dg::uniform<float, Model>(8, -0.5f, 0.5f);
  p.norm1.weight = dg::uniform<float, Model>(9, 0.5f, 1.5f);
  p.norm1.bias = dg::uniform<float, Model>(10, -0.5f, 0.5f);
  p.norm2.weight = dg::uniform<float, Model>(11, 0.5f, 1.5f);
  p.norm2.bias = dg::uniform<float, Model>(12, -0.5f, 0.5f);
  return p;
}

// torch.nn.LayerNorm over the last axis of rows of 8, in place.
inline void layer_norm(array3& x, const dg::tensor<float, Model>& w,
                       const dg::tensor<float, Model>& b, std::size_t nb, std::size_t nt,
                       double eps) {
  for (std::size_t i = 0; i < nb; ++i)
    for (std::size_t t = 0; t < nt; ++t) {
      double mean = 0, var = 0;
      for (std::size_t m = 0; m < 8; ++m) mean += x(i, t, m) / 8;
      for (std::size_t m = 0; m < 8; ++m) var += (x(i, t, m) - mean) * (x(i, t, m) - mean) / 8;
      for (std::size_t m = 0; m < 8; ++m)
        x(i, t, m) = (x(i, t, m) - mean) / std::sqrt(var + eps) * w(m) + b(m);
    }
}

// The self-attention of rows x [nb][nt][8].
inline array3 self_attention(const params& p, const array3& x, std::size_t nb, std::size_t nt,
                             bool causal) {
  const auto& a = p.self_attn;
  const auto xa = [&](std::size_t b, std::size_t t, std::size_t m) { return x(b, t, m); };
  const auto w = [&](std::size_t part) {
    return [&a, part](std::size_t i, std::size_t m) -> double {
      return a.in_proj_weight(part * 8 + i, m);
    };
  };
  const auto bias = [&](std::size_t part) {
    return [&a, part](std::size_t i) -> double { return a.in_proj_bias(part * 8 + i); };
  };
  return support::attention_reference(
             nb, nt, nt, 2, 8, 8, 8, 8, 8, xa, xa, xa, w(0), w(1), w(2), bias(0), bias(1), bias(2),
             [&](std::size_t o, std::size_t i) -> double { return a.out_proj.weight(o, i); },
             [&](std::size_t o) -> double { return a.out_proj.bias(o); },
             [causal](std::size_t, std::size_t, std::size_t t, std::size_t s) {
               return causal && s > t;
             },
             [](std::size_t, std::size_t, std::size_t, std::size_t) { return 0.0; })
      .out;
}

// linear2(act(linear1(x))) of rows x [nb][nt][8].
inline array3 feed_forward(const params& p, const array3& x, std::size_t nb, std::size_t nt,
                           bool gelu) {
  array3 y(nb, nt, 8);
  for (std::size_t i = 0; i < nb; ++i)
    for (std::size_t t = 0; t < nt; ++t) {
      std::vector<double> h(12);
      for (std::size_t j = 0; j < 12; ++j) {
        double acc = p.linear1.bias(j);
        for (std::size_t m = 0; m < 8; ++m) acc += double(p.linear1.weight(j, m)) * x(i, t, m);
        h[j] = gelu ? 0.5 * acc * std::erfc(-acc / std::sqrt(2.0)) : (acc > 0 ? acc : 0.0);
      }
      for (std::size_t m = 0; m < 8; ++m) {
        double acc = p.linear2.bias(m);
        for (std::size_t j = 0; j < 12; ++j) acc += double(p.linear2.weight(m, j)) * h[j];
        y(i, t, m) = acc;
      }
    }
  return y;
}

inline array3 plus(const array3& a, const array3& b) {
  array3 r = a;
  for (std::size_t i = 0; i < r.v.size(); ++i) r.v[i] += b.v[i];
  return r;
}

// torch.nn.TransformerEncoderLayer.forward in double.
inline array3 reference(const params& p, const array3& x, std::size_t nb, std::size_t nt,
                        bool norm_first, bool gelu, bool causal, double eps = 1e-5) {
  if (norm_first) {
    array3 n1 = x;
    layer_norm(n1, p.norm1.weight, p.norm1.bias, nb, nt, eps);
    const array3 h = plus(x, self_attention(p, n1, nb, nt, causal));
    array3 n2 = h;
    layer_norm(n2, p.norm2.weight, p.norm2.bias, nb, nt, eps);
    return plus(h, feed_forward(p, n2, nb, nt, gelu));
  }
  array3 h = plus(x, self_attention(p, x, nb, nt, causal));
  layer_norm(h, p.norm1.weight, p.norm1.bias, nb, nt, eps);
  array3 y = plus(h, feed_forward(p, h, nb, nt, gelu));
  layer_norm(y, p.norm2.weight, p.norm2.bias, nb, nt, eps);
  return y;
}

template <class X>
array3 as_array(const X& x, std::size_t nb, std::size_t nt) {
  array3 r(nb, nt, 8);
  for (std::size_t i = 0; i < nb; ++i)
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t m = 0; m < 8; ++m) r(i, t, m) = x(i, t, m);
  return r;
}

template <class Y>
void check_near(const Y& y, const array3& want, std::size_t nb, std::size_t nt) {
  for (std::size_t i = 0; i < nb; ++i)
    for (std::size_t t = 0; t < nt; ++t)
      for (std::size_t m = 0; m < 8; ++m)
        CHECK(y(i, t, m) == doctest::Approx(want(i, t, m)).epsilon(1e-5));
}

}  // namespace support::encoder
