// Long element-wise kernels (16 instructions or more), which with AVX compute several
// registers of lanes at a time (eval/elementwise.hpp, kernel_registers_v): every piece of a row
// (the aligned head before streaming stores, whole vectors, the padded rest) at every row
// length around the vector's, contiguous and strided outputs and operands, and an output large
// enough for streaming stores, each against a hand loop in double. Also built at -march=native
// (the simd.native test), where the wide path is taken.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace dg = dimgraph;

namespace {

struct R : dg::dim<"r"> {};
struct N : dg::dim<"n"> {};

// A chain of 20 ops over three operands (one expression: its nodes hold the temporaries
// below them); every intermediate stays below 8 in magnitude.
template <class A, class B, class C>
auto long_chain(const A& a, const B& b, const C& c) {
  return (
      ((((((((a + b) * 0.5f - c) * b + a) * 0.25f - c * 0.5f) - a) * (c + 1.0f) * 0.5f + b) * 0.5f +
        a * b) *
           0.5f -
       c) *
      0.75f);
}
double long_chain_ref(double a, double b, double c) {
  return (((((((((a + b) * 0.5 - c) * b + a) * 0.25 - c * 0.5) - a) * (c + 1.0) * 0.5 + b) * 0.5 +
            a * b) *
               0.5 -
           c) *
          0.75);
}

float value(std::size_t i, std::uint32_t seed) {
  std::uint32_t s = static_cast<std::uint32_t>(i) * 2654435761u + seed;
  s ^= s >> 13;
  s *= 0x5bd1e995u;
  s ^= s >> 15;
  return static_cast<float>(s % 20001u) / 10000.0f - 1.0f;  // in [-1, 1]
}

using mat = dg::tensor<float, R, N>;
mat make(std::size_t rows, std::size_t n, std::uint32_t seed) {
  mat m(dg::extent<R>(rows), dg::extent<N>(n));
  for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = value(i, seed);
  return m;
}

// Each op rounds once in float: the result is within 24 roundings of values below 8.
bool close(double got, double want) {
  return std::fabs(got - want) <= 24 * 8 * 0x1p-24;
}

}  // namespace

TEST_CASE("wide kernels: long chains at every row length, contiguous") {
  for (std::size_t n = 1; n <= 300; n += (n < 140 ? 1 : 7)) {
    const mat a = make(3, n, 1), b = make(3, n, 2), c = make(3, n, 3);
    const mat out = long_chain(a, b, c);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
      bad += !close(out.data()[i], long_chain_ref(a.data()[i], b.data()[i], c.data()[i]));
    INFO("row length " << n);
    CHECK(bad == 0);
  }
}

TEST_CASE("wide kernels: into a transposed view, from a transposed operand and a broadcast one") {
  for (std::size_t n : {1u, 7u, 16u, 31u, 64u, 65u, 130u}) {
    const mat a = make(5, n, 4), c = make(5, n, 6), b_made = make(5, n, 5);
    const dg::tensor<float, N, R> b_stored = dg::permute<N, R>(b_made);
    const auto b = dg::permute<R, N>(b_stored);  // [R, N], N steps by 5
    const mat row_made = make(1, n, 7);
    const dg::tensor<float, N> row = row_made[dg::at<R>(0)];
    dg::tensor<float, N, R> out_stored(dg::extent<N>(n), dg::extent<R>(5));
    auto out = dg::permute<R, N>(out_stored);  // written with a stride of 5 along N
    out = long_chain(a, b, c) + row;
    std::size_t bad = 0;
    for (std::size_t r = 0; r < 5; ++r)
      for (std::size_t j = 0; j < n; ++j) {
        const double want = long_chain_ref(a(r, j), b_stored(j, r), c(r, j)) + double(row(j));
        bad += !close(out_stored(j, r), want);
      }
    INFO("row length " << n);
    CHECK(bad == 0);
  }
}

TEST_CASE("wide kernels: an output large enough for streaming stores, misaligned") {
  // 2^22 + 3 elements (over DIMGRAPH_CONFIG_STREAMING_BYTES' 16 MiB as floats), written from
  // element 1 of a buffer: the head before the first aligned vector, then streamed vectors.
  const std::size_t n = (std::size_t{1} << 22) + 3;
  const mat a = make(1, n, 9), b = make(1, n, 10), c = make(1, n, 11);
  mat buffer = make(1, n + 1, 12);
  auto out = dg::view<float, R, N>(buffer.data() + 1, dg::extent<R>(1), dg::extent<N>(n));
  out = long_chain(a, b, c);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    bad += !close(buffer.data()[i + 1], long_chain_ref(a.data()[i], b.data()[i], c.data()[i]));
  CHECK(bad == 0);
  CHECK(buffer.data()[0] == value(0, 12));
}

