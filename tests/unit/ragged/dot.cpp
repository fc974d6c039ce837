// dot contracting a ragged dim (or its batch dim) sums only valid positions: a padded batch
// gives each sequence's product alone and the hand loop's, whether the batch dim is kept in both
// operands, in one operand only, or contracted too; padding values (NaN, +-inf) in either
// operand never change a result; an empty row gives zeros.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Batch : dg::dim<"batch", dg::interval{}, dg::dim_kind::batch> {};
struct Time : dg::dim<"time", dg::ragged<Batch>> {};
struct Key : dg::dim<"key", dg::ragged<Batch>> {};
struct Step : dg::dim<"step"> {};  // one sequence alone: a plain dynamic dim
struct F : dg::dim<"f", 3> {};
struct H : dg::dim<"h", 4> {};

using lens_t = std::vector<std::int64_t>;
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

bool valid(const lens_t& l, std::size_t b, std::size_t t) {
  return static_cast<std::int64_t>(t) < l[b];
}

// n lengths up to max: max first, then 0, then seeded in [0, max].
lens_t random_lengths(std::size_t n, std::int64_t max, unsigned seed) {
  std::mt19937 gen(seed);
  lens_t l(n);
  for (auto& v : l) v = static_cast<std::int64_t>(gen() % static_cast<unsigned>(max + 1));
  l[0] = max;
  l[1] = 0;
  return l;
}

// A [Batch, Time, D] operand: seeded values in [-1, 1] at valid positions (the same for a seed
// whatever the padding), pad at the padding.
template <class T, class D>
dg::tensor<T, Batch, Time, D> make_btd(const lens_t& l, unsigned seed, double pad = qnan) {
  dg::tensor<T, Batch, Time, D> x(dg::extent<Batch>(l.size()), dg::lengths<Time>(l));
  std::mt19937 gen(seed);
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.template extent<Time>(); ++t)
      for (std::size_t d = 0; d < dg::bounds_v<D>.lo; ++d) {
        const double v = static_cast<double>(gen() % 2001) / 1000.0 - 1.0;
        x(b, t, d) = static_cast<T>(valid(l, b, t) ? v : pad);
      }
  return x;
}

template <class T, class D>
dg::tensor<T, Step, D> alone(const dg::tensor<T, Batch, Time, D>& x, const lens_t& l,
                             std::size_t b) {
  dg::tensor<T, Step, D> r(dg::extent<Step>(static_cast<std::size_t>(l[b])));
  for (std::size_t t = 0; t < r.template extent<Step>(); ++t)
    for (std::size_t d = 0; d < dg::bounds_v<D>.lo; ++d) r(t, d) = x(b, t, d);
  return r;
}

bool close(double got, double want, double tol = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * (1.0 + std::fabs(want));
}
bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// dot<Time>(x [B, T, F], y [B, T, H]) -> [B, F, H] against each sequence alone and the hand loop.
template <class T>
void check_batch_kept(const lens_t& l, unsigned seed, double tol) {
  const auto x = make_btd<T, F>(l, seed);
  const auto y = make_btd<T, H>(l, seed + 100, inf);
  const auto p = dg::eval(dg::dot<Time>(x, y));
  static_assert(std::is_same_v<dg::dims_t<decltype(p)>, dg::dim_list<Batch, F, H>>);
  for (std::size_t b = 0; b < l.size(); ++b) {
    const auto ra = alone(x, l, b);
    const auto rb = alone(y, l, b);
    const auto r = dg::eval(dg::dot<Step>(ra, rb));
    for (std::size_t f = 0; f < 3; ++f)
      for (std::size_t h = 0; h < 4; ++h) {
        double want = 0;
        for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
          want += static_cast<double>(x(b, t, f)) * static_cast<double>(y(b, t, h));
        CHECK(close(p(b, f, h), r(f, h), tol));
        CHECK(close(p(b, f, h), want, tol));
      }
  }
}
}  // namespace

