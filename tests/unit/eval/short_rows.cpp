// Rows of every run-time length from 1 to 80: rows shorter than a vector, and the last piece
// of a longer row, are read in pieces of fewer lanes (half a vector, a quarter, ..., one), so
// every length takes a different set of pieces. Reductions over the inner dim (sum, mean,
// prod, max and min of float, double, int8, uint8 and bool) and element-wise kernels with a
// broadcast operand (float, double, int8 and bool results, into tensors and into a transposed
// view) against hand-written loops, over contiguous rows and rows of a transposed view.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>

namespace dg = dimgraph;

namespace {
struct Row : dg::dim<"row"> {};
struct Len : dg::dim<"len"> {};

constexpr std::size_t rows = 3;

template <class T>
dg::tensor<T, Row, Len> make(std::size_t n, unsigned seed) {
  dg::tensor<T, Row, Len> x(dg::extent<Row>(rows), dg::extent<Len>(n));
  std::mt19937 gen(seed);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_same_v<T, bool>) x.data()[i] = gen() % 3 == 0;
    else if constexpr (std::is_floating_point_v<T>)
      x.data()[i] = static_cast<T>(static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
    else x.data()[i] = static_cast<T>(static_cast<int>(gen() % 9) - (std::is_signed_v<T> ? 4 : 0));
  }
  return x;
}

// Closeness of a float sum of n terms of magnitude at most 1 (in double, to 1e-6 relative to
// n, the bound of a float sum of n terms).
bool close(double got, double want, std::size_t n) {
  return std::abs(got - want) <= 1e-6 * static_cast<double>(n + 1);
}

// x [Row, Len] and the same elements as a [Len, Row] tensor's transposed view.
template <class T, class Check>
void both_layouts(std::size_t n, unsigned seed, const Check& check) {
  const auto x = make<T>(n, seed);
  dg::tensor<T, Len, Row> columns(dg::extent<Len>(n), dg::extent<Row>(rows));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t i = 0; i < n; ++i) columns(i, r) = x(r, i);
  check(x, x);
  check(x, dg::permute<Row, Len>(columns));
}
}  // namespace

TEST_CASE("short rows: float sum, mean, prod, max and min of every length from 1 to 80") {
  for (std::size_t n = 1; n <= 80; ++n) {
    both_layouts<float>(n, 1 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
      const dg::tensor<float, Row> sum = dg::sum<Len>(in), mean = dg::mean<Len>(in),
                                   prod = dg::prod<Len>(in * 0.5f + 1.0f), hi = dg::max<Len>(in),
                                   lo = dg::min<Len>(in);
      for (std::size_t r = 0; r < rows; ++r) {
        double s = 0, p = 1;
        float h = -std::numeric_limits<float>::infinity(), l = -h;
        for (std::size_t i = 0; i < n; ++i) {
          s += x(r, i);
          p *= static_cast<double>(x(r, i) * 0.5f + 1.0f);
          h = std::max(h, x(r, i));
          l = std::min(l, x(r, i));
        }
        INFO("n = " << n << ", row " << r);
        CHECK(close(sum(r), s, n));
        CHECK(close(mean(r), s / static_cast<double>(n), 1));
        CHECK(std::abs(prod(r) - p) <= 1e-5 * std::abs(p) + 1e-30);
        CHECK(hi(r) == h);
        CHECK(lo(r) == l);
      }
    });
  }
}

TEST_CASE("short rows: a NaN at any position of a row of any length makes its max and min NaN") {
  for (std::size_t n = 1; n <= 40; ++n)
    for (std::size_t at = 0; at < n; ++at) {
      auto x = make<float>(n, 7);
      x(1, at) = std::numeric_limits<float>::quiet_NaN();
      const dg::tensor<float, Row> hi = dg::max<Len>(x), lo = dg::min<Len>(x),
                                   sum = dg::sum<Len>(x);
      INFO("n = " << n << ", NaN at " << at);
      CHECK(std::isnan(hi(1)));
      CHECK(std::isnan(lo(1)));
      CHECK(std::isnan(sum(1)));
      CHECK(!std::isnan(hi(0)));
      CHECK(!std::isnan(lo(2)));
    }
}

