// softmax, log_softmax, logsumexp, argmax and argmin over ragged dims: a padded batch gives
// each sequence's result alone and the hand loop's; padding gets probability exactly 0
// (log_softmax -inf); padding values never change a result; an empty row gives an all-zero
// softmax and logsumexp -inf, and argmax / argmin over it throw. Over the batch dim of a
// ragged dim, only the rows long enough count. The ops run over double; softmax and
// log_softmax also over float (their own vector code), and over int32 (computed in float).
#include <dimgraph.hpp>

#include "ragged_fixture.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace dg = dimgraph;

namespace {

using namespace ragged_fixture;
struct F : dg::dim<"f", 3> {};
constexpr std::size_t nf = 3;
struct One : dg::dim<"one", 1> {};  // [Batch, Time, One]: Time's rows contiguous

using x_t = dg::tensor<double, Batch, Time, F>;

// log(sum(exp)) over the valid t of (b, f), in long double.
template <class X>
double hand_logsumexp(const X& x, const lens_t& l, std::size_t b, std::size_t f) {
  long double s = 0;
  for (std::size_t t = 0; t < row_length(l, b); ++t)
    s += std::exp(static_cast<long double>(x(b, t, f)));
  return static_cast<double>(std::log(s));
}

// logsumexp over Time where the op matrix runs (double), nothing for the other types.
template <class X>
auto logsumexp_if_double(const X& x) {
  if constexpr (std::is_same_v<dg::value_t<X>, double>) return dg::logsumexp<Time>(x);
  else return 0;
}

// softmax and log_softmax over Time (and logsumexp, over double) of a batch with lengths l
// against each sequence alone (a batch of one, without padding) and the hand loop.
template <class T, class D = F>
void check_softmax(const lens_t& l, unsigned seed, double tol) {
  CAPTURE(seed);
  const auto x = padded<T, D>(l, seed, qnan, 3.0);
  const auto s = dg::softmax<Time>(x);
  const auto g = dg::log_softmax<Time>(x);
  const auto e = logsumexp_if_double(x);
  static_assert(std::is_same_v<decltype(s), const dg::tensor<T, Batch, Time, D>>);
  CHECK(lengths_vector(s) == l);
  for (std::size_t b = 0; b < l.size(); ++b) {
    CAPTURE(b);
    const auto r = alone<Time>(x, l, b);
    const auto rs = dg::softmax<Time>(r);
    const auto rg = dg::log_softmax<Time>(r);
    const auto re = logsumexp_if_double(r);
    for (std::size_t f = 0; f < dg::static_size_v<D>; ++f) {
      const double lse = hand_logsumexp(x, l, b, f);
      if constexpr (std::is_same_v<T, double>) {
        CHECK(close(e(b, f), re(0, f), tol));
        CHECK(close(e(b, f), lse, tol));
      }
      for (std::size_t t = 0; t < x.template extent<Time>(); ++t) {
        if (!valid(l, b, t)) {
          CHECK(s(b, t, f) == T(0));  // exactly
          CHECK(g(b, t, f) == -std::numeric_limits<T>::infinity());
          continue;
        }
        CHECK(close(s(b, t, f), rs(0, t, f), tol));
        CHECK(close(g(b, t, f), rg(0, t, f), tol));
        CHECK(close(s(b, t, f), std::exp(static_cast<double>(x(b, t, f)) - lse), tol));
        CHECK(close(g(b, t, f), static_cast<double>(x(b, t, f)) - lse, tol));
      }
    }
  }
}

// The first position of the largest (Max) or smallest element among the valid t of (b, f), a
// NaN winning over any number.
template <class X>
std::size_t hand_arg(const X& x, const lens_t& l, std::size_t b, std::size_t f, bool max) {
  std::size_t best = 0;
  for (std::size_t t = 1; t < row_length(l, b); ++t) {
    const double v = x(b, t, f), w = x(b, best, f);
    if (!std::isnan(w) && (std::isnan(v) || (max ? v > w : v < w))) best = t;
  }
  return best;
}

}  // namespace

