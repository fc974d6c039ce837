// dg::pack and dg::unpack: a ragged tensor to and from its packed form (valid steps batch-major,
// offsets as "cu_seqlens"), checked against hand-built packed data, round trips, other layouts,
// external memory, and unpack's errors on untrusted offsets.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {

struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct F : dg::dim<"f", 2> {};
struct Pair : dg::dim<"pair", 2, dg::dim_kind::batch> {};
struct Word : dg::dim<"word", dg::ragged<Pair>> {};

using Flat = dg::packed_dim<Time>;
using Offsets = dg::offsets_dim_t<Time>;

constexpr float pad_nan = std::numeric_limits<float>::quiet_NaN();

// x(b, t, f) = 100 b + 10 t + f at valid steps, pad past each row's length.
dg::tensor<float, Batch, Time, F> numbered(const std::vector<std::int64_t>& lens, std::size_t steps,
                                           float pad) {
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(lens.size()), dg::extent<Time>(steps),
                                      dg::lengths<Time>(lens));
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (std::size_t t = 0; t < steps; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        x(b, t, f) = t < static_cast<std::size_t>(lens[b]) ? float(100 * b + 10 * t + f) : pad;
  return x;
}

std::vector<std::int64_t> offsets_of(const std::vector<std::int64_t>& lens) {
  std::vector<std::int64_t> o{0};
  for (std::int64_t l : lens) o.push_back(o.back() + l);
  return o;
}

// The valid steps of x, batch-major: what a framework's packed (NestedTensor) layout holds.
std::vector<float> packed_by_hand(const std::vector<std::int64_t>& lens) {
  std::vector<float> v;
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (std::size_t t = 0; t < static_cast<std::size_t>(lens[b]); ++t)
      for (std::size_t f = 0; f < 2; ++f) v.push_back(float(100 * b + 10 * t + f));
  return v;
}

template <class X>
std::vector<std::int64_t> lengths_vector(const X& x) {
  return dg::lengths_of<Time>(x).to_vector();
}

// y [.., Batch, Time, F] holds numbered values at valid steps and 0 past them.
template <class Y>
void check_unpacked(const Y& y, const std::vector<std::int64_t>& lens, std::size_t steps) {
  REQUIRE(y.template extent<Batch>() == lens.size());
  REQUIRE(y.template extent<Time>() == steps);
  CHECK(lengths_vector(y) == lens);
  for (std::size_t b = 0; b < lens.size(); ++b)
    for (std::size_t t = 0; t < steps; ++t)
      for (std::size_t f = 0; f < 2; ++f)
        CHECK(y.at(dg::at<Batch>(b), dg::at<Time>(t), dg::at<F>(f)) ==
              (t < static_cast<std::size_t>(lens[b]) ? float(100 * b + 10 * t + f) : 0.0f));
}

}  // namespace

TEST_CASE("ragged pack: the values are each row's valid steps, batch-major, with offsets") {
  const std::vector<std::int64_t> lens{3, 0, 2, 1};
  const auto x = numbered(lens, 4, pad_nan);
  const auto p = dg::pack<Time>(x);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(p)>,
                               dg::packed<Time, dg::tensor<float, Flat, F>>>);
  static_assert(std::is_same_v<decltype(p.offsets), dg::tensor<std::int64_t, Offsets>>);
  static_assert(std::is_same_v<Offsets, decltype(Batch{} + dg::c<1>)>);
  CHECK(dg::describe<Flat>() == "packed(time)");
  CHECK(dg::to_string(p.values.shape()) == "[packed(time)[6], f=2]");
  CHECK(p.values.to_vector() ==
        std::vector<float>{0, 1, 10, 11, 20, 21, 200, 201, 210, 211, 300, 301});
  CHECK(p.offsets.to_vector() == std::vector<std::int64_t>{0, 3, 3, 5, 6});
}

