// dg::nn::multi_head_attention: scaled dot-product attention over heads, as
// torch.nn.MultiheadAttention.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/contract.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/attention_params.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/ops/broadcast.hpp"
#include "dimgraph/ops/contract.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/reduce.hpp"
#include "dimgraph/ops/reshape.hpp"
#include "dimgraph/ops/softmax.hpp"
#include "dimgraph/tensor/make.hpp"

namespace dimgraph::nn {

namespace detail {

// x with its time dim KTime renamed to the key dim (a view; x itself when they differ).
template <class Time, class KTime, class X>
decltype(auto) as_keys(X&& x) {
  if constexpr (same_dim_v<Time, KTime>) return dimgraph::rename<KTime, key_dim_t<Time, KTime>>(x);
  else return std::forward<X>(x);
}

// allowed[time, key] = key <= time over the extents of the scores' Time and Key: the causal
// mask. For a symbol it is the graph node causal_mask<Time, Key>(scores), bool [Time, Key],
// whose extents are the scores' when the graph runs (its eager value is this function's).
template <class Time, class Key, class S>
auto causal_allowed(const S& scores) {
  if constexpr (symbolic<S>) {
    using result = decltype(causal_allowed<Time, Key>(dimgraph::detail::stand_in_of(scores)));
    return dimgraph::detail::symbolic_apply<op_tag<"causal_mask", Time, Key>, result>(
        [](const auto& s) { return causal_allowed<Time, Key>(s); }, scores);
  } else {
    const std::size_t n_query = scores.template extent<Time>();
    const auto qi = dimgraph::iota<std::int64_t, Time>(extent<Time>(n_query));
    const auto kj = dimgraph::iota<std::int64_t, Key>(extent<Key>(scores.template extent<Key>()));
    return dimgraph::eval(
        dimgraph::less_equal(dimgraph::broadcast_to<Time, Key>(kj, extent<Time>(n_query)), qi));
  }
}

// The scores with the user's mask applied (lazily): bool true masks out, floats are added.
template <class S, class M>
auto with_mask(const S& scores, const M& mask) {
  using T = value_of_t<S>;
  if constexpr (std::is_same_v<M, no_mask>) return (scores);
  else if constexpr (std::is_same_v<value_of_t<M>, bool>)
    return dimgraph::where(mask, -std::numeric_limits<T>::infinity(), scores);
  else return scores + mask;
}

// The attention itself, on checked operands: projections, heads, scores, masks, softmax over
// the key dim, the weighted sum of the values, the heads merged, the output projection.
template <class Heads, class Time, attention_options O, bool NeedWeights, class Q, class K, class V,
          class Wq, class Wk, class Wv, class Bq, class Bk, class Bv, class Wo, class Bo, class M>
auto attend(const Q& query, const K& key, const V& value, const Wq& wq, const Wk& wk, const Wv& wv,
            const Bq& bq, const Bk& bk, const Bv& bv, const Wo& wo, const Bo& bo, const M& mask) {
  using d = attention_dims<Heads, Time, Q, Wq, Wk, Wv, K>;
  using inner = typename d::inner;
  using head = head_dim_t<Heads, inner>;
  using ktime = typename d::ktime;
  using kdim = key_dim_t<Time, ktime>;
  using T = value_of_t<Q>;
  constexpr T inf = std::numeric_limits<T>::infinity();

  const auto qp = dimgraph::eval(dimgraph::dot<typename d::model>(query, wq) + bq);
  const auto kp = dimgraph::eval(dimgraph::dot<typename d::kmodel>(key, wk) + bk);
  const auto vp = dimgraph::eval(dimgraph::dot<typename d::vmodel>(value, wv) + bv);
  const auto qh = dimgraph::split_dims<Heads, head>(qp);
  const auto kh = dimgraph::split_dims<Heads, head>(as_keys<Time, ktime>(kp));
  const auto vh = dimgraph::split_dims<Heads, head>(as_keys<Time, ktime>(vp));
  // 1 / sqrt(head size): a constant of a traced graph (whose head size check_attention
  // requires static), else from the extent.
  const std::size_t head_size = [&] {
    if constexpr (is_static_v<head>) return bounds_v<head>.lo;
    else return qh.template extent<head>();
  }();
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(head_size)));
  auto scores = dimgraph::eval(dimgraph::dot<head>(qh, kh) * scale);
  const auto attn = [&] {
    if constexpr (!O.causal) {
      return dimgraph::softmax<kdim>(with_mask(scores, mask));
    } else if constexpr (symbolic<decltype(scores)>) {
      const auto causal = dimgraph::where(causal_allowed<Time, kdim>(scores), scores, -inf);
      return dimgraph::softmax<kdim>(with_mask(causal, mask));
    } else {
      // The same where, written over the scores in place (eval of a symbol is the symbol: in
      // a graph that is the node above): one more pass, one softmax kernel for both masks.
      scores = dimgraph::where(causal_allowed<Time, kdim>(scores), scores, -inf);
      return dimgraph::softmax<kdim>(with_mask(scores, mask));
    }
  }();
  const auto context = dimgraph::eval(dimgraph::dot<kdim>(attn, vh));
  const auto merged = dimgraph::merge_dims<Heads, head>(context);
  auto out = dimgraph::eval(dimgraph::dot<inner>(merged, wo) + bo);
  if constexpr (NeedWeights)
    return std::pair{std::move(out), dimgraph::eval(dimgraph::mean<Heads>(attn))};
  else return out;
}

