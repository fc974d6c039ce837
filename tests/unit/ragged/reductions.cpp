// Reductions over ragged dims (sum, mean, prod, max, min, any, all): a padded batch reduces as
// each sequence reduced alone and as a hand loop over its valid positions; padding values
// (NaN, +-inf, 1e30) never change a result; over the batch dim and over several dims only
// valid positions count; empty rows give the identity, and max / min over them throw before
// anything is written.
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
struct Key : dg::dim<"key", dg::ragged<Batch>> {};
struct Step : dg::dim<"step"> {};  // one sequence alone: a plain dynamic dim
struct F : dg::dim<"f", 5> {};

using lens_t = std::vector<std::int64_t>;
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// n lengths up to max: the first max, the second 0 (unless !empty), the rest seeded in [0, max]
// ([1, max] unless empty).
lens_t random_lengths(std::size_t n, std::int64_t max, unsigned seed, bool empty = true) {
  std::mt19937 gen(seed);
  lens_t l(n);
  for (std::size_t b = 0; b < n; ++b)
    l[b] = empty ? static_cast<std::int64_t>(gen() % static_cast<unsigned>(max + 1))
                 : 1 + static_cast<std::int64_t>(gen() % static_cast<unsigned>(max));
  l[0] = max;
  if (n > 1) l[1] = empty ? 0 : 1;
  return l;
}

bool valid(const lens_t& l, std::size_t b, std::size_t t) {
  return static_cast<std::int64_t>(t) < l[b];
}

// x [Batch, Time, F] with lengths l: seeded values in [lo, lo + 2] at valid positions (the
// same for a seed whatever the padding), pad at the padding.
template <class T>
dg::tensor<T, Batch, Time, F> make_x(const lens_t& l, unsigned seed, double pad = qnan,
                                     double lo = -1.0) {
  dg::tensor<T, Batch, Time, F> x(dg::extent<Batch>(l.size()), dg::lengths<Time>(l));
  std::mt19937 gen(seed);
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.template extent<Time>(); ++t)
      for (std::size_t f = 0; f < 5; ++f) {
        const double v = static_cast<double>(gen() % 2001) / 1000.0 + lo;
        x(b, t, f) = static_cast<T>(valid(l, b, t) ? v : pad);
      }
  return x;
}