TEST_CASE("ragged softmax: over the ragged dim equals each sequence alone, padding exactly 0") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    check_softmax<double>(random_lengths(6, 9, seed + 5), seed, 1e-12);
    check_softmax<double>(random_lengths(4, 40, seed + 9), seed, 1e-12);  // long rows
    check_softmax<float>(random_lengths(6, 9, seed), seed, 1e-5);
    check_softmax<float>(random_lengths(4, 40, seed + 9), seed, 1e-5);  // long rows: vectors
  }
  check_softmax<double>({1, 0}, 4, 1e-12);
  check_softmax<float>({1, 0}, 4, 1e-5);
}

TEST_CASE("ragged softmax: contiguous rows of every length up to 90 (run-time dispatched)") {
  // (Rows of 32 elements or more run the row kernel of the CPU's widest instruction set.)
  for (unsigned seed = 1; seed <= 4; ++seed) {
    check_softmax<float, One>(random_lengths(8, 90, seed + 20), seed, 1e-5);
    check_softmax<double, One>(random_lengths(8, 90, seed + 30), seed, 1e-12);
  }
}

TEST_CASE("ragged softmax: padding values (NaN, +-inf, 1e30) never change a result") {
  const lens_t l = random_lengths(5, 7, 8);
  const x_t base = padded<double, F>(l, 9, 0.0, 3.0);
  const auto s0 = dg::softmax<Time>(base);
  const auto g0 = dg::log_softmax<Time>(base);
  const auto e0 = dg::logsumexp<Time>(base);
  const auto b0 = dg::softmax<Batch>(base);
  const auto c0 = dg::logsumexp<Batch, Time>(base);
  for (double pad : {qnan, inf, -inf, 1e30, -1e30}) {
    CAPTURE(pad);
    const x_t x = padded<double, F>(l, 9, pad, 3.0);
    CHECK(count_different(dg::softmax<Time>(x), s0) == 0);
    CHECK(count_different(dg::log_softmax<Time>(x), g0) == 0);
    CHECK(count_different(dg::logsumexp<Time>(x), e0) == 0);
    CHECK(count_different(dg::softmax<Batch>(x), b0) == 0);
    CHECK(count_different(dg::logsumexp<Batch, Time>(x), c0) == 0);
  }
}

TEST_CASE("ragged softmax: an empty row is all 0 (log_softmax all -inf), logsumexp -inf") {
  const lens_t l = {2, 0, 1};
  const x_t x = padded<double, F>(l, 11, 5.0);
  const auto s = dg::softmax<Time>(x);
  const auto g = dg::log_softmax<Time>(x);
  const auto e = dg::logsumexp<Time>(x);
  for (std::size_t f = 0; f < nf; ++f) {
    CHECK(e(1, f) == -inf);
    for (std::size_t t = 0; t < 2; ++t) {
      CHECK(s(1, t, f) == 0.0);
      CHECK(g(1, t, f) == -inf);
    }
    CHECK(s(2, 0, f) == 1.0);  // one valid element: probability 1, padding 0
    CHECK(s(2, 1, f) == 0.0);
  }
  // every row empty, over Batch and Time: -inf
  const x_t none = padded<double, F>({0, 0}, 12, 5.0, 3.0, 2);
  const auto c = dg::logsumexp<Batch, Time>(none);
  for (std::size_t f = 0; f < nf; ++f) CHECK(c(f) == -inf);
  // a row whose valid elements hold +inf gives NaN there, as the sequence alone; padding stays 0
  x_t y = padded<double, F>({2, 1}, 12, 1.0);
  y(0, 0, 0) = inf;
  const x_t& yc = y;
  const auto sy = dg::softmax<Time>(yc);
  CHECK(std::isnan(sy(0, 0, 0)));
  CHECK(sy(1, 1, 0) == 0.0);
  CHECK(dg::logsumexp<Time>(yc)(0, 0) == inf);
}

