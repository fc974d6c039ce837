// Element-wise ops against hand-written loops on seeded random inputs: static,
// interval, dynamic and mixed dims; views; broadcasting from either side; in place.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

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
struct B : dg::dim<"b"> {};                   // dynamic
struct T : dg::dim<"t", dg::range{1, 8}> {};  // interval
struct F : dg::dim<"f", 4> {};                // static
struct R : dg::dim<"r", 3> {};                // static

// Fills with seeded values in [-1, 1] (not using the library's own fill).
template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] =
        static_cast<typename X::value_type>(static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
}

using btf = dg::tensor<float, B, T, F>;
btf make_btf(std::size_t b, std::size_t t, unsigned seed) {
  btf x(dg::extent<B>(b), dg::extent<T>(t));
  fill(x, seed);
  return x;
}
}  // namespace

TEST_CASE("elementwise: a fused chain equals the hand loop (dynamic, interval and static dims)") {
  const btf a = make_btf(3, 5, 1), b = make_btf(3, 5, 2), c = make_btf(3, 5, 3);
  btf out = a * b + c - a / (dg::abs(b) + 1.0f);
  REQUIRE(out.extent<B>() == 3);
  REQUIRE(out.extent<T>() == 5);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float x = a.data()[i], y = b.data()[i], z = c.data()[i];
    CHECK(out.data()[i] == x * y + z - x / (std::fabs(y) + 1.0f));
  }
}

TEST_CASE("elementwise: unary math equals the standard functions") {
  const btf a = make_btf(2, 3, 4);
  const btf pos = dg::abs(a) + 0.5f;
  const btf e = dg::exp(a), l = dg::log(pos), l1 = dg::log1p(pos), s = dg::sqrt(pos),
            rs = dg::rsqrt(pos);
  const btf th = dg::tanh(a), sg = dg::sigmoid(a), re = dg::relu(a), ge = dg::gelu(a),
            si = dg::sin(a);
  const btf co = dg::cos(a), fl = dg::floor(a * 3.0f), ce = dg::ceil(a * 3.0f), ng = -a;
  const btf mn = dg::min(a, pos - 1.0f), mx = dg::max(a, pos - 1.0f), pw = dg::pow(pos, 2.5f);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float x = a.data()[i], p = std::fabs(x) + 0.5f;
    CHECK(e.data()[i] == doctest::Approx(std::exp(x)));
    CHECK(l.data()[i] == doctest::Approx(std::log(p)));
    CHECK(l1.data()[i] == doctest::Approx(std::log1p(p)));
    CHECK(s.data()[i] == doctest::Approx(std::sqrt(p)));
    CHECK(rs.data()[i] == doctest::Approx(1.0f / std::sqrt(p)));
    CHECK(th.data()[i] == doctest::Approx(std::tanh(x)));
    CHECK(sg.data()[i] == doctest::Approx(1.0 / (1.0 + std::exp(-x))));
    CHECK(re.data()[i] == (x > 0 ? x : 0.0f));
    CHECK(ge.data()[i] == doctest::Approx(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)))));
    CHECK(si.data()[i] == doctest::Approx(std::sin(x)));
    CHECK(co.data()[i] == doctest::Approx(std::cos(x)));
    CHECK(fl.data()[i] == std::floor(x * 3.0f));
    CHECK(ce.data()[i] == std::ceil(x * 3.0f));
    CHECK(ng.data()[i] == -x);
    CHECK(mn.data()[i] == std::fmin(x, p - 1.0f));
    CHECK(mx.data()[i] == std::fmax(x, p - 1.0f));
    CHECK(pw.data()[i] == doctest::Approx(std::pow(p, 2.5f)));
  }
}

TEST_CASE("elementwise: operands align by tag, whatever their order") {
  const btf x = make_btf(2, 3, 5);
  dg::tensor<float, T, F, B> y(dg::extent<B>(2), dg::extent<T>(3));
  fill(y, 6);
  const btf out = x + y;
  const dg::tensor<float, T, F, B> out2 = y - x;  // the left operand's order
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t f = 0; f < 4; ++f) {
        CHECK(out(b, t, f) == x(b, t, f) + y(t, f, b));
        CHECK(out2(t, f, b) == y(t, f, b) - x(b, t, f));
      }
}

