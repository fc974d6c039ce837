// Reductions over ragged dims (sum, mean, prod, max, min, any, all): a padded batch reduces as
// each sequence reduced alone and as a hand loop over its valid positions; padding values
// (NaN, +-inf, 1e30) never change a result; over the batch dim and over several dims only
// valid positions count; empty rows give the identity, and max / min over them throw before
// anything is written. Each op is compiled once and picked at run time by the cases; the op
// matrix runs over double, with float (its sums are staged in double) and int32 (its sum
// widens) where the element type changes what is computed.
#include <dimgraph.hpp>

#include "ragged_fixture.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace dg = dimgraph;

namespace {

using namespace ragged_fixture;
struct F : dg::dim<"f", 5> {};
constexpr std::size_t nf = 5;

using x_t = dg::tensor<double, Batch, Time, F>;
using row_t = dg::tensor<double, Batch, F>;
using mask_t = dg::tensor<bool, Batch, Time, F>;

// The reductions with an identity, then max and min (an error over an empty row).
enum class reduction { sum, mean, prod, max, min };
constexpr reduction reductions[] = {reduction::sum, reduction::mean, reduction::prod,
                                    reduction::max, reduction::min};

const char* name_of(reduction op) {
  constexpr const char* names[] = {"sum", "mean", "prod", "max", "min"};
  return names[static_cast<int>(op)];
}
bool has_identity(reduction op) {
  return op != reduction::max && op != reduction::min;
}

// op over Time: of a padded batch, and of one sequence alone (a batch of one).
row_t over_time(reduction op, const x_t& x) {
  if (op == reduction::sum) return dg::sum<Time>(x);
  if (op == reduction::mean) return dg::mean<Time>(x);
  if (op == reduction::prod) return dg::prod<Time>(x);
  if (op == reduction::max) return dg::max<Time>(x);
  return dg::min<Time>(x);
}

// op over x(b, t, f) for the valid t of row b, in double (the mean of no element is 0 / 0).
template <class X>
double by_hand(reduction op, const X& x, const lens_t& l, std::size_t b, std::size_t f) {
  double acc = op == reduction::prod  ? 1.0
               : op == reduction::max ? -inf
               : op == reduction::min ? inf
                                      : 0.0;
  for (std::size_t t = 0; t < row_length(l, b); ++t) {
    const double v = static_cast<double>(x(b, t, f));
    if (op == reduction::prod) acc *= v;
    else if (op == reduction::max) acc = std::fmax(acc, v);
    else if (op == reduction::min) acc = std::fmin(acc, v);
    else acc += v;
  }
  return op == reduction::mean ? acc / static_cast<double>(l[b]) : acc;
}

// Every reduction over Time of a batch with lengths l against each row alone and the hand loop
// (max and min only where no row is empty; they are exact).
void check_over_time(const lens_t& l, unsigned seed) {
  CAPTURE(seed);
  const x_t x = padded<double, F>(l, seed);
  const bool empty_row = std::find(l.begin(), l.end(), 0) != l.end();
  for (reduction op : reductions) {
    if (!has_identity(op) && empty_row) continue;
    const char* op_name = name_of(op);
    CAPTURE(op_name);
    const double tol = has_identity(op) ? 1e-12 : 0.0;
    const row_t got = over_time(op, x);
    for (std::size_t b = 0; b < l.size(); ++b) {
      const row_t want = over_time(op, alone<Time>(x, l, b));
      for (std::size_t f = 0; f < nf; ++f) {
        CHECK(close(got(b, f), want(0, f), tol));
        CHECK(close(got(b, f), by_hand(op, x, l, b, f), tol));
      }
    }
  }
}

// x with its dims in the order [Time, F, Batch], lengths kept (permute's view drops them).
dg::tensor<double, Time, F, Batch> time_major(const x_t& x, const lens_t& l) {
  dg::tensor<double, Time, F, Batch> y(dg::extent<Batch>(l.size()),
                                       dg::extent<Time>(x.extent<Time>()), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.extent<Time>(); ++t)
      for (std::size_t f = 0; f < nf; ++f) y(t, f, b) = x(b, t, f);
  return y;
}

// [Batch, Time, F]: `value` at valid positions, except seeded ones (one in 8) that hold the other
// value; pad at the padding.
mask_t bools(const lens_t& l, unsigned seed, bool value, bool pad) {
  mask_t x(dg::extent<Batch>(l.size()), dg::lengths<Time>(l));
  std::mt19937 gen(seed);
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.extent<Time>(); ++t)
      for (std::size_t f = 0; f < nf; ++f) {
        const bool v = gen() % 8 == 0 ? !value : value;
        x(b, t, f) = valid(l, b, t) ? v : pad;
      }
  return x;
}

}  // namespace

