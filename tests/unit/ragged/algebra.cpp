// The dim algebra along a ragged dim: slice, pad, concat, merge_dims/split_dims and nn::conv1d
// give dims ragged over the same batch dim, with each row's length by RETURNN's arithmetic
// (len_a + len_b, before + len + after, the slice rule on each row, len * f, the conv
// arithmetic). Each result is checked against values written out by hand from the operands,
// against the same op on each sequence alone, and with NaN in the padding (which no valid
// result may read).
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Label : dg::dim<"label", dg::ragged<Batch>> {};
struct F : dg::dim<"f", 2> {};
struct Kernel : dg::dim<"kernel", 3> {};
struct Out : dg::dim<"out", 2> {};

constexpr float pad_nan = std::numeric_limits<float>::quiet_NaN();

using Lengths = std::vector<std::int64_t>;
// Lengths with an empty row and a full one (the extent is the largest).
const Lengths lens{5, 0, 2, 7, 1};

std::size_t len(std::size_t b) {
  return static_cast<std::size_t>(lens[b]);
}

// x(b, t, f) = 100 b + 10 t + f at valid steps, `pad` past each row's length.
template <class D = Time>
dg::tensor<float, Batch, D, F> numbered(const Lengths& l, float pad, float scale = 1.0f) {
  std::size_t steps = 0;
  for (std::int64_t n : l) steps = std::max(steps, static_cast<std::size_t>(n));
  dg::tensor<float, Batch, D, F> x(dg::extent<Batch>(l.size()), dg::lengths<D>(l));
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < steps; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        x(b, t, f) = t < static_cast<std::size_t>(l[b]) ? scale * float(100 * b + 10 * t + f) : pad;
  return x;
}
float value(std::size_t b, std::size_t t, std::size_t f) {
  return float(100 * b + 10 * t + f);
}

// Row b of x (dims Batch, R, F): its length (from the lengths) and element (t, f).
template <class R, class X>
Lengths lengths_vector(const X& x) {
  return dg::lengths_of<R>(x).to_vector();
}
template <class R, class X>
float at(const X& x, std::size_t b, std::size_t t, std::size_t f) {
  return x.at(dg::at<Batch>(b), dg::at<R>(t), dg::at<F>(f));
}

// Row b of x alone: a tensor [R, F] without the batch dim, so without lengths.
template <class R, class X>
dg::tensor<float, R, F> alone(const X& x, std::size_t b) {
  return dg::eval(x[dg::at<Batch>(b)]);
}

// The valid part of row b of y equals z (a result computed on row b alone), element by element.
template <class R, class Y, class Z>
void same_row(const Y& y, std::size_t b, const Z& z) {
  const auto row = y[dg::at<Batch>(b)];
  REQUIRE(row.template extent<R>() == z.template extent<R>());
  for (std::size_t t = 0; t < z.template extent<R>(); ++t)
    for (std::size_t f = 0; f < z.template extent<F>(); ++f)
      CHECK(row.at(dg::at<R>(t), dg::at<F>(f)) == z.at(dg::at<R>(t), dg::at<F>(f)));
}

}  // namespace

TEST_CASE("ragged algebra: derived dims of a ragged dim are ragged over its batch dim") {
  using dg::c;
  static_assert(std::is_same_v<dg::ragged_batch_t<dg::pad_dim_t<Time, 1, 2>>, Batch>);
  static_assert(std::is_same_v<dg::ragged_batch_t<dg::concat_dim_t<Time, Label>>, Batch>);
  static_assert(std::is_same_v<dg::ragged_batch_t<dg::merge_dim_t<Time, F>>, Batch>);
  static_assert(std::is_same_v<dg::ragged_batch_t<dg::slice_dim_t<Time, 1, -1, 2>>, Batch>);
  static_assert(std::is_same_v<dg::ragged_batch_t<decltype(dg::ceildiv(Time{}, c<2>))>, Batch>);
  static_assert(std::is_same_v<dg::ragged_batch_t<dg::sliced_dim<Time>>, Batch>);
  // Not prefixes of each row, so not ragged: the minor factor of a merge, a merge with a
  // dynamic dim, a slice from the end, a reversal.
  struct Dyn : dg::dim<"dyn"> {};
  static_assert(!dg::is_ragged_v<dg::merge_dim_t<F, Time>>);
  static_assert(!dg::is_ragged_v<dg::merge_dim_t<Time, Dyn>>);
  static_assert(!dg::is_ragged_v<dg::slice_dim_t<Time, -3>>);
  static_assert(!dg::is_ragged_v<dg::slice_dim_t<Time, dg::none, dg::none, -1>>);
  // Two ragged dims over different batch dims make a sum that is not ragged.
  struct Other : dg::dim<"other", dg::ragged<F>> {};
  static_assert(!dg::is_ragged_v<dg::concat_dim_t<Time, Other>>);
}

