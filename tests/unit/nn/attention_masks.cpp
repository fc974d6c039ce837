// dg::nn::multi_head_attention against double loops: bool and float masks with the causal one;
// traced graphs, whose listings have the causal mask only when it is asked for.
#include <dimgraph.hpp>

#include "attention_fixture.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>

namespace dg = dimgraph;

namespace {

using namespace attention_fixture;
using support::array3;

}  // namespace

TEST_CASE("nn::multi_head_attention: a bool mask masks out, a float mask is added to the scores") {
  const packed w;
  const std::size_t nb = 2, nt = 4;
  using Key = dg::nn::key_dim_t<Time>;
  const auto x = dg::uniform<float, Batch, Time, Model>(17, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                        dg::extent<Time>(nt));
  // Per batch entry and key: key 1 of batch entry 0 and key 3 of entry 1 are masked out.
  dg::tensor<bool, Batch, Key> pad(dg::extent<Batch>(nb), dg::extent<Key>(nt));
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t s = 0; s < nt; ++s) pad(b, s) = (b == 0 && s == 1) || (b == 1 && s == 3);
  const auto bias = dg::uniform<float, Heads2, Time, Key>(18, -2.0f, 2.0f, dg::extent<Time>(nt),
                                                          dg::extent<Key>(nt));
  const auto [y, a] = dg::nn::multi_head_attention_with_weights<Heads2, Time>(x, x, x, w.p, pad);
  const auto want = support::attention_reference(
      nb, nt, nt, 2, 8, 8, 8, 8, 8, accessor(x), accessor(x), accessor(x), w.w(0), w.w(1), w.w(2),
      w.b(0), w.b(1), w.b(2), w.wo(), w.bo(),
      [&](std::size_t b, std::size_t, std::size_t, std::size_t s) { return bool(pad(b, s)); },
      nothing_added);
  check_near(y, want.out, nb, nt, 8);
  check_near(a, want.weights, nb, nt, nt);
  CHECK(a(0, 2, 1) == 0.0f);
  CHECK(a(1, 0, 3) == 0.0f);

  // The float mask together with the causal mask.
  const auto y2 =
      dg::nn::multi_head_attention<Heads2, Time, dg::nn::attention_options{.causal = true}>(
          x, x, x, w.p.in_proj_weight, w.p.in_proj_bias, w.p.out_proj.weight, w.p.out_proj.bias,
          bias);
  const auto want2 = support::attention_reference(
      nb, nt, nt, 2, 8, 8, 8, 8, 8, accessor(x), accessor(x), accessor(x), w.w(0), w.w(1), w.w(2),
      w.b(0), w.b(1), w.b(2), w.wo(), w.bo(),
      [](std::size_t, std::size_t, std::size_t t, std::size_t s) { return s > t; },
      [&](std::size_t, std::size_t h, std::size_t t, std::size_t s) -> double {
        return bias(h, t, s);
      });
  check_near(y2, want2.out, nb, nt, 8);
}