TEST_CASE("ragged reduce: over the ragged dim equals each sequence reduced alone") {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    check_over_time(random_lengths(6, 11, seed), seed);  // lengths from 0 to the maximum
    check_over_time(random_lengths(5, 37, seed + 20, false), seed);  // from 1: max and min too
  }
  // one row, of the full extent; one long row of 70 among short ones
  check_over_time({4}, 5);
  check_over_time({70, 3, 1, 69}, 6);
}

TEST_CASE("ragged reduce: float sums (staged in double) equal each sequence alone") {
  // Rows longer than a block of 16 rows, and rows ending inside one; padding never read. (The
  // mean divides this sum: its count does not depend on the element type.)
  for (unsigned seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const lens_t l = random_lengths(6, 70, seed + 40);
    const auto base = padded<float, F>(l, seed);
    const auto s = dg::eval(dg::sum<Time>(base));
    static_assert(std::is_same_v<decltype(s), const dg::tensor<float, Batch, F>>);
    for (std::size_t b = 0; b < l.size(); ++b) {
      const auto r = alone<Time>(base, l, b);  // (a batch of one: the same op as the batch's)
      const auto rs = dg::eval(dg::sum<Time>(r));
      for (std::size_t f = 0; f < nf; ++f) {
        CHECK(close(s(b, f), rs(0, f)));
        CHECK(close(s(b, f), by_hand(reduction::sum, base, l, b, f)));
      }
    }
    for (double pad : {qnan, inf, -1e30}) {
      CAPTURE(pad);
      const auto x = padded<float, F>(l, seed, pad);
      CHECK(count_different(dg::eval(dg::sum<Time>(x)), s) == 0);
    }
  }
}

TEST_CASE("ragged reduce: any and all over the ragged dim count only valid positions") {
  const lens_t l = random_lengths(7, 9, 3);
  for (bool pad : {false, true}) {
    CAPTURE(pad);
    // valid: mostly false (any) or mostly true (all)
    const mask_t x = bools(l, 4, false, pad);
    const mask_t y = bools(l, 5, true, pad);
    const auto any = dg::eval(dg::any<Time>(x));
    const auto all = dg::eval(dg::all<Time>(y));
    for (std::size_t b = 0; b < l.size(); ++b)
      for (std::size_t f = 0; f < nf; ++f) {
        bool want_any = false, want_all = true;
        for (std::size_t t = 0; t < row_length(l, b); ++t) {
          want_any = want_any || x(b, t, f);
          want_all = want_all && y(b, t, f);
        }
        CHECK(any(b, f) == want_any);
        CHECK(all(b, f) == want_all);
      }
    CHECK_FALSE(any(1, 0));  // the empty row
    CHECK(all(1, 0));
  }
}