TEST_CASE("wide kernels: the chain is long enough for several registers where there are many") {
  using chain = decltype(long_chain(std::declval<const mat&>(), std::declval<const mat&>(),
                                    std::declval<const mat&>()));
  using program = typename dg::detail::evaluator_of<chain>::program;
  static_assert(dg::detail::program_kernel<program>::instructions >= 16);
  constexpr std::size_t bytes = dg::detail::simd::target_bytes;
  constexpr std::size_t registers = dg::detail::kernel_registers_v<program, float>;
  // More than one register where registers are 32 bytes or more, one with SSE.
  static_assert(bytes >= 32 ? registers > 1 : registers == 1);
  // A math function in the chain: one register (more would spill its many live values).
  using with_tanh = decltype(dg::tanh(long_chain(
      std::declval<const mat&>(), std::declval<const mat&>(), std::declval<const mat&>())));
  static_assert(
      dg::detail::kernel_registers_v<typename dg::detail::evaluator_of<with_tanh>::program,
                                     float> == 1);
  // Floats beside doubles: one register unless AVX-512 (see the test below).
  using mixed = decltype(long_chain(std::declval<const dg::tensor<double, R, N>&>(),
                                    std::declval<const mat&>(), std::declval<const mat&>()));
  constexpr std::size_t mixed_registers =
      dg::detail::kernel_registers_v<typename dg::detail::evaluator_of<mixed>::program, double>;
  static_assert(bytes >= 64 ? mixed_registers == registers : mixed_registers == 1);
}

TEST_CASE("wide kernels: floats beside doubles in a long chain") {
  // (Without AVX-512 such a kernel keeps one register: its float lanes would make 64-byte
  // vectors.) x double, a and b float: every op mixes the two.
  for (std::size_t n : {1u, 5u, 33u, 100u}) {
    const mat a = make(2, n, 13), b = make(2, n, 14);
    dg::tensor<double, R, N> x(dg::extent<R>(2), dg::extent<N>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = double(value(i, 15));
    const dg::tensor<double, R, N> out = long_chain(x, a, b) * dg::cast<double>(a) + 0.5;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double want = long_chain_ref(x.data()[i], a.data()[i], b.data()[i]) * a.data()[i] + 0.5;
      bad += !close(out.data()[i], want);
    }
    INFO("row length " << n);
    CHECK(bad == 0);
  }
}

namespace {

// W7's chain: 100 ops over five operands, each op's operand a leaf of its own (71 leaves),
// assigned to out. (Assigned in the innermost call: an expression holds the subexpressions
// written as lvalues by reference, so the chain lives only while every call is running.)
template <std::size_t I, class E, class T>
void w7_chain(T& out, const E& e, const T& a, const T& b, const T& c, const T& d, const T& f) {
  if constexpr (I == 100) {
    // Several registers where registers are 32 bytes or more: the padded piece fits its budget.
    using program = typename dg::detail::evaluator_of<E>::program;
    static_assert(dg::detail::program_kernel<program>::leaves > 64);
    constexpr std::size_t registers = dg::detail::kernel_registers_v<program, float>;
    static_assert(dg::detail::simd::target_bytes >= 32 ? registers > 1 : registers == 1);
    out = e;
  } else {
    const auto step = [&] {
      if constexpr (I % 10 == 0) return e + a;
      else if constexpr (I % 10 == 1) return e * b;
      else if constexpr (I % 10 == 2) return e - c;
      else if constexpr (I % 10 == 3) return e * 0.5f;
      else if constexpr (I % 10 == 4) return e + d;
      else if constexpr (I % 10 == 5) return e * f;
      else if constexpr (I % 10 == 6) return e - b;
      else if constexpr (I % 10 == 7) return e * 0.5f;
      else if constexpr (I % 10 == 8) return e + f;
      else return e * 0.75f;
    };
    w7_chain<I + 1>(out, step(), a, b, c, d, f);
  }
}
double w7_chain_ref(double e, double a, double b, double c, double d, double f) {
  for (std::size_t i = 0; i < 100; ++i) {
    switch (i % 10) {
      case 0:
        e += a;
        break;
      case 1:
        e *= b;
        break;
      case 2:
        e -= c;
        break;
      case 3:
        e *= 0.5;
        break;
      case 4:
        e += d;
        break;
      case 5:
        e *= f;
        break;
      case 6:
        e -= b;
        break;
      case 7:
        e *= 0.5;
        break;
      case 8:
        e += f;
        break;
      default:
        e *= 0.75;
        break;
    }
  }
  return e;
}

}  // namespace

TEST_CASE("wide kernels: a chain of more than 64 leaves at every row length") {
  for (std::size_t n = 1; n <= 140; n += (n < 70 ? 1 : 3)) {
    const mat a = make(2, n, 21), b = make(2, n, 22), c = make(2, n, 23), d = make(2, n, 24),
              f = make(2, n, 25);
    mat out(dg::extent<R>(2), dg::extent<N>(n));
    w7_chain<0>(out, a, a, b, c, d, f);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double want = w7_chain_ref(a.data()[i], a.data()[i], b.data()[i], c.data()[i],
                                       d.data()[i], f.data()[i]);
      // (Products by b and f, in [-1, 1], keep the values small: 100 roundings of values
      // below 8.)
      bad += !(std::fabs(out.data()[i] - want) <= 100 * 8 * 0x1p-24);
    }
    INFO("row length " << n);
    CHECK(bad == 0);
  }
}
