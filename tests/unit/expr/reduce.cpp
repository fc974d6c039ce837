// Reductions (sum, mean, prod, max, min, any, all) against hand-written loops on seeded random
// inputs: inner, outer, middle and several dims; static, interval and dynamic dims; permuted
// and sliced views; element-wise operands; assignment into tensors and views; empty and
// one-element extents; integer and bool element types; run-time errors.
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
struct F : dg::dim<"f", 5> {};                // static
struct R : dg::dim<"r", 3> {};                // static
struct One : dg::dim<"one", 1> {};            // static, one element

using btf = dg::tensor<float, B, T, F>;
using pos3 = std::array<std::size_t, 3>;

// Seeded values in [lo, lo + 2] (not the library's own fill).
template <class X>
void fill(X& x, unsigned seed, double lo = -1.0) {
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] =
        static_cast<typename X::value_type>(static_cast<double>(gen() % 2001) / 1000.0 + lo);
}

btf make_btf(std::size_t b, std::size_t t, unsigned seed, double lo = -1.0) {
  btf x(dg::extent<B>(b), dg::extent<T>(t));
  fill(x, seed, lo);
  return x;
}

// The hand loop: for every position p of an [n0, n1, n2] array given by at(i0, i1, i2), folds
// op over the positions that agree with p on the dims not flagged in `over`, from init.
// The result is indexed by the full position (row-major), so that it can be compared with a
// result of any dim order.
template <class Acc, class At, class Op>
std::vector<Acc> hand_reduce(pos3 n, std::array<bool, 3> over, Acc init, At at, Op op) {
  std::vector<Acc> out(n[0] * n[1] * n[2]);
  for (std::size_t i0 = 0; i0 < n[0]; ++i0)
    for (std::size_t i1 = 0; i1 < n[1]; ++i1)
      for (std::size_t i2 = 0; i2 < n[2]; ++i2) {
        Acc a = init;
        for (std::size_t j0 = over[0] ? 0 : i0; j0 < (over[0] ? n[0] : i0 + 1); ++j0)
          for (std::size_t j1 = over[1] ? 0 : i1; j1 < (over[1] ? n[1] : i1 + 1); ++j1)
            for (std::size_t j2 = over[2] ? 0 : i2; j2 < (over[2] ? n[2] : i2 + 1); ++j2)
              a = op(a, at(j0, j1, j2));
        out[(i0 * n[1] + i1) * n[2] + i2] = a;
      }
  return out;
}

// The element of r (its dims any subset of D0, D1, D2, in any order) at full position p.
template <class D0, class D1, class D2, class X>
auto read(const X& r, pos3 p) {
  return [&]<class... Ks>(dg::dim_list<Ks...>*) {
    return r.at(dg::at<Ks>(p[dg::list_index_of_v<dg::dim_list<D0, D1, D2>, Ks>])...);
  }(static_cast<typename X::dims*>(nullptr));
}

bool close(double got, double want) {
  return std::fabs(got - want) <= 1e-5 * (1.0 + std::fabs(want));
}