TEST_CASE("ragged reduce: padding values (NaN, +-inf, 1e30) never change a result") {
  const lens_t l = random_lengths(6, 8, 9);
  const lens_t full = random_lengths(6, 8, 9, false);
  const x_t base = padded<double, F>(l, 2, 0.0);
  const x_t base_full = padded<double, F>(full, 2, 0.0);
  for (double pad : {qnan, inf, -inf, 1e30, -1e30}) {
    CAPTURE(pad);
    const x_t x = padded<double, F>(l, 2, pad);
    const x_t y = padded<double, F>(full, 2, pad);
    for (reduction op : reductions) {
      const char* op_name = name_of(op);
      CAPTURE(op_name);
      CHECK(count_different(over_time(op, y), over_time(op, base_full)) == 0);
      if (has_identity(op)) CHECK(count_different(over_time(op, x), over_time(op, base)) == 0);
    }
    CHECK(count_different(dg::eval(dg::sum<Batch>(x)), dg::eval(dg::sum<Batch>(base))) == 0);
    CHECK(count_different(dg::eval(dg::max<Batch>(x)), dg::eval(dg::max<Batch>(base))) == 0);
    CHECK(count_different(dg::eval(dg::mean<Time, Batch>(x)),
                          dg::eval(dg::mean<Time, Batch>(base))) == 0);
    CHECK(count_different(dg::eval(dg::min<Batch, Time>(x)),
                          dg::eval(dg::min<Batch, Time>(base))) == 0);
    CHECK(count_different(dg::eval(dg::mean<F, Time>(x)), dg::eval(dg::mean<F, Time>(base))) == 0);
  }
}