// Row b's valid part as a tensor of its own (no padding, no ragged dim).
template <class T>
dg::tensor<T, Step, F> alone(const dg::tensor<T, Batch, Time, F>& x, const lens_t& l,
                             std::size_t b) {
  dg::tensor<T, Step, F> r(dg::extent<Step>(static_cast<std::size_t>(l[b])));
  for (std::size_t t = 0; t < r.template extent<Step>(); ++t)
    for (std::size_t f = 0; f < 5; ++f) r(t, f) = x(b, t, f);
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

// fold(acc, x(b, t, f)) over the valid t of each (b, f), from init: [b * 5 + f].
template <class X, class Fold>
std::vector<double> hand_over_time(const X& x, const lens_t& l, double init, Fold fold) {
  std::vector<double> out(l.size() * 5, init);
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
      for (std::size_t f = 0; f < 5; ++f)
        out[b * 5 + f] = fold(out[b * 5 + f], static_cast<double>(x(b, t, f)));
  return out;
}

const auto add = [](double a, double v) { return a + v; };
const auto mul = [](double a, double v) { return a * v; };
const auto hi = [](double a, double v) { return std::fmax(a, v); };
const auto lo = [](double a, double v) { return std::fmin(a, v); };

// The five numeric reductions over Time of x against each row alone and the hand loop.
// (max and min only where no row is empty.)
template <class T>
void check_numeric(const lens_t& l, unsigned seed, double tol) {
  const auto x = make_x<T>(l, seed);
  bool empty_row = false;
  for (auto n : l) empty_row = empty_row || n == 0;
  const auto s = dg::eval(dg::sum<Time>(x));
  const auto m = dg::eval(dg::mean<Time>(x));
  const auto p = dg::eval(dg::prod<Time>(x));
  static_assert(std::is_same_v<decltype(s), const dg::tensor<T, Batch, F>>);
  const auto hs = hand_over_time(x, l, 0.0, add);
  const auto hp = hand_over_time(x, l, 1.0, mul);
  for (std::size_t b = 0; b < l.size(); ++b) {
    const auto r = alone(x, l, b);
    const auto rs = dg::eval(dg::sum<Step>(r));
    const auto rm = dg::eval(dg::mean<Step>(r));
    const auto rp = dg::eval(dg::prod<Step>(r));
    for (std::size_t f = 0; f < 5; ++f) {
      CHECK(close(s(b, f), rs(f), tol));
      CHECK(close(m(b, f), rm(f), tol));
      CHECK(close(p(b, f), rp(f), tol));
      CHECK(close(s(b, f), hs[b * 5 + f], tol));
      CHECK(close(m(b, f), hs[b * 5 + f] / static_cast<double>(l[b]), tol));
      CHECK(close(p(b, f), hp[b * 5 + f], tol));
    }
  }
  if (empty_row) return;
  const auto a = dg::eval(dg::max<Time>(x));
  const auto z = dg::eval(dg::min<Time>(x));
  const auto ha = hand_over_time(x, l, -inf, hi);
  const auto hz = hand_over_time(x, l, inf, lo);
  for (std::size_t b = 0; b < l.size(); ++b) {
    const auto r = alone(x, l, b);
    const auto ra = dg::eval(dg::max<Step>(r));
    const auto rz = dg::eval(dg::min<Step>(r));
    for (std::size_t f = 0; f < 5; ++f) {
      CHECK(a(b, f) == ra(f));
      CHECK(z(b, f) == rz(f));
      CHECK(a(b, f) == static_cast<T>(ha[b * 5 + f]));
      CHECK(z(b, f) == static_cast<T>(hz[b * 5 + f]));
    }
  }
}
}  // namespace

TEST_CASE("ragged reduce: over the ragged dim equals each sequence reduced alone") {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    // lengths from 0 to the maximum, and (for max and min) from 1
    check_numeric<float>(random_lengths(6, 11, seed), seed, 1e-5);
    check_numeric<double>(random_lengths(6, 11, seed + 10), seed, 1e-12);
    check_numeric<float>(random_lengths(5, 37, seed + 20, false), seed, 1e-5);
    check_numeric<double>(random_lengths(5, 37, seed + 30, false), seed, 1e-12);
  }
  // one row, of the full extent; one long row of 70 among short ones
  check_numeric<float>({4}, 5, 1e-5);
  check_numeric<float>({70, 3, 1, 69}, 6, 1e-5);
}

TEST_CASE("ragged reduce: any and all over the ragged dim count only valid positions") {
  const lens_t l = random_lengths(7, 9, 3);
  dg::tensor<bool, Batch, Time, F> x(dg::extent<Batch>(7), dg::lengths<Time>(l));
  dg::tensor<bool, Batch, Time, F> y(dg::extent<Batch>(7), dg::lengths<Time>(l));
  std::mt19937 gen(4);
  for (std::size_t b = 0; b < 7; ++b)
    for (std::size_t t = 0; t < x.template extent<Time>(); ++t)
      for (std::size_t f = 0; f < 5; ++f) {
        // valid: mostly true (all) or mostly false (any); padding: the other value
        const bool v = gen() % 8 == 0;
        x(b, t, f) = valid(l, b, t) ? v : true;
        y(b, t, f) = valid(l, b, t) ? !v : false;
      }
  const auto any = dg::eval(dg::any<Time>(x));
  const auto all = dg::eval(dg::all<Time>(y));
  for (std::size_t b = 0; b < 7; ++b)
    for (std::size_t f = 0; f < 5; ++f) {
      bool want_any = false, want_all = true;
      for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t) {
        want_any = want_any || x(b, t, f);
        want_all = want_all && y(b, t, f);
      }
      CHECK(any(b, f) == want_any);
      CHECK(all(b, f) == want_all);
    }
  CHECK_FALSE(any(1, 0));  // the empty row
  CHECK(all(1, 0));
}

