// dg::nn::conv1d against a double loop: several strides, paddings and dilations over a run-time
// batch and time (output lengths by torch's formula, down to 1), a static time dim, no bias, a
// traced graph, a kernel longer than the padded input.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Time : dg::dim<"time"> {};
struct Frames : dg::dim<"frames", 9> {};
struct In : dg::dim<"in", 3> {};
struct Out : dg::dim<"out", 4> {};
struct Kernel : dg::dim<"kernel", 3> {};
struct Kernel1 : dg::dim<"kernel", 1> {};
using Batch = dg::batch;

// torch's output length: floor((L + 2 p - d (K - 1) - 1) / s) + 1.
std::size_t out_length(std::size_t l, std::size_t k, dg::nn::conv_options o) {
  return (l + 2 * o.padding - o.dilation * (k - 1) - 1) / o.stride + 1;
}

// torch.nn.Conv1d in double: y[b][t][o] = bias(o) + sum_{i, k} w(o, i, k) x(b, i, t s + k d - p)
// (x zero outside [0, l)).
template <class X, class W, class B>
std::vector<double> reference(std::size_t nb, std::size_t l, std::size_t k, dg::nn::conv_options o,
                              X x, W w, B bias) {
  const std::size_t lo = out_length(l, k, o);
  std::vector<double> y(nb * lo * 4);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < lo; ++t)
      for (std::size_t c = 0; c < 4; ++c) {
        double acc = bias(c);
        for (std::size_t i = 0; i < 3; ++i)
          for (std::size_t j = 0; j < k; ++j) {
            const std::ptrdiff_t p =
                std::ptrdiff_t(t * o.stride + j * o.dilation) - std::ptrdiff_t(o.padding);
            if (p >= 0 && p < std::ptrdiff_t(l)) acc += w(c, i, j) * x(b, i, std::size_t(p));
          }
        y[(b * lo + t) * 4 + c] = acc;
      }
  return y;
}

template <dg::nn::conv_options O>
void check_conv(std::size_t nb, std::size_t l) {
  CAPTURE(O.stride);
  CAPTURE(O.padding);
  CAPTURE(O.dilation);
  CAPTURE(l);
  // x in torch's [batch, channels, length] order; the weight [out, in, kernel] as torch's.
  const auto x = dg::uniform<float, Batch, In, Time>(1, -1.0f, 1.0f, dg::extent<Batch>(nb),
                                                     dg::extent<Time>(l));
  const auto w = dg::uniform<float, Out, In, Kernel>(2, -0.5f, 0.5f);
  const auto bias = dg::uniform<float, Out>(3, -0.5f, 0.5f);
  const auto y = dg::nn::conv1d<Time, Kernel, O>(x, w, bias);
  using T2 = dg::nn::conv1d_dim_t<Time, 3, O>;
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, Batch, T2, Out>>);
  const std::size_t lo = out_length(l, 3, O);
  REQUIRE(y.template extent<T2>() == lo);
  const auto want = reference(
      nb, l, 3, O,
      [&](std::size_t b, std::size_t i, std::size_t t) -> double { return x(b, i, t); },
      [&](std::size_t o, std::size_t i, std::size_t k) -> double { return w(o, i, k); },
      [&](std::size_t o) -> double { return bias(o); });
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t t = 0; t < lo; ++t)
      for (std::size_t o = 0; o < 4; ++o)
        CHECK(y(b, t, o) == doctest::Approx(want[(b * lo + t) * 4 + o]).epsilon(1e-5));
}

}  // namespace

TEST_CASE("nn::conv1d: stride, padding and dilation give torch's lengths and values") {
  for (std::size_t nb : {1u, 2u})
    for (std::size_t l : {3u, 5u, 8u}) {
      check_conv<dg::nn::conv_options{}>(nb, l);
      check_conv<dg::nn::conv_options{.stride = 2, .padding = 1}>(nb, l);
      check_conv<dg::nn::conv_options{.stride = 1, .padding = 2, .dilation = 2}>(nb, l);
      check_conv<dg::nn::conv_options{.stride = 3, .padding = 1, .dilation = 2}>(nb, l);
    }
}

TEST_CASE("nn::conv1d: an output of length 1") {
  // L = 3, K = 3, no padding: one position; L = 5, dilation 2: one position as well; stride 3
  // over L = 4 with padding 1 and dilation 2: floor((4 + 2 - 4 - 1) / 3) + 1 = 1.
  check_conv<dg::nn::conv_options{}>(2, 3);
  check_conv<dg::nn::conv_options{.stride = 1, .padding = 2, .dilation = 2}>(2, 1);
  check_conv<dg::nn::conv_options{.stride = 3, .padding = 1, .dilation = 2}>(1, 4);
  CHECK(out_length(4, 3, {.stride = 3, .padding = 1, .dilation = 2}) == 1);
}

