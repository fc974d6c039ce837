// dg::nn::transformer_encoder_layer traced, pre-norm and causal: the graph records x + sa(norm1(x))
// and h + ff(norm2(h)) with the causal mask, and runs to the eager layer's values and the double
// loop's. (One traced layer per file: each costs seconds of compile time; the other option
// combinations: encoder_traced*.cpp.)
#include <dimgraph.hpp>

#include "encoder_traced_check.hpp"

#include <doctest/doctest.h>

namespace dg = dimgraph;
using namespace support::encoder;

TEST_CASE(
    "nn::transformer_encoder_layer: traced causal pre-norm records x + sa(norm1(x)) with the "
    "causal mask and runs it") {
  check_traced<dg::nn::encoder_options{.norm_first = true, .causal = true}>(make_params());
}
