// Ragged dims: declaring them, giving and checking lengths, and lengths carried through
// element-wise expressions, assignments and views.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Key : dg::dim<"key", dg::ragged<Batch>> {};
struct Plain : dg::dim<"plain"> {};
struct F : dg::dim<"f", 2> {};

using lens_t = std::vector<std::int64_t>;

lens_t lengths_vector(const dg::tensor<std::int64_t, Batch>& l) {
  return l.to_vector();
}
}  // namespace

static_assert(dg::is_ragged_v<Time> && !dg::is_ragged_v<Plain> && !dg::is_ragged_v<F>);
static_assert(std::is_same_v<dg::ragged_batch_t<Time>, Batch>);
static_assert(!Time::bounds.is_static() && Time::bounds.lo == 0 && !Time::bounds.is_bounded());
// Only shapes with a ragged dim and its batch dim hold lengths.
static_assert(dg::shape<Batch, Time, F>::ragged_count == 1);
static_assert(dg::shape<Time, F>::ragged_count == 0);
static_assert(dg::shape<Batch, Plain>::ragged_count == 0);
static_assert(sizeof(dg::shape<Batch, Plain, F>) == 2 * sizeof(std::size_t));

TEST_CASE("ragged: lengths given at construction set the extent and are read back") {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(3), dg::lengths<Time>({5, 3, 0}));
  CHECK(x.extent<Batch>() == 3);
  CHECK(x.extent<Time>() == 5);  // the longest
  CHECK(lengths_vector(dg::lengths_of<Time>(x)) == lens_t{5, 3, 0});
  // An extent given too: the padding is longer than any sequence.
  dg::tensor<float, Batch, Time, F> y(dg::extent<Time>(7), dg::extent<Batch>(2),
                                      dg::lengths<Time>({2, 6}));
  CHECK(y.extent<Time>() == 7);
  CHECK(lengths_vector(dg::lengths_of<Time>(y)) == lens_t{2, 6});
  // From a tensor over the batch dim, and in the factories.
  const std::vector<std::int32_t> given{4, 1};
  const dg::tensor<std::int32_t, Batch> l(given, dg::extent<Batch>(2));
  auto z = dg::zeros<double, Batch, Time>(dg::extent<Batch>(2), dg::lengths<Time>(l));
  CHECK(z.extent<Time>() == 4);
  CHECK(lengths_vector(dg::lengths_of<Time>(z)) == lens_t{4, 1});
  // Without lengths every entry is full.
  dg::tensor<float, Batch, Time> full(dg::extent<Batch>(2), dg::extent<Time>(3));
  CHECK(lengths_vector(dg::lengths_of<Time>(full)) == lens_t{3, 3});
  CHECK(dg::to_string(x.shape()) == "[batch[3], time[5] lengths {5, 3, 0}, f=2]");
  CHECK(dg::to_string(full.shape()) == "[batch[2], time[3]]");
}

TEST_CASE("ragged: wrong lengths are shape errors naming the dims") {
  auto negative = [] {
    return dg::tensor<float, Batch, Time>(dg::extent<Batch>(2), dg::extent<Time>(3),
                                          dg::lengths<Time>({3, -1}));
  };
  CHECK_THROWS_WITH_AS((void)negative(),
                       "dimgraph: tensor: dim 'time' has a negative length -1 at 'batch' 1",
                       dg::shape_error);
  auto above = [] {
    return dg::tensor<float, Batch, Time>(dg::extent<Batch>(2), dg::extent<Time>(3),
                                          dg::lengths<Time>({4, 1}));
  };
  CHECK_THROWS_WITH_AS((void)above(),
                       "dimgraph: tensor: dim 'time' has length 4 at 'batch' 0, above its extent 3",
                       dg::shape_error);
  auto count = [] {
    return dg::tensor<float, Batch, Time>(dg::extent<Batch>(3), dg::lengths<Time>({4, 1}));
  };
  CHECK_THROWS_WITH_AS(
      (void)count(),
      "dimgraph: tensor: 2 lengths are given for dim 'time' but its batch dim 'batch' has extent 3",
      dg::shape_error);
}

TEST_CASE("ragged: element-wise expressions carry the lengths, different lengths are an error") {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::lengths<Time>({3, 1}));
  dg::tensor<float, Batch, Time, F> same(dg::extent<Batch>(2), dg::lengths<Time>({3, 1}));
  dg::tensor<float, Batch, Time, F> other(dg::extent<Batch>(2), dg::lengths<Time>({3, 2}));
  const dg::tensor<float, F> bias{1.0f, 2.0f};
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i);
  // Equal by value (not the same object) is the same lengths.
  dg::tensor<float, Batch, Time, F> y = x * 2.0f + same + bias;
  CHECK(lengths_vector(dg::lengths_of<Time>(y)) == lens_t{3, 1});
  CHECK(y.at(dg::at<Batch>(1), dg::at<Time>(0), dg::at<F>(1)) == 2.0f * 7.0f + 2.0f);
  // where and cast keep them.
  dg::tensor<double, Batch, Time, F> c = dg::cast<double>(dg::where(dg::greater(x, 2.0f), x, bias));
  CHECK(lengths_vector(dg::lengths_of<Time>(c)) == lens_t{3, 1});
  // A tensor without lengths takes the other operand's.
  dg::tensor<float, Batch, Time, F> plain(dg::extent<Batch>(2), dg::extent<Time>(3));
  CHECK(lengths_vector(dg::lengths_of<Time>(plain + x)) == lens_t{3, 1});
  auto mixed = [&] { return x + other; };
  CHECK_THROWS_WITH_AS((void)mixed(),
                       "dimgraph: add: dim 'time' has lengths {3, 1} in one operand and {3, 2} in "
                       "another",
                       dg::shape_error);
  // Assigning to a tensor takes the expression's lengths; to a view, they must agree.
  plain = x + 1.0f;
  CHECK(lengths_vector(dg::lengths_of<Time>(plain)) == lens_t{3, 1});
  const std::vector<float> before = other.to_vector();
  auto into_view = [&] { other.view() = x + 1.0f; };
  CHECK_THROWS_WITH_AS(into_view(),
                       "dimgraph: assign: dim 'time' has lengths {3, 2} in one operand and {3, 1} "
                       "in another",
                       dg::shape_error);
  CHECK(other.to_vector() == before);  // nothing written
}