TEST_CASE("short rows: double sum and max of every length from 1 to 80") {
  for (std::size_t n = 1; n <= 80; ++n) {
    both_layouts<double>(n, 100 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
      const dg::tensor<double, Row> sum = dg::sum<Len>(in), hi = dg::max<Len>(in);
      for (std::size_t r = 0; r < rows; ++r) {
        double s = 0, h = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < n; ++i) {
          s += x(r, i);
          h = std::max(h, x(r, i));
        }
        INFO("n = " << n << ", row " << r);
        CHECK(std::abs(sum(r) - s) <= 1e-12 * static_cast<double>(n));
        CHECK(hi(r) == h);
      }
    });
  }
}

TEST_CASE("short rows: int8 and uint8 sums and products in int64, max, min, any and all") {
  for (std::size_t n = 1; n <= 80; ++n) {
    both_layouts<std::int8_t>(
        n, 200 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
          const dg::tensor<std::int64_t, Row> sum = dg::sum<Len>(in),
                                              prod = dg::prod<Len>(dg::less(in, std::int8_t{3}));
          const dg::tensor<std::int8_t, Row> hi = dg::max<Len>(in), lo = dg::min<Len>(in);
          for (std::size_t r = 0; r < rows; ++r) {
            std::int64_t s = 0, p = 1;
            int h = -128, l = 127;
            for (std::size_t i = 0; i < n; ++i) {
              s += x(r, i);
              p *= x(r, i) < 3 ? 1 : 0;
              h = std::max<int>(h, x(r, i));
              l = std::min<int>(l, x(r, i));
            }
            INFO("n = " << n << ", row " << r);
            CHECK(sum(r) == s);
            CHECK(prod(r) == p);
            CHECK(hi(r) == h);
            CHECK(lo(r) == l);
          }
        });
    both_layouts<std::uint8_t>(
        n, 300 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
          // (Values up to 8, times 40: sums past 255, which an 8-bit sum would wrap.)
          const dg::tensor<std::int64_t, Row> sum = dg::sum<Len>(in * std::uint8_t{30});
          for (std::size_t r = 0; r < rows; ++r) {
            std::int64_t s = 0;
            for (std::size_t i = 0; i < n; ++i) s += static_cast<std::uint8_t>(x(r, i) * 30);
            INFO("n = " << n << ", row " << r);
            CHECK(sum(r) == s);
          }
        });
    both_layouts<bool>(n, 400 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
      const dg::tensor<bool, Row> any = dg::any<Len>(in), all = dg::all<Len>(in);
      const dg::tensor<std::int64_t, Row> count = dg::sum<Len>(in);
      for (std::size_t r = 0; r < rows; ++r) {
        bool a = false, e = true;
        std::int64_t c = 0;
        for (std::size_t i = 0; i < n; ++i) {
          a = a || x(r, i);
          e = e && x(r, i);
          c += x(r, i) ? 1 : 0;
        }
        INFO("n = " << n << ", row " << r);
        CHECK(any(r) == a);
        CHECK(all(r) == e);
        CHECK(count(r) == c);
      }
    });
  }
}

