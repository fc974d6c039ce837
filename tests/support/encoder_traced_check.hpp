// The traced encoder layer tests' check: the ops a traced nn::transformer_encoder_layer records,
// in order, are the form its options choose, and the graph runs to the eager layer's values and
// the double loop's (support::encoder::reference).
#pragma once

#include <dimgraph.hpp>

#include "reference_encoder.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace support::encoder {

using ops = std::vector<std::string>;

// The ops of a listing in order, by name without attributes, operands or types (inputs,
// constants and scalars left out): "%2 = dot<model>(%0, %1) : .." gives "dot".
template <class G>
ops op_names(const G& g) {
  std::ostringstream os;
  os << g;
  std::istringstream lines(os.str());
  ops names;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    const std::string op = line.substr(eq + 3, line.find_first_of("<( ", eq + 3) - (eq + 3));
    if (op != "input" && op != "constant" && op != "scalar") names.push_back(op);
  }
  return names;
}

inline ops operator+(ops a, const ops& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The ops each block records, in order.
inline const ops layer_norm_ops{"mean", "sub", "mul", "mean", "add", "rsqrt", "mul", "mul", "add"};
inline ops attention_ops(bool causal) {
  const ops scores{"dot", "add", "split_dims", "dot", "add", "rename", "split_dims", "dot", "mul"};
  const ops rest{"softmax", "dot",        "add", "rename", "split_dims",
                 "dot",     "merge_dims", "dot", "add"};
  return causal ? scores + ops{"causal_mask", "where"} + rest : scores + rest;
}
inline ops feed_forward_ops(const std::string& activation) {
  return {"dot", "add", activation, "dot", "add"};
}
inline const ops residual{"add"};

template <dg::nn::encoder_options O>
void check_traced(const params& p) {
  CAPTURE(O.norm_first);
  CAPTURE(O.causal);
  const bool gelu = O.activation == dg::nn::activation::gelu;
  CAPTURE(gelu);
  const auto fn = [&](const auto& x) {
    return dg::nn::transformer_encoder_layer<Heads, Time, O>(x, p);
  };
  auto g = dg::trace(fn, dg::input<float, Batch, Time, Model>{});
  static_assert(std::is_same_v<typename decltype(g)::template output_t<0>,
                               dg::tensor<float, Batch, Time, Model>>);
  const ops sa = attention_ops(O.causal), ff = feed_forward_ops(gelu ? "gelu" : "relu");
  // pre-norm: h = x + sa(norm1(x)), y = h + ff(norm2(h)); post-norm: h = norm1(x + sa(x)),
  // y = norm2(h + ff(h)).
  CHECK(op_names(g) == (O.norm_first
                            ? layer_norm_ops + sa + residual + layer_norm_ops + ff + residual
                            : sa + residual + layer_norm_ops + ff + residual + layer_norm_ops));
  for (std::size_t nt : {1u, 5u}) {
    CAPTURE(nt);
    const std::size_t nb = 2;
    const auto x = dg::uniform<float, Batch, Time, Model>(15, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                          dg::extent<Time>(nt));
    const auto y = g(x);
    CHECK(y == fn(x));  // exactly: the same computation
    check_near(y, reference(p, as_array(x, nb, nt), nb, nt, O.norm_first, gelu, O.causal), nb, nt);
  }
}

}  // namespace support::encoder