// The layer the user called, which its run-time errors name first.
template <bool NeedWeights>
inline constexpr const char* attention_name =
    NeedWeights ? "nn::multi_head_attention_with_weights" : "nn::multi_head_attention";

// What attention gives after a mistake (reported where it was made, or by its checks): the
// stand-in, or a pair of them for multi_head_attention_with_weights, so that
// `auto [out, weights] = ...` says nothing more.
template <bool NeedWeights>
auto poisoned_attention() {
  using invalid = dimgraph::detail::invalid_expr;
  if constexpr (NeedWeights) return std::pair<invalid, invalid>{};
  else return invalid{};
}

// Packed in-projection weights as the three projections (views; symbols when traced).
template <class Q, class W, class B>
struct packed_projection {
  using whole = first_dim_t<list_difference_t<dims_of_t<W>, dims_of_t<Q>>>;
  using inner = decltype(div_left(c<3>, whole{}));
  template <std::size_t I, class X>
  static auto part(const X& x) {
    return dimgraph::split_dims<const_dim<3>, inner>(x)[dimgraph::at<const_dim<3>>(I)];
  }
};

// The checks of multi_head_attention on the packed weights W, B (in_proj_weight,
// in_proj_bias): check_packed, then check_attention on their thirds. Made, and reported
// (report_attention), where the layer is called. (After a mistake reported before: ok, and
// attend_packed gives the stand-in.)
template <class Heads, class Time, class Q, class K, class V, class W, class B, class Wo, class Bo,
          class M>
constexpr attention_check check_packed_attention() {
  if constexpr (dimgraph::detail::any_poisoned<Q, K, V, W, B, Wo, Bo, M>) {
    return attention_check::ok;
  } else if constexpr (constexpr attention_check packed = check_packed<Q, W, B>();
                       packed != attention_check::ok) {
    return packed;
  } else {
    using p = packed_projection<Q, W, B>;
    using P = std::remove_cvref_t<decltype(p::template part<0>(std::declval<const W&>()))>;
    using PB = std::remove_cvref_t<decltype(p::template part<0>(std::declval<const B&>()))>;
    return check_attention<Heads, Time, Q, K, V, P, P, P, PB, PB, PB, Wo, Bo, M>();
  }
}

// multi_head_attention on the packed weights (in_proj_weight, in_proj_bias), checked
// (check_packed_attention gave Check).
template <class Heads, class Time, attention_options O, bool NeedWeights, attention_check Check,
          class Q, class K, class V, class W, class B, class Wo, class Bo, class M>
auto attend_packed(const Q& query, const K& key, const V& value, const W& w_in, const B& b_in,
                   const Wo& wo, const Bo& bo, const M& mask) {
  if constexpr (Check != attention_check::ok ||
                dimgraph::detail::any_poisoned<Q, K, V, W, B, Wo, Bo, M>) {
    return poisoned_attention<NeedWeights>();
  } else {
    return dimgraph::detail::in_call(attention_name<NeedWeights>, [&] {
      using p = packed_projection<Q, W, B>;
      const auto wq = p::template part<0>(w_in);
      const auto wk = p::template part<1>(w_in);
      const auto wv = p::template part<2>(w_in);
      const auto bq = p::template part<0>(b_in);
      const auto bk = p::template part<1>(b_in);
      const auto bv = p::template part<2>(b_in);
      return attend<Heads, Time, O, NeedWeights>(query, key, value, wq, wk, wv, bq, bk, bv, wo, bo,
                                                 mask);
    });
  }
}

// The packed bias B [c<3> * inner] of separate projections, Wq [inner, model] (checked first).
template <class Q, class Wq, class B>
constexpr attention_check check_separate_bias() {
  using check = attention_check;
  using inner = first_dim_t<list_difference_t<dims_of_t<Wq>, dims_of_t<Q>>>;
  if constexpr (rank_v<Wq> != 2 || list_intersection_t<dims_of_t<Q>, dims_of_t<Wq>>::size != 1)
    return check::q_proj_dims;
  else if constexpr (!bias_of_v<B, decltype(c<3> * inner{})>) return check::in_bias_dims;
  else return check::ok;
}

