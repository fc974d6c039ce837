// softmax, log_softmax, logsumexp, argmax and argmin over ragged dims: a padded batch gives
// each sequence's result alone and the hand loop's; padding gets probability exactly 0
// (log_softmax -inf); padding values never change a result; an empty row gives an all-zero
// softmax and logsumexp -inf, and argmax / argmin over it throw. Over the batch dim of a
// ragged dim, only the rows long enough count.
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
struct Step : dg::dim<"step"> {};  // one sequence alone: a plain dynamic dim
struct F : dg::dim<"f", 3> {};

using lens_t = std::vector<std::int64_t>;
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

bool valid(const lens_t& l, std::size_t b, std::size_t t) {
  return static_cast<std::int64_t>(t) < l[b];
}

// x [Batch, Time, F]: seeded values in [-3, 3] at valid positions (the same for a seed
// whatever the padding), pad at the padding.
template <class T>
dg::tensor<T, Batch, Time, F> make_x(const lens_t& l, unsigned seed, double pad = qnan) {
  dg::tensor<T, Batch, Time, F> x(dg::extent<Batch>(l.size()), dg::lengths<Time>(l));
  std::mt19937 gen(seed);
  for (std::size_t b = 0; b < l.size(); ++b)
    for (std::size_t t = 0; t < x.template extent<Time>(); ++t)
      for (std::size_t f = 0; f < 3; ++f) {
        const double v = static_cast<double>(gen() % 6001) / 1000.0 - 3.0;
        x(b, t, f) = static_cast<T>(valid(l, b, t) ? v : pad);
      }
  return x;
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

template <class T>
dg::tensor<T, Step, F> alone(const dg::tensor<T, Batch, Time, F>& x, const lens_t& l,
                             std::size_t b) {
  dg::tensor<T, Step, F> r(dg::extent<Step>(static_cast<std::size_t>(l[b])));
  for (std::size_t t = 0; t < r.template extent<Step>(); ++t)
    for (std::size_t f = 0; f < 3; ++f) r(t, f) = x(b, t, f);
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

// log(sum(exp)) over the valid t of (b, f), in long double.
template <class X>
double hand_logsumexp(const X& x, const lens_t& l, std::size_t b, std::size_t f) {
  long double s = 0;
  for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
    s += std::exp(static_cast<long double>(x(b, t, f)));
  return static_cast<double>(std::log(s));
}

template <class T>
void check_softmax(const lens_t& l, unsigned seed, double tol) {
  const auto x = make_x<T>(l, seed);
  const auto s = dg::softmax<Time>(x);
  const auto g = dg::log_softmax<Time>(x);
  const auto e = dg::logsumexp<Time>(x);
  static_assert(std::is_same_v<decltype(s), const dg::tensor<T, Batch, Time, F>>);
  CHECK(dg::lengths_of<Time>(s).to_vector() == l);
  for (std::size_t b = 0; b < l.size(); ++b) {
    const auto r = alone(x, l, b);
    const auto rs = dg::softmax<Step>(r);
    const auto rg = dg::log_softmax<Step>(r);
    const auto re = dg::logsumexp<Step>(r);
    for (std::size_t f = 0; f < 3; ++f) {
      const double lse = hand_logsumexp(x, l, b, f);
      CHECK(close(e(b, f), re(f), tol));
      CHECK(close(e(b, f), lse, tol));
      for (std::size_t t = 0; t < x.template extent<Time>(); ++t) {
        if (!valid(l, b, t)) {
          CHECK(s(b, t, f) == T(0));  // exactly
          CHECK(g(b, t, f) == -std::numeric_limits<T>::infinity());
          continue;
        }
        CHECK(close(s(b, t, f), rs(t, f), tol));
        CHECK(close(g(b, t, f), rg(t, f), tol));
        CHECK(close(s(b, t, f), std::exp(static_cast<double>(x(b, t, f)) - lse), tol));
        CHECK(close(g(b, t, f), static_cast<double>(x(b, t, f)) - lse, tol));
      }
    }
  }
}
}  // namespace

TEST_CASE("ragged softmax: over the ragged dim equals each sequence alone, padding exactly 0") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    check_softmax<float>(random_lengths(6, 9, seed), seed, 1e-5);
    check_softmax<double>(random_lengths(6, 9, seed + 5), seed, 1e-12);
    check_softmax<float>(random_lengths(4, 40, seed + 9), seed, 1e-5);  // long rows: vectors
  }
  check_softmax<float>({1, 0}, 4, 1e-5);
}

