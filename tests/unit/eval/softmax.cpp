// logsumexp, softmax, log_softmax, argmax and argmin against hand-written loops on seeded random
// inputs: one and several dims, inner and outer dims, inputs near +-1000, ties, empty extents.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <array>
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
struct B : dg::dim<"b"> {};                   // dynamic
struct T : dg::dim<"t", dg::range{1, 9}> {};  // interval
struct F : dg::dim<"f", 6> {};                // static

using btf = dg::tensor<float, B, T, F>;
using pos3 = std::array<std::size_t, 3>;

// Seeded values in [-3, 3] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] =
        static_cast<typename X::value_type>(static_cast<double>(gen() % 6001) / 1000.0 - 3.0);
}
template <class X>
X make(std::size_t b, std::size_t t, unsigned seed) {
  X x(dg::extent<B>(b), dg::extent<T>(t));
  fill(x, seed);
  return x;
}

// For every position of an [n0, n1, n2] array (elements at(i0, i1, i2)), the list of the
// elements that agree with it on the dims not flagged in `over` (its group), row-major.
template <class At>
std::vector<std::vector<double>> groups(pos3 n, std::array<bool, 3> over, At at) {
  std::vector<std::vector<double>> out(n[0] * n[1] * n[2]);
  for (std::size_t i0 = 0; i0 < n[0]; ++i0)
    for (std::size_t i1 = 0; i1 < n[1]; ++i1)
      for (std::size_t i2 = 0; i2 < n[2]; ++i2) {
        auto& g = out[(i0 * n[1] + i1) * n[2] + i2];
        for (std::size_t j0 = over[0] ? 0 : i0; j0 < (over[0] ? n[0] : i0 + 1); ++j0)
          for (std::size_t j1 = over[1] ? 0 : i1; j1 < (over[1] ? n[1] : i1 + 1); ++j1)
            for (std::size_t j2 = over[2] ? 0 : i2; j2 < (over[2] ? n[2] : i2 + 1); ++j2)
              g.push_back(at(j0, j1, j2));
      }
  return out;
}

// The hand loop for log(sum(exp(g))), with the maximum taken out (in double).
double hand_lse(const std::vector<double>& g) {
  double m = -INFINITY, s = 0;
  for (double v : g) m = std::fmax(m, v);
  for (double v : g) s += std::exp(v - m);
  return m + std::log(s);
}

// The element of r (its dims any subset of B, T, F) at full position p.
template <class X>
auto read(const X& r, pos3 p) {
  return [&]<class... Ks>(dg::dim_list<Ks...>*) {
    return r.at(dg::at<Ks>(p[dg::list_index_of_v<dg::dim_list<B, T, F>, Ks>])...);
  }(static_cast<typename X::dims*>(nullptr));
}

template <class... Rs>
std::array<bool, 3> over() {
  return {dg::list_contains_v<dg::dim_list<Rs...>, B>, dg::list_contains_v<dg::dim_list<Rs...>, T>,
          dg::list_contains_v<dg::dim_list<Rs...>, F>};
}

// logsumexp over Rs... of x + shift against the hand loop of x, plus shift (the closed form
// lse(x + k) = lse(x) + k), within tol.
template <class... Rs, class X>
void check_lse(const X& x, double shift, double tol) {
  using V = typename X::value_type;
  const pos3 n = {x.template extent<B>(), x.template extent<T>(), x.template extent<F>()};
  const auto got = dg::logsumexp<Rs...>(x + static_cast<V>(shift));
  static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(got)>::dims,
                               dg::list_difference_t<dg::dim_list<B, T, F>, dg::dim_list<Rs...>>>);
  const auto g =
      groups(n, over<Rs...>(), [&](auto b, auto t, auto f) { return double(x(b, t, f)); });
  for (std::size_t b = 0; b < n[0]; ++b)
    for (std::size_t t = 0; t < n[1]; ++t)
      for (std::size_t f = 0; f < n[2]; ++f) {
        const double v = read(got, {b, t, f});
        CHECK(std::isfinite(v));
        CHECK(std::fabs(v - (hand_lse(g[(b * n[1] + t) * n[2] + f]) + shift)) <= tol);
      }
}

