// dot<Ks...>(a, b) against hand-written loops on seeded random inputs: one and two contracted
// dims, GEMV shapes, batch dims, dynamic dims, permuted views, element-wise operands, sizes
// around the kernel's block sizes, and the run-time errors.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {
struct M : dg::dim<"m"> {};
struct K : dg::dim<"k"> {};
struct K2 : dg::dim<"k2"> {};
struct N : dg::dim<"n"> {};
struct Bt : dg::dim<"bt"> {};
struct H : dg::dim<"h", 5> {};
struct I : dg::dim<"i", 7> {};

// Seeded values in [-1, 1] (not using the library's own fill).
template <class X>
void fill(X& x, unsigned seed) {
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i)
    x.data()[i] =
        static_cast<typename X::value_type>(static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
}

// |got - want| within rel times the sum of |products| that formed want (float rounding).
bool close(double got, double want, double scale, double rel = 1e-4) {
  return std::fabs(got - want) <= rel * (scale + 1e-30);
}

template <class T, class... Ds, class... Es>
dg::tensor<T, Ds...> random(unsigned seed, Es... e) {
  dg::tensor<T, Ds...> x(e...);
  fill(x, seed);
  return x;
}

// C[m, n] = sum_k A[m, k] B[k, n] by the triple loop, with the sums of |products|.
template <class FA, class FB>
void reference(std::size_t m, std::size_t n, std::size_t k, FA a, FB b, std::vector<double>& c,
               std::vector<double>& scale) {
  c.assign(m * n, 0.0);
  scale.assign(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) {
        const double v = static_cast<double>(a(i, p)) * static_cast<double>(b(p, j));
        c[i * n + j] += v;
        scale[i * n + j] += std::fabs(v);
      }
}
}  // namespace

TEST_CASE("dot: one contracted dim equals the triple loop at sizes around the block sizes") {
  // Every kernel: GEMV (m or n = 1), rows of A against B in place (few rows), dot products
  // (B stored n-major), and the packed blocked product (many rows, or a deep k).
  const std::size_t sizes[] = {1, 3, 17, 33, 129};
  std::vector<std::array<std::size_t, 3>> shapes = {{40, 1100, 70}, {60, 50, 40}, {7, 1100, 5}};
  for (std::size_t m : sizes)
    for (std::size_t k : sizes)
      for (std::size_t n : sizes) shapes.push_back({m, k, n});
  std::vector<double> want, scale;
  unsigned seed = 1;
  for (const auto& [m, k, n] : shapes) {
    const auto a = random<float, M, K>(seed++, dg::extent<M>(m), dg::extent<K>(k));
    const auto b = random<float, K, N>(seed++, dg::extent<K>(k), dg::extent<N>(n));
    dg::tensor<float, N, K> bt(dg::extent<N>(n), dg::extent<K>(k));  // B stored n-major
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < n; ++j) bt(j, p) = b(p, j);
    const dg::tensor<float, M, N> c = dg::dot<K>(a, b);
    const dg::tensor<float, M, N> ct = dg::dot<K>(a, bt);
    REQUIRE(c.extent<M>() == m);
    REQUIRE(c.extent<N>() == n);
    reference(
        m, n, k, [&](std::size_t i, std::size_t p) { return a(i, p); },
        [&](std::size_t p, std::size_t j) { return b(p, j); }, want, scale);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        bad += !close(c(i, j), want[i * n + j], scale[i * n + j]);
        bad += !close(ct(i, j), want[i * n + j], scale[i * n + j]);
      }
    CHECK_MESSAGE(bad == 0, "m=" << m << " k=" << k << " n=" << n);
  }
}

TEST_CASE("dot: two contracted dims in different orders in the operands") {
  const std::size_t m = 9, k = 6, k2 = 11, n = 35;
  const auto a = random<float, M, K, K2>(3, dg::extent<M>(m), dg::extent<K>(k), dg::extent<K2>(k2));
  const auto b = random<float, K2, N, K>(4, dg::extent<K2>(k2), dg::extent<N>(n), dg::extent<K>(k));
  const dg::tensor<float, M, N> c = dg::dot<K, K2>(a, b);
  const auto d = dg::eval(dg::dot<K2, K>(a, b));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(d)>, dg::tensor<float, M, N>>);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0, scale = 0;
      for (std::size_t p = 0; p < k; ++p)
        for (std::size_t q = 0; q < k2; ++q) {
          const double v = double(a(i, p, q)) * double(b(q, j, p));
          want += v;
          scale += std::fabs(v);
        }
      CHECK(close(c(i, j), want, scale));
      CHECK(close(d(i, j), want, scale));
    }
}

