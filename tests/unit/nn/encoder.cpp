// dg::nn::transformer_encoder_layer against a double loop: post-norm and pre-norm, relu and gelu,
// the causal mask, layer_norm_eps, over a run-time batch and time; the parameter names are
// torch's state dict's. (Traced layers: encoder_traced.cpp.)
#include <dimgraph.hpp>

#include "reference_encoder.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;
using namespace support::encoder;

namespace {

// The layer with the options O on x [nb][nt][8] against the double loop.
template <dg::nn::encoder_options O>
void check_layer(const params& p, std::size_t nb, std::size_t nt, double eps = 1e-5) {
  CAPTURE(nb);
  CAPTURE(nt);
  CAPTURE(O.norm_first);
  CAPTURE(O.causal);
  const auto x = dg::uniform<float, Batch, Time, Model>(13, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                        dg::extent<Time>(nt));
  const auto y = dg::nn::transformer_encoder_layer<Heads, Time, O>(x, p, eps);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, Batch, Time, Model>>);
  check_near(y,
             reference(p, as_array(x, nb, nt), nb, nt, O.norm_first,
                       O.activation == dg::nn::activation::gelu, O.causal, eps),
             nb, nt);
}

}  // namespace

TEST_CASE("nn::transformer_encoder_layer: post-norm and pre-norm equal the double loop") {
  const params p = make_params();
  for (std::size_t nb : {1u, 3u})
    for (std::size_t nt : {1u, 4u}) {
      check_layer<dg::nn::encoder_options{}>(p, nb, nt);
      check_layer<dg::nn::encoder_options{.causal = true}>(p, nb, nt);
      check_layer<dg::nn::encoder_options{.norm_first = true}>(p, nb, nt);
      check_layer<dg::nn::encoder_options{.norm_first = true, .causal = true}>(p, nb, nt);
    }
}

TEST_CASE("nn::transformer_encoder_layer: layer_norm_eps is both layer norms' eps") {
  const params p = make_params();
  check_layer<dg::nn::encoder_options{}>(p, 2, 3, 0.5);
  check_layer<dg::nn::encoder_options{.norm_first = true}>(p, 2, 3, 0.5);
}

TEST_CASE("nn::transformer_encoder_layer: gelu as the activation") {
  const params p = make_params();
  check_layer<dg::nn::encoder_options{.activation = dg::nn::activation::gelu}>(p, 2, 3);
  check_layer<dg::nn::encoder_options{.activation = dg::nn::activation::gelu, .norm_first = true}>(
      p, 2, 3);
}

TEST_CASE("nn::transformer_encoder_layer: a run-time error names the layer, then the sublayer") {
  const params p = make_params();
  const auto x = dg::uniform<float, Batch, Time, Model>(14, -1.0f, 1.0f, dg::extent<Batch>(2),
                                                        dg::extent<Time>(3));
  // A mask (added to the scores) of batch 3 against x's 2.
  const auto mask = dg::zeros<float, Batch>(dg::extent<Batch>(3));
  CHECK_THROWS_WITH_AS((void)(dg::nn::transformer_encoder_layer<Heads, Time>(x, p, mask)),
                       "dimgraph: nn::transformer_encoder_layer: nn::multi_head_attention: add: "
                       "dim 'batch' has extent 2 in operand 1 and 3 in operand 2",
                       dg::shape_error);
}

TEST_CASE("nn::transformer_encoder_layer: the parameters have torch's state-dict names") {
  std::vector<std::string> names;
  params p = make_params();
  dg::parameters(p, [&](const std::string& name, const auto&) { names.push_back(name); });
  CHECK(names == std::vector<std::string>{"self_attn.in_proj_weight", "self_attn.in_proj_bias",
                                          "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                                          "linear1.weight", "linear1.bias", "linear2.weight",
                                          "linear2.bias", "norm1.weight", "norm1.bias",
                                          "norm2.weight", "norm2.bias"});
}
