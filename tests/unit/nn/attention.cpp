// dg::nn::multi_head_attention against double loops: self-attention with 1, 2 and 4 heads over a
// run-time batch and time, the averaged weights, the causal mask, the weights given one by one.
#include <dimgraph.hpp>

#include "attention_fixture.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

using namespace attention_fixture;
using support::array3;

template <class Heads, bool Causal>
void check_self_attention(const packed& w, std::size_t nb, std::size_t nt) {
  constexpr bool causal = Causal;
  CAPTURE(nb);
  CAPTURE(nt);
  CAPTURE(causal);
  const std::size_t heads = dg::static_size_v<Heads>;
  CAPTURE(heads);
  const auto x = dg::uniform<float, Batch, Time, Model>(5, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                        dg::extent<Time>(nt));
  const auto [y, a] =
      dg::nn::multi_head_attention_with_weights<Heads, Time,
                                                dg::nn::attention_options{.causal = Causal}>(
          x, x, x, w.p);
  static_assert(
      std::is_same_v<std::remove_cvref_t<decltype(y)>, dg::tensor<float, Batch, Time, Model>>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(a)>,
                               dg::tensor<float, Batch, Time, dg::nn::key_dim<Time>>>);
  const auto masked = [](std::size_t, std::size_t, std::size_t t, std::size_t s) {
    return causal && s > t;
  };
  const auto want = support::attention_reference(
      nb, nt, nt, heads, 8, 8, 8, 8, 8, accessor(x), accessor(x), accessor(x), w.w(0), w.w(1),
      w.w(2), w.b(0), w.b(1), w.b(2), w.wo(), w.bo(), masked, nothing_added);
  check_near(y, want.out, nb, nt, 8);
  check_near(a, want.weights, nb, nt, nt);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < nt; ++t) {
      double total = 0;
      for (std::size_t s = 0; s < nt; ++s) {
        total += a(b, t, s);
        if (causal && s > t) CHECK(a(b, t, s) == 0.0f);  // exactly
      }
      CHECK(total == doctest::Approx(1.0).epsilon(1e-6));
    }
}

}  // namespace

TEST_CASE("nn::multi_head_attention: self-attention equals the double loop with 1, 2 and 4 heads") {
  const packed w;
  for (std::size_t nb : {1u, 3u})
    for (std::size_t nt : {1u, 5u}) {
      check_self_attention<Heads1, false>(w, nb, nt);
      check_self_attention<Heads2, false>(w, nb, nt);
      check_self_attention<Heads4, false>(w, nb, nt);
    }
}

TEST_CASE("nn::multi_head_attention: a causal mask gives keys after the query weight exactly 0") {
  const packed w;
  for (std::size_t nt : {1u, 4u, 7u}) {
    check_self_attention<Heads2, true>(w, 2, nt);
    check_self_attention<Heads4, true>(w, 1, nt);
  }
}

TEST_CASE("nn::multi_head_attention: the weights given one by one give the struct's values") {
  const packed w;
  const std::size_t nb = 2, nt = 3;
  const auto x = dg::uniform<float, Batch, Time, Model>(20, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                        dg::extent<Time>(nt));
  // (With the weights, as above: one instantiation for both tests.)
  const auto [y, a] = dg::nn::multi_head_attention_with_weights<Heads2, Time>(
      x, x, x, w.p.in_proj_weight, w.p.in_proj_bias, w.p.out_proj.weight, w.p.out_proj.bias);
  const auto want = support::attention_reference(
      nb, nt, nt, 2, 8, 8, 8, 8, 8, accessor(x), accessor(x), accessor(x), w.w(0), w.w(1), w.w(2),
      w.b(0), w.b(1), w.b(2), w.wo(), w.bo(), no_masking, nothing_added);
  check_near(y, want.out, nb, nt, 8);
  check_near(a, want.weights, nb, nt, nt);
}

TEST_CASE("nn::multi_head_attention: extents that disagree at run time name the layer called") {
  const packed w;
  const auto x = dg::uniform<float, Batch, Time, Model>(30, -1.0f, 1.0f, dg::extent<Batch>(2),
                                                        dg::extent<Time>(3));
  const auto other = dg::uniform<float, Batch, Time, Model>(31, -1.0f, 1.0f, dg::extent<Batch>(3),
                                                            dg::extent<Time>(3));
  // Queries of batch 2 against keys and values of batch 3: the scores' product meets both.
  CHECK_THROWS_WITH_AS((void)(dg::nn::multi_head_attention<Heads2, Time>(x, other, other, w.p)),
                       "dimgraph: nn::multi_head_attention: dot: dim 'batch' has extent 2 in the "
                       "left operand and 3 in the right operand",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(
      (void)(dg::nn::multi_head_attention_with_weights<Heads2, Time>(x, other, other, w.p)),
      "dimgraph: nn::multi_head_attention_with_weights: dot: dim 'batch' has extent 2 in the "
      "left operand and 3 in the right operand",
      dg::shape_error);
}
