// dg::parameters and dg::parameter_count on models written as Boost.Hana structs.
#include <dimgraph.hpp>

#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace dg = dimgraph;

namespace model_test {
struct Width : dg::dim<"width", 4> {};
struct Key : dg::dim<"key", 4> {};
struct Hidden : dg::dim<"hidden", 3> {};
struct Vocab : dg::dim<"vocab"> {};

struct Attention {
  BOOST_HANA_DEFINE_STRUCT(Attention, (dg::tensor<float, Width, Key>, w_q),
                           (dg::tensor<float, Width, Key>, w_k));
};
struct Layer {
  BOOST_HANA_DEFINE_STRUCT(Layer, (Attention, attention), (dg::tensor<double, Hidden>, bias),
                           (int, unused_setting));
};
// A dynamic dim needs an extent: a struct adapted after its definition can initialise it.
struct Encoder {
  dg::tensor<float, Vocab, Width> embedding{dg::extent<Vocab>(5)};
  std::array<Layer, 2> layers;
};
// Adapted from outside, as a struct that cannot be changed would be.
struct Head {
  dg::tensor<std::int8_t, Hidden> scale;
  dg::tensor<float, Width, Hidden> proj;
};
}  // namespace model_test
BOOST_HANA_ADAPT_STRUCT(model_test::Encoder, embedding, layers);
BOOST_HANA_ADAPT_STRUCT(model_test::Head, scale, proj);

namespace model_test {
struct Net {
  BOOST_HANA_DEFINE_STRUCT(Net, (Encoder, encoder), (Head, head));
};
}  // namespace model_test

using namespace model_test;

// Counts and types at compile time.
static_assert(dg::tensor_count_v<Attention> == 2);
static_assert(dg::tensor_count_v<Layer> == 3);
static_assert(dg::tensor_count_v<Net> == 1 + 2 * 3 + 2);
static_assert(dg::tensor_count_v<std::array<Attention, 3>> == 6);
static_assert(
    std::is_same_v<dg::parameter_types_t<Layer>,
                   std::tuple<dg::tensor<float, Width, Key>, dg::tensor<float, Width, Key>,
                              dg::tensor<double, Hidden>>>);
static_assert(std::is_same_v<std::tuple_element_t<8, dg::parameter_types_t<Net>>,
                             dg::tensor<float, Width, Hidden>>);
static_assert(dg::model<Net> && dg::model<dg::tensor<float, Width>> && !dg::model<int>);

TEST_CASE("parameters: every tensor once, in declaration order, with its dotted path") {
  Net net;
  std::vector<std::string> names;
  std::vector<std::size_t> sizes;
  std::vector<const void*> seen;
  dg::parameters(net, [&](const std::string& name, auto& t) {
    names.push_back(name);
    sizes.push_back(t.size());
    seen.push_back(t.data());
  });
  CHECK(names == std::vector<std::string>{"encoder.embedding", "encoder.layers.0.attention.w_q",
                                          "encoder.layers.0.attention.w_k", "encoder.layers.0.bias",
                                          "encoder.layers.1.attention.w_q",
                                          "encoder.layers.1.attention.w_k", "encoder.layers.1.bias",
                                          "head.scale", "head.proj"});
  CHECK(sizes == std::vector<std::size_t>{20, 16, 16, 3, 16, 16, 3, 3, 12});
  CHECK(seen[1] == net.encoder.layers[0].attention.w_q.data());
  CHECK(seen[6] == net.encoder.layers[1].bias.data());
  CHECK(seen[8] == net.head.proj.data());
  CHECK(dg::parameter_count(net) == 20 + 2 * (16 + 16 + 3) + 3 + 12);
}

TEST_CASE("parameters: writes through to the model, a const model gives const tensors") {
  Layer layer;
  float k = 0;
  dg::parameters(layer, [&](const std::string&, auto& t) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<float>(k++);
  });
  CHECK(layer.attention.w_q(0, 0) == 0.0f);
  CHECK(layer.attention.w_k(0, 1) == 17.0f);
  CHECK(layer.bias(2) == 34.0);

  const Layer& c = layer;
  int count = 0;
  dg::parameters(c, [&](const std::string&, auto& t) {
    static_assert(std::is_const_v<std::remove_reference_t<decltype(t)>>);
    ++count;
  });
  CHECK(count == 3);

  dg::tensor<float, Hidden> alone;
  std::string name = "unset";
  dg::parameters(alone, [&](const std::string& n, auto&) { name = n; });
  CHECK(name.empty());
  CHECK(dg::parameter_count(alone) == 3);
}