TEST_CASE("short rows: element-wise with a broadcast row, every length from 1 to 80") {
  for (std::size_t n = 1; n <= 80; ++n) {
    both_layouts<float>(n, 500 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
      dg::tensor<float, Len> bias(dg::extent<Len>(n));
      for (std::size_t i = 0; i < n; ++i) bias(i) = static_cast<float>(i) * 0.25f;
      const dg::tensor<float, Row, Len> affine = in * 2.0f + bias;
      const dg::tensor<double, Row, Len> wide = dg::cast<double>(in) * 0.5 - bias;
      const dg::tensor<std::int8_t, Row, Len> small = dg::cast<std::int8_t>(in * 100.0f);
      const dg::tensor<bool, Row, Len> below = dg::less(in, bias);
      // Into a transposed view: the output steps by rows along the inner dim.
      dg::tensor<float, Len, Row> columns(dg::extent<Len>(n), dg::extent<Row>(rows));
      dg::permute<Row, Len>(columns) = in + bias;
      std::size_t bad = 0;
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < n; ++i) {
          const float v = x(r, i), b = bias(i);
          bad += affine(r, i) != v * 2.0f + b;
          bad += wide(r, i) != static_cast<double>(v) * 0.5 - static_cast<double>(b);
          bad += small(r, i) != static_cast<std::int8_t>(v * 100.0f);
          bad += below(r, i) != (v < b);
          bad += columns(i, r) != v + b;
        }
      INFO("n = " << n);
      CHECK(bad == 0);
    });
  }
}

TEST_CASE("short rows: sums and maxima down an outer dim into rows of every width 1 to 80") {
  // x [Time, Width]: each block of rows is reduced into the Width-wide result a vector at a
  // time, the last piece in parts of fewer lanes; 37 rows: two whole blocks and a partial one.
  struct Time : dg::dim<"time"> {};
  constexpr std::size_t steps = 37;
  for (std::size_t w = 1; w <= 80; ++w) {
    dg::tensor<float, Time, Len> x(dg::extent<Time>(steps), dg::extent<Len>(w));
    dg::tensor<std::int8_t, Time, Len> small(dg::extent<Time>(steps), dg::extent<Len>(w));
    std::mt19937 gen(600 + static_cast<unsigned>(w));
    for (std::size_t i = 0; i < x.size(); ++i) {
      x.data()[i] = static_cast<float>(static_cast<double>(gen() % 2001) / 1000.0 - 1.0);
      small.data()[i] = static_cast<std::int8_t>(static_cast<int>(gen() % 255) - 127);
    }
    const dg::tensor<float, Len> sum = dg::sum<Time>(x), hi = dg::max<Time>(x);
    const dg::tensor<std::int64_t, Len> total = dg::sum<Time>(small);
    const dg::tensor<std::int8_t, Len> lo = dg::min<Time>(small);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < w; ++i) {
      double s = 0;
      float h = -std::numeric_limits<float>::infinity();
      std::int64_t t = 0;
      int l = 127;
      for (std::size_t r = 0; r < steps; ++r) {
        s += x(r, i);
        h = std::max(h, x(r, i));
        t += small(r, i);
        l = std::min<int>(l, small(r, i));
      }
      bad += std::size_t{!close(sum(i), s, steps)} + std::size_t{hi(i) != h} +
             std::size_t{total(i) != t} + std::size_t{lo(i) != l};
    }
    INFO("width " << w);
    CHECK(bad == 0);
  }
}

TEST_CASE("short rows: softmax and log_softmax of rows of every length from 1 to 80") {
  for (std::size_t n = 1; n <= 80; ++n) {
    both_layouts<float>(n, 700 + static_cast<unsigned>(n), [&](const auto& x, const auto& in) {
      const dg::tensor<float, Row, Len> soft = dg::softmax<Len>(in * 4.0f),
                                        log_soft = dg::log_softmax<Len>(in * 4.0f);
      std::size_t bad = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        double m = -1e30, sum = 0;
        for (std::size_t i = 0; i < n; ++i) m = std::max(m, 4.0 * x(r, i));
        for (std::size_t i = 0; i < n; ++i) sum += std::exp(4.0 * x(r, i) - m);
        for (std::size_t i = 0; i < n; ++i) {
          const double want = std::exp(4.0 * x(r, i) - m) / sum;
          bad += std::abs(soft(r, i) - want) > 1e-6 * want + 1e-7;
          bad += std::abs(log_soft(r, i) - std::log(want)) > 1e-5;
        }
      }
      INFO("n = " << n);
      CHECK(bad == 0);
    });
  }
}
