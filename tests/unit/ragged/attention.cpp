// dg::nn::multi_head_attention over ragged time dims: the key-length mask comes from the
// lengths, so each sequence of a padded batch equals the double-loop attention on that sequence
// alone (self and cross, with and without the causal mask), whatever the padding holds, and a
// padding key gets weight exactly 0.
#include <dimgraph.hpp>

#include "attention_fixture.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

using namespace attention_fixture;
struct RBatch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct RTime : dg::dim<"time", dg::ragged<RBatch>> {};
struct RSource : dg::dim<"source", dg::ragged<RBatch>> {};

// [batch, D, model] with the given lengths: valid elements from a seed, padding `pad`.
template <class D>
dg::tensor<float, RBatch, D, Model> padded(std::uint64_t seed, const std::vector<std::int64_t>& l,
                                           float pad) {
  std::size_t longest = 0;
  for (auto n : l) longest = std::max(longest, static_cast<std::size_t>(n));
  auto x = dg::uniform<float, RBatch, D, Model>(seed, -1.0f, 1.0f, dg::extent<RBatch>(l.size()),
                                                dg::extent<D>(longest),
                                                dg::lengths<D>(std::span<const std::int64_t>(l)));
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = static_cast<std::size_t>(l[b]); t < longest; ++t)
      for (std::size_t m = 0; m < 8; ++m) x(b, t, m) = pad;
  return x;
}

// Sequence b's output and weights against the reference on that sequence alone.
template <class Y, class A, class Q, class K>
void check_sequence(const packed& w, const Y& y, const A& a, const Q& q, const K& kv, std::size_t b,
                    std::size_t lq, std::size_t lk, bool causal) {
  CAPTURE(b);
  if (lq == 0) return;
  const auto qa = [&](std::size_t, std::size_t t, std::size_t m) -> double { return q(b, t, m); };
  const auto ka = [&](std::size_t, std::size_t s, std::size_t m) -> double { return kv(b, s, m); };
  if (lk == 0) {  // no key: all-zero weights, so the output is the output projection's bias
    for (std::size_t t = 0; t < lq; ++t)
      for (std::size_t o = 0; o < 8; ++o)
        CHECK(y(b, t, o) == doctest::Approx(w.p.out_proj.bias(o)).epsilon(1e-6));
    return;
  }
  const auto masked = [causal](std::size_t, std::size_t, std::size_t t, std::size_t s) {
    return causal && s > t;
  };
  const auto want =
      support::attention_reference(1, lq, lk, 2, 8, 8, 8, 8, 8, qa, ka, ka, w.w(0), w.w(1), w.w(2),
                                   w.b(0), w.b(1), w.b(2), w.wo(), w.bo(), masked, nothing_added);
  for (std::size_t t = 0; t < lq; ++t) {
    for (std::size_t o = 0; o < 8; ++o)
      CHECK(y(b, t, o) == doctest::Approx(want.out(0, t, o)).epsilon(1e-5));
    for (std::size_t s = 0; s < lk; ++s)
      CHECK(a(b, t, s) == doctest::Approx(want.weights(0, t, s)).epsilon(1e-5));
    for (std::size_t s = lk; s < a.template extent<dg::nn::key_dim_t<RTime>>(); ++s)
      CHECK(a(b, t, s) == 0.0f);  // a padding key
  }
}

}  // namespace

TEST_CASE("ragged attention: self-attention of each sequence equals it alone, keys masked") {
  const packed w;
  const std::vector<std::int64_t> l{4, 2, 0, 1, 4};
  for (float pad : {0.0f, 1e30f, std::numeric_limits<float>::quiet_NaN()}) {
    CAPTURE(pad);
    const auto x = padded<RTime>(5, l, pad);
    auto run = [&]<bool Causal>(std::bool_constant<Causal>) {
      CAPTURE(Causal);
      const auto [y, a] =
          dg::nn::multi_head_attention_with_weights<Heads2, RTime,
                                                    dg::nn::attention_options{.causal = Causal}>(
              x, x, x, w.p);
      CHECK(dg::lengths_of<RTime>(y).to_vector() == l);
      for (std::size_t b = 0; b < l.size(); ++b) {
        const auto n = static_cast<std::size_t>(l[b]);
        check_sequence(w, y, a, x, x, b, n, n, Causal);
      }
    };
    run(std::false_type{});
    run(std::true_type{});
  }
}

TEST_CASE("ragged attention: cross-attention masks each row's own source length") {
  const packed w;
  const std::vector<std::int64_t> lq{3, 1, 2}, lk{2, 5, 0};
  for (float pad : {0.0f, std::numeric_limits<float>::infinity()}) {
    CAPTURE(pad);
    const auto q = padded<RTime>(6, lq, pad);
    const auto kv = padded<RSource>(7, lk, pad);
    const auto [y, a] = dg::nn::multi_head_attention_with_weights<Heads2, RTime>(q, kv, kv, w.p);
    CHECK(dg::lengths_of<RTime>(y).to_vector() == lq);
    CHECK(dg::lengths_of<RSource>(a).to_vector() == lk);
    for (std::size_t b = 0; b < lq.size(); ++b) {
      CAPTURE(b);
      const auto nq = static_cast<std::size_t>(lq[b]), nk = static_cast<std::size_t>(lk[b]);
      if (nk == 0) {
        for (std::size_t t = 0; t < nq; ++t)
          for (std::size_t o = 0; o < 8; ++o)
            CHECK(y(b, t, o) == doctest::Approx(w.p.out_proj.bias(o)).epsilon(1e-6));
        continue;
      }
      const auto qa = [&](std::size_t, std::size_t t, std::size_t m) -> double {
        return q(b, t, m);
      };
      const auto ka = [&](std::size_t, std::size_t s, std::size_t m) -> double {
        return kv(b, s, m);
      };
      const auto want = support::attention_reference(1, nq, nk, 2, 8, 8, 8, 8, 8, qa, ka, ka,
                                                     w.w(0), w.w(1), w.w(2), w.b(0), w.b(1), w.b(2),
                                                     w.wo(), w.bo(), no_masking, nothing_added);
      for (std::size_t t = 0; t < nq; ++t) {
        for (std::size_t o = 0; o < 8; ++o)
          CHECK(y(b, t, o) == doctest::Approx(want.out(0, t, o)).epsilon(1e-5));
        for (std::size_t s = 0; s < 5; ++s)
          CHECK(a(b, t, s) == (s < nk ? doctest::Approx(want.weights(0, t, s)).epsilon(1e-5)
                                      : doctest::Approx(0)));
      }
    }
  }
}
