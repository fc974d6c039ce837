// The parts the matrix-product kernels are built from: the operands (dim_group, matmul_operands),
// the instruction set (gemm_isa) and its vectors (gemm_vector, loads, multiply-add, lane sums).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"

// eval/matmul.hpp compiles the kernels built from these for a wider instruction set than the
// build's too, in functions of that target; the helpers that take or return a vector are always
// inlined there, so no call passes a vector across the ABI GCC warns about.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace dimgraph::detail {

// One group of dims (the rows M, the contracted K, the columns N or the batch dims) as
// one operand sees it: the memory offset of the group's flattened index i. Affine
// (offset i * stride) when the operand's dims of the group coalesce into one stride,
// otherwise a table. A group of at most one element counts as affine with stride 1.
struct dim_group {
  std::size_t size = 1;
  std::ptrdiff_t stride = 1;
  bool affine = true;
  std::vector<std::ptrdiff_t> table;

  std::ptrdiff_t at(std::size_t i) const {
    return affine ? static_cast<std::ptrdiff_t>(i) * stride : table[i];
  }
  bool unit() const { return affine && stride == 1; }
};

// The group of dims with extents ext and strides str (outermost first).
template <std::size_t G>
dim_group make_dim_group(const std::array<std::size_t, G>& ext,
                         const std::array<std::ptrdiff_t, G>& str) {
  dim_group g;
  for (std::size_t e : ext) g.size *= e;
  if (g.size <= 1) return g;
  bool first = true;
  std::ptrdiff_t expected = 0;
  for (std::size_t d = G; d-- > 0;) {
    if (ext[d] == 1) continue;
    if (first) g.stride = str[d];
    else if (str[d] != expected) g.affine = false;
    first = false;
    expected = str[d] * static_cast<std::ptrdiff_t>(ext[d]);
  }
  if (g.affine) return g;
  g.table.resize(g.size);
  std::array<std::size_t, G> idx{};
  std::ptrdiff_t off = 0;
  for (std::size_t i = 0; i < g.size; ++i) {
    g.table[i] = off;
    for (std::size_t d = G; d-- > 0;) {
      off += str[d];
      if (++idx[d] < ext[d]) break;
      off -= str[d] * static_cast<std::ptrdiff_t>(ext[d]);
      idx[d] = 0;
    }
  }
  return g;
}

// C(m, n) = sum_k A(m, k) B(k, n) for one batch entry; each operand's element is at its
// base pointer plus the offsets of its two groups.
template <class T>
struct matmul_operands {
  const T* a;
  const dim_group* am;
  const dim_group* ak;
  const T* b;
  const dim_group* bk;
  const dim_group* bn;
  T* c;
  const dim_group* cm;
  const dim_group* cn;
};

// The instruction set a kernel is compiled for: its vector registers (how wide and how
// many) and whether it has fused multiply-add. The kernels take it as a template argument so
// that eval/matmul.hpp can compile them for a wider set than the build's target and pick one
// at run time; gemm_target_isa is the build's own.
template <std::size_t Bytes, std::size_t Registers, bool Fma>
struct gemm_isa {
  static constexpr std::size_t vector_bytes = Bytes, vector_registers = Registers;
  static constexpr bool fma = Fma;
};

#if defined(__FMA__) || defined(__aarch64__)
inline constexpr bool gemm_target_fma = true;
#else
inline constexpr bool gemm_target_fma = false;
#endif
// (Vectors of simd::bytes: the target's widest, within DIMGRAPH_CONFIG_SIMD_MAX_BYTES.)
#if defined(__AVX512F__)
using gemm_target_isa = gemm_isa<simd::bytes, 32, gemm_target_fma>;
#elif defined(__AVX__)
using gemm_target_isa = gemm_isa<simd::bytes, 16, gemm_target_fma>;
#elif defined(__aarch64__)
using gemm_target_isa = gemm_isa<simd::bytes, 32, gemm_target_fma>;
#else
using gemm_target_isa = gemm_isa<simd::bytes, 16, gemm_target_fma>;
#endif