// Checks sum, mean, prod, max and min over Rs... of x (whose dims are D0, D1, D2 in some order,
// with extents n and elements at(i0, i1, i2)) against the hand loop.
template <class D0, class D1, class D2, class... Rs, class X, class At>
void check_numeric(const X& x, pos3 n, At at) {
  using frame = dg::dim_list<D0, D1, D2>;
  const std::array<bool, 3> over = {dg::list_contains_v<dg::dim_list<Rs...>, D0>,
                                    dg::list_contains_v<dg::dim_list<Rs...>, D1>,
                                    dg::list_contains_v<dg::dim_list<Rs...>, D2>};
  std::size_t count = 1;
  for (std::size_t k = 0; k < 3; ++k) count *= over[k] ? n[k] : 1;
  const auto add = [](double a, double v) { return a + v; };
  const auto mul = [](double a, double v) { return a * v; };
  const auto mx = [](double a, double v) { return std::fmax(a, v); };
  const auto mn = [](double a, double v) { return std::fmin(a, v); };
  const auto sum = hand_reduce(n, over, 0.0, at, add);
  const auto prod = hand_reduce(n, over, 1.0, at, mul);
  const auto hi = hand_reduce(n, over, -std::numeric_limits<double>::infinity(), at, mx);
  const auto lo = hand_reduce(n, over, std::numeric_limits<double>::infinity(), at, mn);

  const auto s = dg::eval(dg::sum<Rs...>(x));
  const auto m = dg::eval(dg::mean<Rs...>(x));
  const auto p = dg::eval(dg::prod<Rs...>(x));
  const auto a = dg::eval(dg::max<Rs...>(x));
  const auto b = dg::eval(dg::min<Rs...>(x));
  using kept = dg::list_difference_t<typename X::dims, dg::dim_list<Rs...>>;
  static_assert(std::is_same_v<typename decltype(s)::dims, kept>);
  static_assert(dg::list_is_subset_v<kept, frame>);
  for (std::size_t i0 = 0; i0 < n[0]; ++i0)
    for (std::size_t i1 = 0; i1 < n[1]; ++i1)
      for (std::size_t i2 = 0; i2 < n[2]; ++i2) {
        const pos3 q = {i0, i1, i2};
        const std::size_t k = (i0 * n[1] + i1) * n[2] + i2;
        CHECK(close(read<D0, D1, D2>(s, q), sum[k]));
        CHECK(close(read<D0, D1, D2>(m, q), sum[k] / static_cast<double>(count)));
        CHECK(close(read<D0, D1, D2>(p, q), prod[k]));
        CHECK(read<D0, D1, D2>(a, q) == hi[k]);
        CHECK(read<D0, D1, D2>(b, q) == lo[k]);
      }
}

template <class... Rs>
void check_btf(const btf& x) {
  const pos3 n = {x.extent<B>(), x.extent<T>(), x.extent<F>()};
  check_numeric<B, T, F, Rs...>(x, n, [&](auto b, auto t, auto f) { return double(x(b, t, f)); });
}
}  // namespace

TEST_CASE("reduce: over the inner, an outer and a middle dim equals the hand loop") {
  const btf x = make_btf(3, 7, 1, 0.2);  // positive-ish, so products stay readable
  check_btf<F>(x);
  check_btf<B>(x);
  check_btf<T>(x);
  const btf y = make_btf(4, 2, 2);
  check_btf<F>(y);
  check_btf<B>(y);
  check_btf<T>(y);
}

TEST_CASE("reduce: over several dims at once, in any order of the dims given") {
  const btf x = make_btf(3, 4, 3);
  check_btf<B, F>(x);
  check_btf<F, B>(x);
  check_btf<T, F>(x);
  check_btf<B, T>(x);
}

TEST_CASE("reduce: over every dim gives a 0-d tensor") {
  const btf x = make_btf(2, 3, 4);
  const auto s = dg::eval(dg::sum<B, T, F>(x));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(s)>, dg::tensor<float>>);
  check_btf<B, T, F>(x);
  check_btf<F, T, B>(x);
  double want = 0;
  for (std::size_t i = 0; i < x.size(); ++i) want += x.data()[i];
  CHECK(close(*s.data(), want));
}

TEST_CASE("reduce: of an all-static tensor equals the hand loop") {
  dg::tensor<float, R, F> x;
  fill(x, 5);
  const dg::tensor<float, F> s = dg::sum<R>(x);
  const dg::tensor<float, R> m = dg::max<F>(x);
  for (std::size_t f = 0; f < 5; ++f) CHECK(close(s(f), double(x(0, f)) + x(1, f) + x(2, f)));
  for (std::size_t r = 0; r < 3; ++r) {
    float want = x(r, 0);
    for (std::size_t f = 1; f < 5; ++f) want = std::fmax(want, x(r, f));
    CHECK(m(r) == want);
  }
}

