// The built-in matrix-product kernels behind dot: blocked and register-tiled GEMM, GEMV.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"

// eval/matmul.hpp compiles these kernels for a wider instruction set than the build's too, in
// functions of that target; the helpers that take or return a vector are always inlined there,
// so no call passes a vector across the ABI GCC warns about.
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
#if defined(__AVX512F__)
using gemm_target_isa = gemm_isa<64, 32, gemm_target_fma>;
#elif defined(__AVX__)
using gemm_target_isa = gemm_isa<32, 16, gemm_target_fma>;
#elif defined(__aarch64__)
using gemm_target_isa = gemm_isa<16, 32, gemm_target_fma>;
#else
using gemm_target_isa = gemm_isa<16, 16, gemm_target_fma>;
#endif

// acc + x * y, fused where the instruction set has FMA (one rounding, twice the throughput).
template <bool Fma, class T>
DIMGRAPH_ALWAYS_INLINE inline T multiply_add(T acc, T x, T y) {
  if constexpr (Fma && std::is_floating_point_v<T>) return std::fma(x, y, acc);
  else return static_cast<T>(acc + x * y);
}

// Unrolls the loop that follows completely (its count is a small constant): the loops over a
// register tile's rows and columns. GCC at -O2 leaves them rolled, which keeps the tile's
// accumulators in memory (a load and a store per multiply-add). #undef'd at the end of this
// header.
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_UNROLL _Pragma("GCC unroll 16")
#else
#define DIMGRAPH_UNROLL
#endif

// The kernels' own attribute. eval/matmul.hpp compiles them for a wider instruction set by
// inlining them into a function of that target (flatten): Clang's flatten inlines only the
// calls written in the function itself, so there they are always_inline; GCC's is recursive,
// and GCC compiles a kernel called directly better as a function of its own (gemm_dots 1.5
// times as fast as when forced inline, -O3 -march=native). #undef'd at the end of this header.
#if defined(__clang__)
#define DIMGRAPH_GEMM_KERNEL DIMGRAPH_ALWAYS_INLINE inline
#else
#define DIMGRAPH_GEMM_KERNEL inline
#endif

// The vector the kernels compute in: one register of T (GCC's vector extension, which Clang
// shares) for the float and integer types, T itself for any other. Written out rather than left
// to the auto-vectoriser: GCC 12 turned the plain-loop tiles these kernels had (6 x 16 floats
// with AVX2, 6 x 8 with SSE2) into shuffles, 8 to 30 times slower, and kept the AVX-512 one
// (6 x 32) in 32-byte vectors, as -march=native tunes it to, half what the target has.
template <class T, class Isa = gemm_target_isa,
          bool = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                 (std::is_integral_v<T> && !std::is_same_v<T, bool>)>
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

// acc += x * y for vectors (x a vector or one value for every lane); GCC and Clang fuse it into
// an FMA where the target has one (their default floating-point contraction).
// (Operands by reference: a vector wider than the build's target passed by value is what
// GCC's -Wpsabi note is about, and it reports that one outside the pragma above.)
template <class V, class X>
DIMGRAPH_ALWAYS_INLINE inline void gemm_multiply_add(V& acc, const X& x, const V& y) {
  if constexpr (std::is_arithmetic_v<V>) acc = static_cast<V>(acc + static_cast<V>(x) * y);
  else acc += x * y;
}

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
    using lane = std::remove_cvref_t<decltype(v[0])>;
    using half = simd::vec<lane, sizeof(V) / sizeof(lane) / 2>;
    half lo, hi;
    std::memcpy(&lo, &v, sizeof(half));
    std::memcpy(&hi, reinterpret_cast<const unsigned char*>(&v) + sizeof(half), sizeof(half));
    return gemm_lane_sum<T>(lo + hi);
  }
}