// softmax (Log: log_softmax) over D of x + shift against the hand loop of x; every row of
// softmax sums to 1 within 1e-6.
template <class D, bool Log, class X>
void check_softmax(const X& x, double shift, double tol) {
  using V = typename X::value_type;
  const pos3 n = {x.template extent<B>(), x.template extent<T>(), x.template extent<F>()};
  const X y = [&] {
    if constexpr (Log) return dg::log_softmax<D>(x + static_cast<V>(shift));
    else return dg::softmax<D>(x + static_cast<V>(shift));
  }();
  const auto g = groups(n, over<D>(), [&](auto b, auto t, auto f) { return double(x(b, t, f)); });
  for (std::size_t b = 0; b < n[0]; ++b)
    for (std::size_t t = 0; t < n[1]; ++t)
      for (std::size_t f = 0; f < n[2]; ++f) {
        const double log_p = double(x(b, t, f)) - hand_lse(g[(b * n[1] + t) * n[2] + f]);
        const double v = y(b, t, f);
        CHECK(std::isfinite(v));
        CHECK(std::fabs(v - (Log ? log_p : std::exp(log_p))) <= tol);
      }
  if constexpr (!Log) {
    const auto total = dg::eval(dg::sum<D>(y));
    for (std::size_t i = 0; i < total.size(); ++i) CHECK(std::fabs(total.data()[i] - 1.0) <= 1e-6);
  }
}
}  // namespace

TEST_CASE("logsumexp: over one dim equals the hand loop") {
  const btf x = make<btf>(3, 5, 1);
  check_lse<F>(x, 0, 1e-5);
  check_lse<T>(x, 0, 1e-5);
  check_lse<B>(x, 0, 1e-5);
}

TEST_CASE("logsumexp: over several dims at once") {
  const btf x = make<btf>(3, 4, 2);
  check_lse<B, F>(x, 0, 1e-5);
  check_lse<F, T>(x, 0, 1e-5);
  check_lse<T, B>(x, 0, 1e-5);
}

TEST_CASE("logsumexp: inputs near +1000 and -1000 are finite and shift the result exactly") {
  const btf x = make<btf>(2, 4, 3);
  // float holds 1000 + x to about 6e-5
  check_lse<F>(x, 1000, 3e-4);
  check_lse<F>(x, -1000, 3e-4);
  check_lse<B, T>(x, 1000, 3e-4);
  check_lse<T>(x, -1000, 3e-4);
  using btf64 = dg::tensor<double, B, T, F>;
  const btf64 y = make<btf64>(2, 4, 4);
  check_lse<F>(y, 1000, 1e-10);
  check_lse<T, F>(y, -1000, 1e-10);
}

TEST_CASE("logsumexp: of an integer tensor is float, of an empty extent is -inf") {
  dg::tensor<std::int32_t, B, F> x(dg::extent<B>(2));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<std::int32_t>(i % 5) - 2;
  const auto l = dg::logsumexp<F>(x);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(l)>, dg::tensor<float, B>>);
  for (std::size_t b = 0; b < 2; ++b) {
    std::vector<double> g;
    for (std::size_t f = 0; f < 6; ++f) g.push_back(x(b, f));
    CHECK(std::fabs(l(b) - hand_lse(g)) <= 1e-5);
  }
  const btf none = make<btf>(0, 3, 5);
  const auto e = dg::logsumexp<B>(none);
  REQUIRE(e.size() == 18);
  for (std::size_t i = 0; i < e.size(); ++i)
    CHECK(e.data()[i] == -std::numeric_limits<float>::infinity());
  CHECK(dg::logsumexp<T>(none).size() == 0);
}

TEST_CASE("softmax: over the inner and an outer dim equals the hand loop, rows sum to 1") {
  const btf x = make<btf>(3, 5, 6);
  check_softmax<F, false>(x, 0, 1e-6);
  check_softmax<T, false>(x, 0, 1e-6);
  check_softmax<B, false>(x, 0, 1e-6);
}

TEST_CASE("log_softmax: over the inner and an outer dim equals the hand loop") {
  const btf x = make<btf>(3, 5, 7);
  check_softmax<F, true>(x, 0, 1e-5);
  check_softmax<T, true>(x, 0, 1e-5);
  check_softmax<B, true>(x, 0, 1e-5);
}

