// The parameters of dg::nn::multi_head_attention (its options, weight structs and key dim)
// and the checks on its operands, one reason per mistake.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include <boost/hana/define_struct.hpp>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/operators.hpp"
#include "dimgraph/graph/symbol.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph::nn {

// The key positions of self-attention: the query's time dim Time, renamed so that a query
// position and a key position are two dims ([.., time, key(time)] holds the scores). Same size
// as Time; printed "key(time)".
template <dimension Time>
struct key_dim : dim_expr_base {
  static constexpr interval bounds = bounds_v<Time>;
  static constexpr dim_kind kind = kind_v<Time>;
  static std::string describe() { return "key(" + dimgraph::describe<Time>() + ")"; }
};

}  // namespace dimgraph::nn

// The key dim of a ragged time dim is ragged over the same batch dim: renaming the keys keeps
// their lengths, and the softmax over the keys gives padding keys weight 0 (the key-length mask).
template <class Time>
  requires dimgraph::is_ragged_v<Time>
struct dimgraph::detail::ragged_batch_of<dimgraph::nn::key_dim<Time>> {
  using type = dimgraph::ragged_batch_t<Time>;
};

namespace dimgraph::nn {

// The key dim of attention from the query's time dim QTime and the key's time dim KTime:
// key_dim<QTime> when they are the same dim (self-attention), else KTime itself.
template <dimension QTime, dimension KTime = QTime>
using key_dim_t = std::conditional_t<same_dim_v<QTime, KTime>, key_dim<std::remove_cvref_t<QTime>>,
                                     std::remove_cvref_t<KTime>>;

// The options of nn::multi_head_attention. They change the computation, so they are a template
// argument (nn::multi_head_attention<Heads, Time, nn::attention_options{.causal = true}>): a
// traced attention records exactly the attention that runs. (Run-time values, the mask, are
// arguments.)
//   causal: query position i attends to key positions j <= i only (torch's is_causal; with
//           query and key of different lengths the mask is aligned at the top left, as
//           torch.ones(L, S).tril() in torch.nn.functional.scaled_dot_product_attention).
struct attention_options {
  bool causal = false;
};

// The weight and bias of a torch.nn.Linear [out, in] and [out] (a Hana struct: "weight", "bias").
template <class T, dimension Out, dimension In>
struct linear_parameters {
  using weight_type = tensor<T, Out, In>;
  using bias_type = tensor<T, Out>;
  BOOST_HANA_DEFINE_STRUCT(linear_parameters, (weight_type, weight), (bias_type, bias));
};

// torch.nn.MultiheadAttention's state dict when query, key and value have the embed dim
// (kdim = vdim = embed_dim): in_proj_weight [3 * inner, model], in_proj_bias [3 * inner] (the
// query's, key's and value's projections one after the other, dg::c<3> * Inner) and out_proj
// (weight [model, inner], bias [model]). torch's embed_dim E is both Model's and Inner's size:
// here they are two dims (the model dim the block reads and writes, the dim the heads split).
template <class T, dimension Model, dimension Inner>
struct attention_parameters {
  using in_dim = decltype(c<3> * Inner{});
  using in_weight_type = tensor<T, in_dim, Model>;
  using in_bias_type = tensor<T, in_dim>;
  using out_type = linear_parameters<T, Model, Inner>;
  BOOST_HANA_DEFINE_STRUCT(attention_parameters, (in_weight_type, in_proj_weight),
                           (in_bias_type, in_proj_bias), (out_type, out_proj));
};

namespace detail {

// No attention mask given.
struct no_mask {};

// Why multi_head_attention rejects its operands (checked in this order: one message per
// mistake).
enum class attention_check {
  ok,
  no_time_dim,
  heads_in_query,
  in_proj_rank,
  in_proj_model_dim,
  in_proj_not_three,
  in_bias_dims,
  q_proj_dims,
  k_proj_dims,
  v_proj_dims,
  key_dims,
  value_dims,
  heads_divide,
  out_proj_dims,
  out_bias_dims,
  traced_head_size,
  mask_type,
  mask_dims
};

template <class X>
inline constexpr std::size_t rank_v = dims_of_t<X>::size;

// Whether B's size can divide A's exactly (static sizes: it does; else some extents do).
template <class A, class B>
constexpr bool divides() {
  return !exact_div(bounds_v<A>, bounds_v<B>).is_empty();
}

// The other dim of a two-dim weight W: the one that is not D (void unless W has exactly D and
// one other dim).
template <class W, class D>
using other_dim_t =
    std::conditional_t<rank_v<W> == 2 && list_contains_v<dims_of_t<W>, D>,
                       first_dim_t<list_difference_t<dims_of_t<W>, dim_list<D>>>, void>;

// The dims of attention from the query Q [batch.., time, model], the projections Wq [inner,
// model], Wk [inner, kmodel], Wv [inner, vmodel] and the key K [batch.., ktime, kmodel]
// (valid once check_attention_projections passed).
template <class Heads, class Time, class Q, class Wq, class Wk, class Wv, class K>
struct attention_dims {
  using model = first_dim_t<list_intersection_t<dims_of_t<Q>, dims_of_t<Wq>>>;
  using inner = first_dim_t<list_difference_t<dims_of_t<Wq>, dims_of_t<Q>>>;
  using kmodel = other_dim_t<Wk, inner>;
  using vmodel = other_dim_t<Wv, inner>;
  using batch = list_difference_t<dims_of_t<Q>, dim_list<Time, model>>;
  using k_rest = list_difference_t<dims_of_t<K>, list_concat_t<batch, dim_list<kmodel>>>;
  using ktime = first_dim_t<k_rest>;
};

// The head dim of the projections' inner dim over Heads (formed only once the heads divide it,
// so that heads that do not divide get the one message of check_attention).
template <class Heads, class Inner>
using head_dim_t = decltype(div_left(Heads{}, Inner{}));

// Whether the bias B has exactly the dim D.
template <class B, class D>
inline constexpr bool bias_of_v = list_same_set_v<dims_of_t<B>, dim_list<D>>;

// The checks on everything but the packed in-projection (see check_packed).
template <class Heads, class Time, class Q, class K, class V, class Wq, class Wk, class Wv,
          class Bq, class Bk, class Bv, class Wo, class Bo, class M>
constexpr attention_check check_attention() {
  using check = attention_check;
  using qd = dims_of_t<Q>;
  if constexpr (!list_contains_v<qd, Time>) {
    return check::no_time_dim;
  } else if constexpr (list_contains_v<qd, Heads>) {
    return check::heads_in_query;
  } else if constexpr (rank_v<Wq> != 2 || list_intersection_t<qd, dims_of_t<Wq>>::size != 1 ||
                       list_contains_v<dims_of_t<Wq>, Time>) {
    return check::q_proj_dims;
  } else {
    using d = attention_dims<Heads, Time, Q, Wq, Wk, Wv, K>;
    using batch = typename d::batch;
    using kd = dims_of_t<K>;
    using vd = dims_of_t<V>;
    if constexpr (std::is_void_v<typename d::kmodel> || !list_contains_v<kd, typename d::kmodel>) {
      return check::k_proj_dims;
    } else if constexpr (std::is_void_v<typename d::vmodel> ||
                         !list_contains_v<vd, typename d::vmodel>) {
      return check::v_proj_dims;
    } else if constexpr (!list_is_subset_v<batch, kd> || d::k_rest::size != 1 ||
                         list_contains_v<kd, Heads>) {
      return check::key_dims;
    } else if constexpr (!list_same_set_v<vd, list_concat_t<batch, dim_list<typename d::ktime,
                                                                            typename d::vmodel>>>) {
      return check::value_dims;
    } else if constexpr (!divides<typename d::inner, Heads>() || (list_contains_v<batch, Heads>)) {
      return check::heads_divide;
    } else if constexpr (!bias_of_v<Bq, typename d::inner> || !bias_of_v<Bk, typename d::inner> ||
                         !bias_of_v<Bv, typename d::inner>) {
      return check::in_bias_dims;
    } else if constexpr (std::is_void_v<other_dim_t<Wo, typename d::inner>> ||
                         list_contains_v<list_concat_t<batch, dim_list<Time>>,
                                         other_dim_t<Wo, typename d::inner>>) {
      return check::out_proj_dims;
    } else if constexpr (!bias_of_v<Bo, other_dim_t<Wo, typename d::inner>>) {
      return check::out_bias_dims;
    } else if constexpr ((symbolic<Q> || symbolic<K> || symbolic<V> || symbolic<Wq> ||
                          symbolic<Wk> || symbolic<Wv> || symbolic<Bq> || symbolic<Bk> ||
                          symbolic<Bv>)&&!is_static_v<head_dim_t<Heads, typename d::inner>>) {
      return check::traced_head_size;
    } else if constexpr (std::is_same_v<M, no_mask>) {
      return check::ok;
    } else if constexpr (!std::is_same_v<value_of_t<M>, bool> &&
                         !std::is_floating_point_v<value_of_t<M>>) {
      return check::mask_type;
    } else if constexpr (!list_is_subset_v<
                             dims_of_t<M>,
                             list_concat_t<batch, dim_list<Heads, Time,
                                                           key_dim_t<Time, typename d::ktime>>>>) {
      return check::mask_dims;
    } else {
      return check::ok;
    }
  }
}

// The checks of a packed in-projection W [c<3> * inner, model] with its bias B [c<3> * inner].
template <class Q, class W, class B>
constexpr attention_check check_packed() {
  using check = attention_check;
  if constexpr (rank_v<W> != 2) {
    return check::in_proj_rank;
  } else if constexpr (list_intersection_t<dims_of_t<Q>, dims_of_t<W>>::size != 1) {
    return check::in_proj_model_dim;
  } else {
    using whole = first_dim_t<list_difference_t<dims_of_t<W>, dims_of_t<Q>>>;
    if constexpr (!divides<whole, const_dim<3>>()) return check::in_proj_not_three;
    else if constexpr (!bias_of_v<B, whole>) return check::in_bias_dims;
    else return check::ok;
  }
}

// The report of a check: Packed, W and B are in_proj_weight and in_proj_bias (Wk and Wv: W
// again); else W is q_proj_weight, Wk and Wv k_proj_weight and v_proj_weight, B in_proj_bias.
// (M: the mask's type, or no_mask. A check that holds instantiates nothing.)
template <attention_check Check, bool Packed, class Heads, class Time, class Q, class K, class V,
          class W, class Wk, class Wv, class B, class Wo, class Bo, class M>
void report_attention() {
  using check = attention_check;
  using query = dimgraph::detail::operand_role_t<"query", Q>;
  using key = dimgraph::detail::operand_role_t<"key", K>;
  using value = dimgraph::detail::operand_role_t<"value", V>;
  using w = std::conditional_t<Packed, dimgraph::detail::operand_role_t<"in_proj_weight", W>,
                               dimgraph::detail::operand_role_t<"q_proj_weight", W>>;
  using wk = std::conditional_t<Packed, w, dimgraph::detail::operand_role_t<"k_proj_weight", Wk>>;
  using wv = std::conditional_t<Packed, w, dimgraph::detail::operand_role_t<"v_proj_weight", Wv>>;
  using wo = dimgraph::detail::operand_role_t<"out_proj_weight", Wo>;
  DIMGRAPH_REQUIRE(Check != check::no_time_dim,
                   "dimgraph: nn::multi_head_attention: the query has no dim Time (the template "
                   "argument naming the query's positions)",
                   ::dimgraph::asked<Time>, query);
  DIMGRAPH_REQUIRE(Check != check::heads_in_query,
                   "dimgraph: nn::multi_head_attention: the query already has the heads dim",
                   ::dimgraph::asked<Heads>, query);
  DIMGRAPH_REQUIRE(Check != check::in_proj_rank,
                   "dimgraph: nn::multi_head_attention: in_proj_weight must have exactly two dims "
                   "[3 * inner, model]",
                   query, w);
  DIMGRAPH_REQUIRE(Check != check::in_proj_model_dim,
                   "dimgraph: nn::multi_head_attention: in_proj_weight must share exactly one dim "
                   "(the model dim) with the query",
                   query, w);
  DIMGRAPH_REQUIRE(Check != check::in_proj_not_three,
                   "dimgraph: nn::multi_head_attention: in_proj_weight's output dim is not three "
                   "projections (write it dg::c<3> * Inner)",
                   query, w);
  DIMGRAPH_REQUIRE(Check != check::in_bias_dims,
                   "dimgraph: nn::multi_head_attention: in_proj_bias must have exactly the "
                   "in-projection's output dim [3 * inner]",
                   w, dimgraph::detail::operand_role_t<"in_proj_bias", B>);
  DIMGRAPH_REQUIRE(Check != check::q_proj_dims,
                   "dimgraph: nn::multi_head_attention: the query projection must be [inner, "
                   "model], sharing exactly one dim (model) with the query",
                   ::dimgraph::asked<Time>, query, w);
  DIMGRAPH_REQUIRE(Check != check::k_proj_dims,
                   "dimgraph: nn::multi_head_attention: the key projection must be [inner, kmodel] "
                   "with the query projection's inner dim and a dim of the key",
                   key, w, wk);
  DIMGRAPH_REQUIRE(Check != check::v_proj_dims,
                   "dimgraph: nn::multi_head_attention: the value projection must be [inner, "
                   "vmodel] with the query projection's inner dim and a dim of the value",
                   value, w, wv);
  DIMGRAPH_REQUIRE(Check != check::key_dims,
                   "dimgraph: nn::multi_head_attention: the key must have the query's batch dims, "
                   "one time dim and its model dim, nothing else",
                   ::dimgraph::asked<Heads, Time>, query, key, wk);
  DIMGRAPH_REQUIRE(Check != check::value_dims,
                   "dimgraph: nn::multi_head_attention: the value must have the key's batch and "
                   "time dims and its model dim, nothing else",
                   key, value, wv);
  DIMGRAPH_REQUIRE(Check != check::heads_divide,
                   "dimgraph: nn::multi_head_attention: the number of heads does not divide the "
                   "projections' inner dim",
                   ::dimgraph::asked<Heads>, query, w);
  DIMGRAPH_REQUIRE(Check != check::out_proj_dims,
                   "dimgraph: nn::multi_head_attention: out_proj's weight must be [out, inner] "
                   "with the projections' inner dim, out not a dim of the query's batch or time",
                   ::dimgraph::asked<Time>, query, w, wo);
  DIMGRAPH_REQUIRE(Check != check::out_bias_dims,
                   "dimgraph: nn::multi_head_attention: out_proj's bias must have exactly the "
                   "output dim of out_proj's weight",
                   wo, dimgraph::detail::operand_role_t<"out_proj_bias", Bo>);
  DIMGRAPH_REQUIRE(Check != check::traced_head_size,
                   "dimgraph: nn::multi_head_attention: traced, the head size (the projections' "
                   "inner dim over the heads) must be static: the scale 1 / sqrt(head size) is a "
                   "constant of the graph (give the inner dim and the heads static sizes)",
                   ::dimgraph::asked<Heads>, w);
  DIMGRAPH_REQUIRE(Check != check::mask_type,
                   "dimgraph: nn::multi_head_attention: the attention mask must be of bool (true: "
                   "masked out) or of floating point (added to the scores)",
                   dimgraph::detail::operand_role_t<"mask", M>, value_of_t<M>);
  DIMGRAPH_REQUIRE(Check != check::mask_dims,
                   "dimgraph: nn::multi_head_attention: the attention mask may have only the dims "
                   "batch.., heads, time and the key dim (nn::key_dim_t<Time, KeyTime>)",
                   ::dimgraph::asked<Heads, Time>, query, key,
                   dimgraph::detail::operand_role_t<"mask", M>);
}

// A parameter struct of torch.nn.MultiheadAttention: packed (in_proj_weight, in_proj_bias,
// out_proj.weight, out_proj.bias) or separate (q_proj_weight, k_proj_weight, v_proj_weight,
// in_proj_bias, out_proj.weight, out_proj.bias).
template <class P>
concept packed_attention_struct = requires(const P& p) {
  p.in_proj_weight;
  p.in_proj_bias;
  p.out_proj.weight;
  p.out_proj.bias;
};
template <class P>
concept separate_attention_struct = requires(const P& p) {
  p.q_proj_weight;
  p.k_proj_weight;
  p.v_proj_weight;
  p.in_proj_bias;
  p.out_proj.weight;
  p.out_proj.bias;
};

// Weights given as one struct.
template <class P>
concept attention_struct = packed_attention_struct<P> || separate_attention_struct<P>;

}  // namespace detail

}  // namespace dimgraph::nn