TEST_CASE("ragged dot: over the ragged dim with the batch dim kept equals each sequence alone") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    check_batch_kept<float>(random_lengths(5, 9, seed), seed, 1e-5);
    check_batch_kept<double>(random_lengths(5, 9, seed + 3), seed, 1e-12);
    check_batch_kept<float>(random_lengths(3, 70, seed + 6), seed, 1e-5);  // long rows
  }
  // a weighted sum over time (attention's context): w [B, T] . v [B, T, H] -> [B, H]
  const lens_t l = random_lengths(4, 6, 7);
  dg::tensor<float, Batch, Time> w(dg::extent<Batch>(4), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 6; ++t)
      w(b, t) = valid(l, b, t) ? 0.25f * static_cast<float>(t + 1) : std::nanf("");
  const auto v = make_btd<float, H>(l, 8);
  const dg::tensor<float, Batch, H> c = dg::dot<Time>(w, v);
  const dg::tensor<float, H, Batch> ct = dg::dot<Time>(v, w);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t h = 0; h < 4; ++h) {
      double want = 0;
      for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
        want += static_cast<double>(w(b, t)) * v(b, t, h);
      CHECK(close(c(b, h), want));
      CHECK(close(ct(h, b), want));
    }
}

TEST_CASE("ragged dot: over the ragged dim and another dim at once") {
  const lens_t l = random_lengths(5, 7, 11);
  const auto x = make_btd<double, F>(l, 12);
  const auto y = make_btd<double, F>(l, 13, -inf);
  const auto p = dg::eval(dg::dot<Time, F>(x, y));  // [Batch]
  const auto q = dg::eval(dg::dot<F, Time>(x, y * 2.0));
  for (std::size_t b = 0; b < 5; ++b) {
    double want = 0;
    for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
      for (std::size_t f = 0; f < 3; ++f) want += x(b, t, f) * y(b, t, f);
    CHECK(close(p(b), want, 1e-12));
    CHECK(close(q(b), 2.0 * want, 1e-12));
  }
}

TEST_CASE("ragged dot: an operand without the batch dim is cut to each row's length") {
  const lens_t l = random_lengths(4, 6, 21);
  const auto x = make_btd<float, F>(l, 22);
  // w [Time, H] has no batch dim, so no padding: its late steps hold +inf, which only the rows
  // that reach them read
  dg::tensor<float, Time, H> w(dg::extent<Time>(6));
  for (std::size_t t = 0; t < 6; ++t)
    for (std::size_t h = 0; h < 4; ++h)
      w(t, h) = t >= 4 && h == 0 ? std::numeric_limits<float>::infinity()
                                 : static_cast<float>(t) - static_cast<float>(h);
  const auto p = dg::eval(dg::dot<Time>(x, w));  // [Batch, F, H]
  const auto q = dg::eval(dg::dot<Time>(w, x));  // [H, Batch, F]
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < 3; ++f)
      for (std::size_t h = 0; h < 4; ++h) {
        double want = 0;
        for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
          want += static_cast<double>(x(b, t, f)) * static_cast<double>(w(t, h));
        // (the rows that reach the +inf steps give +-inf, or NaN, here and in want alike)
        CHECK(close(p(b, f, h), want));
        CHECK(close(q(h, b, f), want));
      }
}

TEST_CASE("ragged dot: with the batch dim contracted too, the rows' products are summed") {
  const lens_t l = random_lengths(5, 8, 31);
  const auto x = make_btd<double, F>(l, 32);
  const auto y = make_btd<double, H>(l, 33, inf);
  const auto p = dg::eval(dg::dot<Batch, Time>(x, y));  // [F, H]
  static_assert(std::is_same_v<dg::dims_t<decltype(p)>, dg::dim_list<F, H>>);
  for (std::size_t f = 0; f < 3; ++f)
    for (std::size_t h = 0; h < 4; ++h) {
      double want = 0;
      for (std::size_t b = 0; b < 5; ++b) {
        const auto r = dg::eval(dg::dot<Step>(alone(x, l, b), alone(y, l, b)));
        want += r(f, h);
      }
      CHECK(close(p(f, h), want, 1e-12));
    }
  // the batch dim alone contracted, the ragged dim kept: [T, F, H] over the rows long enough
  dg::tensor<double, Batch, H> v(dg::extent<Batch>(5));
  for (std::size_t b = 0; b < 5; ++b)
    for (std::size_t h = 0; h < 4; ++h)
      v(b, h) = static_cast<double>(b) + 0.5 * static_cast<double>(h);
  const auto q = dg::eval(dg::dot<Batch>(x, v));
  static_assert(std::is_same_v<dg::dims_t<decltype(q)>, dg::dim_list<Time, F, H>>);
  for (std::size_t t = 0; t < 8; ++t)
    for (std::size_t f = 0; f < 3; ++f)
      for (std::size_t h = 0; h < 4; ++h) {
        double want = 0;
        for (std::size_t b = 0; b < 5; ++b)
          if (valid(l, b, t)) want += x(b, t, f) * v(b, h);
        CHECK(close(q(t, f, h), want, 1e-12));
      }
}