TEST_CASE("softmax: inputs near +1000 and -1000 stay finite and correct") {
  using btf64 = dg::tensor<double, B, T, F>;
  const btf64 y = make<btf64>(2, 4, 8);
  check_softmax<F, false>(y, 1000, 1e-9);
  check_softmax<T, false>(y, -1000, 1e-9);
  check_softmax<F, true>(y, -1000, 1e-9);
  check_softmax<T, true>(y, 1000, 1e-9);
  const btf x = make<btf>(2, 4, 9);
  check_softmax<F, false>(x, 1000, 1e-4);
  check_softmax<T, true>(x, -1000, 1e-3);
  // a spread of +-3000: exp of the largest difference underflows to 0, but nothing is NaN
  const btf wide = x * 1000.0f;
  const btf p = dg::softmax<F>(wide);
  const btf lp = dg::log_softmax<F>(wide);
  for (std::size_t i = 0; i < p.size(); ++i) {
    CHECK(std::isfinite(p.data()[i]));
    CHECK(!std::isnan(lp.data()[i]));
  }
}

TEST_CASE("argmax: gives dg::index of the first largest element, against the hand loop") {
  // values 0..3: many ties
  dg::tensor<std::int32_t, B, T, F> x(dg::extent<B>(4), dg::extent<T>(5));
  std::mt19937 gen(10);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<std::int32_t>(gen() % 4);
  const auto am_f = dg::argmax<F>(x);
  const auto an_t = dg::argmin<T>(x);
  static_assert(
      std::is_same_v<std::remove_cvref_t<decltype(am_f)>, dg::tensor<dg::index<F>, B, T>>);
  static_assert(
      std::is_same_v<std::remove_cvref_t<decltype(an_t)>, dg::tensor<dg::index<T>, B, F>>);
  for (std::size_t b = 0; b < 4; ++b) {
    for (std::size_t t = 0; t < 5; ++t) {
      std::int64_t best = 0;
      for (std::size_t f = 1; f < 6; ++f)
        if (x(b, t, f) > x(b, t, static_cast<std::size_t>(best)))
          best = static_cast<std::int64_t>(f);
      CHECK(am_f(b, t).value() == best);
    }
    for (std::size_t f = 0; f < 6; ++f) {
      std::int64_t best = 0;
      for (std::size_t t = 1; t < 5; ++t)
        if (x(b, t, f) < x(b, static_cast<std::size_t>(best), f))
          best = static_cast<std::int64_t>(t);
      CHECK(an_t(b, f).value() == best);
    }
  }
}

TEST_CASE("argmax: of float views and expressions equals the hand loop") {
  const btf x = make<btf>(3, 4, 11);
  const auto v = dg::permute<F, T, B>(x);
  const auto am = dg::argmax<T>(v);
  const auto an = dg::argmin<B>(x * -1.0f + 2.0f);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(am)>, dg::tensor<dg::index<T>, F, B>>);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t f = 0; f < 6; ++f) {
      std::size_t best = 0;
      for (std::size_t t = 1; t < 4; ++t)
        if (x(b, t, f) > x(b, best, f)) best = t;
      CHECK(am(f, b).value() == static_cast<std::int64_t>(best));
    }
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t f = 0; f < 6; ++f) {
      std::size_t best = 0;
      for (std::size_t b = 1; b < 3; ++b)  // argmin of -x + 2 is argmax of x
        if (x(b, t, f) > x(best, t, f)) best = b;
      CHECK(an(t, f).value() == static_cast<std::int64_t>(best));
    }
}

TEST_CASE("argmax: over an empty extent throws shape_error, an empty kept dim gives nothing") {
  const btf none = make<btf>(0, 3, 12);
  std::string what;
  try {
    (void)dg::argmax<B>(none);
  } catch (const dg::shape_error& e) {
    what = e.what();
  }
  CHECK(what.find("dimgraph: argmax:") == 0);
  CHECK(what.find("'b' has extent 0") != std::string::npos);
  CHECK_THROWS_AS((void)dg::argmin<B>(none), dg::shape_error);
  CHECK(dg::argmax<F>(none).size() == 0);
}