TEST_CASE("dot: GEMV shapes (matrix times vector, vector times matrix)") {
  for (std::size_t rows : {1u, 3u, 300u}) {
    const std::size_t cols = 1000;
    const auto w = random<float, M, K>(5, dg::extent<M>(rows), dg::extent<K>(cols));
    const auto x = random<float, K>(6, dg::extent<K>(cols));
    const auto v = random<float, M>(7, dg::extent<M>(rows));
    const dg::tensor<float, M> y = dg::dot<K>(w, x);   // W[m, k] . x[k] -> [m]
    const dg::tensor<float, M> y2 = dg::dot<K>(x, w);  // x[k] . W[m, k] -> [m]
    const dg::tensor<float, K> z = dg::dot<M>(v, w);   // v[m] . W[m, k] -> [k] (axpy form)
    for (std::size_t i = 0; i < rows; ++i) {
      double want = 0, scale = 0;
      for (std::size_t p = 0; p < cols; ++p) {
        want += double(w(i, p)) * x(p);
        scale += std::fabs(double(w(i, p)) * x(p));
      }
      CHECK(close(y(i), want, scale));
      CHECK(close(y2(i), want, scale));
    }
    for (std::size_t p = 0; p < cols; ++p) {
      double want = 0, scale = 0;
      for (std::size_t i = 0; i < rows; ++i) {
        want += double(v(i)) * w(i, p);
        scale += std::fabs(double(v(i)) * w(i, p));
      }
      CHECK(close(z(p), want, scale));
    }
  }
  // Static dims, and a dot product down to a scalar.
  const auto ws = random<double, H, I>(8);
  const auto xs = random<double, I>(9);
  const dg::tensor<double, H> ys = dg::dot<I>(ws, xs);
  const dg::tensor<double> s = dg::dot<I>(xs, xs);
  double ss = 0;
  for (std::size_t p = 0; p < 7; ++p) ss += xs(p) * xs(p);
  CHECK(s() == doctest::Approx(ss).epsilon(1e-12));
  for (std::size_t i = 0; i < 5; ++i) {
    double want = 0;
    for (std::size_t p = 0; p < 7; ++p) want += ws(i, p) * xs(p);
    CHECK(ys(i) == doctest::Approx(want).epsilon(1e-12));
  }
}

TEST_CASE("dot: a dim in both operands that is not contracted is a batch dim kept once") {
  const std::size_t bt = 3, m = 70, k = 65, n = 80;
  const auto a =
      random<float, Bt, M, K>(10, dg::extent<Bt>(bt), dg::extent<M>(m), dg::extent<K>(k));
  const auto b =
      random<float, K, Bt, N>(11, dg::extent<K>(k), dg::extent<Bt>(bt), dg::extent<N>(n));
  const auto c = dg::eval(dg::dot<K>(a, b));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(c)>, dg::tensor<float, Bt, M, N>>);
  // Batched GEMV: x[bt, k] . W[bt, k, n] -> [bt, n] (M is empty).
  const auto x = random<float, Bt, K>(12, dg::extent<Bt>(bt), dg::extent<K>(k));
  const dg::tensor<float, Bt, N> y = dg::dot<K>(x, b);
  std::vector<double> want, scale;
  for (std::size_t q = 0; q < bt; ++q) {
    reference(
        m, n, k, [&](std::size_t i, std::size_t p) { return a(q, i, p); },
        [&](std::size_t p, std::size_t j) { return b(p, q, j); }, want, scale);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        bad += !close(c(q, i, j), want[i * n + j], scale[i * n + j]);
    CHECK(bad == 0);
    reference(
        1, n, k, [&](std::size_t, std::size_t p) { return x(q, p); },
        [&](std::size_t p, std::size_t j) { return b(p, q, j); }, want, scale);
    for (std::size_t j = 0; j < n; ++j) CHECK(close(y(q, j), want[j], scale[j]));
  }
}