TEST_CASE("reduce: of a permuted view follows the view's dim order") {
  const btf x = make_btf(3, 4, 6);
  const auto v = dg::permute<F, B, T>(x);
  const pos3 n = {5, 3, 4};
  const auto at = [&](auto f, auto b, auto t) { return double(x(b, t, f)); };
  check_numeric<F, B, T, B>(v, n, at);
  check_numeric<F, B, T, F>(v, n, at);
  check_numeric<F, B, T, T>(v, n, at);
  check_numeric<F, B, T, T, F>(v, n, at);
  static_assert(std::is_same_v<dg::dims_t<decltype(dg::sum<B>(v))>, dg::dim_list<F, T>>);
}

TEST_CASE("reduce: of sliced views equals the hand loop over the slice") {
  const btf x = make_btf(3, 8, 7);
  // a run-time slice of the middle dim: t in [1, 7) step 2
  const auto v = dg::slice<T>(x, 1, -1, 2);
  using St = dg::sliced_dim<T>;
  REQUIRE(v.extent<St>() == 3);
  const auto at = [&](auto b, auto t, auto f) { return double(x(b, 1 + 2 * t, f)); };
  check_numeric<B, St, F, St>(v, {3, 3, 5}, at);
  check_numeric<B, St, F, F>(v, {3, 3, 5}, at);
  check_numeric<B, St, F, B, St>(v, {3, 3, 5}, at);
  // a compile-time slice of the inner dim, backwards: f = 4, 3, 2, 1
  const auto w = dg::slice<F, -1, 0, -1>(x);
  using Sf = dg::slice_dim_t<F, -1, 0, -1>;
  const auto at_w = [&](auto b, auto t, auto f) { return double(x(b, t, 4 - f)); };
  check_numeric<B, T, Sf, Sf>(w, {3, 8, 4}, at_w);
  check_numeric<B, T, Sf, T>(w, {3, 8, 4}, at_w);
  // a slice of a fixed position (x[at<T>(2)]): a view without T
  const auto u = x[dg::at<T>(2)];
  const dg::tensor<float, F> s = dg::sum<B>(u);
  for (std::size_t f = 0; f < 5; ++f)
    CHECK(close(s(f), double(x(0, 2, f)) + x(1, 2, f) + x(2, 2, f)));
}

TEST_CASE("reduce: reads an element-wise expression directly, without a temporary") {
  const btf a = make_btf(2, 5, 7), b = make_btf(2, 5, 8), c = make_btf(2, 5, 9);
  const auto e = dg::sum<T>(a * b + c);
  // The node keeps the element-wise expression; its kernel reads the three leaves.
  using source = std::remove_cvref_t<decltype(e.source())>;
  static_assert(!dg::detail::is_tensor_v<source> &&
                dg::detail::program_facts<dg::detail::evaluator_of<source>::program>::leaves == 3);
  const dg::tensor<float, B, F> s = e;
  // (The product rounded on its own, as the kernel's separate multiply and add round it: in one
  // expression Clang contracts a * b + c into a fused multiply-add where the target has one,
  // and max and min, compared exactly, then differ in the last bit.)
  const auto at = [&](auto i, auto t, auto f) {
    const float product = a(i, t, f) * b(i, t, f);
    return double(product + c(i, t, f));
  };
  const auto want = hand_reduce({2, 5, 5}, {false, true, false}, 0.0, at,
                                [](double x, double v) { return x + v; });
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t f = 0; f < 5; ++f) CHECK(close(s(i, f), want[(i * 5) * 5 + f]));
  check_numeric<B, T, F, B, F>(a * b + c, {2, 5, 5}, at);
}