TEST_CASE("ragged softmax: over the batch dim only the rows long enough count") {
  const lens_t l = {4, 0, 2, 3};
  // Time's extent 5, above every length: at t = 4 no row is valid
  const x_t x = padded<double, F>(l, 13, qnan, 2.0, 5);
  const auto s = dg::softmax<Batch>(x);
  const auto g = dg::log_softmax<Batch>(x);
  const auto all = dg::logsumexp<Batch, Time>(x);
  CHECK(lengths_vector(s) == l);
  for (std::size_t f = 0; f < nf; ++f) {
    long double total = 0;
    for (std::size_t t = 0; t < 5; ++t) {
      long double z = 0;
      for (std::size_t b = 0; b < 4; ++b)
        if (valid(l, b, t)) z += std::exp(static_cast<long double>(x(b, t, f)));
      total += z;
      const double lse = static_cast<double>(std::log(z));  // -inf where no row is valid
      for (std::size_t b = 0; b < 4; ++b) {
        if (!valid(l, b, t)) {
          CHECK(s(b, t, f) == 0.0);
          CHECK(g(b, t, f) == -inf);
        } else {
          CHECK(close(s(b, t, f), std::exp(x(b, t, f) - lse), 1e-12));
          CHECK(close(g(b, t, f), x(b, t, f) - lse, 1e-12));
        }
      }
    }
    CHECK(close(all(f), static_cast<double>(std::log(total)), 1e-12));
  }
}

TEST_CASE("ragged softmax: lazy and integer operands, time-major layouts") {
  const lens_t l = {3, 1, 0, 2};
  const x_t x = padded<double, F>(l, 14, qnan, 3.0);
  // a lazy operand is evaluated first and keeps its lengths
  const auto s = dg::softmax<Time>(x * 2.0);
  const x_t twice = dg::eval(x * 2.0);
  CHECK(count_different(s, dg::softmax<Time>(twice)) == 0);
  CHECK(lengths_vector(s) == l);
  // time-major: the same values, the same results
  dg::tensor<double, Time, Batch, F> ym(dg::extent<Batch>(4), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t f = 0; f < nf; ++f) ym(t, b, f) = x(b, t, f);
  const auto& y = ym;
  const auto sy = dg::softmax<Time>(y);
  const auto gy = dg::log_softmax<Time>(y);
  const auto sx = dg::softmax<Time>(x);
  const auto gx = dg::log_softmax<Time>(x);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < nf; ++f)
      for (std::size_t t = 0; t < 3; ++t) {
        CHECK(close(sy(t, b, f), sx(b, t, f), 1e-12));
        CHECK(close(gy(t, b, f), gx(b, t, f), 1e-12));
      }
  // integers compute in float; padding (the largest int) stays out
  dg::tensor<std::int32_t, Batch, Time> k(dg::extent<Batch>(2), dg::lengths<Time>({2, 1}));
  k(0, 0) = 0;
  k(0, 1) = 1;
  k(1, 0) = 5;
  k(1, 1) = std::numeric_limits<std::int32_t>::max();
  const auto sk = dg::softmax<Time>(std::as_const(k));
  static_assert(std::is_same_v<dg::value_t<decltype(sk)>, float>);
  CHECK(close(sk(0, 1), 1.0 / (1.0 + std::exp(-1.0))));
  CHECK(sk(1, 0) == 1.0f);
  CHECK(sk(1, 1) == 0.0f);
}