// acc + x * y, fused where the instruction set has FMA (one rounding, twice the throughput).
template <bool Fma, class T>
DIMGRAPH_ALWAYS_INLINE inline T multiply_add(T acc, T x, T y) {
  if constexpr (Fma && std::is_floating_point_v<T>) return std::fma(x, y, acc);
  else return static_cast<T>(acc + x * y);
}

// The vector the kernels compute in: one register of T (GCC's vector extension, which Clang
// shares) for the float and integer types, T itself for any other and where the register (as
// capped) holds fewer than two Ts. Written out rather than left
// to the auto-vectoriser: GCC 12 turned the plain-loop tiles these kernels had (6 x 16 floats
// with AVX2, 6 x 8 with SSE2) into shuffles, 8 to 30 times slower, and kept the AVX-512 one
// (6 x 32) in 32-byte vectors, as -march=native tunes it to, half what the target has.
template <class T, class Isa = gemm_target_isa,
          bool = (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  (std::is_integral_v<T> && !std::is_same_v<T, bool>)) &&
                 Isa::vector_bytes >= 2 * sizeof(T)>
struct gemm_vector {
  using type = T;
};
template <class T, class Isa>
struct gemm_vector<T, Isa, true> {
  typedef T type __attribute__((vector_size(Isa::vector_bytes)));
};

template <class V, class T>
DIMGRAPH_ALWAYS_INLINE inline V gemm_load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}