namespace {

template <class G>
std::string listing(const G& g) {
  std::ostringstream os;
  os << g;
  return os.str();
}

// The listing's lines from the scores' scale to the softmax, with and without the causal mask
// (2 heads of 4: the scale 1 / sqrt(4)).
constexpr const char* scores_causal =
    "%13 = scalar 0.5 : float32 []\n"
    "%14 = mul(%12, %13) : float32 [batch[0, inf], time[0, inf], heads=2, key(time)[0, inf]]\n"
    "%15 = causal_mask<time, key(time)>(%14) : bool [time[0, inf], key(time)[0, inf]]\n"
    "%16 = scalar -inf : float32 []\n"
    "%17 = where(%15, %14, %16) : float32 [batch[0, inf], time[0, inf], heads=2, key(time)[0, "
    "inf]]\n"
    "%18 = softmax<key(time)>(%17) : float32 [batch[0, inf], time[0, inf], heads=2, key(time)[0, "
    "inf]]\n";
constexpr const char* scores_plain =
    "%13 = scalar 0.5 : float32 []\n"
    "%14 = mul(%12, %13) : float32 [batch[0, inf], time[0, inf], heads=2, key(time)[0, inf]]\n"
    "%15 = softmax<key(time)>(%14) : float32 [batch[0, inf], time[0, inf], heads=2, key(time)[0, "
    "inf]]\n";

// Traced with the options O: the listing has the causal mask exactly when O.causal, and the
// graph runs to the eager function's values (exactly: it is the same computation) and to the
// double loop's.
template <bool Causal>
void check_traced(const packed& w) {
  CAPTURE(Causal);
  constexpr dg::nn::attention_options o{.causal = Causal};
  const auto fn = [&](const auto& x) {
    return dg::nn::multi_head_attention<Heads2, Time, o>(x, x, x, w.p);
  };
  auto g = dg::trace(fn, dg::input<float, Batch, Time, Model>{});
  static_assert(std::is_same_v<typename decltype(g)::template output_t<0>,
                               dg::tensor<float, Batch, Time, Model>>);
  const std::string text = listing(g);
  CHECK(text.find(Causal ? scores_causal : scores_plain) != std::string::npos);
  CHECK((text.find("causal_mask") != std::string::npos) == Causal);
  for (std::size_t nt : {1u, 5u}) {
    CAPTURE(nt);
    const std::size_t nb = 2;
    const auto x = dg::uniform<float, Batch, Time, Model>(19, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                          dg::extent<Time>(nt));
    const auto y = g(x);
    const auto eager = fn(x);
    CHECK(y == eager);
    const auto want = support::attention_reference(
        nb, nt, nt, 2, 8, 8, 8, 8, 8, accessor(x), accessor(x), accessor(x), w.w(0), w.w(1), w.w(2),
        w.b(0), w.b(1), w.b(2), w.wo(), w.bo(),
        [](std::size_t, std::size_t, std::size_t t, std::size_t s) { return Causal && s > t; },
        nothing_added);
    check_near(y, want.out, nb, nt, 8);
  }
}

// Traced with a bool mask as the graph's second input, with and without the causal mask.
template <bool Causal>
void check_traced_with_mask(const packed& w) {
  CAPTURE(Causal);
  using Key = dg::nn::key_dim_t<Time>;
  constexpr dg::nn::attention_options o{.causal = Causal};
  const auto fn = [&](const auto& x, const auto& pad) {
    return dg::nn::multi_head_attention<Heads2, Time, o>(x, x, x, w.p, pad);
  };
  auto g = dg::trace(fn, dg::input<float, Batch, Time, Model>{}, dg::input<bool, Batch, Key>{});
  const std::string text = listing(g);
  CHECK((text.find("causal_mask") != std::string::npos) == Causal);
  // The user's mask (%1) after the causal one: where(mask, -inf, scores).
  constexpr const char* scores_dims =
      " : float32 [batch[0, inf], time[0, inf], heads=2, key(time)[0, inf]]\n";
  const std::string masked =
      Causal
          ? std::string(
                "%17 = causal_mask<time, key(time)>(%16) : bool [time[0, inf], key(time)[0, inf]]\n"
                "%18 = where(%17, %16, %2)") +
                scores_dims + "%19 = where(%1, %2, %18)" + scores_dims +
                "%20 = softmax<key(time)>(%19)"
          : std::string("%17 = where(%1, %2, %16)") + scores_dims + "%18 = softmax<key(time)>(%17)";
  CHECK(text.find(masked) != std::string::npos);
  const std::size_t nb = 2, nt = 4;
  const auto x = dg::uniform<float, Batch, Time, Model>(21, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                        dg::extent<Time>(nt));
  dg::tensor<bool, Batch, Key> pad(dg::extent<Batch>(nb), dg::extent<Key>(nt));
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t s = 0; s < nt; ++s)
      pad(b, s) = (b == 0 && s == 3) || (b == 1 && s == 2);  // never key 0
  const auto y = g(x, pad);
  CHECK(y == fn(x, pad));
  const auto want = support::attention_reference(
      nb, nt, nt, 2, 8, 8, 8, 8, 8, accessor(x), accessor(x), accessor(x), w.w(0), w.w(1), w.w(2),
      w.b(0), w.b(1), w.b(2), w.wo(), w.bo(),
      [&](std::size_t b, std::size_t, std::size_t t, std::size_t s) {
        return bool(pad(b, s)) || (Causal && s > t);
      },
      nothing_added);
  check_near(y, want.out, nb, nt, 8);
}

}  // namespace

TEST_CASE("nn::multi_head_attention: traced, the graph has the causal mask only when causal") {
  const packed w;
  check_traced<false>(w);
  check_traced<true>(w);
}

TEST_CASE("nn::multi_head_attention: traced with a mask input, it runs to the eager values") {
  const packed w;
  check_traced_with_mask<false>(w);
  check_traced_with_mask<true>(w);
}