TEST_CASE("dot: permuted and sliced views as operands and as the output") {
  const std::size_t m = 65, k = 70, n = 80;
  const auto at = random<float, K, M>(13, dg::extent<K>(k), dg::extent<M>(m));  // A stored k-major
  const auto bt = random<float, N, K>(14, dg::extent<N>(n), dg::extent<K>(k));  // B stored n-major
  const auto a = dg::permute<M, K>(at);
  const auto b = dg::permute<K, N>(bt);
  dg::tensor<float, N, M> out_t(dg::extent<N>(n), dg::extent<M>(m));
  auto out = dg::permute<M, N>(out_t);  // a transposed output view
  out = dg::dot<K>(a, b);
  const dg::tensor<float, M, N> c = dg::dot<K>(a, b);
  std::vector<double> want, scale;
  reference(
      m, n, k, [&](std::size_t i, std::size_t p) { return at(p, i); },
      [&](std::size_t p, std::size_t j) { return bt(j, p); }, want, scale);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      bad += !close(out_t(j, i), want[i * n + j], scale[i * n + j]);
      bad += !close(c(i, j), want[i * n + j], scale[i * n + j]);
    }
  CHECK(bad == 0);
  // Operands whose contracted dims cannot be grouped into one stride: a[m, k, k2] seen through
  // a permutation that interleaves k2 between m and k.
  const std::size_t k2 = 4;
  const auto raw =
      random<float, K, M, K2>(15, dg::extent<K>(k), dg::extent<M>(m), dg::extent<K2>(k2));
  const auto b2 =
      random<float, K2, K, N>(16, dg::extent<K2>(k2), dg::extent<K>(k), dg::extent<N>(n));
  const dg::tensor<float, M, N> c2 = dg::dot<K2, K>(dg::permute<M, K2, K>(raw), b2);
  reference(
      m, n, k * k2, [&](std::size_t i, std::size_t p) { return raw(p % k, i, p / k); },
      [&](std::size_t p, std::size_t j) { return b2(p / k, p % k, j); }, want, scale);
  bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) bad += !close(c2(i, j), want[i * n + j], scale[i * n + j]);
  CHECK(bad == 0);
  // A slice by tag of a batched tensor.
  const auto bat =
      random<float, Bt, M, K>(17, dg::extent<Bt>(2), dg::extent<M>(m), dg::extent<K>(k));
  const dg::tensor<float, M, N> c3 = dg::dot<K>(bat[dg::at<Bt>(1)], b);
  reference(
      m, n, k, [&](std::size_t i, std::size_t p) { return bat(1, i, p); },
      [&](std::size_t p, std::size_t j) { return bt(j, p); }, want, scale);
  bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) bad += !close(c3(i, j), want[i * n + j], scale[i * n + j]);
  CHECK(bad == 0);
}

TEST_CASE("dot: element-wise operands and a dot inside a larger expression") {
  const std::size_t m = 17, k = 33, n = 3;
  const auto a = random<float, M, K>(18, dg::extent<M>(m), dg::extent<K>(k));
  const auto b = random<float, K, N>(19, dg::extent<K>(k), dg::extent<N>(n));
  const auto bias = random<float, N>(20, dg::extent<N>(n));
  const dg::tensor<float, M, N> c = dg::dot<K>(a * 2.0f, b);
  const dg::tensor<float, M, N> d = dg::dot<K>(a, b) + bias;
  const dg::tensor<float, M, N> e = dg::tanh(dg::dot<K>(a, dg::exp(b)) - 1.0f);
  // A temporary operand is held by value; a node kept in a variable runs when assigned.
  const auto node = dg::dot<K>(dg::tensor<float, M, K>(a), b);
  const dg::tensor<float, N, M> f = node;
  dg::tensor<float, M, N> g(dg::extent<M>(m), dg::extent<N>(n));
  g += dg::dot<K>(a, b);
  g -= node;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double ab = 0, aeb = 0, scale = 0, escale = 0;
      for (std::size_t p = 0; p < k; ++p) {
        ab += double(a(i, p)) * b(p, j);
        scale += std::fabs(double(a(i, p)) * b(p, j));
        aeb += double(a(i, p)) * std::exp(double(b(p, j)));
        escale += std::fabs(double(a(i, p)) * std::exp(double(b(p, j))));
      }
      CHECK(close(c(i, j), 2 * ab, 2 * scale));
      CHECK(close(d(i, j), ab + bias(j), scale + std::fabs(bias(j))));
      CHECK(close(e(i, j), std::tanh(aeb - 1.0), escale));
      CHECK(close(f(j, i), ab, scale));
      CHECK(g(i, j) == 0.0f);  // the same kernel on the same inputs: bit for bit
    }
}

TEST_CASE("dot: a new tensor takes the product first, then the op around it, in place") {
  // (eval/assign.hpp, construct_through_product: the product is an operand of the top map
  // node over exactly the new tensor's dims.) Operand orders, the tensor's dims in another
  // order than the product's, two products, a unary op.
  const std::size_t m = 9, k = 40, n = 21;
  const auto a = random<float, M, K>(31, dg::extent<M>(m), dg::extent<K>(k));
  const auto b = random<float, K, N>(32, dg::extent<K>(k), dg::extent<N>(n));
  const auto b2 = random<float, K, N>(33, dg::extent<K>(k), dg::extent<N>(n));
  const auto bias = random<float, N>(34, dg::extent<N>(n));
  const dg::tensor<float, M, N> first = bias + dg::dot<K>(a, b);
  const dg::tensor<float, N, M> turned = dg::dot<K>(a, b) * 2.0f - bias;
  const dg::tensor<float, M, N> two = dg::dot<K>(a, b) - dg::dot<K>(a, b2);
  const dg::tensor<float, M, N> unary = dg::sigmoid(dg::dot<K>(a, b2));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double ab = 0, ab2 = 0, scale = 0, scale2 = 0;
      for (std::size_t p = 0; p < k; ++p) {
        ab += double(a(i, p)) * b(p, j);
        scale += std::fabs(double(a(i, p)) * b(p, j));
        ab2 += double(a(i, p)) * b2(p, j);
        scale2 += std::fabs(double(a(i, p)) * b2(p, j));
      }
      CHECK(close(first(i, j), ab + bias(j), scale + std::fabs(bias(j))));
      CHECK(close(turned(j, i), 2 * ab - bias(j), 2 * scale + std::fabs(bias(j))));
      CHECK(close(two(i, j), ab - ab2, scale + scale2));
      CHECK(close(unary(i, j), 1 / (1 + std::exp(-ab2)), scale2));
    }
}