template <class V, class T>
DIMGRAPH_ALWAYS_INLINE inline void gemm_store_vector(T* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

// A load for a kernel that reads the vector in several multiply-adds, made a value in a
// register that GCC cannot trace back to memory. Otherwise GCC's register allocator may read
// the memory in each multiply-add in place of the register: tuned for Zen 2 and 3
// (-mtune=znver2/znver3; -march=native picks them there and, with GCC 12, on Zen 4) it rates
// the two the same, and gemm_dots' 4 x 4 tile then loads 20 vectors per 16 multiply-adds
// instead of 8. Only where the function is compiled for an instruction set with such a
// register: the build's target, and a wider one when GCC inlines the kernels into that set's
// entry (eval/matmul.hpp), which it does unless it inlines nothing (-O0, -fno-inline:
// __NO_INLINE__); otherwise the asm operand would be an error.
template <class V, class T>
DIMGRAPH_ALWAYS_INLINE inline void gemm_load_kept(V& out, const T* p) {
  V v = gemm_load<V>(p);
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#if defined(__OPTIMIZE__) && !defined(__NO_INLINE__)
  constexpr bool fits = true;
#else
  constexpr bool fits = sizeof(V) <= gemm_target_isa::vector_bytes;
#endif
  if constexpr (!std::is_arithmetic_v<V> && fits) __asm__("" : "+v"(v));
#endif
  out = v;
}

// acc += x * y for vectors (x a vector or one value for every lane); GCC and Clang fuse it into
// an FMA where the target has one (their default floating-point contraction).
// (Operands by reference: a vector wider than the build's target passed by value is what
// GCC's -Wpsabi note is about, and it reports that one outside the pragma above.)
template <class V, class X>
DIMGRAPH_ALWAYS_INLINE inline void gemm_multiply_add(V& acc, const X& x, const V& y) {
  if constexpr (std::is_arithmetic_v<V>) acc = static_cast<V>(acc + static_cast<V>(x) * y);
  else acc += x * y;
}

// The lanes of a vector type (1 for a scalar).
template <class V>
inline constexpr std::size_t gemm_lanes_of = [] {
  if constexpr (std::is_arithmetic_v<V>) return std::size_t{1};
  else return sizeof(V) / sizeof(std::remove_cvref_t<decltype(std::declval<V>()[0])>);
}();

// The sum of a vector's lanes as a tree: its two halves added lane by lane, then the halves of
// that, down to one lane (log2 L adds on the vector unit, where a sum in lane order is L
// dependent scalar adds, each after a lane extract: in a product of depth 256 that was as much
// work as the products themselves).
template <class T, class V>
DIMGRAPH_ALWAYS_INLINE inline T gemm_lane_sum(const V& v) {
  if constexpr (std::is_arithmetic_v<V>) {
    return v;
  } else if constexpr (sizeof(V) == sizeof(T)) {
    return v[0];
  } else if constexpr (sizeof(V) == 2 * sizeof(T)) {
    return static_cast<T>(v[0] + v[1]);
  } else {
    // (Not simd::fold_lanes: these kernels are compiled for an instruction set the rest of the
    // file may not enable, and its vectors passed to a function outside the -Wpsabi pragma
    // above are an error under -Werror.)
    using lane = std::remove_cvref_t<decltype(v[0])>;
    using half = simd::vec<lane, sizeof(V) / sizeof(lane) / 2>;
    half lo, hi;
    std::memcpy(&lo, &v, sizeof(half));
    std::memcpy(&hi, reinterpret_cast<const unsigned char*>(&v) + sizeof(half), sizeof(half));
    return gemm_lane_sum<T>(lo + hi);
  }
}

// out = the lanes of x and y in blocks of B, the even blocks of each half of the pair (x's
// first, then y's) plus the odd ones: a level of gemm_lane_sums. (Vectors by reference: see
// gemm_multiply_add.)
template <std::size_t B, class V, std::size_t... I>
DIMGRAPH_ALWAYS_INLINE inline void gemm_pair_sum(V& out, const V& x, const V& y,
                                                 std::index_sequence<I...>) {
  constexpr std::size_t L = sizeof...(I), H = L / 2;
  out = __builtin_shufflevector(x, y,
                                static_cast<int>(I / H * L + 2 * (I % H / B) * B + I % H % B)...) +
        __builtin_shufflevector(
            x, y, static_cast<int>(I / H * L + (2 * (I % H / B) + 1) * B + I % H % B)...);
}
template <std::size_t B, class V, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void gemm_sum_levels(V& out, const std::array<V, N>& v) {
  if constexpr (N == 1) {
    out = v[0];
  } else {
    std::array<V, N / 2> w;
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < N / 2; ++i)
      gemm_pair_sum<B>(w[i], v[2 * i], v[2 * i + 1], std::make_index_sequence<gemm_lanes_of<V>>{});
    gemm_sum_levels<B / 2>(out, w);
  }
}

// The lane sums of N vectors of L lanes (N a multiple of L), L at a time: sums[i] =
// gemm_lane_sum(v[i]), added in the same order, so the same bits. Each level adds the two
// halves of every vector's partial sums for two vectors at once (two shuffles and one add per
// pair), so L sums take L - 1 adds where one at a time took L log2 L adds and extracts
// (gemm_dots took 0.95 of its time at m = 25 to 48, n = 1024, k = 512, with 16 lanes).
template <class T, class V, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void gemm_lane_sums(const std::array<V, N>& v, T* sums) {
  constexpr std::size_t L = gemm_lanes_of<V>;
  static_assert(N % L == 0);
  DIMGRAPH_UNROLL
  for (std::size_t g = 0; g < N / L; ++g) {
    std::array<V, L> part;
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < L; ++i) part[i] = v[g * L + i];
    V total;
    gemm_sum_levels<L / 2>(total, part);
    std::memcpy(sums + g * L, &total, sizeof(V));
  }
}

// Asks for the cache lines of [p, p + bytes) ahead of their use.
DIMGRAPH_ALWAYS_INLINE inline void gemm_prefetch(const void* p, std::size_t bytes) {
#if defined(__GNUC__) || defined(__clang__)
  for (std::size_t l = 0; l < bytes; l += 64) __builtin_prefetch(static_cast<const char*>(p) + l);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace dimgraph::detail

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
