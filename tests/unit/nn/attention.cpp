// dg::nn::multi_head_attention against double loops: self-attention with 1, 2 and 4 heads over a
// run-time batch and time, the averaged weights, the causal mask, the weights given one by one.
#include <dimgraph.hpp>

#include "reference_attention.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Model : dg::dim<"model", 8> {};
struct Inner : dg::dim<"inner", 8> {};
struct Time : dg::dim<"time"> {};
struct Source : dg::dim<"source"> {};
struct KModel : dg::dim<"kmodel", 5> {};
struct VModel : dg::dim<"vmodel", 3> {};
struct Heads1 : dg::dim<"heads", 1> {};
struct Heads2 : dg::dim<"heads", 2> {};
struct Heads4 : dg::dim<"heads", 4> {};
using Batch = dg::batch;
using Inner3 = decltype(dg::c<3> * Inner{});

using support::array3;

const auto no_masking = [](std::size_t, std::size_t, std::size_t, std::size_t) { return false; };
const auto nothing_added = [](std::size_t, std::size_t, std::size_t, std::size_t) { return 0.0; };

// The packed weights of one attention block.
struct packed {
  dg::nn::attention_parameters<float, Model, Inner> p;
  packed() {
    p.in_proj_weight = dg::uniform<float, Inner3, Model>(1, -0.5f, 0.5f);
    p.in_proj_bias = dg::uniform<float, Inner3>(2, -0.5f, 0.5f);
    p.out_proj.weight = dg::uniform<float, Model, Inner>(3, -0.5f, 0.5f);
    p.out_proj.bias = dg::uniform<float, Model>(4, -0.5f, 0.5f);
  }
  // Accessors of the three projections (thirds of the packed weight, torch's chunk(3)).
  auto w(std::size_t part) const {
    return [this, part](std::size_t i, std::size_t m) -> double {
      return p.in_proj_weight(part * 8 + i, m);
    };
  }
  auto b(std::size_t part) const {
    return [this, part](std::size_t i) -> double { return p.in_proj_bias(part * 8 + i); };
  }
  auto wo() const {
    return [this](std::size_t o, std::size_t i) -> double { return p.out_proj.weight(o, i); };
  }
  auto bo() const {
    return [this](std::size_t o) -> double { return p.out_proj.bias(o); };
  }
};

template <class X>
auto accessor(const X& x) {
  return [&x](std::size_t i, std::size_t j, std::size_t k) -> double { return x(i, j, k); };
}

template <class Y>
void check_near(const Y& y, const array3& want, std::size_t n0, std::size_t n1, std::size_t n2) {
  for (std::size_t i = 0; i < n0; ++i)
    for (std::size_t j = 0; j < n1; ++j)
      for (std::size_t k = 0; k < n2; ++k)
        CHECK(y(i, j, k) == doctest::Approx(want(i, j, k)).epsilon(1e-5));
}

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
  for (std::size_t nb : {1, 3})
    for (std::size_t nt : {1, 5}) {
      check_self_attention<Heads1, false>(w, nb, nt);
      check_self_attention<Heads2, false>(w, nb, nt);
      check_self_attention<Heads4, false>(w, nb, nt);
    }
}

TEST_CASE("nn::multi_head_attention: a causal mask gives keys after the query weight exactly 0") {
  const packed w;
  for (std::size_t nt : {1, 4, 7}) {
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