TEST_CASE("dot: integer operands sum exactly in int64, mixed operands promote") {
  dg::tensor<std::int32_t, H, I> a;
  dg::tensor<std::int8_t, I> x;
  for (std::size_t i = 0; i < a.size(); ++i)
    a.data()[i] = static_cast<std::int32_t>(i * 7919 % 1000) - 500;
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<std::int8_t>(3 * i) - 10;
  const auto y = dg::eval(dg::dot<I>(a, x));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(y)>, dg::tensor<std::int64_t, H>>);
  for (std::size_t i = 0; i < 5; ++i) {
    std::int64_t want = 0;
    for (std::size_t p = 0; p < 7; ++p) want += std::int64_t{a(i, p)} * x(p);
    CHECK(y(i) == want);
  }
  const auto f = random<float, I>(21);
  const dg::tensor<double, H> z = dg::dot<I>(a, f);  // float result widened on assignment
  for (std::size_t i = 0; i < 5; ++i) {
    double want = 0, scale = 0;
    for (std::size_t p = 0; p < 7; ++p) {
      want += double(a(i, p)) * f(p);
      scale += std::fabs(double(a(i, p)) * f(p));
    }
    CHECK(close(z(i), want, scale));
  }
}

TEST_CASE("dot: empty contracted dims give zeros, empty kept dims give empty results") {
  const auto a = random<float, M, K>(22, dg::extent<M>(4), dg::extent<K>(0));
  const auto b = random<float, K, N>(23, dg::extent<K>(0), dg::extent<N>(5));
  const dg::tensor<float, M, N> c = dg::dot<K>(a, b);
  REQUIRE(c.size() == 20);
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c.data()[i] == 0.0f);
  const auto e = random<float, M, K>(24, dg::extent<M>(0), dg::extent<K>(3));
  const auto f = random<float, K, N>(25, dg::extent<K>(3), dg::extent<N>(5));
  const dg::tensor<float, M, N> g = dg::dot<K>(e, f);
  CHECK(g.size() == 0);
}

TEST_CASE("dot: mismatched extents of a shared dim throw before any write") {
  const auto a = random<float, M, K>(26, dg::extent<M>(2), dg::extent<K>(3));
  const auto b = random<float, K, N>(27, dg::extent<K>(4), dg::extent<N>(2));
  dg::tensor<float, M, N> out(dg::extent<M>(2), dg::extent<N>(2));
  fill(out, 28);
  const auto before = out;
  std::string what;
  try {
    out = dg::dot<K>(a, b);
  } catch (const dg::shape_error& err) {
    what = err.what();
  }
  CHECK(what ==
        "dimgraph: dot: dim 'k' has extent 3 in the left operand and 4 in the right operand");
  CHECK(bool(out == before));
  // A batch dim is checked the same way; a view output of the wrong extents too.
  const auto x = random<float, Bt, K>(29, dg::extent<Bt>(2), dg::extent<K>(3));
  const auto w = random<float, Bt, K, N>(30, dg::extent<Bt>(3), dg::extent<K>(3), dg::extent<N>(2));
  CHECK_THROWS_AS((void)dg::dot<K>(x, w), dg::shape_error);
  const auto b3 = random<float, K, N>(31, dg::extent<K>(3), dg::extent<N>(3));
  CHECK_THROWS_AS(out.view() = dg::dot<K>(a, b3), dg::shape_error);
  CHECK(bool(out == before));
}

TEST_CASE("dot: an output view that shares memory with an operand is an overlap error") {
  dg::tensor<float, M, N> sq(dg::extent<M>(4), dg::extent<N>(4));
  fill(sq, 32);
  const auto before = sq;
  const auto w = random<float, N, K>(33, dg::extent<N>(4), dg::extent<K>(4));
  auto as_mk = dg::view<float, M, K>(sq.data(), dg::extent<M>(4), dg::extent<K>(4));
  CHECK_THROWS_AS(as_mk = dg::dot<N>(sq, w), dg::overlap_error);
  CHECK(bool(sq == before));
}
