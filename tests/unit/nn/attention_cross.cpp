// dg::nn::multi_head_attention against double loops: cross-attention over another sequence,
// separate projections for keys and values of other sizes.
#include <dimgraph.hpp>

#include "attention_fixture.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <type_traits>

namespace dg = dimgraph;

namespace {

using namespace attention_fixture;
using support::array3;

}  // namespace

TEST_CASE("nn::multi_head_attention: cross-attention over a source of another length") {
  // query [time, batch, model] (another dim order), key and value [batch, source, model].
  const packed w;
  const std::size_t nb = 2, nt = 3, ns = 6;
  const auto q = dg::uniform<float, Time, Batch, Model>(6, -1.0f, 1.0f, dg::extent<Time>(nt),
                                                        dg::extent<Batch>(nb));
  const auto kv = dg::uniform<float, Batch, Source, Model>(7, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                           dg::extent<Source>(ns));
  const auto check = [&]<bool Causal>(std::bool_constant<Causal>) {
    CAPTURE(Causal);
    const auto [y, a] =
        dg::nn::multi_head_attention_with_weights<Heads2, Time,
                                                  dg::nn::attention_options{.causal = Causal}>(
            q, kv, kv, w.p);
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(y)>, dg::tensor<float, Time, Batch, Model>>);
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(a)>, dg::tensor<float, Time, Batch, Source>>);
    const auto qa = [&](std::size_t b, std::size_t t, std::size_t m) -> double {
      return q(t, b, m);
    };
    const auto masked = [](std::size_t, std::size_t, std::size_t t, std::size_t s) {
      return Causal && s > t;  // torch's top-left aligned tril(L, S)
    };
    const auto want = support::attention_reference(
        nb, nt, ns, 2, 8, 8, 8, 8, 8, qa, accessor(kv), accessor(kv), w.w(0), w.w(1), w.w(2),
        w.b(0), w.b(1), w.b(2), w.wo(), w.bo(), masked, nothing_added);
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t t = 0; t < nt; ++t) {
        for (std::size_t o = 0; o < 8; ++o)
          CHECK(y(t, b, o) == doctest::Approx(want.out(b, t, o)).epsilon(1e-5));
        for (std::size_t s = 0; s < ns; ++s)
          CHECK(a(t, b, s) == doctest::Approx(want.weights(b, t, s)).epsilon(1e-5));
      }
  };
  check(std::false_type{});
  check(std::true_type{});
}

namespace {
struct separate {
  struct out_projection {
    dg::tensor<float, Model, Inner> weight = dg::uniform<float, Model, Inner>(11, -0.5f, 0.5f);
    dg::tensor<float, Model> bias = dg::uniform<float, Model>(12, -0.5f, 0.5f);
  };
  dg::tensor<float, Inner, Model> q_proj_weight = dg::uniform<float, Inner, Model>(8, -0.5f, 0.5f);
  dg::tensor<float, Inner, KModel> k_proj_weight =
      dg::uniform<float, Inner, KModel>(9, -0.5f, 0.5f);
  dg::tensor<float, VModel, Inner> v_proj_weight =  // (any dim order)
      dg::uniform<float, VModel, Inner>(10, -0.5f, 0.5f);
  dg::tensor<float, Inner3> in_proj_bias = dg::uniform<float, Inner3>(13, -0.5f, 0.5f);
  out_projection out_proj;
};
}  // namespace

TEST_CASE("nn::multi_head_attention: separate projections for keys and values of other sizes") {
  const separate w;
  const std::size_t nb = 2, nt = 4, ns = 3;
  const auto q = dg::uniform<float, Batch, Time, Model>(14, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                        dg::extent<Time>(nt));
  const auto k = dg::uniform<float, Batch, Source, KModel>(15, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                           dg::extent<Source>(ns));
  const auto v = dg::uniform<float, Source, Batch, VModel>(16, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                           dg::extent<Source>(ns));
  const auto y = dg::nn::multi_head_attention<Heads4, Time>(q, k, v, w);
  const auto va = [&](std::size_t b, std::size_t s, std::size_t m) -> double { return v(s, b, m); };
  const auto want = support::attention_reference(
      nb, nt, ns, 4, 8, 8, 5, 3, 8, accessor(q), accessor(k), va,
      [&](std::size_t i, std::size_t m) -> double { return w.q_proj_weight(i, m); },
      [&](std::size_t i, std::size_t m) -> double { return w.k_proj_weight(i, m); },
      [&](std::size_t i, std::size_t m) -> double { return w.v_proj_weight(m, i); },
      [&](std::size_t i) -> double { return w.in_proj_bias(i); },
      [&](std::size_t i) -> double { return w.in_proj_bias(8 + i); },
      [&](std::size_t i) -> double { return w.in_proj_bias(16 + i); },
      [&](std::size_t o, std::size_t i) -> double { return w.out_proj.weight(o, i); },
      [&](std::size_t o) -> double { return w.out_proj.bias(o); }, no_masking, nothing_added);
  check_near(y, want.out, nb, nt, 8);
}