// s plus the sum of a vector's lanes (summed as gemm_lane_sum does).
template <class T, class V>
DIMGRAPH_ALWAYS_INLINE inline T gemm_add_lanes(T s, const V& v) {
  return static_cast<T>(s + gemm_lane_sum<T>(v));
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

// Register-tile and cache-block sizes: a micro-tile of MR x NR accumulators (NR two vectors
// wide: 16 of 32 vector registers with 8 rows, 12 of 16 with 6), an A block of MC x KC in L2,
// a B sliver of KC x NR in L1.
template <class T, class Isa = gemm_target_isa>
struct gemm_blocking {
  using vector = typename gemm_vector<T, Isa>::type;
  static constexpr std::size_t lanes = sizeof(vector) / sizeof(T);
  static constexpr std::size_t mr = Isa::vector_registers >= 32 ? 8 : 6;
  static constexpr std::size_t nr = 2 * lanes;
  static constexpr std::size_t kc = 256;
  static constexpr std::size_t mc = 96;
  static constexpr std::size_t nc = 128 * nr;
};

// The micro-kernel: tile = sum over kc of a column of the A sliver times a row of the B sliver.
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_ALWAYS_INLINE inline void gemm_micro_tile(std::size_t kc, const T* __restrict ap,
                                                   const T* __restrict bp, T (&tile)[MR][NR]) {
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t L = sizeof(V) / sizeof(T), NV = NR / L;
  V acc[MR][NV] = {};
  for (std::size_t p = 0; p < kc; ++p) {
    V b[NV];
    DIMGRAPH_UNROLL
    for (std::size_t j = 0; j < NV; ++j) b[j] = gemm_load<V>(bp + p * NR + j * L);
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      const T x = ap[p * MR + i];
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NV; ++j) gemm_multiply_add(acc[i][j], x, b[j]);
    }
  }
  DIMGRAPH_UNROLL
  for (std::size_t i = 0; i < MR; ++i) {
    DIMGRAPH_UNROLL
    for (std::size_t j = 0; j < NV; ++j) gemm_store_vector(&tile[i][j * L], acc[i][j]);
  }
}

// Copies rows [r0, r0 + rows) x depth [p0, p0 + kc) of a matrix into slivers of W rows,
// each stored depth-major (W values per depth step), padding the last sliver with zeros.
template <std::size_t W, class T>
DIMGRAPH_GEMM_KERNEL void gemm_pack(T* out, const T* base, const dim_group& rg, const dim_group& kg,
                                    std::size_t r0, std::size_t rows, std::size_t p0,
                                    std::size_t kc) {
  std::size_t s = 0;
  if (rg.unit() && kg.affine) {
    // The full slivers a few depth steps at a time, all slivers per step: the reads walk along
    // the source's rows, which the hardware prefetchers follow, instead of down one sliver's
    // column of W-wide pieces, which are a page apart when the rows are long.
    constexpr std::size_t depth_step = 8;
    const std::size_t full = rows / W * W;
    const std::ptrdiff_t ks = kg.stride;
    for (std::size_t pb = 0; pb < kc; pb += depth_step) {
      const std::size_t pe = std::min(kc, pb + depth_step);
      for (std::size_t f = 0; f < full; f += W) {
        const T* src = base + rg.at(r0 + f);
        T* o = out + f * kc;
        for (std::size_t p = pb; p < pe; ++p)
          for (std::size_t i = 0; i < W; ++i)
            o[p * W + i] =
                src[static_cast<std::ptrdiff_t>(p0 + p) * ks + static_cast<std::ptrdiff_t>(i)];
      }
    }
    s = full;
  }
  std::array<std::ptrdiff_t, W> roff{};
  for (; s < rows; s += W) {
    const std::size_t w = std::min(W, rows - s);
    for (std::size_t i = 0; i < W; ++i) roff[i] = i < w ? rg.at(r0 + s + i) : 0;
    T* o = out + s * kc;
    for (std::size_t p = 0; p < kc; ++p) {
      const T* src = base + kg.at(p0 + p);
      for (std::size_t i = 0; i < W; ++i) o[p * W + i] = i < w ? src[roff[i]] : T(0);
    }
  }
}