TEST_CASE("ragged pack: unpack restores the padded tensor and its lengths (round trips)") {
  std::mt19937 gen(7);
  for (std::size_t rows : {1u, 2u, 5u, 11u}) {
    CAPTURE(rows);
    const std::size_t steps = 6;
    std::uniform_int_distribution<std::int64_t> u(0, steps);
    std::vector<std::int64_t> lens(rows);
    for (auto& l : lens) l = u(gen);
    lens[0] = steps;
    if (rows > 1) lens[rows - 1] = 0;
    const auto x = numbered(lens, steps, pad_nan);
    const auto p = dg::pack<Time>(x);
    CHECK(p.values.to_vector() == packed_by_hand(lens));
    CHECK(p.offsets.to_vector() == offsets_of(lens));
    const auto y = dg::unpack(p);
    static_assert(
        std::is_same_v<std::remove_cvref_t<decltype(y)>, dg::tensor<float, Batch, Time, F>>);
    check_unpacked(y, lens, steps);
    // Packing the unpacked tensor gives the same packed data back.
    const auto q = dg::pack<Time>(y);
    CHECK(q.values == p.values);
    CHECK(q.offsets == p.offsets);
    // A larger extent pads further.
    check_unpacked(dg::unpack(p, dg::extent<Time>(9)), lens, 9);
  }
}

TEST_CASE("ragged pack: unpack of a framework's packed data and offsets in its own memory") {
  // Three sequences of lengths 2, 3 and 0, "cu_seqlens" {0, 2, 5, 5}, as int64 and as int32.
  const std::vector<std::int64_t> lens{2, 3, 0};
  const std::vector<float> data = packed_by_hand(lens);
  const std::vector<std::int64_t> cu{0, 2, 5, 5};
  const std::vector<std::int32_t> cu32{0, 2, 5, 5};
  const auto values = dg::view<const float, Flat, F>(data.data(), dg::extent<Flat>(5));
  const auto y = dg::unpack<Time>(values, dg::view<Offsets>(cu, dg::extent<Offsets>(4)));
  check_unpacked(y, lens, 3);
  const auto z = dg::unpack<Time>(values, dg::view<Offsets>(cu32, dg::extent<Offsets>(4)),
                                  dg::extent<Time>(4));
  check_unpacked(z, lens, 4);
  // And back: the same bytes as the framework's.
  const auto p = dg::pack<Time>(z);
  CHECK(p.values.to_vector() == data);
  CHECK(p.offsets.to_vector() == cu);
}

TEST_CASE("ragged pack: other layouts, a lazy operand, full rows and a static batch dim") {
  const std::vector<std::int64_t> lens{1, 3, 2};
  const auto x = numbered(lens, 3, pad_nan);
  // [Time, Batch, F] and [F, Batch, Time], made with the lengths (permute's view drops them).
  auto relaid = [&]<class... Ds>(dg::dim_list<Ds...>) {
    dg::tensor<float, Ds...> y(dg::extent<Batch>(3), dg::extent<Time>(3), dg::lengths<Time>(lens));
    for (std::size_t b = 0; b < 3; ++b)
      for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t f = 0; f < 2; ++f)
          y.at(dg::at<Batch>(b), dg::at<Time>(t), dg::at<F>(f)) = x(b, t, f);
    return y;
  };
  const auto tm = relaid(dg::dim_list<Time, Batch, F>{});
  const auto fl = relaid(dg::dim_list<F, Batch, Time>{});
  const auto pm = dg::pack<Time>(tm);
  const auto pf = dg::pack<Time>(fl);
  static_assert(std::is_same_v<decltype(pm.values), dg::tensor<float, Flat, F>>);
  static_assert(std::is_same_v<decltype(pf.values), dg::tensor<float, F, Flat>>);
  CHECK(pm.values.to_vector() == packed_by_hand(lens));
  CHECK(pf.offsets.to_vector() == offsets_of(lens));
  const std::vector<float> by_hand = packed_by_hand(lens);
  for (std::size_t k = 0; k < 6; ++k)
    for (std::size_t f = 0; f < 2; ++f) CHECK(pf.values(f, k) == by_hand[k * 2 + f]);
  const auto uf = dg::unpack(pf);
  static_assert(
      std::is_same_v<std::remove_cvref_t<decltype(uf)>, dg::tensor<float, F, Batch, Time>>);
  check_unpacked(uf, lens, 3);

  // A lazy operand is evaluated first; it keeps x's lengths.
  const auto p2 = dg::pack<Time>(x * 2.0f);
  std::vector<float> twice = by_hand;
  for (float& v : twice) v *= 2.0f;
  CHECK(p2.values.to_vector() == twice);
  CHECK(p2.offsets.to_vector() == offsets_of(lens));

  // Without lengths every row is full.
  dg::tensor<float, Batch, Time, F> plain(dg::extent<Batch>(2), dg::extent<Time>(2));
  for (std::size_t i = 0; i < plain.size(); ++i) plain.data()[i] = float(i);
  const auto pp = dg::pack<Time>(plain);
  CHECK(pp.offsets.to_vector() == std::vector<std::int64_t>{0, 2, 4});
  CHECK(pp.values.to_vector() == plain.to_vector());

  // A static batch dim: offsets over pair + 1, three entries.
  dg::tensor<int, Pair, Word> w(dg::lengths<Word>({2, 1}));
  w(0, 0) = 5;
  w(0, 1) = 6;
  w(1, 0) = 7;
  const auto pw = dg::pack<Word>(w);
  CHECK(pw.values.to_vector() == std::vector<int>{5, 6, 7});
  CHECK(pw.offsets.to_vector() == std::vector<std::int64_t>{0, 2, 3});
  const auto uw = dg::unpack(pw);
  CHECK(uw.to_vector() == std::vector<int>{5, 6, 7, 0});
  CHECK(dg::lengths_of<Word>(uw).to_vector() == std::vector<std::int64_t>{2, 1});
}