TEST_CASE("ragged algebra: slice of a ragged dim applies the slice rule to each row") {
  const auto x = numbered(lens, pad_nan);
  using S = dg::slice_dim_t<Time, 1, -1, 2>;  // positions 1, 3, ... before each row's last
  const auto s = dg::slice<Time, 1, -1, 2>(x);
  // ceil((len - 2) / 2), at least 0
  CHECK(lengths_vector<S>(s) == Lengths{2, 0, 0, 3, 0});
  for (std::size_t b = 0; b < lens.size(); ++b) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(lengths_vector<S>(s)[b]); ++i)
      for (std::size_t f = 0; f < 2; ++f) CHECK(at<S>(s, b, i, f) == value(b, 1 + 2 * i, f));
    const auto a = alone<Time>(x, b);
    same_row<S>(s, b, dg::slice<Time, 1, -1, 2>(a));
  }
  // Bounds known at run time: the same rule; an end past a row's length is clamped to it.
  using R = dg::sliced_dim<Time>;
  const auto r = dg::slice<Time>(x, 2, 6, 1);
  CHECK(lengths_vector<R>(r) == Lengths{3, 0, 0, 4, 0});
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (std::size_t i = 0; i < static_cast<std::size_t>(lengths_vector<R>(r)[b]); ++i)
      CHECK(at<R>(r, b, i, 1) == value(b, 2 + i, 1));
  // A whole-dim slice keeps the dim and its lengths.
  const auto w = dg::slice<Time, 0>(x);
  CHECK(lengths_vector<Time>(w) == lens);
  // From the end or backwards, each row would need its own offset: an error naming the dim.
  CHECK_THROWS_WITH_AS((void)dg::slice<Time>(x, -2, dg::none, 1),
                       doctest::Contains("dim 'time' is ragged (lengths {5, 0, 2, 7, 1})"),
                       dg::shape_error);
  CHECK_THROWS_AS((void)dg::slice<Time>(x, 0, dg::none, -1), dg::shape_error);
  // Without lengths (every row full) any slice is a plain one.
  dg::tensor<float, Batch, Time, F> full(dg::extent<Batch>(2), dg::extent<Time>(4));
  CHECK(dg::slice<Time>(full, -2, dg::none, -1).extent<R>() == 3);  // positions 2, 1, 0
}