// Writes (the first depth block) or adds (the later ones) the valid mr x nr part of a tile to C.
template <class T, std::size_t MR, std::size_t NR>
DIMGRAPH_GEMM_KERNEL void gemm_store(const matmul_operands<T>& op, const T (&tile)[MR][NR],
                                     std::size_t m0, std::size_t mr, std::size_t n0, std::size_t nr,
                                     bool first) {
  const bool unit = op.cn->unit();
  const std::ptrdiff_t n_base = op.cn->at(n0);
  for (std::size_t i = 0; i < mr; ++i) {
    T* row = op.c + op.cm->at(m0 + i);
    if (unit) {
      T* r = row + n_base;
      if (first)
        for (std::size_t j = 0; j < nr; ++j) r[j] = tile[i][j];
      else
        for (std::size_t j = 0; j < nr; ++j) r[j] += tile[i][j];
    } else {
      for (std::size_t j = 0; j < nr; ++j) {
        T& slot = row[op.cn->at(n0 + j)];
        slot = first ? tile[i][j] : slot + tile[i][j];
      }
    }
  }
}

// B [k, n] packed whole, as gemm_blocked reads it: one KC x NC panel per (column block, depth
// block), each as gemm_pack writes it, at a fixed stride (the last blocks' panels padded).
template <class T, class Isa>
struct gemm_b_layout {
  using blk = gemm_blocking<T, Isa>;
  std::size_t depth_blocks, panel, total;
  gemm_b_layout(std::size_t n, std::size_t k)
      : depth_blocks((k + blk::kc - 1) / blk::kc),
        panel(std::min(blk::kc, k) * std::min(blk::nc, (n + blk::nr - 1) / blk::nr * blk::nr)),
        total((n + blk::nc - 1) / blk::nc * depth_blocks * panel),
        depth_total(k) {}
  // The panel of columns [jc, ...) and depth [pc, ...) (block starts).
  std::size_t offset(std::size_t jc, std::size_t pc) const {
    return (jc / blk::nc * depth_blocks + pc / blk::kc) * panel;
  }
  // Where B(p, j) is (within its panel: the NR-wide sliver of j, depth-major).
  std::size_t at(std::size_t p, std::size_t j) const {
    const std::size_t jc = j / blk::nc * blk::nc, pc = p / blk::kc * blk::kc;
    const std::size_t kc = std::min(blk::kc, depth_total - pc);
    return offset(jc, pc) + (j - jc) / blk::nr * blk::nr * kc + (p - pc) * blk::nr +
           (j - jc) % blk::nr;
  }
  std::size_t depth_total;
};

// Packs B [k, n] of op whole into out (gemm_b_layout's total elements).
template <class T, class Isa>
void gemm_pack_b(T* out, const matmul_operands<T>& op, std::size_t n, std::size_t k) {
  using blk = gemm_blocking<T, Isa>;
  const gemm_b_layout<T, Isa> layout(n, k);
  for (std::size_t jc = 0; jc < n; jc += blk::nc)
    for (std::size_t pc = 0; pc < k; pc += blk::kc)
      gemm_pack<blk::nr>(out + layout.offset(jc, pc), op.b, *op.bn, *op.bk, jc,
                         std::min(blk::nc, n - jc), pc, std::min(blk::kc, k - pc));
}

// Scratch for the blocked kernel's packed blocks (slot 0: B's panel, up to KC x NC; slot 1:
// A's block), kept per thread and reused: a panel is up to a few MiB, and a fresh allocation
// per product is fresh pages (the page faults and zeroing took a tenth of an LSTM's time).
template <class T>
T* gemm_scratch(std::size_t slot, std::size_t count) {
  struct buffers {
    std::unique_ptr<T[]> data[2];
    std::size_t size[2] = {0, 0};
  };
  static thread_local buffers kept;
  if (kept.size[slot] < count) {
    kept.data[slot].reset(new T[count]);
    kept.size[slot] = count;
  }
  return kept.data[slot].get();
}

