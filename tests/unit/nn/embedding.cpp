// dg::nn::embedding against plain loops: batch 1 and 3, the table in either dim order, a
// dynamic vocabulary, weights as one Hana struct, a traced graph, out-of-range indices.
#include <dimgraph.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <random>
#include <type_traits>

namespace dg = dimgraph;

namespace {

struct Vocab : dg::dim<"vocab", 11> {};
struct Embed : dg::dim<"embed", 5> {};
struct Time : dg::dim<"time"> {};
struct DynVocab : dg::dim<"dyn_vocab"> {};

using ids_t = dg::tensor<dg::index<Vocab>, dg::batch, Time>;

// Token ids drawn uniformly from [0, n).
template <class Ids>
void fill_ids(Ids& ids, std::size_t n, unsigned seed) {
  using index_t = std::remove_cvref_t<decltype(ids.data()[0])>;
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(0, static_cast<int>(n) - 1);
  for (std::size_t i = 0; i < ids.size(); ++i) ids.data()[i] = index_t(u(gen));
}

template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = u(gen);
}

// Every y(b, t, e) is row ids(b, t) of the table, element e: table_at(v, e).
template <class Y, class Table>
std::size_t mismatches(const Y& y, const ids_t& ids, const Table& table_at) {
  REQUIRE(y.template extent<dg::batch>() == ids.extent<dg::batch>());
  REQUIRE(y.template extent<Time>() == ids.extent<Time>());
  std::size_t bad = 0;
  for (std::size_t b = 0; b < ids.extent<dg::batch>(); ++b)
    for (std::size_t t = 0; t < ids.extent<Time>(); ++t)
      for (std::size_t e = 0; e < 5; ++e)
        bad += y(b, t, e) != table_at(static_cast<std::size_t>(ids(b, t).value()), e);
  return bad;
}

struct embedding_weights {
  BOOST_HANA_DEFINE_STRUCT(embedding_weights, (dg::tensor<float, Vocab, Embed>, weight));
};

}  // namespace

TEST_CASE("nn::embedding: picks the table's rows, batch 1 and 3") {
  dg::tensor<float, Vocab, Embed> table;
  fill(table, 1);
  for (std::size_t batch : {1u, 3u}) {
    ids_t ids(dg::extent<dg::batch>(batch), dg::extent<Time>(4));
    fill_ids(ids, 11, 2 + static_cast<unsigned>(batch));
    const auto y = dg::nn::embedding(ids, table);
    static_assert(std::is_same_v<decltype(y), const dg::tensor<float, dg::batch, Time, Embed>>);
    CHECK(mismatches(y, ids, [&](std::size_t v, std::size_t e) { return table(v, e); }) == 0);
  }
}

TEST_CASE("nn::embedding: a table stored [embed, vocab] gives the same rows") {
  dg::tensor<float, Embed, Vocab> table;
  fill(table, 3);
  ids_t ids(dg::extent<dg::batch>(2), dg::extent<Time>(3));
  fill_ids(ids, 11, 4);
  const auto y = dg::nn::embedding(ids, table);
  static_assert(std::is_same_v<decltype(y), const dg::tensor<float, dg::batch, Time, Embed>>);
  CHECK(mismatches(y, ids, [&](std::size_t v, std::size_t e) { return table(e, v); }) == 0);
}

TEST_CASE("nn::embedding: the table as one Hana struct, as torch.nn.Embedding's state dict") {
  embedding_weights p{};
  fill(p.weight, 5);
  ids_t ids(dg::extent<dg::batch>(3), dg::extent<Time>(2));
  fill_ids(ids, 11, 6);
  const auto y = dg::nn::embedding(ids, p);
  CHECK(mismatches(y, ids, [&](std::size_t v, std::size_t e) { return p.weight(v, e); }) == 0);
}

TEST_CASE("nn::embedding: a traced lookup runs to the table's rows") {
  dg::tensor<float, Vocab, Embed> table;
  fill(table, 7);
  auto g = dg::trace([&](const auto& ids) { return dg::nn::embedding(ids, table); },
                     dg::input<dg::index<Vocab>, dg::batch, Time>{});
  static_assert(
      std::is_same_v<decltype(g)::output_t<0>, dg::tensor<float, dg::batch, Time, Embed>>);
  ids_t ids(dg::extent<dg::batch>(3), dg::extent<Time>(5));
  fill_ids(ids, 11, 8);
  CHECK(mismatches(g(ids), ids, [&](std::size_t v, std::size_t e) { return table(v, e); }) == 0);
}

TEST_CASE("nn::embedding: an index outside the vocabulary throws index_error naming the dim") {
  // A dynamic vocabulary of 7 rows: 7 and -1 are out of range, 6 and 0 are not.
  dg::tensor<float, DynVocab, Embed> table(dg::extent<DynVocab>(7));
  fill(table, 9);
  dg::tensor<dg::index<DynVocab>, Time> ids(dg::extent<Time>(3));
  ids.data()[0] = dg::index<DynVocab>(0);
  ids.data()[1] = dg::index<DynVocab>(6);
  ids.data()[2] = dg::index<DynVocab>(7);
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::embedding(ids, table),
      "dimgraph: nn::embedding: gather: index 7 is out of range for dim 'dyn_vocab' of extent 7",
      dg::index_error);
  ids.data()[2] = dg::index<DynVocab>(-1);
  CHECK_THROWS_WITH_AS(
      (void)dg::nn::embedding(ids, table),
      "dimgraph: nn::embedding: gather: index -1 is out of range for dim 'dyn_vocab' of extent 7",
      dg::index_error);
  ids.data()[2] = dg::index<DynVocab>(3);
  const auto y = dg::nn::embedding(ids, table);
  for (std::size_t e = 0; e < 5; ++e) {
    CHECK(y(0, e) == table(0, e));
    CHECK(y(1, e) == table(6, e));
    CHECK(y(2, e) == table(3, e));
  }
}