TEST_CASE("ragged softmax: padding values (NaN, +-inf, 1e30) never change a result") {
  const lens_t l = random_lengths(5, 7, 8);
  const auto base = make_x<float>(l, 9, 0.0);
  const auto s0 = dg::softmax<Time>(base);
  const auto g0 = dg::log_softmax<Time>(base);
  const auto e0 = dg::logsumexp<Time>(base);
  const auto b0 = dg::softmax<Batch>(base);
  const auto c0 = dg::logsumexp<Batch, Time>(base);
  for (double pad : {qnan, inf, -inf, 1e30, -1e30}) {
    CAPTURE(pad);
    const auto x = make_x<float>(l, 9, pad);
    const auto s = dg::softmax<Time>(x);
    const auto g = dg::log_softmax<Time>(x);
    const auto e = dg::logsumexp<Time>(x);
    const auto bs = dg::softmax<Batch>(x);
    const auto c = dg::logsumexp<Batch, Time>(x);
    for (std::size_t i = 0; i < s.size(); ++i) {
      CHECK(same(s.data()[i], s0.data()[i]));
      CHECK(same(g.data()[i], g0.data()[i]));
      CHECK(same(bs.data()[i], b0.data()[i]));
    }
    for (std::size_t i = 0; i < e.size(); ++i) CHECK(same(e.data()[i], e0.data()[i]));
    for (std::size_t i = 0; i < c.size(); ++i) CHECK(same(c.data()[i], c0.data()[i]));
  }
}

TEST_CASE("ragged softmax: an empty row is all 0 (log_softmax all -inf), logsumexp -inf") {
  const auto x = make_x<float>({2, 0, 1}, 11, 5.0);
  const auto s = dg::softmax<Time>(x);
  const auto g = dg::log_softmax<Time>(x);
  const auto e = dg::logsumexp<Time>(x);
  const auto tf = dg::logsumexp<Time, F>(x);
  for (std::size_t f = 0; f < 3; ++f) {
    CHECK(e(1, f) == -std::numeric_limits<float>::infinity());
    for (std::size_t t = 0; t < 2; ++t) {
      CHECK(s(1, t, f) == 0.0f);
      CHECK(g(1, t, f) == -std::numeric_limits<float>::infinity());
    }
    CHECK(s(2, 0, f) == 1.0f);  // one valid element: probability 1, padding 0
    CHECK(s(2, 1, f) == 0.0f);
  }
  CHECK(tf(1) == -std::numeric_limits<float>::infinity());
  // a row whose valid elements hold +inf gives NaN there, as the sequence alone; padding stays 0
  auto y = make_x<float>({2, 1}, 12, 1.0);
  y(0, 0, 0) = std::numeric_limits<float>::infinity();
  const auto sy = dg::softmax<Time>(y);
  CHECK(std::isnan(sy(0, 0, 0)));
  CHECK(sy(1, 1, 0) == 0.0f);
  CHECK(dg::logsumexp<Time>(y)(0, 0) == std::numeric_limits<float>::infinity());
}