TEST_CASE("ragged: views keep the lengths, a batch entry is that sequence") {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(3), dg::lengths<Time>({4, 2, 0}));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i);
  auto f1 = x[dg::at<F>(1)];
  CHECK(lengths_vector(dg::lengths_of<Time>(f1)) == lens_t{4, 2, 0});
  auto row = x[dg::at<Batch>(1)];
  CHECK(row.extent<Time>() == 2);
  CHECK(row.at(dg::at<Time>(1), dg::at<F>(0)) == static_cast<float>((1 * 4 + 1) * 2));
  CHECK(x[dg::at<Batch>(2)].extent<Time>() == 0);
  // Renamed to another dim ragged over the same batch dim: same lengths; to a dim that is not
  // ragged: forgotten (the padding becomes data).
  auto k = dg::rename<Time, Key>(x);
  CHECK(lengths_vector(dg::lengths_of<Key>(k)) == lens_t{4, 2, 0});
  auto p = dg::rename<Time, Plain>(x);
  CHECK(dg::to_string(p.shape()) == "[batch[3], plain[4], f=2]");
  // Slicing another dim keeps them.
  auto s = dg::slice<F>(x, 0, 1);
  CHECK(lengths_vector(dg::lengths_of<Time>(s)) == lens_t{4, 2, 0});
}

TEST_CASE("ragged: gather and one_hot read no index in the padding and keep the lengths") {
  struct Vocab : dg::dim<"vocab", 3> {};
  const dg::tensor<float, Vocab, F> table{{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}};
  // Padding indices are garbage (out of range): never read.
  const std::vector<dg::index<Vocab>> ids{dg::index<Vocab>(2),  dg::index<Vocab>(0),
                                          dg::index<Vocab>(-7), dg::index<Vocab>(1),
                                          dg::index<Vocab>(99), dg::index<Vocab>(5)};
  const dg::tensor<dg::index<Vocab>, Batch, Time> idx(
      ids, dg::extent<Batch>(2), dg::lengths<Time>({2, 1}), dg::extent<Time>(3));
  const auto e = dg::gather(table, idx);
  CHECK(lengths_vector(dg::lengths_of<Time>(e)) == lens_t{2, 1});
  CHECK(e.at(dg::at<Batch>(0), dg::at<Time>(0), dg::at<F>(1)) == 6.0f);
  CHECK(e.at(dg::at<Batch>(0), dg::at<Time>(1), dg::at<F>(0)) == 1.0f);
  CHECK(e.at(dg::at<Batch>(1), dg::at<Time>(0), dg::at<F>(1)) == 4.0f);
  const auto h = dg::one_hot(idx);
  CHECK(lengths_vector(dg::lengths_of<Time>(h)) == lens_t{2, 1});
  CHECK(h.at(dg::at<Batch>(1), dg::at<Time>(0), dg::at<Vocab>(1)) == 1.0f);
  // A valid index out of range is still an error.
  const std::vector<dg::index<Vocab>> bad{dg::index<Vocab>(3), dg::index<Vocab>(0)};
  const dg::tensor<dg::index<Vocab>, Batch, Time> idx2(bad, dg::extent<Batch>(1),
                                                       dg::lengths<Time>({2}));
  CHECK_THROWS_AS((void)dg::gather(table, idx2), dg::index_error);
}

TEST_CASE("ragged: concat and pad along another dim keep the lengths") {
  struct G : dg::dim<"g", 1> {};
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::lengths<Time>({3, 1}));
  dg::tensor<float, Batch, Time, G> y(dg::extent<Batch>(2), dg::lengths<Time>({3, 1}));
  dg::tensor<float, Batch, Time, G> other(dg::extent<Batch>(2), dg::lengths<Time>({2, 1}),
                                          dg::extent<Time>(3));
  const auto c = dg::concat(dg::along<F>(x), dg::along<G>(y));
  CHECK(lengths_vector(dg::lengths_of<Time>(c)) == lens_t{3, 1});
  CHECK_THROWS_AS((void)dg::concat(dg::along<F>(x), dg::along<G>(other)), dg::shape_error);
  const auto p = dg::pad<F, 1, 2>(x);
  CHECK(lengths_vector(dg::lengths_of<Time>(p)) == lens_t{3, 1});
}

TEST_CASE("ragged: a permuted view keeps the lengths") {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::lengths<Time>({1, 3}));
  const auto p = dg::permute<Time, F, Batch>(x);
  CHECK(lengths_vector(dg::lengths_of<Time>(p)) == lens_t{1, 3});
  const dg::tensor<float, Time, Batch, F> copy = p;
  CHECK(lengths_vector(dg::lengths_of<Time>(copy)) == lens_t{1, 3});
}