TEST_CASE("ragged reduce: over the batch dim and over several dims only valid positions count") {
  const lens_t l = random_lengths(5, 9, 12);
  const x_t x = padded<double, F>(l, 13);
  // over Batch: at each (t, f), the rows long enough
  const auto s = dg::eval(dg::sum<Batch>(x));
  const auto m = dg::eval(dg::mean<Batch>(x));
  const auto a = dg::eval(dg::max<Batch>(x));
  static_assert(std::is_same_v<dg::dims_t<decltype(s)>, dg::dim_list<Time, F>>);
  for (std::size_t t = 0; t < 9; ++t)
    for (std::size_t f = 0; f < nf; ++f) {
      double sum = 0, top = -inf;
      std::size_t n = 0;
      for (std::size_t b = 0; b < l.size(); ++b)
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
  // over Batch and Time: every valid position of each f; over F and Time: len * 5 per row
  const auto sbt = dg::eval(dg::sum<Batch, Time>(x));
  const auto mbt = dg::eval(dg::mean<Time, Batch>(x));
  const auto zbt = dg::eval(dg::min<Batch, Time>(x));
  const auto mft = dg::eval(dg::mean<F, Time>(x));
  std::int64_t cells = 0;
  for (auto n : l) cells += n;
  for (std::size_t f = 0; f < nf; ++f) {
    double sum = 0, low = inf;
    for (std::size_t b = 0; b < l.size(); ++b)
      for (std::size_t t = 0; t < row_length(l, b); ++t) {
        sum += x(b, t, f);
        low = std::fmin(low, x(b, t, f));
      }
    CHECK(close(sbt(f), sum, 1e-12));
    CHECK(close(mbt(f), sum / static_cast<double>(cells), 1e-12));
    CHECK(zbt(f) == low);
  }
  for (std::size_t b = 0; b < l.size(); ++b) {
    double sum = 0;
    for (std::size_t t = 0; t < row_length(l, b); ++t)
      for (std::size_t f = 0; f < nf; ++f) sum += x(b, t, f);
    CHECK(close(mft(b), sum / static_cast<double>(l[b] * 5), 1e-12));  // NaN for the empty row
  }
}

TEST_CASE("ragged reduce: an empty row gives the identity, and its mean is NaN") {
  const lens_t l = {3, 0, 2};
  const x_t x = padded<double, F>(l, 21, inf);
  const row_t s = over_time(reduction::sum, x);
  const row_t p = over_time(reduction::prod, x);
  const row_t m = over_time(reduction::mean, x);
  // mostly false (any) and mostly true (all) at valid positions, the other value in the padding
  const mask_t no = bools(l, 6, false, true), yes = bools(l, 7, true, false);
  const auto any = dg::eval(dg::any<Time>(no));
  const auto all = dg::eval(dg::all<Time>(yes));
  for (std::size_t f = 0; f < nf; ++f) {
    CHECK(s(1, f) == 0.0);
    CHECK(p(1, f) == 1.0);
    CHECK(std::isnan(m(1, f)));
    CHECK_FALSE(any(1, f));
    CHECK(all(1, f));
  }
  // every row empty: over Batch and Time too
  const x_t e = padded<double, F>({0, 0}, 22);
  const auto se = dg::eval(dg::sum<Batch, Time>(e));
  const auto me = dg::eval(dg::mean<Time, Batch>(e));
  for (std::size_t f = 0; f < nf; ++f) {
    CHECK(se(f) == 0.0);
    CHECK(std::isnan(me(f)));
  }
}

TEST_CASE("ragged reduce: max and min over an empty row throw, naming it, before any write") {
  const lens_t l = {3, 2, 0, 1};
  const x_t x = padded<double, F>(l, 23);
  // into a view, from a time-major operand
  dg::tensor<double, F, Batch> out(dg::extent<Batch>(4));
  for (std::size_t i = 0; i < out.size(); ++i) out.data()[i] = 7.0;
  auto v = out.view();
  const auto y = time_major(x, l);
  CHECK_THROWS_WITH_AS(v = dg::max<Time>(y),
                       "dimgraph: max: reduces over no valid element at 'batch' 2 (dim 'time' has "
                       "lengths {3, 2, 0, 1}) and has no identity",
                       dg::shape_error);
  row_t direct(dg::extent<Batch>(4));
  for (std::size_t i = 0; i < direct.size(); ++i) direct.data()[i] = 7.0;
  CHECK_THROWS_AS(direct = dg::min<Time>(x), dg::shape_error);
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(out.data()[i] == 7.0);
  for (std::size_t i = 0; i < direct.size(); ++i) CHECK(direct.data()[i] == 7.0);
  // over Batch: a position of Time no row reaches (the extent is above every length)
  const x_t z(dg::extent<Batch>(2), dg::extent<Time>(4), dg::lengths<Time>({3, 1}));
  CHECK_THROWS_WITH_AS(dg::eval(dg::max<Batch>(z)),
                       "dimgraph: max: reduces over no valid element at 'time' 3 (dim 'time' has "
                       "lengths {3, 1}) and has no identity",
                       dg::shape_error);
  // over Batch and Time, with every row empty (Time's extent 2: all padding)
  const x_t e(dg::extent<Batch>(3), dg::extent<Time>(2), dg::lengths<Time>({0, 0, 0}));
  CHECK_THROWS_WITH_AS(dg::eval(dg::min<Batch, Time>(e)),
                       "dimgraph: min: reduces over no valid element (dim 'time' has lengths "
                       "{0, 0, 0}) and has no identity",
                       dg::shape_error);
  // no row empty: no error, the view written; over Batch alone no position is empty either
  const lens_t lo = {3, 2, 1, 1};
  const x_t ok = padded<double, F>(lo, 25);
  const auto y_ok = time_major(ok, lo);
  CHECK_NOTHROW(v = dg::max<Time>(y_ok));
  CHECK_NOTHROW(dg::eval(dg::max<Batch>(ok)));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < nf; ++f) CHECK(out(f, b) == by_hand(reduction::max, ok, lo, b, f));
}