TEST_CASE("ragged reduce: padding values (NaN, +-inf, 1e30) never change a result") {
  const lens_t l = random_lengths(6, 8, 9);
  const lens_t full = random_lengths(6, 8, 9, false);
  const auto base = make_x<float>(l, 2, 0.0);
  const auto base_full = make_x<float>(full, 2, 0.0);
  const auto s0 = dg::eval(dg::sum<Time>(base));
  const auto m0 = dg::eval(dg::mean<Time>(base));
  const auto p0 = dg::eval(dg::prod<Time>(base));
  const auto a0 = dg::eval(dg::max<Time>(base_full));
  const auto z0 = dg::eval(dg::min<Time>(base_full));
  const auto b0 = dg::eval(dg::sum<Batch>(base));
  const auto t0 = dg::eval(dg::mean<Batch, Time>(base));
  const auto g0 = dg::eval(dg::max<Batch, Time>(base));
  for (double pad : {qnan, inf, -inf, 1e30, -1e30}) {
    CAPTURE(pad);
    const auto x = make_x<float>(l, 2, pad);
    const auto y = make_x<float>(full, 2, pad);
    const auto s = dg::eval(dg::sum<Time>(x));
    const auto m = dg::eval(dg::mean<Time>(x));
    const auto p = dg::eval(dg::prod<Time>(x));
    const auto a = dg::eval(dg::max<Time>(y));
    const auto z = dg::eval(dg::min<Time>(y));
    const auto bs = dg::eval(dg::sum<Batch>(x));
    const auto tm = dg::eval(dg::mean<Batch, Time>(x));
    const auto g = dg::eval(dg::max<Batch, Time>(x));
    for (std::size_t i = 0; i < s.size(); ++i) {
      CHECK(same(s.data()[i], s0.data()[i]));
      CHECK(same(m.data()[i], m0.data()[i]));
      CHECK(same(p.data()[i], p0.data()[i]));
      CHECK(same(a.data()[i], a0.data()[i]));
      CHECK(same(z.data()[i], z0.data()[i]));
    }
    for (std::size_t i = 0; i < bs.size(); ++i) CHECK(same(bs.data()[i], b0.data()[i]));
    for (std::size_t i = 0; i < tm.size(); ++i) {
      CHECK(same(tm.data()[i], t0.data()[i]));
      CHECK(same(g.data()[i], g0.data()[i]));
    }
  }
}

