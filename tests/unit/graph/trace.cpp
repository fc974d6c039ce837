// dg::trace: the listing, Graphviz export, running a traced graph, captured constants.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <tuple>

namespace dg = dimgraph;

namespace {

struct Batch : dg::dim<"batch"> {};
struct Beam : dg::dim<"beam", dg::range{1, 8}> {};
struct Feature : dg::dim<"feature", 4> {};
struct Hidden : dg::dim<"hidden", 3> {};

template <class G>
std::string listing(const G& g) {
  std::ostringstream os;
  os << g;
  return os.str();
}

// y = tanh(x * 2 + bias) + z, summed over feature; bias is captured.
struct model {
  const dg::tensor<float, Feature>& bias;
  auto operator()(const auto& x, const auto& z) const {
    return dg::sum<Feature>(dg::tanh(x * 2.0f + bias) + z);
  }
};

}  // namespace

TEST_CASE("trace: the listing has one line per node, operands first, with dims and sizes") {
  dg::tensor<float, Feature> bias;
  auto g = dg::trace(model{bias}, dg::input<float, Batch, Feature>{},
                     dg::input<float, Feature, Batch>{});
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [batch[0, inf], feature=4]\n"
        "%1 = input 1 : float32 [feature=4, batch[0, inf]]\n"
        "%2 = scalar 2 : float32 []\n"
        "%3 = mul(%0, %2) : float32 [batch[0, inf], feature=4]\n"
        "%4 = constant : float32 [feature=4]\n"
        "%5 = add(%3, %4) : float32 [batch[0, inf], feature=4]\n"
        "%6 = tanh(%5) : float32 [batch[0, inf], feature=4]\n"
        "%7 = add(%6, %1) : float32 [batch[0, inf], feature=4]\n"
        "%8 = sum<feature>(%7) : float32 [batch[0, inf]]\n"
        "return %8\n");
}

TEST_CASE("trace: running the graph equals the hand loop, and so does the function itself") {
  const std::size_t nb = 3;
  auto bias = dg::uniform<float, Feature>(7, -1.0f, 1.0f);
  auto x = dg::uniform<float, Batch, Feature>(8, -1.0f, 1.0f, dg::extent<Batch>(nb));
  auto z = dg::uniform<float, Feature, Batch>(9, -1.0f, 1.0f, dg::extent<Batch>(nb));
  auto g = dg::trace(model{bias}, dg::input<float, Batch, Feature>{},
                     dg::input<float, Feature, Batch>{});
  dg::tensor<float, Batch> traced = g(x, z);
  dg::tensor<float, Batch> eager = model{bias}(x, z);
  for (std::size_t b = 0; b < nb; ++b) {
    float expected = 0;
    for (std::size_t f = 0; f < 4; ++f) expected += std::tanh(x(b, f) * 2.0f + bias(f)) + z(f, b);
    CHECK(traced(b) == doctest::Approx(expected).epsilon(1e-6));
    CHECK(eager(b) == doctest::Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("trace: a value used twice is one node, two captured tensors are two constants") {
  dg::tensor<float, Feature> a, b;
  auto g =
      dg::trace([&](const auto& x) { return (x + a) * (x + a) + b; }, dg::input<float, Feature>{});
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [feature=4]\n"
        "%1 = constant : float32 [feature=4]\n"
        "%2 = add(%0, %1) : float32 [feature=4]\n"
        "%3 = mul(%2, %2) : float32 [feature=4]\n"
        "%4 = constant : float32 [feature=4]\n"
        "%5 = add(%3, %4) : float32 [feature=4]\n"
        "return %5\n");
}

TEST_CASE("trace: several outputs, interval dims and run-time attributes") {
  auto fn = [](const auto& x) {
    auto p = dg::pad<Beam, 1, 2>(x, 0.5f);
    // p is local: an expression over it is evaluated before it is returned.
    return std::tuple{dg::softmax<Feature>(x), dg::eval(dg::max<Feature>(p))};
  };
  auto g = dg::trace(fn, dg::input<float, Beam, Feature>{});
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [beam[1, 8], feature=4]\n"
        "%1 = softmax<feature>(%0) : float32 [beam[1, 8], feature=4]\n"
        "%2 = pad<beam>(%0) {before=1, after=2, value=0.5} : float32 [1+beam+2[4, 11], "
        "feature=4]\n"
        "%3 = max<feature>(%2) : float32 [1+beam+2[4, 11]]\n"
        "return %1, %3\n");

  auto x = dg::uniform<float, Beam, Feature>(3, -2.0f, 2.0f, dg::extent<Beam>(2));
  auto [s, m] = g(x);
  REQUIRE(m.extent<decltype(dg::c<1> + Beam{} + dg::c<2>)>() == 5);
  for (std::size_t i = 0; i < 2; ++i) {
    float top = x(i, 0), total = 0;
    for (std::size_t f = 0; f < 4; ++f) top = std::max(top, x(i, f));
    for (std::size_t f = 0; f < 4; ++f) total += std::exp(x(i, f) - top);
    for (std::size_t f = 0; f < 4; ++f)
      CHECK(s(i, f) == doctest::Approx(std::exp(x(i, f) - top) / total).epsilon(1e-6));
    CHECK(m(i + 1) == top);
  }
  CHECK(m(0) == 0.5f);
  CHECK(m(3) == 0.5f);
  CHECK(m(4) == 0.5f);
}

TEST_CASE("trace: structural ops record their dims and bounds") {
  dg::tensor<float, Hidden, Feature> w;
  auto fn = [&](const auto& x) {
    auto h = dg::dot<Feature>(x, w);
    auto s = dg::slice<Batch, 1, dg::none, 2>(x);
    using S = dg::slice_dim_t<Batch, 1, dg::none, 2>;
    return std::tuple{dg::concat(dg::along<Hidden>(h), dg::along<Hidden>(h)), s[dg::at<S>(0)]};
  };
  auto g = dg::trace(fn, dg::input<float, Batch, Feature>{});
  using G = decltype(g);
  using S = dg::slice_dim_t<Batch, 1, dg::none, 2>;
  static_assert(
      std::is_same_v<G::output_t<0>, dg::tensor<float, Batch, decltype(dg::c<2> * Hidden{})>>);
  static_assert(std::is_same_v<G::output_t<1>, dg::tensor<float, Feature>>);
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [batch[0, inf], feature=4]\n"
        "%1 = constant : float32 [hidden=3, feature=4]\n"
        "%2 = dot<feature>(%0, %1) : float32 [batch[0, inf], hidden=3]\n"
        "%3 = concat<hidden, hidden>(%2, %2) : float32 [batch[0, inf], 2*hidden=6]\n"
        "%4 = slice<batch>(%0) {start=1, end=none, stride=2} : float32 [" +
            dg::describe<S>() + "[0, inf], feature=4]\n" + "%5 = at<" + dg::describe<S>() +
            ">(%4) {index=0} : float32 [feature=4]\n"
            "return %3, %5\n");
}

