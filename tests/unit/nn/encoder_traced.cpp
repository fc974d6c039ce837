// dg::nn::transformer_encoder_layer traced, post-norm: the graph records norm1(x + sa(x)) and
// norm2(h + ff(h)), without the causal mask, and runs to the eager layer's values and the double
// loop's. (One traced layer per file: each costs seconds of compile time; the other option
// combinations: encoder_traced*.cpp.)
#include <dimgraph.hpp>

#include "encoder_traced_check.hpp"

#include <doctest/doctest.h>

namespace dg = dimgraph;
using namespace support::encoder;

TEST_CASE(
    "nn::transformer_encoder_layer: traced post-norm records norm1(x + sa(x)), no causal mask, and "
    "runs it") {
  check_traced<dg::nn::encoder_options{}>(make_params());
}
