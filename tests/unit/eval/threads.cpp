// Threads: set_num_threads / num_threads, and kernels whose results do not depend on them.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace dg = dimgraph;

namespace {
struct B : dg::dim<"b"> {};
struct F : dg::dim<"f"> {};
struct N : dg::dim<"n"> {};
using bf = dg::tensor<float, B, F>;

bf make(std::size_t b, std::size_t f) {
  bf x(dg::extent<B>(b), dg::extent<F>(f));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float(int(i % 13) - 6) * 0.25f;
  return x;
}

// Restores the thread setting when a test ends.
struct thread_setting {
  std::size_t saved = dg::num_threads();
  ~thread_setting() { dg::set_num_threads(saved); }
};
}  // namespace

TEST_CASE("threads: num_threads reports the setting, 1 without OpenMP") {
  const thread_setting keep;
  dg::set_num_threads(3);
#if defined(_OPENMP)
  CHECK(dg::num_threads() == 3);
#else
  CHECK(dg::num_threads() == 1);
#endif
  dg::set_num_threads(1);
  CHECK(dg::num_threads() == 1);
}

TEST_CASE("threads: element-wise results are the same for 1, 2 and 3 threads") {
  const thread_setting keep;
  // Many rows, one long row, and a tiny tensor (which never forks).
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{257, 67}, {1, 100003}, {2, 4}}) {
    const bf x = make(rows, cols);
    dg::tensor<float, F> bias(dg::extent<F>(cols));
    for (std::size_t f = 0; f < cols; ++f) bias.data()[f] = float(f % 5);
    bf want(dg::extent<B>(rows), dg::extent<F>(cols));
    for (std::size_t b = 0; b < rows; ++b)
      for (std::size_t f = 0; f < cols; ++f)
        want.data()[b * cols + f] = x.data()[b * cols + f] * 2.0f + bias.data()[f];
    for (std::size_t t : {1u, 2u, 3u}) {
      dg::set_num_threads(t);
      const bf got = x * 2.0f + bias;
      CHECK(got == want);
    }
  }
}

TEST_CASE("threads: reductions and softmax are the same for 1 and 2 threads") {
  const thread_setting keep;
  const bf x = make(301, 129);
  dg::set_num_threads(1);
  const dg::tensor<float, B> s1 = dg::sum<F>(x);
  const dg::tensor<float, F> c1 = dg::sum<B>(x);
  const bf p1 = dg::softmax<F>(x);
  dg::set_num_threads(2);
  const dg::tensor<float, B> s2 = dg::sum<F>(x);
  const dg::tensor<float, F> c2 = dg::sum<B>(x);
  const bf p2 = dg::softmax<F>(x);
  CHECK(s1 == s2);
  CHECK(c1 == c2);
  CHECK(p1 == p2);
  // and they are right: a double-precision hand loop
  for (std::size_t b = 0; b < 301; b += 50) {
    double want = 0;
    for (std::size_t f = 0; f < 129; ++f) want += x.data()[b * 129 + f];
    CHECK(s2.data()[b] == doctest::Approx(want).epsilon(1e-6));
  }
}

// A reduction over a middle dim: groups of rows (one per output row) shared among threads, a
// single group split into column pieces, and a group per output element (across), for 1, 2
// and 3 threads, against a hand loop.
TEST_CASE("threads: reductions over middle, outer and inner dims for 1, 2 and 3 threads") {
  const thread_setting keep;
  constexpr std::size_t nb = 7, nn = 45, nf = 33;
  dg::tensor<float, B, N, F> x(dg::extent<B>(nb), dg::extent<N>(nn), dg::extent<F>(nf));
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = float(int(i * 7919 % 23) - 11) * 0.5f;
  const auto at = [&](std::size_t b, std::size_t n, std::size_t f) {
    return x.data()[(b * nn + n) * nf + f];
  };
  for (std::size_t t : {1u, 2u, 3u}) {
    dg::set_num_threads(t);
    const dg::tensor<float, B, F> s = dg::sum<N>(x);
    const dg::tensor<float, B, F> mx = dg::max<N>(x);
    const dg::tensor<float, F> c = dg::sum<B, N>(x);
    const dg::tensor<float, B> r = dg::sum<N, F>(x);
    for (std::size_t b = 0; b < nb; ++b) {
      double rw = 0;
      for (std::size_t f = 0; f < nf; ++f) {
        double sw = 0;
        float mw = -INFINITY;
        for (std::size_t n = 0; n < nn; ++n) {
          sw += at(b, n, f);
          mw = std::max(mw, at(b, n, f));
        }
        rw += sw;
        CHECK(s.data()[b * nf + f] == float(sw));  // halves: every partial sum is exact
        CHECK(mx.data()[b * nf + f] == mw);
      }
      CHECK(r.data()[b] == float(rw));
    }
    for (std::size_t f = 0; f < nf; ++f) {
      double cw = 0;
      for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t n = 0; n < nn; ++n) cw += at(b, n, f);
      CHECK(c.data()[f] == float(cw));
    }
  }
}