TEST_CASE("to_dot: a box per node and an edge per operand") {
  auto g = dg::trace([](const auto& x, const auto& y) { return dg::exp(x) - y; },
                     dg::input<double, Hidden>{}, dg::input<double, Hidden>{});
  CHECK(dg::to_dot(g) ==
        "digraph dimgraph {\n"
        "  node [shape=box, fontname=\"monospace\"];\n"
        "  n0 [label=\"%0 input 0\\nfloat64 [hidden=3]\"];\n"
        "  n1 [label=\"%1 input 1\\nfloat64 [hidden=3]\"];\n"
        "  n2 [label=\"%2 exp\\nfloat64 [hidden=3]\"];\n"
        "  n0 -> n2;\n"
        "  n3 [label=\"%3 sub\\nfloat64 [hidden=3]\"];\n"
        "  n2 -> n3;\n"
        "  n1 -> n3;\n"
        "}\n");
}

TEST_CASE("trace: split of a symbol gives one node per part") {
  struct A : dg::dim<"a", 2> {};
  struct B : dg::dim<"b", 3> {};
  using AB = decltype(A{} + B{});
  auto g = dg::trace(
      [](const auto& x) {
        auto [p, q] = dg::split<A, B>(x);
        return std::tuple{dg::eval(p), dg::eval(q)};
      },
      dg::input<float, AB>{});
  CHECK(listing(g) ==
        "%0 = input 0 : float32 [a+b=5]\n"
        "%1 = split<a, b>(%0) {part=0} : float32 [a=2]\n"
        "%2 = split<a, b>(%0) {part=1} : float32 [b=3]\n"
        "return %1, %2\n");
  auto x = dg::iota<float, AB>();  // 0 1 | 2 3 4
  auto [p, q] = g(x);
  CHECK(p(1) == 1.0f);
  CHECK(q(0) == 2.0f);
  CHECK(q(2) == 4.0f);
}
