// examples/transformer_encoder: each sequence of the ragged batch against torch's encoder layer
// written out in double (tests/support/reference_encoder.hpp) on that sequence alone, whatever
// the padding holds.
#include "transformer_encoder.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "reference_encoder.hpp"

namespace {

// The example's weights as the reference's (the same shapes, its own dim tags).
support::encoder::params as_reference(const encoder_example::params_t& p) {
  support::encoder::params r = support::encoder::make_params();
  auto copy = [](const auto& from, auto& to) {
    REQUIRE(from.size() == to.size());
    std::copy_n(from.data(), from.size(), to.data());
  };
  copy(p.self_attn.in_proj_weight, r.self_attn.in_proj_weight);
  copy(p.self_attn.in_proj_bias, r.self_attn.in_proj_bias);
  copy(p.self_attn.out_proj.weight, r.self_attn.out_proj.weight);
  copy(p.self_attn.out_proj.bias, r.self_attn.out_proj.bias);
  copy(p.linear1.weight, r.linear1.weight);
  copy(p.linear1.bias, r.linear1.bias);
  copy(p.linear2.weight, r.linear2.weight);
  copy(p.linear2.bias, r.linear2.bias);
  copy(p.norm1.weight, r.norm1.weight);
  copy(p.norm1.bias, r.norm1.bias);
  copy(p.norm2.weight, r.norm2.weight);
  copy(p.norm2.bias, r.norm2.bias);
  return r;
}

}  // namespace

TEST_CASE("examples/transformer_encoder: each sequence equals torch's layer on it alone") {
  using namespace encoder_example;
  const params_t p = make_params();
  const support::encoder::params ref = as_reference(p);
  const std::vector<std::int64_t> lengths{5, 3, 1};
  for (float pad : {0.0f, 1e30f, std::numeric_limits<float>::quiet_NaN()}) {
    CAPTURE(pad);
    const batch_t y = encode(p, make_batch(lengths, pad));
    CHECK(dg::lengths_of<Time>(y).to_vector() == lengths);
    for (std::size_t b = 0; b < lengths.size(); ++b) {
      CAPTURE(b);
      const auto n = static_cast<std::size_t>(lengths[b]);
      const batch_t x = make_batch(lengths, pad);
      support::array3 alone(1, n, 8);
      for (std::size_t t = 0; t < n; ++t)
        for (std::size_t m = 0; m < 8; ++m) alone(0, t, m) = x(b, t, m);
      const auto want = support::encoder::reference(ref, alone, 1, n, false, false, false);
      for (std::size_t t = 0; t < n; ++t)
        for (std::size_t m = 0; m < 8; ++m)
          CHECK(y(b, t, m) == doctest::Approx(want(0, t, m)).epsilon(1e-5));
    }
  }
}