TEST_CASE("reduce: as an operand of an element-wise op, and of another reduction") {
  const btf x = make_btf(3, 4, 10);
  const btf centred = x - dg::max<F>(x);
  const dg::tensor<float, B> nested = dg::sum<T>(dg::max<F>(x));
  for (std::size_t b = 0; b < 3; ++b) {
    double total = 0;
    for (std::size_t t = 0; t < 4; ++t) {
      float m = -INFINITY;
      for (std::size_t f = 0; f < 5; ++f) m = std::fmax(m, x(b, t, f));
      total += m;
      for (std::size_t f = 0; f < 5; ++f) CHECK(centred(b, t, f) == x(b, t, f) - m);
    }
    CHECK(close(nested(b), total));
  }
}

TEST_CASE("reduce: assigns into a tensor of another dim order and into a view") {
  const btf x = make_btf(3, 4, 11);
  const auto want = hand_reduce(
      {3, 4, 5}, {false, true, false}, 0.0,
      [&](auto b, auto t, auto f) { return double(x(b, t, f)); },
      [](double a, double v) { return a + v; });
  // a tensor [F, B] of other extents: re-allocated to the result's
  dg::tensor<float, F, B> into(dg::extent<B>(7));
  into = dg::sum<T>(x);
  REQUIRE(into.extent<B>() == 3);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t f = 0; f < 5; ++f) CHECK(close(into(f, b), want[(b * 4) * 5 + f]));
  // a view: one row of a bigger tensor [R, F, B]; the other rows stay as they were
  dg::tensor<double, R, F, B> big(dg::extent<B>(3));
  for (std::size_t i = 0; i < big.size(); ++i) big.data()[i] = -7.0;
  big[dg::at<R>(1)] = dg::sum<T>(x);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t f = 0; f < 5; ++f)
      for (std::size_t b = 0; b < 3; ++b)
        if (r == 1) CHECK(close(big(r, f, b), want[(b * 4) * 5 + f]));
        else CHECK(big(r, f, b) == -7.0);
  // a permuted view of a tensor [B, F]
  dg::tensor<float, B, F> bf(dg::extent<B>(3));
  dg::permute<F, B>(bf) = dg::mean<T>(x);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t f = 0; f < 5; ++f) CHECK(close(bf(b, f), want[(b * 4) * 5 + f] / 4.0));
}

TEST_CASE("reduce: a destination view of other extents throws shape_error and stays untouched") {
  const btf x = make_btf(3, 4, 12);
  dg::tensor<float, B, F> dst(dg::extent<B>(4));
  for (std::size_t i = 0; i < dst.size(); ++i) dst.data()[i] = 42.0f;
  auto v = dst.view();
  std::string what;
  try {
    v = dg::sum<T>(x);
  } catch (const dg::shape_error& e) {
    what = e.what();
  }
  CHECK(what.find("dimgraph: assign:") == 0);
  CHECK(what.find("dim 'b' has extent 4 in the destination and 3 in the expression") !=
        std::string::npos);
  for (std::size_t i = 0; i < dst.size(); ++i) CHECK(dst.data()[i] == 42.0f);
}

TEST_CASE("reduce: a destination inside the input gets the reduction of the input before it") {
  btf x = make_btf(2, 3, 13);
  const btf before = x;
  // [B, F] at t = 0 is part of x's memory: the whole input is read before anything is written
  auto row = x[dg::at<T>(0)];
  row = dg::sum<T>(x);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t f = 0; f < 5; ++f) {
      const float want = before(b, 0, f) + before(b, 1, f) + before(b, 2, f);
      CHECK(x(b, 0, f) == doctest::Approx(want).epsilon(1e-6));
      CHECK(x(b, 1, f) == before(b, 1, f));
    }
}

