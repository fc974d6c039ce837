// examples/bilstm_tagger: every sentence of the ragged batch against a plain-loop tagger
// (embedding lookup, tests/support/reference_lstm.hpp forwards and backwards on the sentence
// alone, the linear layer and argmax by hand), whatever the padding's token ids are.
#include "bilstm_tagger.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "reference_lstm.hpp"

namespace {

using namespace tagger_example;
constexpr std::size_t embed = 8, hidden = 6, tags = 5;

// One direction's weights fused as the reference takes them: [4H, E + H], bias b_ih + b_hh.
template <class Hidden>
void fused(const lstm_params<Hidden>& p, std::vector<float>& w, std::vector<float>& b) {
  w.assign(4 * hidden * (embed + hidden), 0.0f);
  b.assign(4 * hidden, 0.0f);
  for (std::size_t r = 0; r < 4 * hidden; ++r) {
    for (std::size_t k = 0; k < embed; ++k) w[r * (embed + hidden) + k] = p.weight_ih(r, k);
    for (std::size_t k = 0; k < hidden; ++k)
      w[r * (embed + hidden) + embed + k] = p.weight_hh(r, k);
    b[r] = p.bias_ih(r) + p.bias_hh(r);
  }
}

// The scores [n][tags] of one sentence.
std::vector<float> reference_scores(const params_t& p, const std::vector<int>& s) {
  const std::size_t n = s.size();
  std::vector<float> x(n * embed);
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t e = 0; e < embed; ++e)
      x[t * embed + e] = p.embedding(static_cast<std::size_t>(s[t]), e);
  std::vector<float> wf, bf, wb, bb;
  fused(p.forward, wf, bf);
  fused(p.backward, wb, bb);
  const std::vector<float> zeros(hidden, 0.0f);
  std::vector<float> yf(n * hidden), yb(n * hidden), h(hidden), c(hidden);
  reference::lstm_sequence(wf.data(), bf.data(), x.data(), zeros.data(), zeros.data(), 1, n, embed,
                           hidden, false, yf.data(), h.data(), c.data());
  reference::lstm_sequence(wb.data(), bb.data(), x.data(), zeros.data(), zeros.data(), 1, n, embed,
                           hidden, true, yb.data(), h.data(), c.data());
  std::vector<float> scores(n * tags);
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t k = 0; k < tags; ++k) {
      double acc = p.out_bias(k);
      for (std::size_t j = 0; j < hidden; ++j)
        acc += double(p.out_weight(k, j)) * yf[t * hidden + j] +
               double(p.out_weight(k, hidden + j)) * yb[t * hidden + j];
      scores[t * tags + k] = static_cast<float>(acc);
    }
  return scores;
}

}  // namespace

TEST_CASE("examples/bilstm_tagger: every sentence equals a plain-loop tagger on it alone") {
  const params_t p = make_params();
  const std::vector<std::vector<int>> sentences{{3, 14, 15, 9, 2, 6}, {5, 3, 5, 8}, {9}, {}};
  for (int pad : {0, -1, 1000}) {
    CAPTURE(pad);
    const auto [scores, best] = tag(p, make_tokens(sentences, pad));
    for (std::size_t b = 0; b < sentences.size(); ++b) {
      CAPTURE(b);
      const std::vector<float> want = reference_scores(p, sentences[b]);
      for (std::size_t t = 0; t < sentences[b].size(); ++t) {
        std::size_t arg = 0;
        for (std::size_t k = 0; k < tags; ++k) {
          CHECK(scores(b, t, k) == doctest::Approx(want[t * tags + k]).epsilon(1e-5));
          if (want[t * tags + k] > want[t * tags + arg]) arg = k;
        }
        CHECK(static_cast<std::size_t>(best(b, t).value()) == arg);
      }
    }
  }
}