// The checks of multi_head_attention on separate projections Wq, Wk, Wv with the packed bias B
// (check_separate_bias, then check_attention on the bias's thirds), as check_packed_attention.
template <class Heads, class Time, class Q, class K, class V, class Wq, class Wk, class Wv, class B,
          class Wo, class Bo, class M>
constexpr attention_check check_separate_attention() {
  if constexpr (dimgraph::detail::any_poisoned<Q, K, V, Wq, Wk, Wv, B, Wo, Bo, M>) {
    return attention_check::ok;
  } else if constexpr (constexpr attention_check bias = check_separate_bias<Q, Wq, B>();
                       bias != attention_check::ok) {
    return bias;
  } else {
    using PB = std::remove_cvref_t<decltype(packed_projection<Q, B, B>::template part<0>(
        std::declval<const B&>()))>;
    return check_attention<Heads, Time, Q, K, V, Wq, Wk, Wv, PB, PB, PB, Wo, Bo, M>();
  }
}

// multi_head_attention on separate projections (q_proj_weight, k_proj_weight, v_proj_weight)
// and the packed bias, checked (check_separate_attention gave Check).
template <class Heads, class Time, attention_options O, bool NeedWeights, attention_check Check,
          class Q, class K, class V, class Wq, class Wk, class Wv, class B, class Wo, class Bo,
          class M>
auto attend_separate(const Q& query, const K& key, const V& value, const Wq& wq, const Wk& wk,
                     const Wv& wv, const B& b_in, const Wo& wo, const Bo& bo, const M& mask) {
  if constexpr (Check != attention_check::ok ||
                dimgraph::detail::any_poisoned<Q, K, V, Wq, Wk, Wv, B, Wo, Bo, M>) {
    return poisoned_attention<NeedWeights>();
  } else {
    return dimgraph::detail::in_call(attention_name<NeedWeights>, [&] {
      using p = packed_projection<Q, B, B>;
      const auto bq = p::template part<0>(b_in);
      const auto bk = p::template part<1>(b_in);
      const auto bv = p::template part<2>(b_in);
      return attend<Heads, Time, O, NeedWeights>(query, key, value, wq, wk, wv, bq, bk, bv, wo, bo,
                                                 mask);
    });
  }
}

// multi_head_attention with the weights as one struct P: checked and reported here, then run
// on its packed or separate weights.
template <class Heads, class Time, attention_options O, bool NeedWeights, class Q, class K, class V,
          class P, class M>
auto attend_struct(const Q& query, const K& key, const V& value, const P& p, const M& mask) {
  using wo = std::remove_cvref_t<decltype(p.out_proj.weight)>;
  using bo = std::remove_cvref_t<decltype(p.out_proj.bias)>;
  using b = std::remove_cvref_t<decltype(p.in_proj_bias)>;
  if constexpr (packed_attention_struct<P>) {
    using w = std::remove_cvref_t<decltype(p.in_proj_weight)>;
    constexpr attention_check check =
        check_packed_attention<Heads, Time, Q, K, V, w, b, wo, bo, M>();
    report_attention<check, true, Heads, Time, Q, K, V, w, w, w, b, wo, bo, M>();
    return attend_packed<Heads, Time, O, NeedWeights, check>(query, key, value, p.in_proj_weight,
                                                             p.in_proj_bias, p.out_proj.weight,
                                                             p.out_proj.bias, mask);
  } else {
    using wq = std::remove_cvref_t<decltype(p.q_proj_weight)>;
    using wk = std::remove_cvref_t<decltype(p.k_proj_weight)>;
    using wv = std::remove_cvref_t<decltype(p.v_proj_weight)>;
    constexpr attention_check check =
        check_separate_attention<Heads, Time, Q, K, V, wq, wk, wv, b, wo, bo, M>();
    report_attention<check, false, Heads, Time, Q, K, V, wq, wk, wv, b, wo, bo, M>();
    return attend_separate<Heads, Time, O, NeedWeights, check>(
        query, key, value, p.q_proj_weight, p.k_proj_weight, p.v_proj_weight, p.in_proj_bias,
        p.out_proj.weight, p.out_proj.bias, mask);
  }
}

}  // namespace detail