TEST_CASE("reduce: over an empty extent gives the identity, or throws for max and min") {
  const btf x = make_btf(3, 4, 14);
  const auto none = dg::slice<T>(x, 2, 2);  // t of extent 0
  using St = dg::sliced_dim<T>;
  REQUIRE(none.extent<St>() == 0);
  const dg::tensor<float, B, F> s = dg::sum<St>(none);
  const dg::tensor<float, B, F> p = dg::prod<St>(none);
  const dg::tensor<float, B, F> m = dg::mean<St>(none);
  const dg::tensor<bool, B, F> any = dg::any<St>(dg::greater(none, 0.0f));
  const dg::tensor<bool, B, F> all = dg::all<St>(dg::greater(none, 0.0f));
  REQUIRE(s.size() == 15);
  for (std::size_t i = 0; i < s.size(); ++i) {
    CHECK(s.data()[i] == 0.0f);
    CHECK(p.data()[i] == 1.0f);
    CHECK(std::isnan(m.data()[i]));  // 0 / 0
    CHECK(!any.data()[i]);
    CHECK(all.data()[i]);
  }
  // max and min of nothing have no value: shape_error naming the op and the empty dim, and
  // the destination is not written
  dg::tensor<float, B, F> dst(dg::extent<B>(3));
  for (std::size_t i = 0; i < dst.size(); ++i) dst.data()[i] = 5.0f;
  std::string what;
  try {
    dst = dg::max<St>(none);
  } catch (const dg::shape_error& e) {
    what = e.what();
  }
  CHECK(what.find("dimgraph: max:") == 0);
  CHECK(what.find("'slice(t)'") != std::string::npos);
  CHECK(what.find("extent 0") != std::string::npos);
  for (std::size_t i = 0; i < dst.size(); ++i) CHECK(dst.data()[i] == 5.0f);
  CHECK_THROWS_AS((void)dg::eval(dg::min<B, St>(none)), dg::shape_error);
  // over several dims, one of them empty: still nothing to reduce
  CHECK(dg::eval(dg::sum<St, F>(none)).size() == 3);
  CHECK_THROWS_AS((void)dg::eval(dg::max<St, F>(none)), dg::shape_error);
}

TEST_CASE("reduce: an empty kept dim gives an empty result, even for max") {
  const btf x = make_btf(0, 4, 15);
  const dg::tensor<float, B, F> s = dg::sum<T>(x);
  const dg::tensor<float, B, F> m = dg::max<T>(x);
  CHECK(s.extent<B>() == 0);
  CHECK(m.size() == 0);
  // over the empty dim itself: sum is 0 everywhere, max throws
  const dg::tensor<float, T, F> z = dg::sum<B>(x);
  REQUIRE(z.size() == 20);
  for (std::size_t i = 0; i < z.size(); ++i) CHECK(z.data()[i] == 0.0f);
  CHECK_THROWS_AS((void)dg::eval(dg::max<B>(x)), dg::shape_error);
}

TEST_CASE("reduce: one-element tensors give the element itself") {
  const btf x = make_btf(1, 1, 16);
  const dg::tensor<float, F> s = dg::sum<B, T>(x);
  const dg::tensor<float, F> m = dg::max<T, B>(x);
  const dg::tensor<float, F> mean = dg::mean<B, T>(x);
  for (std::size_t f = 0; f < 5; ++f) {
    CHECK(s(f) == x(0, 0, f));
    CHECK(m(f) == x(0, 0, f));
    CHECK(mean(f) == x(0, 0, f));
  }
  dg::tensor<double, One> one;
  one(0) = 2.5;
  const dg::tensor<double> p = dg::prod<One>(one);
  const dg::tensor<double> mn = dg::min<One>(one);
  CHECK(*p.data() == 2.5);
  CHECK(*mn.data() == 2.5);
}