// The blocked product (Goto's loop order): a KC x NC panel of B is packed once and reused
// by every MC x KC block of A; the micro-kernel runs over their MR x NR tiles. With packed_b
// (B packed whole by gemm_pack_b, for the same n, k and Isa), the panels are read from there.
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_blocked(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                       std::size_t k, const T* packed_b = nullptr) {
  using blk = gemm_blocking<T, Isa>;
  constexpr std::size_t MR = blk::mr, NR = blk::nr;
  const std::size_t kc_max = std::min(blk::kc, k);
  const std::size_t nc_max = std::min(blk::nc, (n + NR - 1) / NR * NR);
  const std::size_t mc_max = std::min(blk::mc, (m + MR - 1) / MR * MR);
  const gemm_b_layout<T, Isa> layout(n, k);
  // (Not zero-filled: gemm_pack writes every element the micro-kernel reads.)
  T* const bpack = packed_b ? nullptr : gemm_scratch<T>(0, kc_max * nc_max);
  T* const apack = gemm_scratch<T>(1, kc_max * mc_max);
  alignas(64) T tile[MR][NR];
  for (std::size_t jc = 0; jc < n; jc += blk::nc) {
    const std::size_t nc = std::min(blk::nc, n - jc);
    for (std::size_t pc = 0; pc < k; pc += blk::kc) {
      const std::size_t kc = std::min(blk::kc, k - pc);
      const T* bp = packed_b ? packed_b + layout.offset(jc, pc) : bpack;
      if (!packed_b) gemm_pack<NR>(bpack, op.b, *op.bn, *op.bk, jc, nc, pc, kc);
      for (std::size_t ic = 0; ic < m; ic += blk::mc) {
        const std::size_t mc = std::min(blk::mc, m - ic);
        gemm_pack<MR>(apack, op.a, *op.am, *op.ak, ic, mc, pc, kc);
        for (std::size_t jr = 0; jr < nc; jr += NR) {
          for (std::size_t ir = 0; ir < mc; ir += MR) {
            gemm_micro_tile<T, Isa, MR, NR>(kc, apack + ir * kc, bp + jr * kc, tile);
            gemm_store(op, tile, ic + ir, std::min(MR, mc - ir), jc + jr, std::min(NR, nc - jr),
                       pc == 0);
          }
        }
      }
    }
  }
}

// The product when B's columns are contiguous and B is read once (few rows of A) or stays in
// the cache between passes: the micro-kernel reads B and A where they are (packing B would cost
// more than the product itself), one KC-deep block of B at a time, asking for B a few rows
// ahead (its successive reads are a row apart, too far for the hardware's stride prefetcher
// when the rows are long). B's last columns that do not fill a tile are summed one by one.
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_rows(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                    std::size_t k) {
  using blk = gemm_blocking<T, Isa>;
  using V = typename blk::vector;
  constexpr std::size_t MR = blk::mr, NR = blk::nr, L = blk::lanes, NV = NR / L;
  constexpr std::size_t ahead = 8;
  const std::ptrdiff_t as = op.ak->stride, bs = op.bk->stride;
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  std::array<const T*, MR> a{};
  alignas(64) T tile[MR][NR];
  for (std::size_t i0 = 0; i0 < m; i0 += MR) {
    const std::size_t mr = std::min(MR, m - i0);
    for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(std::min(i0 + i, m - 1));
    for (std::size_t pc = 0; pc < k; pc += blk::kc) {
      const std::size_t kc = std::min(blk::kc, k - pc);
      for (std::size_t j0 = 0; j0 + NR <= n; j0 += NR) {
        const T* b = op.b + op.bn->at(j0) + at(pc, bs);
        V acc[MR][NV] = {};
        for (std::size_t p = 0; p < kc; ++p) {
          const T* bp = b + at(p, bs);
          gemm_prefetch(b + at(std::min(p + ahead, kc - 1), bs), NR * sizeof(T));
          V bv[NV];
          DIMGRAPH_UNROLL
          for (std::size_t j = 0; j < NV; ++j) bv[j] = gemm_load<V>(bp + j * L);
          DIMGRAPH_UNROLL
          for (std::size_t i = 0; i < MR; ++i) {
            const T x = a[i][at(pc + p, as)];
            DIMGRAPH_UNROLL
            for (std::size_t j = 0; j < NV; ++j) gemm_multiply_add(acc[i][j], x, bv[j]);
          }
        }
        DIMGRAPH_UNROLL
        for (std::size_t i = 0; i < MR; ++i) {
          DIMGRAPH_UNROLL
          for (std::size_t j = 0; j < NV; ++j) gemm_store_vector(&tile[i][j * L], acc[i][j]);
        }
        gemm_store(op, tile, i0, mr, j0, NR, pc == 0);
      }
    }
    for (std::size_t j = n / NR * NR; j < n; ++j)
      for (std::size_t i = 0; i < mr; ++i) {
        const T* b = op.b + op.bn->at(j);
        T sum = T(0);
        for (std::size_t p = 0; p < k; ++p)
          sum = multiply_add<Isa::fma>(sum, a[i][at(p, as)], b[at(p, bs)]);
        op.c[op.cm->at(i0 + i) + op.cn->at(j)] = sum;
      }
  }
}