TEST_CASE("elementwise: broadcasting from either side never materialises the smaller operand") {
  const btf x = make_btf(2, 3, 7);
  dg::tensor<float, F> bias;
  fill(bias, 8);
  dg::tensor<float, B, F> per_b(dg::extent<B>(2));
  fill(per_b, 9);
  const btf left = bias * 2.0f + x;  // [F] + [B,T,F]: the result takes the larger operand's dims
  const btf right = x - per_b;       // [B,T,F] - [B,F]
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t f = 0; f < 4; ++f) {
        CHECK(left(b, t, f) == bias(f) * 2.0f + x(b, t, f));
        CHECK(right(b, t, f) == x(b, t, f) - per_b(b, f));
      }
  // explicit broadcast and outer
  const auto full = dg::eval(dg::broadcast_to<B, R, F>(bias, dg::extent<B>(2)));
  CHECK(full.extent<B>() == 2);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t f = 0; f < 4; ++f) CHECK(full(b, r, f) == bias(f));
  dg::tensor<float, R> rv;
  fill(rv, 10);
  const dg::tensor<float, F, R> o = dg::outer(bias, rv);
  const dg::tensor<float, F, R> os = dg::outer(bias, rv, [](float a, float b) { return a + b; });
  for (std::size_t f = 0; f < 4; ++f)
    for (std::size_t r = 0; r < 3; ++r) {
      CHECK(o(f, r) == bias(f) * rv(r));
      CHECK(os(f, r) == bias(f) + rv(r));
    }
}

TEST_CASE("elementwise: permuted and sliced views read and write by tag") {
  btf x = make_btf(3, 4, 11);
  const btf y = make_btf(3, 4, 12);
  auto p = dg::permute<F, B, T>(x);
  const dg::tensor<float, F, B, T> q = p * 2.0f;
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t t = 0; t < 4; ++t)
      for (std::size_t f = 0; f < 4; ++f) CHECK(q(f, b, t) == x(b, t, f) * 2.0f);
  // a slice at t = 2, [B, F], written through
  auto row = x[dg::at<T>(2)];
  const dg::tensor<float, B, F> before = row;
  row = row + y[dg::at<T>(1)];
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t f = 0; f < 4; ++f) CHECK(x(b, 2, f) == before(b, f) + y(b, 1, f));
  // writing a whole permuted view
  dg::permute<T, F, B>(x) = dg::permute<T, F, B>(y) * 0.5f;
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(x.data()[i] == y.data()[i] * 0.5f);
}

TEST_CASE("elementwise: in place and compound assignment") {
  btf x = make_btf(2, 2, 13);
  const btf orig = x;
  dg::tensor<float, F> bias;
  fill(bias, 14);
  x = x * x;  // exact aliasing is allowed
  x += bias;  // [B,T,F] += [F]
  x -= 1.0f;
  x *= 2;
  x /= 4.0f;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t t = 0; t < 2; ++t)
      for (std::size_t f = 0; f < 4; ++f) {
        const float v = orig(b, t, f);
        CHECK(x(b, t, f) == ((v * v + bias(f) - 1.0f) * 2.0f) / 4.0f);
      }
}

TEST_CASE("elementwise: types promote as in PyTorch, scalars are wrapped numbers") {
  dg::tensor<std::int32_t, F> i;
  dg::tensor<std::int8_t, F> i8;
  dg::tensor<float, F> f;
  dg::tensor<double, F> d;
  for (int k = 0; k < 4; ++k) {
    i.data()[k] = k - 2;
    i8.data()[k] = static_cast<std::int8_t>(100 + k);
    f.data()[k] = 0.5f * static_cast<float>(k);
    d.data()[k] = 0.25 * k;
  }
  static_assert(std::is_same_v<dg::value_t<decltype(i + f)>, float>);
  static_assert(std::is_same_v<dg::value_t<decltype(f + d)>, double>);
  static_assert(
      std::is_same_v<dg::value_t<decltype(i8 + 1)>, std::int8_t>);  // int scalar: stays int8
  static_assert(
      std::is_same_v<dg::value_t<decltype(f * 2.0)>, float>);  // double scalar: stays float
  static_assert(std::is_same_v<dg::value_t<decltype(i * 0.5)>, float>);  // float scalar raises int
  static_assert(std::is_same_v<dg::value_t<decltype(i / i)>, float>);    // true division
  static_assert(std::is_same_v<dg::value_t<decltype(dg::exp(i))>, float>);
  static_assert(std::is_same_v<dg::value_t<decltype(dg::less(i, f))>, bool>);
  const dg::tensor<float, F> s = i + f;
  const dg::tensor<std::int8_t, F> wrap = i8 + 100;  // int8 arithmetic wraps as in int8
  const dg::tensor<float, F> q = i / (i + 3);
  for (int k = 0; k < 4; ++k) {
    CHECK(s(k) == static_cast<float>(k - 2) + 0.5f * static_cast<float>(k));
    CHECK(wrap(k) == static_cast<std::int8_t>(static_cast<std::int8_t>(100 + k) + 100));
    CHECK(q(k) == static_cast<float>(k - 2) / static_cast<float>(k + 1));
  }
  const dg::tensor<std::int32_t, F> narrowed = dg::cast<std::int32_t>(f * 3.0f);
  for (int k = 0; k < 4; ++k)
    CHECK(narrowed(k) == static_cast<std::int32_t>(1.5f * static_cast<float>(k)));
}