TEST_CASE("reduce: integer and bool element types give the documented result types") {
  dg::tensor<std::int32_t, B, F> i32(dg::extent<B>(4));
  dg::tensor<std::uint8_t, B, F> u8(dg::extent<B>(4));
  dg::tensor<std::int8_t, B, F> i8(dg::extent<B>(4));
  dg::tensor<bool, B, F> flags(dg::extent<B>(4));
  std::mt19937 gen(17);
  for (std::size_t i = 0; i < i32.size(); ++i) {
    i32.data()[i] = static_cast<std::int32_t>(gen() % 2000001) - 1000000;
    u8.data()[i] = static_cast<std::uint8_t>(200 + gen() % 56);
    i8.data()[i] = static_cast<std::int8_t>(static_cast<int>(gen() % 15) - 7);
    flags.data()[i] = gen() % 3 == 0;
  }
  // sum and prod of integers and bools accumulate in int64; mean gives float; max and min keep
  // the element type; any and all need bool
  const auto s32 = dg::eval(dg::sum<F>(i32));
  const auto s8 = dg::eval(dg::sum<F>(u8));
  const auto p8 = dg::eval(dg::prod<F>(i8));
  const auto nb = dg::eval(dg::sum<F>(flags));
  const auto m32 = dg::eval(dg::mean<F>(i32));
  const auto hi8 = dg::eval(dg::max<F>(u8));
  const auto lo8 = dg::eval(dg::min<F>(i8));
  const auto any = dg::eval(dg::any<F>(flags));
  const auto all = dg::eval(dg::all<F>(flags));
  static_assert(std::is_same_v<dg::value_t<decltype(s32)>, std::int64_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(s8)>, std::int64_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(p8)>, std::int64_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(nb)>, std::int64_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(m32)>, float>);
  static_assert(std::is_same_v<dg::value_t<decltype(hi8)>, std::uint8_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(lo8)>, std::int8_t>);
  static_assert(std::is_same_v<dg::value_t<decltype(any)>, bool>);
  static_assert(std::is_same_v<dg::value_t<decltype(dg::sum<F>(dg::tensor<double, F>{}))>, double>);
  static_assert(
      std::is_same_v<dg::value_t<decltype(dg::mean<F>(dg::tensor<double, F>{}))>, double>);
  for (std::size_t b = 0; b < 4; ++b) {
    std::int64_t ws32 = 0, ws8 = 0, wp8 = 1, wn = 0;
    int whi = 0, wlo = 127;
    bool wany = false, wall = true;
    for (std::size_t f = 0; f < 5; ++f) {
      ws32 += i32(b, f);
      ws8 += u8(b, f);
      wp8 *= i8(b, f);
      wn += flags(b, f) ? 1 : 0;
      whi = u8(b, f) > whi ? u8(b, f) : whi;
      wlo = i8(b, f) < wlo ? i8(b, f) : wlo;
      wany = wany || flags(b, f);
      wall = wall && flags(b, f);
    }
    CHECK(s32(b) == ws32);
    CHECK(s8(b) == ws8);  // above 255: no 8-bit wrap-around
    CHECK(p8(b) == wp8);
    CHECK(nb(b) == wn);
    CHECK(m32(b) == doctest::Approx(static_cast<double>(ws32) / 5.0));
    CHECK(hi8(b) == whi);
    CHECK(lo8(b) == wlo);
    CHECK(any(b) == wany);
    CHECK(all(b) == wall);
  }
  // the int64 sum goes into a narrower tensor only through dg::cast
  const dg::tensor<std::int32_t, B> back = dg::cast<std::int32_t>(dg::sum<F>(i8));
  CHECK(back.extent<B>() == 4);
}

TEST_CASE("reduce: any and all of a comparison equal the hand loop") {
  const btf x = make_btf(3, 5, 18);
  const dg::tensor<bool, B, F> any = dg::any<T>(dg::greater(x, 0.6f));
  const dg::tensor<bool, B, F> all = dg::all<T>(dg::greater(x, -0.6f));
  const auto at = [&](auto b, auto t, auto f) { return x(b, t, f); };
  const auto want_any = hand_reduce({3, 5, 5}, {false, true, false}, false, at,
                                    [](bool a, float v) { return a || v > 0.6f; });
  const auto want_all = hand_reduce({3, 5, 5}, {false, true, false}, true, at,
                                    [](bool a, float v) { return a && v > -0.6f; });
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t f = 0; f < 5; ++f) {
      CHECK(any(b, f) == want_any[(b * 5) * 5 + f]);
      CHECK(all(b, f) == want_all[(b * 5) * 5 + f]);
    }
}