TEST_CASE("ragged softmax: over the batch dim only the rows long enough count") {
  const lens_t l = {4, 0, 2, 3};
  // Time's extent 5, above every length: at t = 4 no row is valid
  dg::tensor<double, Batch, Time, F> x(dg::extent<Batch>(4), dg::extent<Time>(5),
                                       dg::lengths<Time>(l));
  std::mt19937 gen(13);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 5; ++t)
      for (std::size_t f = 0; f < 3; ++f)
        x(b, t, f) = valid(l, b, t) ? static_cast<double>(gen() % 4001) / 1000.0 - 2.0 : qnan;
  const auto s = dg::softmax<Batch>(x);
  const auto g = dg::log_softmax<Batch>(x);
  const auto e = dg::logsumexp<Batch>(x);  // [Time, F]
  const auto all = dg::logsumexp<Batch, Time>(x);
  CHECK(dg::lengths_of<Time>(s).to_vector() == l);
  for (std::size_t f = 0; f < 3; ++f) {
    long double total = 0;
    for (std::size_t t = 0; t < 5; ++t) {
      long double z = 0;
      for (std::size_t b = 0; b < 4; ++b)
        if (valid(l, b, t)) z += std::exp(static_cast<long double>(x(b, t, f)));
      total += z;
      const double lse = static_cast<double>(std::log(z));  // -inf where no row is valid
      CHECK(close(e(t, f), lse, 1e-12));
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
  const auto x = make_x<float>(l, 14);
  // a lazy operand is evaluated first and keeps its lengths
  const auto s = dg::softmax<Time>(x * 2.0f);
  const auto twice = dg::eval(x * 2.0f);
  const auto s2 = dg::softmax<Time>(twice);
  for (std::size_t i = 0; i < s.size(); ++i) CHECK(same(s.data()[i], s2.data()[i]));
  // time-major: the same values, the same results
  dg::tensor<float, Time, Batch, F> y(dg::extent<Batch>(4), dg::lengths<Time>(l));
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t f = 0; f < 3; ++f) y(t, b, f) = x(b, t, f);
  const auto sy = dg::softmax<Time>(y);
  const auto gy = dg::log_softmax<Time>(y);
  const auto ey = dg::logsumexp<Time>(y);
  const auto sx = dg::softmax<Time>(x);
  const auto gx = dg::log_softmax<Time>(x);
  const auto ex = dg::logsumexp<Time>(x);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t f = 0; f < 3; ++f) {
      CHECK(same(ey(b, f), ex(b, f)));
      for (std::size_t t = 0; t < 3; ++t) {
        CHECK(close(sy(t, b, f), sx(b, t, f)));
        CHECK(close(gy(t, b, f), gx(b, t, f)));
      }
    }
  // integers compute in float; padding (the largest int) stays out
  dg::tensor<std::int32_t, Batch, Time> k(dg::extent<Batch>(2), dg::lengths<Time>({2, 1}));
  k(0, 0) = 0;
  k(0, 1) = 1;
  k(1, 0) = 5;
  k(1, 1) = std::numeric_limits<std::int32_t>::max();
  const auto sk = dg::softmax<Time>(k);
  static_assert(std::is_same_v<dg::value_t<decltype(sk)>, float>);
  CHECK(close(sk(0, 1), 1.0 / (1.0 + std::exp(-1.0))));
  CHECK(sk(1, 0) == 1.0f);
  CHECK(sk(1, 1) == 0.0f);
}