TEST_CASE(
    "nn::conv1d: a static time dim gives a static output dim, also without bias and with kernel "
    "1") {
  // x [frames, batch, in]: the output is [out-frames, batch, out] with 9 - 2 = 7 frames, static.
  constexpr dg::nn::conv_options o{};
  using F2 = dg::nn::conv1d_dim_t<Frames, 3, o>;
  static_assert(dg::static_size_v<F2> == 7);
  static_assert(std::is_same_v<dg::nn::conv1d_dim_t<Time, 1>, Time>);  // K = 1, s = 1, p = 0
  const auto x = dg::uniform<float, Frames, Batch, In>(4, -1.0f, 1.0f, dg::extent<Batch>(2));
  const auto w = dg::uniform<float, Kernel, In, Out>(5, -0.5f, 0.5f);  // (any dim order)
  const auto y = dg::nn::conv1d<Frames, Kernel>(x, w);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, F2, Batch, Out>>);
  const auto want = reference(
      2, 9, 3, o, [&](std::size_t b, std::size_t i, std::size_t t) -> double { return x(t, b, i); },
      [&](std::size_t c, std::size_t i, std::size_t k) -> double { return w(k, i, c); },
      [](std::size_t) { return 0.0; });
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 7; ++t)
      for (std::size_t c = 0; c < 4; ++c)
        CHECK(y(t, b, c) == doctest::Approx(want[(b * 7 + t) * 4 + c]).epsilon(1e-5));

  const auto w1 = dg::uniform<float, Out, In, Kernel1>(6, -0.5f, 0.5f);
  const auto x1 = dg::uniform<float, Batch, Time, In>(7, -1.0f, 1.0f, dg::extent<Batch>(2),
                                                      dg::extent<Time>(4));
  const auto y1 = dg::nn::conv1d<Time, Kernel1>(x1, w1);
  static_assert(std::is_same_v<decltype(y1), const dg::tensor<float, Batch, Time, Out>>);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 4; ++t)
      for (std::size_t c = 0; c < 4; ++c) {
        double acc = 0;
        for (std::size_t i = 0; i < 3; ++i) acc += double(w1(c, i, 0)) * x1(b, t, i);
        CHECK(y1(b, t, c) == doctest::Approx(acc).epsilon(1e-5));
      }
}

TEST_CASE("nn::conv1d: traced, it runs to the double loop's values") {
  constexpr dg::nn::conv_options o{.stride = 2, .padding = 1};
  const auto w = dg::uniform<float, Out, In, Kernel>(8, -0.5f, 0.5f);
  const auto bias = dg::uniform<float, Out>(9, -0.5f, 0.5f);
  auto g = dg::trace([&](const auto& x) { return dg::nn::conv1d<Time, Kernel, o>(x, w, bias); },
                     dg::input<float, Batch, In, Time>{});
  using T2 = dg::nn::conv1d_dim_t<Time, 3, o>;
  static_assert(std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, Batch, T2, Out>>);
  const auto x = dg::uniform<float, Batch, In, Time>(10, -1.0f, 1.0f, dg::extent<Batch>(2),
                                                     dg::extent<Time>(6));
  const auto y = g(x);
  const auto want = reference(
      2, 6, 3, o, [&](std::size_t b, std::size_t i, std::size_t t) -> double { return x(b, i, t); },
      [&](std::size_t c, std::size_t i, std::size_t k) -> double { return w(c, i, k); },
      [&](std::size_t c) -> double { return bias(c); });
  REQUIRE(y.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    CHECK(y.data()[i] == doctest::Approx(want[i]).epsilon(1e-5));
}

TEST_CASE("nn::conv1d: a padded input shorter than the dilated kernel throws shape_error") {
  const auto x = dg::uniform<float, Batch, In, Time>(11, -1.0f, 1.0f, dg::extent<Batch>(1),
                                                     dg::extent<Time>(2));
  const auto w = dg::uniform<float, Out, In, Kernel>(12, -0.5f, 0.5f);
  // (The layer's own check names it once.)
  CHECK_THROWS_WITH_AS((dg::nn::conv1d<Time, Kernel>(x, w)),
                       "dimgraph: nn::conv1d: the padded extent 2 of dim 'time' is shorter than "
                       "the dilated kernel (3)",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(
      (dg::nn::conv1d<Time, Kernel, dg::nn::conv_options{.padding = 1, .dilation = 3}>(x, w)),
      "dimgraph: nn::conv1d: the padded extent 4 of dim 'time' is shorter than the dilated "
      "kernel (7)",
      dg::shape_error);
}

TEST_CASE("nn::conv1d: a bias whose run-time extent differs names nn::conv1d, then the op") {
  struct DynOut : dg::dim<"dyn_out"> {};
  const auto x = dg::uniform<float, Batch, In, Time>(13, -1.0f, 1.0f, dg::extent<Batch>(2),
                                                     dg::extent<Time>(5));
  const auto w = dg::uniform<float, DynOut, In, Kernel>(14, -0.5f, 0.5f, dg::extent<DynOut>(4));
  const auto bias = dg::uniform<float, DynOut>(15, -0.5f, 0.5f, dg::extent<DynOut>(6));
  // The taps' sum (4 output channels) meets the bias (6).
  CHECK_THROWS_WITH_AS(
      (dg::nn::conv1d<Time, Kernel>(x, w, bias)),
      "dimgraph: nn::conv1d: add: dim 'dyn_out' has extent 4 in operand 1 and 6 in operand 2",
      dg::shape_error);
}