// The product when both operands are contiguous along the depth and B's columns are not
// (x . W with W[out, in]): each MR x NR tile of C is MR * NR dot products, each summed in a
// vector of partial sums, straight from the operands' rows. No packing: for B that would be
// a transpose, which costs more than the product itself when m is small. Edge tiles repeat
// the last row or column and store only the valid part.
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_dots(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                    std::size_t k) {
  using V = typename gemm_blocking<T, Isa>::vector;
  // The tile's MR * NR partial sums, NR vectors of B and one of A (and a product, without
  // fused multiply-add) stay in registers: 3 x 3 with 16 vector registers, 4 x 4 with 32.
  constexpr std::size_t MR = Isa::vector_registers >= 32 ? 4 : 3, NR = MR,
                        L = gemm_blocking<T, Isa>::lanes;
  std::array<const T*, MR> a{};
  std::array<const T*, NR> b{};
  for (std::size_t j0 = 0; j0 < n; j0 += NR) {
    for (std::size_t j = 0; j < NR; ++j) b[j] = op.b + op.bn->at(std::min(j0 + j, n - 1));
    for (std::size_t i0 = 0; i0 < m; i0 += MR) {
      for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(std::min(i0 + i, m - 1));
      V acc[MR][NR] = {};
      std::size_t p = 0;
      for (; p + L <= k; p += L) {
        V bv[NR];
        DIMGRAPH_UNROLL
        for (std::size_t j = 0; j < NR; ++j) bv[j] = gemm_load<V>(b[j] + p);
        DIMGRAPH_UNROLL
        for (std::size_t i = 0; i < MR; ++i) {
          const V av = gemm_load<V>(a[i] + p);
          DIMGRAPH_UNROLL
          for (std::size_t j = 0; j < NR; ++j) gemm_multiply_add(acc[i][j], av, bv[j]);
        }
      }
      for (std::size_t i = 0; i < MR && i0 + i < m; ++i)
        for (std::size_t j = 0; j < NR && j0 + j < n; ++j) {
          T sum = gemm_lane_sum<T>(acc[i][j]);
          for (std::size_t q = p; q < k; ++q) sum = multiply_add<Isa::fma>(sum, a[i][q], b[j][q]);
          op.c[op.cm->at(i0 + i) + op.cn->at(j0 + j)] = sum;
        }
    }
  }
}

