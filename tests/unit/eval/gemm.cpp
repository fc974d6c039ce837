// The matrix-product kernels behind dot, each called directly (whatever dot would pick for the
// shape on this machine) against a triple loop in double: sizes around their register tiles
// and cache blocks, float and double, B stored k-major and n-major, rows of A and C apart by
// more than their length; for the build's instruction set and for each wider one that
// eval/matmul.hpp compiles for run-time dispatch and this CPU supports.
#include <dimgraph.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace dg = dimgraph;

namespace {
using dg::detail::dim_group;
using dg::detail::gemm_blocking;
using dg::detail::matmul_operands;

enum class kernel { rows, blocked, dots, gemv_rows, gemv_columns };

const char* name(kernel k) {
  switch (k) {
    case kernel::rows:
      return "gemm_rows";
    case kernel::blocked:
      return "gemm_blocked";
    case kernel::dots:
      return "gemm_dots";
    case kernel::gemv_rows:
      return "gemv (n = 1)";
    case kernel::gemv_columns:
      return "gemv (m = 1)";
  }
  return "";
}

// The kernel as matmul runs it for instruction set Isa.
template <class Isa, class T>
void run(kernel which, const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  using mk = dg::detail::matmul_kernel;
  const mk to = which == kernel::rows        ? mk::rows
                : which == kernel::blocked   ? mk::blocked
                : which == kernel::dots      ? mk::dots
                : which == kernel::gemv_rows ? mk::gemv_rows
                                             : mk::gemv_columns;
  dg::detail::matmul_entry<Isa>::run(to, op, m, n, k);
}

dim_group group(std::size_t size, std::ptrdiff_t stride) {
  return dg::detail::make_dim_group<1>({size}, {stride});
}

// C = A B by the kernel, A [m, k] and C [m, n] row-major with padded rows, B [k, n] stored
// k-major or (n_major) n-major; the number of elements off by more than the rounding allows.
template <class T, class Isa = dg::detail::gemm_target_isa>
std::size_t mismatches(kernel which, bool n_major, std::size_t m, std::size_t n, std::size_t k,
                       unsigned seed) {
  const std::size_t lda = k + 3, ldc = n + 2;
  std::mt19937 gen(seed);
  const auto value = [&] { return static_cast<T>(static_cast<double>(gen() % 2001) / 1000 - 1); };
  std::vector<T> a(m * lda), b(k * n), c(m * ldc, std::numeric_limits<T>::quiet_NaN());
  for (T& x : a) x = value();
  for (T& x : b) x = value();
  const auto b_at = [&](std::size_t p, std::size_t j) {
    return n_major ? b[j * k + p] : b[p * n + j];
  };
  const dim_group am = group(m, static_cast<std::ptrdiff_t>(lda)), ak = group(k, 1);
  const dim_group bk = group(k, n_major ? 1 : static_cast<std::ptrdiff_t>(n));
  const dim_group bn = group(n, n_major ? static_cast<std::ptrdiff_t>(k) : 1);
  const dim_group cm = group(m, static_cast<std::ptrdiff_t>(ldc)), cn = group(n, 1);
  const matmul_operands<T> op{a.data(), &am, &ak, b.data(), &bk, &bn, c.data(), &cm, &cn};
  run<Isa>(which, op, m, n, k);
  const double rel = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0, scale = 0;
      for (std::size_t p = 0; p < k; ++p) {
        const double v = static_cast<double>(a[i * lda + p]) * static_cast<double>(b_at(p, j));
        want += v;
        scale += std::fabs(v);
      }
      const double got = static_cast<double>(c[i * ldc + j]);
      bad += !(std::fabs(got - want) <= rel * scale + 1e-30);
    }
  return bad;
}

// Every kernel that takes the layout, at m, n, k around the tile (mr x nr) and the depth
// block (kc) of T.
template <class T, class Isa = dg::detail::gemm_target_isa>
void check_around_blocks() {
  using blk = gemm_blocking<T, Isa>;
  const std::size_t mr = blk::mr, nr = blk::nr, kc = blk::kc;
  const std::array<std::size_t, 6> ms = {1, 2, mr - 1, mr, mr + 1, 2 * mr + 3};
  const std::array<std::size_t, 5> ns = {1, nr - 1, nr, nr + 1, 3 * nr + 5};
  const std::array<std::size_t, 4> ks = {1, 7, kc + 1, 2 * kc + 7};
  unsigned seed = 1;
  for (const bool n_major : {false, true})
    for (const kernel which : {kernel::rows, kernel::blocked, kernel::dots}) {
      if ((which == kernel::rows && n_major) || (which == kernel::dots && !n_major)) continue;
      for (std::size_t m : ms)
        for (std::size_t n : ns)
          for (std::size_t k : ks)
            CHECK_MESSAGE((mismatches<T, Isa>(which, n_major, m, n, k, seed++) == 0),
                          name(which) << (n_major ? " (B n-major)" : "") << " m=" << m << " n=" << n
                                      << " k=" << k);
    }
}

// The GEMV kernel (matmul's n = 1 and m = 1 cases) at lengths around its vectors and unroll.
template <class T, class Isa = dg::detail::gemm_target_isa>
void check_gemv() {
  const std::size_t l = gemm_blocking<T, Isa>::lanes;
  unsigned seed = 100;
  for (std::size_t rows : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{9}, l + 1})
    for (std::size_t depth : {std::size_t{1}, l - 1, 2 * l, 2 * l + 3, 8 * l + 1}) {
      CHECK_MESSAGE((mismatches<T, Isa>(kernel::gemv_rows, false, rows, 1, depth, seed++) == 0),
                    "gemv (n = 1) m=" << rows << " k=" << depth);
      CHECK_MESSAGE((mismatches<T, Isa>(kernel::gemv_columns, true, 1, rows, depth, seed++) == 0),
                    "gemv (m = 1) n=" << rows << " k=" << depth);
    }
}

template <class Isa>
void check_isa() {
  check_around_blocks<float, Isa>();
  check_around_blocks<double, Isa>();
  check_gemv<float, Isa>();
  check_gemv<double, Isa>();
}
}  // namespace

TEST_CASE("gemm kernels: each equals the triple loop around its tile and depth-block sizes") {
  check_isa<dg::detail::gemm_target_isa>();
}

TEST_CASE("gemm kernels compiled for run-time dispatch equal the triple loop on this CPU") {
  using level = dg::detail::isa_level;
  const level cpu = dg::detail::cpu_isa_level();
  MESSAGE("the products run at level " << static_cast<int>(cpu)
                                       << " (0: the build's target, 1: AVX2, 2: AVX-512)");
#if DIMGRAPH_DISPATCH_AVX2
  if (cpu == level::avx2 || cpu == level::avx512) check_isa<dg::detail::gemm_avx2_isa>();
#endif
#if DIMGRAPH_DISPATCH_AVX512
  if (cpu == level::avx512) check_isa<dg::detail::gemm_avx512_isa>();
#endif
}

TEST_CASE("gemm_blocked: more rows than an A block, more columns than a B panel") {
  using blk = gemm_blocking<float>;
  const std::size_t m = blk::mc + 5, n = blk::nc + 3, k = 9;
  CHECK(mismatches<float>(kernel::blocked, false, m, n, k, 7) == 0);
  CHECK(mismatches<float>(kernel::blocked, true, m, n, k, 8) == 0);
}
