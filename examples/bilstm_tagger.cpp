// A bidirectional LSTM tagger over a batch of four sentences of 6, 4, 1 and 0 tokens (a ragged
// time dim): embedding -> forward and backward LSTM -> linear -> argmax. Each sentence's tags
// and scores are what tagging it alone gives, and the padding's token ids (here out of the
// vocabulary) are never read. The program checks both, prints the tags, and exits with 1 when
// a check fails.
#include "bilstm_tagger.hpp"

#include <cmath>
#include <cstddef>
#include <iostream>

using namespace tagger_example;

int main() {
  const params_t p = make_params();
  const std::vector<std::vector<int>> sentences{{3, 14, 15, 9, 2, 6}, {5, 3, 5, 8}, {9}, {}};
  const auto [scores, best] = tag(p, make_tokens(sentences, -1));
  std::cout << "scores " << scores.shape() << '\n';

  double worst = 0;
  bool same_tags = true;
  for (std::size_t b = 0; b < sentences.size(); ++b) {
    const auto [alone_scores, alone_best] = tag(p, make_tokens({sentences[b]}, 0));
    std::cout << "sentence " << b << " tags:";
    for (std::size_t t = 0; t < sentences[b].size(); ++t) {
      std::cout << ' ' << best(b, t).value();
      same_tags = same_tags && best(b, t) == alone_best(0, t);
      for (std::size_t k = 0; k < 5; ++k)
        worst = std::max(worst, std::abs(double(scores(b, t, k)) - double(alone_scores(0, t, k))));
    }
    std::cout << '\n';
  }
  std::cout << "largest score difference from each sentence tagged alone: " << worst << '\n'
            << "same tags: " << (same_tags ? "yes" : "NO") << '\n';
  return worst <= 1e-5 && same_tags ? 0 : 1;
}