TEST_CASE("elementwise: comparisons, logic, where and map") {
  const btf a = make_btf(2, 3, 15), b = make_btf(2, 3, 16);
  const dg::tensor<bool, B, T, F> lt = dg::less(a, b);
  const dg::tensor<bool, B, T, F> both = dg::logical_and(lt, dg::greater(a, -0.5f));
  const dg::tensor<bool, B, T, F> neither = dg::logical_not(dg::logical_or(lt, dg::equal(a, b)));
  const btf w = dg::where(lt, a, b);
  const btf w0 = dg::where(lt, a, 0.0f);
  const btf m = dg::map([](float x, float y) { return x * x - y; }, a, b);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float x = a.data()[i], y = b.data()[i];
    CHECK(lt.data()[i] == (x < y));
    CHECK(both.data()[i] == (x < y && x > -0.5f));
    CHECK(neither.data()[i] == !(x < y || x == y));
    CHECK(w.data()[i] == (x < y ? x : y));
    CHECK(w0.data()[i] == (x < y ? x : 0.0f));
    CHECK(m.data()[i] == x * x - y);
  }
}

// where over a comparison is one node (the comparison's operands select directly): the same
// values as over a bool tensor, with broadcasting, scalars, other element types and NaN, and
// without dangling when the comparison and the select's operands are temporaries.
TEST_CASE("elementwise: where over a comparison selects as over its bool result") {
  using fused = decltype(dg::where(dg::less(std::declval<const btf&>(), 0.0f), 1.0f, 2.0f).fn());
  static_assert(std::is_same_v<std::remove_cvref_t<fused>,
                               dg::detail::fn::select_compared<dg::detail::fn::less>>);
  btf a = make_btf(2, 3, 41);
  const btf b = make_btf(2, 3, 42);
  a.data()[3] = std::numeric_limits<float>::quiet_NaN();
  dg::tensor<float, F> bias;
  fill(bias, 43);
  const btf leaky = dg::where(dg::greater(a, 0.0f), a, 0.1f * a);
  const auto cmp = dg::less_equal(a, bias);  // held in a variable
  const btf held = dg::where(cmp, 2.0f, b);
  const dg::tensor<double, B, T, F> wide = dg::where(dg::greater_equal(b, 0.25), a, 3);
  const dg::tensor<std::int32_t, B, T, F> ints = dg::cast<std::int32_t>(b * 4.0f);
  const btf by_int = dg::where(dg::equal(ints, 1), a, b);
  auto later = dg::where(dg::not_equal(make_btf(2, 3, 41) * 1.0f, 0.5f), make_btf(2, 3, 42), 7.0f);
  const btf kept = later;  // evaluated after the temporaries' statement ended
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float x = a.data()[i], y = b.data()[i], z = bias.data()[i % 4];
    if (std::isnan(x)) CHECK(std::isnan(leaky.data()[i]));
    else CHECK(leaky.data()[i] == (x > 0.0f ? x : 0.1f * x));
    CHECK(held.data()[i] == (x <= z ? 2.0f : y));
    CHECK(wide.data()[i] == (double(y) >= 0.25 ? double(x) : 3.0));
    CHECK(by_int.data()[i] == (std::int32_t(y * 4.0f) == 1 ? x : y));
  }
  const btf a2 = make_btf(2, 3, 41);
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK(kept.data()[i] == (a2.data()[i] != 0.5f ? b.data()[i] : 7.0f));
}