// y(r) = sum_c M(r, c) x(c) with M(r, c) at mat[r * rs + c * cs], x(c) at x[c * xs] and
// y(r) at y[r * ys]. Rows with contiguous elements and a contiguous x: four rows at a time,
// each summed in one vector of partial sums (independent lanes, so no reassociation is
// needed to vectorise). Contiguous columns: y accumulates one column at a time (axpy).
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemv(std::size_t rows, std::size_t cols, const T* mat, std::ptrdiff_t rs,
                               std::ptrdiff_t cs, const T* x, std::ptrdiff_t xs, T* y,
                               std::ptrdiff_t ys) {
  // Vectors of V (as the GEMM kernels), U of them per step: the partial sums stay in
  // registers (4 rows x U vectors, U vectors of x), which GCC at -O2 does not do for arrays of
  // T. Partial sum j of a row adds the columns c = j (mod U * LV), in order.
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t LV = gemm_blocking<T, Isa>::lanes, U = 2, L = U * LV;
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  // The partial sums of one row: the U vectors added lane by lane, then their lanes as a tree.
  const auto total = [](const V(&acc)[U]) {
    V v = acc[0];
    for (std::size_t u = 1; u < U; ++u) v += acc[u];
    return gemm_lane_sum<T>(v);
  };
  if (cs == 1 && xs == 1) {
    std::size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
      const T* m[4] = {mat + at(r, rs), mat + at(r + 1, rs), mat + at(r + 2, rs),
                       mat + at(r + 3, rs)};
      V acc[4][U] = {};
      std::size_t c = 0;
      for (; c + L <= cols; c += L) {
        V xv[U];
        DIMGRAPH_UNROLL
        for (std::size_t u = 0; u < U; ++u) xv[u] = gemm_load<V>(x + c + u * LV);
        DIMGRAPH_UNROLL
        for (std::size_t q = 0; q < 4; ++q) {
          DIMGRAPH_UNROLL
          for (std::size_t u = 0; u < U; ++u)
            gemm_multiply_add(acc[q][u], gemm_load<V>(m[q] + c + u * LV), xv[u]);
        }
      }
      T s[4];
      for (std::size_t q = 0; q < 4; ++q) s[q] = total(acc[q]);
      for (; c < cols; ++c)
        for (std::size_t q = 0; q < 4; ++q) s[q] = multiply_add<Isa::fma>(s[q], m[q][c], x[c]);
      for (std::size_t q = 0; q < 4; ++q) y[at(r + q, ys)] = s[q];
    }
    for (; r < rows; ++r) {
      const T* mr = mat + at(r, rs);
      V acc[U] = {};
      std::size_t c = 0;
      for (; c + L <= cols; c += L) {
        DIMGRAPH_UNROLL
        for (std::size_t u = 0; u < U; ++u)
          gemm_multiply_add(acc[u], gemm_load<V>(mr + c + u * LV), gemm_load<V>(x + c + u * LV));
      }
      T s = total(acc);
      for (; c < cols; ++c) s = multiply_add<Isa::fma>(s, mr[c], x[c]);
      y[at(r, ys)] = s;
    }
  } else if (rs == 1 && ys == 1) {
    // y accumulates one column at a time (axpy), a vector of rows at a time.
    for (std::size_t r = 0; r < rows; ++r) y[r] = T(0);
    for (std::size_t c = 0; c < cols; ++c) {
      const T v = x[at(c, xs)];
      const T* mc = mat + at(c, cs);
      std::size_t r = 0;
      for (; r + LV <= rows; r += LV) {
        V yv = gemm_load<V>(y + r);
        gemm_multiply_add(yv, v, gemm_load<V>(mc + r));
        gemm_store_vector(y + r, yv);
      }
      for (; r < rows; ++r) y[r] = multiply_add<Isa::fma>(y[r], mc[r], v);
    }
  } else {
    for (std::size_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (std::size_t c = 0; c < cols; ++c)
        s = multiply_add<Isa::fma>(s, mat[at(r, rs) + at(c, cs)], x[at(c, xs)]);
      y[at(r, ys)] = s;
    }
  }
}

}  // namespace dimgraph::detail

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#undef DIMGRAPH_UNROLL
#undef DIMGRAPH_GEMM_KERNEL