// Products on threads: C's rows (or, with one row, its columns) split among them, or whole
// batch entries per thread; every kernel (GEMV both ways, dots, rows, blocked, offset tables)
// gives the same result for 1, 2 and 3 threads, and the hand loop's (small integers: exact).
TEST_CASE("threads: products are the same for 1, 2 and 3 threads, on every kernel") {
  const thread_setting keep;
  struct M : dg::dim<"m"> {};
  struct K : dg::dim<"k"> {};
  struct J : dg::dim<"j"> {};
  const auto fill = [](auto& t, std::size_t seed) {
    for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = float(int((i * 31 + seed) % 7) - 3);
    return t;
  };
  for (auto [m, k, n] : {std::array<std::size_t, 3>{67, 300, 1},
                         {1, 300, 259},
                         {40, 129, 70},
                         {300, 64, 48},
                         {257, 190, 300}}) {
    dg::tensor<float, M, K> a(dg::extent<M>(m), dg::extent<K>(k));
    dg::tensor<float, K, J> b(dg::extent<K>(k), dg::extent<J>(n));
    dg::tensor<float, J, K> bt(dg::extent<J>(n), dg::extent<K>(k));  // n-major: the dots kernel
    fill(a, 1);
    fill(b, 2);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t p = 0; p < k; ++p) bt.data()[j * k + p] = b.data()[p * n + j];
    dg::tensor<float, M, J> want(dg::extent<M>(m), dg::extent<J>(n));
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        float s = 0;
        for (std::size_t p = 0; p < k; ++p) s += a.data()[i * k + p] * b.data()[p * n + j];
        want.data()[i * n + j] = s;
      }
    for (std::size_t t : {1u, 2u, 3u}) {
      dg::set_num_threads(t);
      const dg::tensor<float, M, J> c = dg::dot<K>(a, b);
      const dg::tensor<float, M, J> ct = dg::dot<K>(a, bt);
      // C's rows through an offset table: the output stored [J, M], permuted to [M, J]
      dg::tensor<float, J, M> cp(dg::extent<J>(n), dg::extent<M>(m));
      dg::permute<M, J>(cp.view()) = dg::dot<K>(a, b);
      CHECK(c == want);
      CHECK(ct == want);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) wrong += cp.data()[j * m + i] != want.data()[i * n + j];
      CHECK(wrong == 0);
    }
  }
  // A batch of products, whole entries per thread.
  struct Bt : dg::dim<"bt"> {};
  dg::tensor<float, Bt, M, K> a3(dg::extent<Bt>(5), dg::extent<M>(33), dg::extent<K>(70));
  dg::tensor<float, Bt, K, J> b3(dg::extent<Bt>(5), dg::extent<K>(70), dg::extent<J>(41));
  fill(a3, 3);
  fill(b3, 4);
  for (std::size_t t : {1u, 2u, 3u}) {
    dg::set_num_threads(t);
    const dg::tensor<float, Bt, M, J> c3 = dg::dot<K>(a3, b3);
    std::size_t wrong = 0;
    for (std::size_t e = 0; e < 5; ++e)
      for (std::size_t i = 0; i < 33; ++i)
        for (std::size_t j = 0; j < 41; ++j) {
          float s = 0;
          for (std::size_t p = 0; p < 70; ++p)
            s += a3.data()[(e * 33 + i) * 70 + p] * b3.data()[(e * 70 + p) * 41 + j];
          wrong += c3.data()[(e * 33 + i) * 41 + j] != s;
        }
    CHECK(wrong == 0);
  }
}