TEST_CASE("ragged argmax: over the ragged dim equals each sequence alone") {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    lens_t l = random_lengths(6, 20, seed, false);  // no empty row here
    // few distinct values, so ties are common (the first wins)
    x_t xm = padded<double, F>(l, seed + 20, qnan, 3.0);
    for (std::size_t b = 0; b < 6; ++b)
      for (std::size_t t = 0; t < row_length(l, b); ++t)
        for (std::size_t f = 0; f < nf; ++f) xm(b, t, f) = std::round(xm(b, t, f));
    if (seed == 2) xm(0, 3, 1) = qnan;  // NaN wins
    const x_t& x = xm;
    const auto a = dg::argmax<Time>(x);
    const auto z = dg::argmin<Time>(x);
    static_assert(std::is_same_v<dg::value_t<decltype(a)>, dg::index<Time>>);
    for (std::size_t b = 0; b < 6; ++b) {
      const auto r = alone<Time>(x, l, b);
      const auto ra = dg::argmax<Time>(r);
      const auto rz = dg::argmin<Time>(r);
      for (std::size_t f = 0; f < nf; ++f) {
        CHECK(a(b, f).value() == ra(0, f).value());
        CHECK(z(b, f).value() == rz(0, f).value());
        CHECK(static_cast<std::size_t>(a(b, f).value()) == hand_arg(x, l, b, f, true));
        CHECK(static_cast<std::size_t>(z(b, f).value()) == hand_arg(x, l, b, f, false));
      }
    }
    if (seed == 2) CHECK(static_cast<std::size_t>(a(0, 1).value()) == 3);
  }
}

TEST_CASE("ragged argmax: padding never wins, over the batch dim too, lengths are kept") {
  const lens_t l = {3, 1, 2};
  for (double pad : {qnan, inf, -inf}) {
    CAPTURE(pad);
    const x_t x = padded<double, F>(l, 30, pad, 3.0);
    const auto a = dg::argmax<Time>(x);
    const auto z = dg::argmin<Time>(x);
    const auto ab = dg::argmax<Batch>(x);  // [Time, F]: among the rows long enough
    const auto zb = dg::argmin<Batch>(x);
    for (std::size_t f = 0; f < nf; ++f) {
      for (std::size_t b = 0; b < 3; ++b) {
        CHECK(static_cast<std::size_t>(a(b, f).value()) == hand_arg(x, l, b, f, true));
        CHECK(static_cast<std::size_t>(z(b, f).value()) == hand_arg(x, l, b, f, false));
      }
      for (std::size_t t = 0; t < 3; ++t) {
        std::size_t hi = 0, lo = 0;  // row 0 has the full length
        for (std::size_t b = 1; b < 3; ++b)
          if (valid(l, b, t)) {
            if (x(b, t, f) > x(hi, t, f)) hi = b;
            if (x(b, t, f) < x(lo, t, f)) lo = b;
          }
        CHECK(static_cast<std::size_t>(ab(t, f).value()) == hi);
        CHECK(static_cast<std::size_t>(zb(t, f).value()) == lo);
      }
    }
  }
  // argmax over a dim that is not ragged keeps the ragged dim's lengths
  const x_t x = padded<double, F>(l, 31);
  const auto af = dg::argmax<F>(x);
  static_assert(std::is_same_v<dg::dims_t<decltype(af)>, dg::dim_list<Batch, Time>>);
  CHECK(lengths_vector(af) == l);
}

TEST_CASE("ragged argmax: a row of length 0 throws, naming the op, the row and the lengths") {
  const x_t x = padded<double, F>({2, 3, 0}, 40);
  CHECK_THROWS_WITH_AS(dg::argmax<Time>(x),
                       "dimgraph: argmax: reduces over no valid element at 'batch' 2 (dim 'time' "
                       "has lengths {2, 3, 0}) and has no identity",
                       dg::shape_error);
  CHECK_THROWS_AS(dg::argmin<Time>(x + 1.0), dg::shape_error);
  // over Batch: a position of Time that no row reaches
  const x_t y = padded<double, F>({2, 1}, 41, qnan, 1.0, 3);
  CHECK_THROWS_WITH_AS(dg::argmin<Batch>(y),
                       "dimgraph: argmin: reduces over no valid element at 'time' 2 (dim 'time' "
                       "has lengths {2, 1}) and has no identity",
                       dg::shape_error);
  // an empty extent: the plain error
  const x_t e = padded<double, F>({0, 0}, 42);
  CHECK_THROWS_AS(dg::argmax<Time>(e), dg::shape_error);
}