TEST_CASE("ragged argmax: over the ragged dim equals each sequence alone") {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    lens_t l = random_lengths(6, 20, seed);
    l[1] = 1;  // no empty row here
    for (auto& n : l) n = n == 0 ? 3 : n;
    // few distinct values, so ties are common (the first wins)
    auto x = make_x<float>(l, seed + 20);
    for (std::size_t b = 0; b < 6; ++b)
      for (std::size_t t = 0; t < static_cast<std::size_t>(l[b]); ++t)
        for (std::size_t f = 0; f < 3; ++f) x(b, t, f) = std::round(x(b, t, f));
    if (seed == 2) x(0, 3, 1) = std::numeric_limits<float>::quiet_NaN();  // NaN wins
    const auto a = dg::argmax<Time>(x);
    const auto z = dg::argmin<Time>(x);
    static_assert(std::is_same_v<dg::value_t<decltype(a)>, dg::index<Time>>);
    for (std::size_t b = 0; b < 6; ++b) {
      const auto r = alone(x, l, b);
      const auto ra = dg::argmax<Step>(r);
      const auto rz = dg::argmin<Step>(r);
      for (std::size_t f = 0; f < 3; ++f) {
        CHECK(a(b, f).value() == ra(f).value());
        CHECK(z(b, f).value() == rz(f).value());
        std::size_t hi = 0, lo = 0;
        for (std::size_t t = 1; t < static_cast<std::size_t>(l[b]); ++t) {
          const float v = x(b, t, f);
          if (!std::isnan(x(b, hi, f)) && (v > x(b, hi, f) || std::isnan(v))) hi = t;
          if (!std::isnan(x(b, lo, f)) && (v < x(b, lo, f) || std::isnan(v))) lo = t;
        }
        CHECK(static_cast<std::size_t>(a(b, f).value()) == hi);
        CHECK(static_cast<std::size_t>(z(b, f).value()) == lo);
      }
    }
    if (seed == 2) CHECK(static_cast<std::size_t>(a(0, 1).value()) == 3);
  }
}

TEST_CASE("ragged argmax: padding never wins, over the batch dim too, lengths are kept") {
  const lens_t l = {3, 1, 2};
  for (double pad : {qnan, inf, -inf}) {
    CAPTURE(pad);
    auto x = make_x<double>(l, 30, pad);
    const auto a = dg::argmax<Time>(x);
    const auto z = dg::argmin<Time>(x);
    const auto ab = dg::argmax<Batch>(x);  // [Time, F]: among the rows long enough
    const auto zb = dg::argmin<Batch>(x);
    for (std::size_t f = 0; f < 3; ++f) {
      for (std::size_t b = 0; b < 3; ++b) {
        std::size_t hi = 0, lo = 0;
        for (std::size_t t = 1; t < static_cast<std::size_t>(l[b]); ++t) {
          if (x(b, t, f) > x(b, hi, f)) hi = t;
          if (x(b, t, f) < x(b, lo, f)) lo = t;
        }
        CHECK(static_cast<std::size_t>(a(b, f).value()) == hi);
        CHECK(static_cast<std::size_t>(z(b, f).value()) == lo);
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
  const auto x = make_x<float>(l, 31);
  const auto af = dg::argmax<F>(x);
  static_assert(std::is_same_v<dg::dims_t<decltype(af)>, dg::dim_list<Batch, Time>>);
  CHECK(dg::lengths_of<Time>(af).to_vector() == l);
}

TEST_CASE("ragged argmax: a row of length 0 throws, naming the op, the row and the lengths") {
  const auto x = make_x<float>({2, 3, 0}, 40);
  CHECK_THROWS_WITH_AS(dg::argmax<Time>(x),
                       "dimgraph: argmax: reduces over no valid element at 'batch' 2 (dim 'time' "
                       "has lengths {2, 3, 0}) and has no identity",
                       dg::shape_error);
  CHECK_THROWS_AS(dg::argmin<Time>(x + 1.0f), dg::shape_error);
  // over Batch: a position of Time that no row reaches
  dg::tensor<float, Batch, Time, F> y(dg::extent<Batch>(2), dg::extent<Time>(3),
                                      dg::lengths<Time>({2, 1}));
  for (std::size_t i = 0; i < y.size(); ++i) y.data()[i] = 1.0f;
  CHECK_THROWS_WITH_AS(dg::argmin<Batch>(y),
                       "dimgraph: argmin: reduces over no valid element at 'time' 2 (dim 'time' "
                       "has lengths {2, 1}) and has no identity",
                       dg::shape_error);
  // an empty extent: the plain error
  dg::tensor<float, Batch, Time, F> e(dg::extent<Batch>(2), dg::lengths<Time>({0, 0}));
  CHECK_THROWS_AS(dg::argmax<Time>(e), dg::shape_error);
}