TEST_CASE("ragged reduce: over the batch dim and over several dims only valid positions count") {
  const lens_t l = random_lengths(5, 9, 12);
  const auto x = make_x<double>(l, 13);
  // over Batch: at each (t, f), the rows long enough
  const auto s = dg::eval(dg::sum<Batch>(x));
  const auto m = dg::eval(dg::mean<Batch>(x));
  const auto a = dg::eval(dg::max<Batch>(x));
  static_assert(std::is_same_v<dg::dims_t<decltype(s)>, dg::dim_list<Time, F>>);
  for (std::size_t t = 0; t < 9; ++t)
    for (std::size_t f = 0; f < 5; ++f) {
      double sum = 0, top = -inf;
      std::size_t n = 0;
      for (std::size_t b = 0; b < 5; ++b)
        if (valid(l, b, t)) {
          sum += x(b, t, f);
          top = std::fmax(top, x(b, t, f));
          ++n;
        }
      REQUIRE(n > 0);  // row 0 has the full length
      CHECK(close(s(t, f), sum, 1e-12));
      CHECK(close(m(t, f), sum / static_cast<double>(n), 1e-12));
      CHECK(a(t, f) == top);
    }
  // over Batch and Time: every valid position of each f; over Time and F: len * 5 per row
  const auto sbt = dg::eval(dg::sum<Batch, Time>(x));
  const auto mbt = dg::eval(dg::mean<Time, Batch>(x));
  const auto zbt = dg::eval(dg::min<Batch, Time>(x));
  const auto mtf = dg::eval(dg::mean<Time, F>(x));
  const auto stf = dg::eval(dg::sum<F, Time>(x));
  const auto pall = dg::eval(dg::mean<Batch, Time, F>(x));
  double total = 0;
  std::int64_t cells = 0;
  for (auto n : l) cells += n;
  for (std::size_t f = 0; f < 5; ++f) {
    double sum = 0, low = inf;
    for (std::size_t b = 0; b < 5; ++b)
      for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t) {
        sum += x(b, t, f);
        low = std::fmin(low, x(b, t, f));
      }
    total += sum;
    CHECK(close(sbt(f), sum, 1e-12));
    CHECK(close(mbt(f), sum / static_cast<double>(cells), 1e-12));
    CHECK(zbt(f) == low);
  }
  CHECK(close(*pall.data(), total / static_cast<double>(cells * 5), 1e-12));
  for (std::size_t b = 0; b < 5; ++b) {
    double sum = 0;
    for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
      for (std::size_t f = 0; f < 5; ++f) sum += x(b, t, f);
    CHECK(close(stf(b), sum, 1e-12));
    if (l[b] == 0) CHECK(std::isnan(mtf(b)));
    else CHECK(close(mtf(b), sum / static_cast<double>(l[b] * 5), 1e-12));
  }
}

TEST_CASE("ragged reduce: an empty row gives the identity, and its mean is NaN") {
  const lens_t l = {3, 0, 2};
  const auto x = make_x<float>(l, 21, inf);
  const auto s = dg::eval(dg::sum<Time>(x));
  const auto p = dg::eval(dg::prod<Time>(x));
  const auto m = dg::eval(dg::mean<Time>(x));
  dg::tensor<bool, Batch, Time, F> c(dg::extent<Batch>(3), dg::lengths<Time>(l));
  for (std::size_t i = 0; i < c.size(); ++i) c.data()[i] = true;
  const auto any = dg::eval(dg::any<Time>(c));
  const auto all = dg::eval(dg::all<Time>(dg::logical_not(c)));
  for (std::size_t f = 0; f < 5; ++f) {
    CHECK(s(1, f) == 0.0f);
    CHECK(p(1, f) == 1.0f);
    CHECK(std::isnan(m(1, f)));
    CHECK_FALSE(any(1, f));
    CHECK(all(1, f));
    CHECK(any(0, f));
    CHECK_FALSE(all(0, f));
  }
  // every row empty: over Batch and Time too
  const auto e = make_x<float>({0, 0}, 22, qnan);
  const auto se = dg::eval(dg::sum<Batch, Time>(e));
  const auto me = dg::eval(dg::mean<Batch, Time>(e));
  for (std::size_t f = 0; f < 5; ++f) {
    CHECK(se(f) == 0.0f);
    CHECK(std::isnan(me(f)));
  }
}