TEST_CASE("ragged pack: unpack rejects untrusted offsets before it makes anything") {
  const std::vector<float> data(10, 1.0f);
  const auto values = dg::view<const float, Flat, F>(data.data(), dg::extent<Flat>(5));
  auto offsets = [](std::vector<std::int64_t> o) {
    dg::tensor<std::int64_t, Offsets> t(dg::extent<Offsets>(o.size()));
    for (std::size_t k = 0; k < o.size(); ++k) t.data()[k] = o[k];
    return t;
  };
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, offsets({1, 3, 5})),
                       "dimgraph: unpack: the first offset is 1, not 0 (offsets along dim "
                       "'batch+1')",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, offsets({0, 4, 3, 5})),
                       "dimgraph: unpack: the offsets decrease from 4 to 3 at entry 2 of dim "
                       "'batch+1' ('batch' 1 would have a negative length)",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, offsets({0, -2, 5})),
                       "dimgraph: unpack: the offsets decrease from 0 to -2 at entry 1 of dim "
                       "'batch+1' ('batch' 0 would have a negative length)",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, offsets({0, 2, 6})),
                       "dimgraph: unpack: the last offset is 6, but the packed values have "
                       "extent 5 along dim 'packed(time)'",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, offsets({0})),
                       "dimgraph: unpack: the last offset is 0, but the packed values have "
                       "extent 5 along dim 'packed(time)'",
                       dg::shape_error);
  const std::vector<std::uint64_t> huge{0, std::numeric_limits<std::uint64_t>::max(), 5};
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, dg::view<Offsets>(huge, dg::extent<Offsets>(3))),
                       "dimgraph: unpack: the offsets decrease from 18446744073709551615 to 5 at "
                       "entry 2 of dim 'batch+1' ('batch' 1 would have a negative length)",
                       dg::shape_error);
  CHECK_THROWS_WITH_AS(dg::unpack<Time>(values, offsets({0, 2, 5}), dg::extent<Time>(2)),
                       "dimgraph: unpack: dim 'time' is given extent 2, below its longest length 3",
                       dg::shape_error);
  // Sizes are checked before anything is allocated.
  try {
    (void)dg::unpack<Time>(values, offsets({0, 2, 5}), dg::extent<Time>(std::size_t{1} << 62));
    FAIL("no error");
  } catch (const dg::shape_error& e) {
    const std::string what = e.what();
    CHECK(what.rfind("dimgraph: unpack: the extents batch[2], time[4611686018427387904], f=2 "
                     "multiply to more than",
                     0) == 0);
  }
}