TEST_CASE("ragged dot: padding values (NaN, +-inf) in either operand never change a result") {
  const lens_t l = random_lengths(4, 5, 41);
  const auto x0 = make_btd<float, F>(l, 42, 0.0);
  const auto y0 = make_btd<float, H>(l, 43, 0.0);
  const auto p0 = dg::eval(dg::dot<Time>(x0, y0));
  const auto s0 = dg::eval(dg::dot<Batch, Time>(x0, y0));
  for (double pad : {qnan, inf, -inf, 1e30}) {
    CAPTURE(pad);
    const auto x = make_btd<float, F>(l, 42, pad);
    const auto y = make_btd<float, H>(l, 43, -pad);
    const auto p = dg::eval(dg::dot<Time>(x, y));
    const auto s = dg::eval(dg::dot<Batch, Time>(x, y));
    for (std::size_t i = 0; i < p.size(); ++i) CHECK(same(p.data()[i], p0.data()[i]));
    for (std::size_t i = 0; i < s.size(); ++i) CHECK(same(s.data()[i], s0.data()[i]));
  }
}

TEST_CASE("ragged dot: empty rows give zeros, views, integers and a softmax over keys") {
  const lens_t l = {2, 0, 3, 0};
  const auto x = make_btd<float, F>(l, 51, inf);
  const auto y = make_btd<float, H>(l, 52, qnan);
  // into a view of a bigger tensor, time-major result order
  dg::tensor<float, H, F, Batch> out(dg::extent<Batch>(4));
  auto v = out.view();
  v = dg::dot<Time>(x, y);
  for (std::size_t f = 0; f < 3; ++f)
    for (std::size_t h = 0; h < 4; ++h) {
      CHECK(out(h, f, 1) == 0.0f);
      CHECK(out(h, f, 3) == 0.0f);
      double want = 0;
      for (std::size_t t = 0; t < 3; ++t) want += static_cast<double>(x(2, t, f)) * y(2, t, h);
      CHECK(close(out(h, f, 2), want));
    }
  // every row empty, the batch dim contracted: all zero
  dg::tensor<float, Batch, Time, F> e(dg::extent<Batch>(2), dg::extent<Time>(2),
                                      dg::lengths<Time>({0, 0}));
  for (std::size_t i = 0; i < e.size(); ++i) e.data()[i] = std::nanf("");
  const auto z = dg::eval(dg::dot<Batch, Time>(e, e));
  for (std::size_t i = 0; i < z.size(); ++i) CHECK(z.data()[i] == 0.0f);
  // integers sum in int64
  dg::tensor<std::int32_t, Batch, Time> a(dg::extent<Batch>(3), dg::lengths<Time>({3, 1, 0}));
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      a(b, t) = valid({3, 1, 0}, b, t) ? static_cast<std::int32_t>(t + 1) : 1000000;
  const auto ia = dg::eval(dg::dot<Time>(a, a));
  static_assert(std::is_same_v<dg::value_t<decltype(ia)>, std::int64_t>);
  CHECK(ia.to_vector() == std::vector<std::int64_t>{14, 1, 0});
  // attention over ragged keys: softmax over Key, then the weighted sum of the values
  const lens_t lk = {3, 1, 4};
  dg::tensor<float, Batch, Key> scores(dg::extent<Batch>(3), dg::lengths<Key>(lk));
  dg::tensor<float, Batch, Key, H> values(dg::extent<Batch>(3), dg::lengths<Key>(lk));
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t k = 0; k < 4; ++k) {
      const bool ok = valid(lk, b, k);
      scores(b, k) = ok ? 0.5f * static_cast<float>(k) - static_cast<float>(b) : std::nanf("");
      for (std::size_t h = 0; h < 4; ++h)
        values(b, k, h) =
            ok ? static_cast<float>(k * 4 + h) : std::numeric_limits<float>::infinity();
    }
  const auto ctx = dg::eval(dg::dot<Key>(dg::softmax<Key>(scores), values));
  for (std::size_t b = 0; b < 3; ++b) {
    double z2 = 0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(lk[b]); ++k) z2 += std::exp(scores(b, k));
    for (std::size_t h = 0; h < 4; ++h) {
      double want = 0;
      for (std::size_t k = 0; k < static_cast<std::size_t>(lk[b]); ++k)
        want += std::exp(static_cast<double>(scores(b, k))) / z2 * values(b, k, h);
      CHECK(close(ctx(b, h), want));
    }
  }
}