TEST_CASE("ragged reduce: max and min over an empty row throw, naming it, before any write") {
  const lens_t l = {3, 2, 0, 1};
  const auto x = make_x<float>(l, 23);
  dg::tensor<float, Batch, F> out(dg::extent<Batch>(4));
  for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = 7.0f;
  auto v = out.view();
  CHECK_THROWS_WITH_AS(v = dg::max<Time>(x),
                       "dimgraph: max: reduces over no valid element at 'batch' 2 (dim 'time' has "
                       "lengths {3, 2, 0, 1}) and has no identity",
                       dg::shape_error);
  CHECK_THROWS_AS(out = dg::min<Time>(x * 2.0f), dg::shape_error);
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(out.data()[i] == 7.0f);
  // over Batch: a position of Time no row reaches (the extent is above every length)
  dg::tensor<float, Batch, Time, F> y(dg::extent<Batch>(2), dg::extent<Time>(4),
                                      dg::lengths<Time>({3, 1}));
  CHECK_THROWS_WITH_AS(dg::eval(dg::max<Batch>(y)),
                       "dimgraph: max: reduces over no valid element at 'time' 3 (dim 'time' has "
                       "lengths {3, 1}) and has no identity",
                       dg::shape_error);
  // over Batch and Time, with every row empty (Time's extent 2: all padding)
  dg::tensor<float, Batch, Time, F> e(dg::extent<Batch>(3), dg::extent<Time>(2),
                                      dg::lengths<Time>({0, 0, 0}));
  CHECK_THROWS_WITH_AS(dg::eval(dg::min<Time, Batch>(e)),
                       "dimgraph: min: reduces over no valid element (dim 'time' has lengths "
                       "{0, 0, 0}) and has no identity",
                       dg::shape_error);
  // no row empty: no error, and over Batch alone no position is empty either
  const auto ok = make_x<float>({3, 2, 1, 1}, 25);
  CHECK_NOTHROW(dg::eval(dg::max<Time>(ok)));
  CHECK_NOTHROW(dg::eval(dg::min<Batch>(ok)));
}

TEST_CASE("ragged reduce: time-major layouts, lazy operands and views as destinations") {
  const lens_t l = random_lengths(4, 6, 31);
  const auto x = make_x<float>(l, 32);
  // the same values time-major, [Time, F, Batch], padding NaN
  dg::tensor<float, Time, F, Batch> y(dg::extent<Batch>(4), dg::lengths<Time>(l));
  for (std::size_t t = 0; t < 6; ++t)
    for (std::size_t f = 0; f < 5; ++f)
      for (std::size_t b = 0; b < 4; ++b) y(t, f, b) = x(b, t, f);
  const auto hs = hand_over_time(x, l, 0.0, add);
  const dg::tensor<float, Batch, F> s = dg::sum<Time>(y);
  const dg::tensor<float, F, Batch> m = dg::mean<Time>(y);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < 5; ++f) {
      CHECK(close(s(b, f), hs[b * 5 + f]));
      CHECK(close(m(f, b), hs[b * 5 + f] / static_cast<double>(l[b])));
    }
  // a lazy operand: padding NaN * 2 + 1 stays out
  const auto e = dg::eval(dg::sum<Time>(x * 2.0f + 1.0f));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < 5; ++f)
      CHECK(close(e(b, f), 2.0 * hs[b * 5 + f] + static_cast<double>(l[b])));
  // into a view of a bigger tensor
  dg::tensor<float, F, Batch> big(dg::extent<Batch>(4));
  auto v = big.view();
  v = dg::sum<Time>(y * 1.0f);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < 5; ++f) CHECK(close(big(f, b), hs[b * 5 + f]));
  // integers: sum gives int64, max keeps the type
  dg::tensor<std::int32_t, Batch, Time, F> k(dg::extent<Batch>(4), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 6; ++t)
      for (std::size_t f = 0; f < 5; ++f)
        k(b, t, f) = valid(l, b, t) ? static_cast<std::int32_t>(b * 100 + t * 10 + f)
                                    : std::numeric_limits<std::int32_t>::max();
  const auto ks = dg::eval(dg::sum<Time>(k));
  const auto ka = dg::eval(dg::max<Batch, Time>(k));
  static_assert(std::is_same_v<dg::value_t<decltype(ks)>, std::int64_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(ka)>, std::int32_t>);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < 5; ++f) {
      std::int64_t want = 0;
      for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
        want += static_cast<std::int64_t>(b * 100 + t * 10 + f);
      CHECK(ks(b, f) == want);
    }
  std::int32_t top = 0;  // row 0 has the full length 6
  for (std::size_t b = 0; b < 4; ++b)
    if (l[b] > 0) top = std::max(top, static_cast<std::int32_t>(b * 100 + (l[b] - 1) * 10 + 4));
  CHECK(ka(4) == top);
}

