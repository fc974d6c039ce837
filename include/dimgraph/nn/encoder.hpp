// dg::nn::transformer_encoder_layer: self-attention and a feed-forward block, as torch's.
#pragma once

#include <type_traits>

#include <boost/hana/define_struct.hpp>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/activation.hpp"
#include "dimgraph/nn/attention.hpp"
#include "dimgraph/nn/feed_forward.hpp"
#include "dimgraph/nn/norm.hpp"

namespace dimgraph::nn {

// The options of nn::transformer_encoder_layer (torch's constructor and forward arguments that
// change the computation; dropout is not applied: inference). They are a template argument
// (nn::transformer_encoder_layer<Heads, Time, nn::encoder_options{.norm_first = true}>), so a
// traced layer records exactly the layer that runs; layer_norm_eps, a value, is an argument.
//   activation: of the feed-forward block, activation::relu (torch's default) or gelu
//   norm_first: false: post-norm (torch's default), true: pre-norm
//   causal:     the self-attention's causal mask (torch's is_causal)
struct encoder_options {
  nn::activation activation = nn::activation::relu;
  bool norm_first = false;
  bool causal = false;
};

// The weight and bias of a torch.nn.LayerNorm over Dim (a Hana struct: "weight", "bias").
template <class T, dimension Dim>
struct norm_parameters {
  using tensor_type = tensor<T, Dim>;
  BOOST_HANA_DEFINE_STRUCT(norm_parameters, (tensor_type, weight), (tensor_type, bias));
};

// torch.nn.TransformerEncoderLayer's state dict as a Hana struct, so dg::io::load reads a torch
// checkpoint's names: self_attn.in_proj_weight [3 * inner, model], self_attn.in_proj_bias,
// self_attn.out_proj.weight [model, inner], self_attn.out_proj.bias, linear1.weight [hidden,
// model], linear1.bias, linear2.weight [model, hidden], linear2.bias, norm1.weight [model],
// norm1.bias, norm2.weight, norm2.bias. torch's d_model is the size of Model and Inner,
// dim_feedforward Hidden's.
template <class T, dimension Model, dimension Inner, dimension Hidden>
struct encoder_layer_parameters {
  using attention_type = attention_parameters<T, Model, Inner>;
  using linear1_type = linear_parameters<T, Hidden, Model>;
  using linear2_type = linear_parameters<T, Model, Hidden>;
  using norm_type = norm_parameters<T, Model>;
  BOOST_HANA_DEFINE_STRUCT(encoder_layer_parameters, (attention_type, self_attn),
                           (linear1_type, linear1), (linear2_type, linear2), (norm_type, norm1),
                           (norm_type, norm2));
};

namespace detail {

// A struct with torch.nn.TransformerEncoderLayer's member names (see encoder_layer_parameters).
template <class P>
concept encoder_layer_struct = requires(const P& p) {
  p.self_attn;
  p.linear1.weight;
  p.linear1.bias;
  p.linear2.weight;
  p.linear2.bias;
  p.norm1.weight;
  p.norm1.bias;
  p.norm2.weight;
  p.norm2.bias;
};

template <class Heads, class Time, encoder_options O, class X, class P, class M>
auto encode(const X& x, const P& p, const M& mask, double eps) {
  constexpr attention_options attention{.causal = O.causal};
  const auto attend_to = [&](const auto& y) {
    return attend_struct<Heads, Time, attention, false>(y, y, y, p.self_attn, mask);
  };
  const auto feed = [&](const auto& y) {
    return nn::feed_forward<O.activation>(y, p.linear1.weight, p.linear1.bias, p.linear2.weight,
                                          p.linear2.bias);
  };
  const auto norm1 = [&](const auto& y) {
    return nn::layer_norm(y, p.norm1.weight, p.norm1.bias, eps);
  };
  const auto norm2 = [&](const auto& y) {
    return nn::layer_norm(y, p.norm2.weight, p.norm2.bias, eps);
  };
  // (Checked one block after the other: one message per mistake. The attention is called here
  // itself, not through attend_to, so that its mistakes are reported through one frame fewer.)
  if constexpr (dimgraph::detail::any_poisoned<X, M>) {
    return dimgraph::detail::invalid_expr{};
  } else if constexpr (dimgraph::detail::poisoned<
                           decltype(attend_struct<Heads, Time, attention, false>(
                               x, x, x, p.self_attn, mask))>) {
    return dimgraph::detail::invalid_expr{};
  } else if constexpr (dimgraph::detail::poisoned<decltype(feed(x))> ||
                       dimgraph::detail::poisoned<decltype(norm1(x))> ||
                       dimgraph::detail::poisoned<decltype(norm2(x))>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    return dimgraph::detail::in_call("nn::transformer_encoder_layer", [&] {
      if constexpr (O.norm_first) {
        // (x + .. keeps x's dims and order: the result is a tensor of x's type, or its symbol.)
        const auto h = dimgraph::eval(x + attend_to(norm1(x)));
        return dimgraph::eval(h + feed(norm2(h)));
      } else {
        const auto h = norm1(dimgraph::eval(x + attend_to(x)));
        return norm2(dimgraph::eval(h + feed(h)));
      }
    });
  }
}

}  // namespace detail

// transformer_encoder_layer<Heads, Time, O = {}>(x, p, [mask,] layer_norm_eps = 1e-5):
// torch.nn.TransformerEncoderLayer's forward (dropout none) over x [batch.., Time, model]:
//   post-norm (default):   h = norm1(x + sa(x)),   y = norm2(h + ff(h))
//   pre-norm (norm_first): h = x + sa(norm1(x)),   y = h + ff(norm2(h))
// O = nn::encoder_options{.activation, .norm_first, .causal} (a template argument: it changes
// the computation). sa: nn::multi_head_attention<Heads, Time, {.causal = O.causal}>(x, x, x,
// p.self_attn, mask); ff: nn::feed_forward<O.activation>(linear1, linear2), relu (torch's
// default) or gelu; norm1, norm2: nn::layer_norm with layer_norm_eps. p has torch's state-dict
// names (see encoder_layer_parameters); mask as multi_head_attention's (torch's src_mask).
//   transformer_encoder_layer([batch.., Time, model]) -> x's dims and order
// Evaluated now (a tensor; a symbol when traced: the graph is the form O chooses). Errors:
// those of multi_head_attention (a traced layer needs a static head size), feed_forward and
// layer_norm; at run time after this layer's name ("dimgraph: nn::transformer_encoder_layer:
// nn::layer_norm: mul: ...").
template <dimension Heads, dimension Time, encoder_options O = encoder_options{}, layer_operand X,
          detail::encoder_layer_struct P>
auto transformer_encoder_layer(const X& x, const P& p, double layer_norm_eps = 1e-5) {
  return detail::encode<Heads, Time, O>(x, p, detail::no_mask{}, layer_norm_eps);
}
template <dimension Heads, dimension Time, encoder_options O = encoder_options{}, layer_operand X,
          detail::encoder_layer_struct P, layer_operand M>
auto transformer_encoder_layer(const X& x, const P& p, const M& mask,
                               double layer_norm_eps = 1e-5) {
  return detail::encode<Heads, Time, O>(x, p, mask, layer_norm_eps);
}

}  // namespace dimgraph::nn