TEST_CASE("elementwise: 0-size extents and one-element tensors") {
  const btf empty_a = make_btf(0, 3, 17), empty_b = make_btf(0, 3, 18);
  const btf empty = empty_a + empty_b;
  CHECK(empty.size() == 0);
  CHECK(empty.extent<B>() == 0);
  dg::tensor<float, dg::batch> one(dg::extent<dg::batch>(1));
  one.data()[0] = 3.0f;
  const dg::tensor<float, dg::batch> r = one * one + 1.0f;
  CHECK(r.data()[0] == 10.0f);
  struct One : dg::dim<"one", 1> {};
  dg::tensor<double, One> s;
  s.data()[0] = 2.0;
  s = s * 4.0 - s;
  CHECK(s.data()[0] == 6.0);
}

TEST_CASE("elementwise: an expression over temporaries keeps them alive") {
  auto make = [] { return make_btf(2, 3, 19); };
  const btf ref = make_btf(2, 3, 19);
  auto e = dg::exp(make()) + make() * 2.0f;  // both temporaries are held by value
  const btf out = e;
  for (std::size_t i = 0; i < out.size(); ++i)
    CHECK(out.data()[i] == doctest::Approx(std::exp(ref.data()[i]) + ref.data()[i] * 2.0f));
}

TEST_CASE("elementwise: all-static tensors take the compile-time plan and equal the hand loop") {
  dg::tensor<double, R, F> a, b;
  fill(a, 20);
  fill(b, 21);
  dg::tensor<double, F> bias;
  fill(bias, 22);
  const dg::tensor<double, R, F> out = a * b - bias;
  const dg::tensor<double, F, R> swapped = a + b;  // other order, static strides
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t f = 0; f < 4; ++f) {
      CHECK(out(r, f) == a(r, f) * b(r, f) - bias(f));
      CHECK(swapped(f, r) == a(r, f) + b(r, f));
    }
  CHECK(dg::describe_plan(out, a * b - bias) ==
        "2 loops: [3 x 4]; strides out {4, 1}, in1 {4, 1}, in2 {0, 1}");
}

TEST_CASE("elementwise: rank-0 tensors assign from expressions and reductions over every dim") {
  dg::tensor<float> a;
  a() = 2.5f;
  dg::tensor<float> b = a * a + 1.0f;
  CHECK(b() == 2.5f * 2.5f + 1.0f);
  struct Three : dg::dim<"three", 3> {};
  auto x = dg::iota<float, Three>();  // 0, 1, 2
  dg::tensor<float> l = dg::logsumexp<Three>(x);
  CHECK(l() == doctest::Approx(std::log(1.0 + std::exp(1.0) + std::exp(2.0))).epsilon(1e-6));
}

namespace {
// ((x0 * s0 + x1) * s1 + x2) ... over Count distinct tensors, each scalar s_k a distinct
// value held in the kernel's state: more leaves and more pieces of state than a kernel takes
// one statement at a time (the table and the state then copy them in a loop).
// (Each node is moved into the next, which then holds it by value: the chain returned holds
// no reference to a temporary of a call that has returned.)
template <std::size_t K, std::size_t Count, class E>
auto long_chain(const std::vector<btf>& xs, E e) {
  if constexpr (K == Count) {
    return e;
  } else {
    return long_chain<K + 1, Count>(xs,
                                    std::move(e) * (0.5f + 0.001f * static_cast<float>(K)) + xs[K]);
  }
}
}  // namespace

TEST_CASE("elementwise: a chain over 70 distinct tensors and 69 scalars equals the hand loop") {
  constexpr std::size_t count = 70;
  std::vector<btf> xs;
  for (std::size_t k = 0; k < count; ++k)
    xs.push_back(make_btf(3, 5, 100 + static_cast<unsigned>(k)));
  const btf out = long_chain<1, count>(xs, xs[0] + 0.0f);
  for (std::size_t i = 0; i < out.size(); ++i) {
    double acc = xs[0].data()[i];
    for (std::size_t k = 1; k < count; ++k)
      acc = acc * (0.5 + 0.001 * static_cast<double>(k)) + xs[k].data()[i];
    CHECK(std::fabs(out.data()[i] - acc) <= 1e-5 * (1.0 + std::fabs(acc)));
  }
}