TEST_CASE("ragged reduce: two ragged dims over one batch dim respect both lengths") {
  const lens_t lt = {3, 2, 0, 1}, lk = {2, 4, 3, 0};
  dg::tensor<double, Batch, Time, Key> x(dg::extent<Batch>(4), dg::lengths<Time>(lt),
                                         dg::lengths<Key>(lk));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t k = 0; k < 4; ++k)
        x(b, t, k) =
            valid(lt, b, t) && valid(lk, b, k) ? 1.0 + static_cast<double>(b + t * k) : qnan;
  const auto s = dg::eval(dg::sum<Time, Key>(x));
  const auto m = dg::eval(dg::mean<Key, Time>(x));
  const auto sk = dg::eval(dg::sum<Key>(x));  // keeps Time and its lengths
  CHECK(dg::lengths_of<Time>(sk).to_vector() == lt);
  const auto sb = dg::eval(dg::sum<Batch>(x));  // [Time, Key]
  for (std::size_t b = 0; b < 4; ++b) {
    double sum = 0;
    for (std::size_t t = 0; t < static_cast<std::size_t>(lt[b]); ++t) {
      double row = 0;
      for (std::size_t k = 0; k < static_cast<std::size_t>(lk[b]); ++k) row += x(b, t, k);
      CHECK(sk(b, t) == row);
      sum += row;
    }
    CHECK(s(b) == sum);
    const auto n = lt[b] * lk[b];
    if (n == 0) CHECK(std::isnan(m(b)));
    else CHECK(close(m(b), sum / static_cast<double>(n), 1e-12));
  }
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t k = 0; k < 4; ++k) {
      double sum = 0;
      for (std::size_t b = 0; b < 4; ++b)
        if (valid(lt, b, t) && valid(lk, b, k)) sum += x(b, t, k);
      CHECK(sb(t, k) == sum);
    }
}

TEST_CASE("ragged reduce: without lengths, or without the batch dim, a ragged dim is plain") {
  // a ragged dim whose tensor lacks the batch dim has no lengths: every position counts
  dg::tensor<float, Time, F> t(dg::extent<Time>(3));
  for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<float>(i);
  const auto s = dg::eval(dg::sum<Time>(t));
  for (std::size_t f = 0; f < 5; ++f) CHECK(s(f) == static_cast<float>(3 * f + 15));
  // lengths not given: every row is full
  dg::tensor<float, Batch, Time, F> x(dg::extent<Batch>(2), dg::extent<Time>(3));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = 1.0f;
  const auto m = dg::eval(dg::mean<Time>(x));
  const auto a = dg::eval(dg::max<Batch, Time>(x));
  const auto c = dg::eval(dg::sum<Batch, Time>(x));
  for (std::size_t i = 0; i < m.size(); ++i) CHECK(m.data()[i] == 1.0f);
  for (std::size_t f = 0; f < 5; ++f) {
    CHECK(a(f) == 1.0f);
    CHECK(c(f) == 6.0f);
  }
  // the ragged dim kept (with its batch dim): the result keeps the lengths
  const auto y = make_x<float>({2, 3}, 41);
  const auto k = dg::eval(dg::sum<F>(y));
  CHECK(dg::lengths_of<Time>(k).to_vector() == lens_t{2, 3});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < static_cast<std::size_t>(b + 2); ++t) {
      double want = 0;
      for (std::size_t f = 0; f < 5; ++f) want += y(b, t, f);
      CHECK(close(k(b, t), want));
    }
}