TEST_CASE("ragged algebra: pad gives each row before + its length + after") {
  const auto x = numbered(lens, pad_nan);
  using P = dg::pad_dim_t<Time, 2, 1>;
  const auto p = dg::pad<Time, 2, 1>(x, -1.0f);
  CHECK(p.extent<P>() == 10);
  CHECK(lengths_vector<P>(p) == Lengths{8, 3, 5, 10, 4});
  for (std::size_t b = 0; b < lens.size(); ++b) {
    for (std::size_t t = 0; t < len(b) + 3; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        CHECK(at<P>(p, b, t, f) == (t < 2 || t >= 2 + len(b) ? -1.0f : value(b, t - 2, f)));
    same_row<P>(p, b, dg::pad<Time, 2, 1>(alone<Time>(x, b), -1.0f));
  }
  // A lazy operand, and reductions over the padded dim read each row's valid part only.
  const auto q = dg::pad<Time, 0, 2>(x * 2.0f, 1.0f);
  const auto total = dg::eval(dg::sum<dg::pad_dim_t<Time, 0, 2>>(q));
  for (std::size_t b = 0; b < lens.size(); ++b) {
    float expect = 2.0f;  // the two padding ones
    for (std::size_t t = 0; t < len(b); ++t) expect += 2.0f * value(b, t, 1);
    CHECK(total.at(dg::at<Batch>(b), dg::at<F>(1)) == expect);
  }
}

TEST_CASE("ragged algebra: concat packs each row's valid parts, len_a + len_b") {
  const Lengths label_lens{1, 3, 0, 2, 2};
  const auto x = numbered(lens, pad_nan);
  const auto y = numbered<Label>(label_lens, pad_nan, -1.0f);
  struct Eos : dg::dim<"eos", 1> {};
  dg::tensor<float, Batch, Eos, F> eos(dg::extent<Batch>(lens.size()));
  std::fill_n(eos.data(), eos.size(), 7.0f);
  using C = dg::concat_dim_t<Time, Label, Eos>;
  const auto c = dg::concat(dg::along<Time>(x), dg::along<Label>(y * 1.0f), dg::along<Eos>(eos));
  CHECK(lengths_vector<C>(c) == Lengths{7, 4, 3, 10, 4});
  for (std::size_t b = 0; b < lens.size(); ++b) {
    const std::size_t la = len(b), lb = static_cast<std::size_t>(label_lens[b]);
    for (std::size_t t = 0; t < la + lb + 1; ++t)
      for (std::size_t f = 0; f < 2; ++f) {
        const float expect = t < la ? value(b, t, f) : t < la + lb ? -value(b, t - la, f) : 7.0f;
        CHECK(at<C>(c, b, t, f) == expect);
      }
    const auto alone_c =
        dg::concat(dg::along<Time>(alone<Time>(x, b)), dg::along<Label>(alone<Label>(y, b)),
                   dg::along<Eos>(eos[dg::at<Batch>(b)]));
    same_row<C>(c, b, alone_c);
  }
  // The other dims' lengths must agree, as for element-wise operands.
  const auto z = numbered<Label>(Lengths{1, 1, 1, 1}, 0.0f);
  CHECK_THROWS_AS((void)dg::concat(dg::along<Time>(x), dg::along<Label>(z)), dg::shape_error);
}

TEST_CASE("ragged algebra: merge_dims with a static minor dim, and split_dims back") {
  const auto x = numbered(lens, pad_nan);
  using M = dg::merge_dim_t<Time, F>;
  const auto m = dg::merge_dims<Time, F>(x);         // a view
  const auto n = dg::merge_dims<Time, F>(x + 0.0f);  // a copy
  CHECK(lengths_vector<M>(m) == Lengths{10, 0, 4, 14, 2});
  CHECK(lengths_vector<M>(n) == Lengths{10, 0, 4, 14, 2});
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (std::size_t k = 0; k < 2 * len(b); ++k) {
      CHECK(m.at(dg::at<Batch>(b), dg::at<M>(k)) == value(b, k / 2, k % 2));
      CHECK(n.at(dg::at<Batch>(b), dg::at<M>(k)) == value(b, k / 2, k % 2));
    }
  const auto mean = dg::eval(dg::mean<M>(m));
  for (std::size_t b = 0; b < lens.size(); ++b)
    if (len(b) > 0)  // the mean of 100 b + 10 t + f over t < len, f < 2
      CHECK(mean.at(dg::at<Batch>(b)) ==
            doctest::Approx(100.0 * double(b) + 5.0 * double(len(b) - 1) + 0.5));
  const auto s = dg::split_dims<Time, F>(m);
  CHECK(lengths_vector<Time>(s) == lens);
  // A row whose merged length is not a multiple of the minor extent cannot split.
  dg::tensor<float, Batch, M> odd(dg::extent<Batch>(2), dg::lengths<M>({4, 3}));
  CHECK_THROWS_WITH_AS((void)(dg::split_dims<Time, F>(odd)),
                       doctest::Contains("not a multiple of the extent 2 of dim 'f'"),
                       dg::shape_error);
}

TEST_CASE("ragged algebra: conv1d over ragged time gives each row the conv arithmetic") {
  constexpr dg::nn::conv_options o{.stride = 2, .padding = 1, .dilation = 2};
  using Y = dg::nn::conv1d_dim_t<Time, 3, o>;
  const auto x = numbered(lens, pad_nan, 0.01f);
  dg::tensor<float, Out, F, Kernel> w;
  dg::tensor<float, Out> bias;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = u(gen);
  bias(0) = 0.5f;
  bias(1) = -0.25f;
  const auto y = dg::nn::conv1d<Time, Kernel, o>(x, w, bias);
  // floor((len + 2 p - d (k - 1) - 1) / s) + 1, and 0 where that is not positive
  Lengths expect_lens;
  for (std::int64_t l : lens) {
    const std::int64_t span = l + 2 - 4 - 1;
    expect_lens.push_back(span < 0 ? 0 : span / 2 + 1);
  }
  CHECK(lengths_vector<Y>(y) == expect_lens);
  for (std::size_t b = 0; b < lens.size(); ++b) {
    for (std::size_t t = 0; t < static_cast<std::size_t>(expect_lens[b]); ++t)
      for (std::size_t oc = 0; oc < 2; ++oc) {
        double expect = bias(oc);
        for (std::size_t k = 0; k < 3; ++k) {
          const std::ptrdiff_t at_x = std::ptrdiff_t(2 * t + 2 * k) - 1;  // s t + d k - p
          if (at_x < 0 || at_x >= std::ptrdiff_t(len(b))) continue;       // zero padding
          for (std::size_t f = 0; f < 2; ++f)
            expect += double(w(oc, f, k)) * 0.01 * value(b, std::size_t(at_x), f);
        }
        CHECK(y.at(dg::at<Batch>(b), dg::at<Y>(t), dg::at<Out>(oc)) == doctest::Approx(expect));
      }
    if (len(b) >= 3) {  // (torch rejects a sequence shorter than the dilated kernel)
      const auto a = dg::nn::conv1d<Time, Kernel, o>(alone<Time>(x, b), w, bias);
      const auto row = y[dg::at<Batch>(b)];
      REQUIRE(row.extent<Y>() == a.extent<Y>());
      for (std::size_t t = 0; t < a.extent<Y>(); ++t)
        for (std::size_t oc = 0; oc < 2; ++oc)
          CHECK(row.at(dg::at<Y>(t), dg::at<Out>(oc)) ==
                doctest::Approx(a.at(dg::at<Y>(t), dg::at<Out>(oc))));
    }
  }
}