TEST_CASE("ragged reduce: time-major layouts, lazy operands and integers") {
  const lens_t l = random_lengths(4, 6, 31);
  const x_t x = padded<double, F>(l, 32);
  // a lazy operand: padding NaN * 2 + 1 stays out
  const auto e = dg::eval(dg::sum<Time>(x * 2.0 + 1.0));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < nf; ++f) {
      const double sum = by_hand(reduction::sum, x, l, b, f);
      CHECK(close(e(b, f), 2.0 * sum + static_cast<double>(l[b]), 1e-12));
    }
  // integers: sum gives int64 (max keeps the type)
  dg::tensor<std::int32_t, Batch, Time, F> k(dg::extent<Batch>(4), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 6; ++t)
      for (std::size_t f = 0; f < nf; ++f)
        k(b, t, f) = valid(l, b, t) ? static_cast<std::int32_t>(b * 100 + t * 10 + f)
                                    : std::numeric_limits<std::int32_t>::max();
  const auto ks = dg::eval(dg::sum<Time>(std::as_const(k)));
  static_assert(std::is_same_v<dg::value_t<decltype(ks)>, std::int64_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(dg::max<Time>(k))>, std::int32_t>);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < nf; ++f) {
      std::int64_t want = 0;
      for (std::size_t t = 0; t < row_length(l, b); ++t)
        want += static_cast<std::int64_t>(b * 100 + t * 10 + f);
      CHECK(ks(b, f) == want);
    }
}

TEST_CASE("ragged reduce: two ragged dims over one batch dim respect both lengths") {
  const lens_t lt = {3, 2, 0, 1}, lk = {2, 4, 3, 0};
  dg::tensor<double, Batch, Time, Key> xm(dg::extent<Batch>(4), dg::lengths<Time>(lt),
                                          dg::lengths<Key>(lk));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t k = 0; k < 4; ++k)
        xm(b, t, k) =
            valid(lt, b, t) && valid(lk, b, k) ? 1.0 + static_cast<double>(b + t * k) : qnan;
  const auto& x = xm;
  const auto m = dg::eval(dg::mean<Key, Time>(x));
  const auto sk = dg::eval(dg::sum<Key>(x));  // keeps Time and its lengths
  CHECK(lengths_vector(sk) == lt);
  for (std::size_t b = 0; b < 4; ++b) {
    double sum = 0;
    for (std::size_t t = 0; t < row_length(lt, b); ++t) {
      double row = 0;
      for (std::size_t k = 0; k < row_length(lk, b); ++k) row += x(b, t, k);
      CHECK(sk(b, t) == row);
      sum += row;
    }
    CHECK(close(m(b), sum / static_cast<double>(lt[b] * lk[b]), 1e-12));  // NaN if either is 0
  }
}

TEST_CASE("ragged reduce: without lengths, or without the batch dim, a ragged dim is plain") {
  // a ragged dim whose tensor lacks the batch dim has no lengths: every position counts
  dg::tensor<double, Time, F> t(dg::extent<Time>(3));
  for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = static_cast<double>(i);
  const auto s = dg::eval(dg::sum<Time>(std::as_const(t)));
  for (std::size_t f = 0; f < nf; ++f) CHECK(s(f) == static_cast<double>(3 * f + 15));
  // lengths not given: every row is full
  x_t xm(dg::extent<Batch>(2), dg::extent<Time>(3));
  for (std::size_t i = 0; i < xm.size(); ++i) xm.data()[i] = 1.0;
  const x_t& x = xm;
  const row_t m = over_time(reduction::mean, x);
  const auto z = dg::eval(dg::min<Batch, Time>(x));
  const auto c = dg::eval(dg::sum<Batch, Time>(x));
  for (std::size_t i = 0; i < m.size(); ++i) CHECK(m.data()[i] == 1.0);
  for (std::size_t f = 0; f < nf; ++f) {
    CHECK(z(f) == 1.0);
    CHECK(c(f) == 6.0);
  }
  // the ragged dim kept (with its batch dim): the result keeps the lengths
  const x_t y = padded<double, F>({2, 3}, 41);
  const auto k = dg::eval(dg::sum<F>(y));
  CHECK(lengths_vector(k) == lens_t{2, 3});
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < b + 2; ++i) {
      double want = 0;
      for (std::size_t f = 0; f < nf; ++f) want += y(b, i, f);
      CHECK(close(k(b, i), want, 1e-12));
    }
}
