// A transformer encoder layer over a padded batch of three sequences of lengths 5, 3 and 1.
// The time dim is ragged, so the layer's attention gives no weight to another sequence's
// padding, and each sequence's output is what running it alone gives. The program checks that
// (and that the padding's values change nothing), prints each sequence's first output row, and
// exits with 1 when a check fails.
#include "transformer_encoder.hpp"

#include <cmath>
#include <cstddef>
#include <iostream>
#include <limits>

using namespace encoder_example;

int main() {
  const params_t p = make_params();
  const std::vector<std::int64_t> lengths{5, 3, 1};
  const batch_t x = make_batch(lengths, 0.0f);
  const batch_t y = encode(p, x);
  std::cout << "input " << x.shape() << "\noutput " << y.shape() << '\n';

  // Other padding values (even NaN) give the same valid outputs.
  const batch_t y_nan = encode(p, make_batch(lengths, std::numeric_limits<float>::quiet_NaN()));

  double worst = 0;
  bool same_with_nan = true;
  for (std::size_t b = 0; b < lengths.size(); ++b) {
    const auto n = static_cast<std::size_t>(lengths[b]);
    // Sequence b alone: a batch of one, no padding.
    const batch_t alone = encode(p, make_batch({lengths[b]}, 0.0f, b));
    for (std::size_t t = 0; t < n; ++t)
      for (std::size_t m = 0; m < 8; ++m) {
        worst = std::max(worst, std::abs(double(y(b, t, m)) - double(alone(0, t, m))));
        same_with_nan = same_with_nan && y(b, t, m) == y_nan(b, t, m);
      }
    std::cout << "sequence " << b << " (length " << n << "), time 0:";
    for (std::size_t m = 0; m < 8; ++m) std::cout << ' ' << y(b, 0, m);
    std::cout << '\n';
  }
  std::cout << "largest difference from each sequence run alone: " << worst << '\n'
            << "padding values change nothing: " << (same_with_nan ? "yes" : "NO") << '\n';
  return worst <= 1e-5 && same_with_nan ? 0 : 1;
}