// multi_head_attention<Heads, Time, O = {}>(query, key, value, in_proj_weight, in_proj_bias,
//                                           out_proj_weight, out_proj_bias, [mask]):
// torch.nn.MultiheadAttention's forward (batch_first is moot: dims are named; dropout none):
//   q = query . Wq + bq,  k = key . Wk + bk,  v = value . Wv + bv      (Wq, Wk, Wv: the
//   thirds of in_proj_weight [c<3> * inner, model], bq, bk, bv of in_proj_bias [c<3> * inner])
//   per head h (inner = Heads * head, heads major, as torch's view(.., heads, head)):
//   a = softmax over key of (q_h . k_h / sqrt(size(head)) + mask),  o_h = a . v_h
//   out = concat_h(o_h) . out_proj_weight [out, inner] + out_proj_bias [out]
// Shape rule (Time: the query's positions, KTime: the key's, Time again for self-attention):
//   query [batch.., Time, model], key [batch.., KTime, model], value [batch.., KTime, model]
//   -> [query's dims in its order with model replaced by out (last)]
// key and value may have a time dim of their own (cross-attention over another sequence); when
// it is Time (self-attention), the key positions become nn::key_dim<Time> inside, so scores
// are [batch.., Heads, Time, key_dim_t<Time, KTime>]. The head dim is div_left(Heads, inner).
// mask (torch's attn_mask, a run-time argument) has a subset of the dims batch.., Heads, Time,
// key_dim_t<Time, KTime>: of bool, true masks a key position out; floating point, added to the
// scores. O = nn::attention_options{.causal = true} masks out keys after the query position
// (a template argument: it changes the computation; see attention_options). A row with every
// key masked out gives NaN, as torch. Evaluated now (a tensor; a symbol when traced: the graph
// is this computation, the causal mask a node causal_mask<Time, key>(scores) only when
// O.causal, the scale a constant).
// Errors (compile time): the query lacks Time or has Heads; in_proj_weight not [c<3> * inner,
// model] sharing model with the query, or a bias not of its weight's output dim; key or value
// not [batch.., KTime, model]; Heads not dividing inner; out_proj_weight not [out, inner]; traced
// with a head size that is not static (the scale would not be a constant: a traced attention
// needs static Heads and inner sizes); a mask not of bool or floating point, or with other dims.
// Errors (run time): extents that disagree (shape_error from the op that meets them, after the
// layer's name: "dimgraph: nn::multi_head_attention: dot: ...").
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo>
auto multi_head_attention(const Q& query, const K& key, const V& value, const W& in_proj_weight,
                          const B& in_proj_bias, const Wo& out_proj_weight,
                          const Bo& out_proj_bias) {
  using no_mask = detail::no_mask;
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, no_mask>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, no_mask>();
  return detail::attend_packed<Heads, Time, O, false, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo, layer_operand M>
auto multi_head_attention(const Q& query, const K& key, const V& value, const W& in_proj_weight,
                          const B& in_proj_bias, const Wo& out_proj_weight, const Bo& out_proj_bias,
                          const M& mask) {
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, M>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, M>();
  return detail::attend_packed<Heads, Time, O, false, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, mask);
}

// multi_head_attention<Heads, Time, O = {}>(query, key, value, p, [mask]) with the weights as
// one struct named as torch's state dict: p.in_proj_weight, p.in_proj_bias, p.out_proj.weight,
// p.out_proj.bias (nn::attention_parameters), or, for key and value of other sizes than the
// query (torch's kdim, vdim), p.q_proj_weight [inner, model], p.k_proj_weight [inner, kmodel],
// p.v_proj_weight [inner, vmodel], p.in_proj_bias, p.out_proj.weight, p.out_proj.bias.
// Otherwise as above.
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P>
auto multi_head_attention(const Q& query, const K& key, const V& value, const P& p) {
  return detail::attend_struct<Heads, Time, O, false>(query, key, value, p, detail::no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P,
          layer_operand M>
auto multi_head_attention(const Q& query, const K& key, const V& value, const P& p, const M& mask) {
  return detail::attend_struct<Heads, Time, O, false>(query, key, value, p, mask);
}

// multi_head_attention_with_weights<Heads, Time, O = {}>(...): the same arguments as
// multi_head_attention; returns std::pair{output, weights}, weights the attention
// probabilities averaged over the heads, [batch.., Time, key_dim_t<Time, KTime>] (torch's
// need_weights=True, average_attn_weights=True).
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value,
                                       const W& in_proj_weight, const B& in_proj_bias,
                                       const Wo& out_proj_weight, const Bo& out_proj_bias) {
  using no_mask = detail::no_mask;
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, no_mask>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, no_mask>();
  return detail::attend_packed<Heads, Time, O, true, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo, layer_operand M>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value,
                                       const W& in_proj_weight, const B& in_proj_bias,
                                       const Wo& out_proj_weight, const Bo& out_proj_bias,
                                       const M& mask) {
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, M>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, M>();
  return detail::attend_packed<Heads, Time, O, true, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, mask);
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value, const P& p) {
  return detail::attend_struct<Heads, Time, O, true>(query, key, value, p, detail::no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P,
          layer_operand M>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value, const P& p,
                                       const M& mask) {
  return detail::attend_struct<Heads, Time, O, true>(query, key, value, p, mask);
}

}  // namespace dimgraph::nn
