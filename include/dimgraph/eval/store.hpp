// Writing a row of kernel results: pieces of a row, partial stores, and streaming stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/table.hpp"

DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// Streaming (non-temporal) stores exist for whole x86 vector registers.
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SSE2__)
inline constexpr bool has_streaming_stores = true;
#else
inline constexpr bool has_streaming_stores = false;
#endif

// Whether the output of plan p (elements of T) is large enough for streaming stores.
template <class T, std::size_t R, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline bool streaming_worthwhile(const loop_plan<R, N>& p) {
  constexpr std::size_t threshold = DIMGRAPH_CONFIG_STREAMING_BYTES;
  if constexpr (!has_streaming_stores || threshold == 0) return false;
  else return p.elements() >= threshold / sizeof(T);
}

// v stored to p (aligned to the vector's size) bypassing the caches, when v fills a register
// or several.
template <std::size_t L, class T>
inline constexpr bool can_stream_v =
    has_streaming_stores && (sizeof(fn::lanes_t<T, L>) == 16 ||
                             (sizeof(fn::lanes_t<T, L>) == 32 && simd::target_bytes >= 32) ||
                             (sizeof(fn::lanes_t<T, L>) == 64 && simd::target_bytes >= 64) ||
                             (sizeof(fn::lanes_t<T, L>) > simd::target_bytes &&
                              sizeof(fn::lanes_t<T, L>) % simd::target_bytes == 0));

// v (one register) stored to p bypassing the caches.
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void stream_register(T* p, fn::lanes_t<T, L> v) {
  if constexpr (std::is_same_v<T, bool>) v &= 1;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SSE2__)
  // (Builtins, not inline asm: GCC takes an asm's memory operand as a store that may change
  // anything, and reloads the row's pointers from the stack after every vector.)
  using F = simd::vec<float, sizeof(v) / sizeof(float)>;
  const F bits = simd::bits<F>(v);
  float* dst = reinterpret_cast<float*>(p);
#if defined(__clang__)
  __builtin_nontemporal_store(bits, reinterpret_cast<F*>(dst));
#else
  if constexpr (sizeof(F) == 64) {
#if defined(__AVX512F__)
    __builtin_ia32_movntps512(dst, bits);
#else
    store_lanes<L>(p, v);
#endif
  } else if constexpr (sizeof(F) == 32) {
#if defined(__AVX__)
    __builtin_ia32_movntps256(dst, bits);
#else
    store_lanes<L>(p, v);
#endif
  } else {
    __builtin_ia32_movntps(dst, bits);
  }
#endif
#else
  store_lanes<L>(p, v);
#endif
}

// (Several registers: each streamed, its lanes taken by a shuffle, which keeps v in registers.)
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void stream_lanes(T* p, fn::lanes_t<T, L> v) {
  constexpr std::size_t part = simd::target_bytes / sizeof(simd::lane_t<T>);
  if constexpr (L > part) {
    for_each_index<L / part>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      with_indices<part>([&]<std::size_t... I>(index_constant<I>...) DIMGRAPH_ALWAYS_INLINE {
        stream_register<part, T>(
            p + P * part, fn::lanes_t<T, part>(__builtin_shufflevector(v, v, (P * part + I)...)));
      });
    });
  } else {
    stream_register<L, T>(p, v);
  }
}

// Orders streaming stores before whatever follows (they are weakly ordered).
DIMGRAPH_ALWAYS_INLINE inline void stream_fence() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SSE2__)
  asm volatile("sfence" ::: "memory");
#endif
}

// With streaming stores: how many elements of a row at o come before the first one aligned to
// a vector of L lanes of Out, or a register of them (a piece of their own); stream becomes
// false when no element is.
template <std::size_t L, class Out>
DIMGRAPH_ALWAYS_INLINE inline std::size_t stream_head(const Out* o, std::size_t n, bool& stream) {
  constexpr std::size_t align = std::min(sizeof(fn::lanes_t<Out, L>), simd::target_bytes);
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(o) % align;
  if (misaligned % sizeof(Out) != 0) {
    stream = false;
    return 0;
  }
  return misaligned == 0 ? 0 : std::min(n, (align - misaligned) / sizeof(Out));
}

// The first m (< L) lanes of v stored to p, s elements apart. (Contiguous: in fixed-size
// parts, one per bit of m, which the compiler does not turn into a call to memcpy.)
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void store_first(T* p, std::ptrdiff_t s, fn::lanes_t<T, L> v,
                                               std::size_t m) {
  if (s == 1 && sizeof(simd::lane_t<T>) == sizeof(T)) {
    if constexpr (std::is_same_v<T, bool>) v &= 1;
    unsigned char bytes[sizeof(v)];
    std::memcpy(bytes, &v, sizeof(v));
    std::size_t at = 0;
    for_each_index<std::bit_width(L) - 1>([&]<std::size_t B>(index_constant<B>) {
      constexpr std::size_t piece = (L >> (B + 1)) * sizeof(T);
      if (m & (std::size_t{L} >> (B + 1))) {
        std::memcpy(reinterpret_cast<unsigned char*>(p) + at, bytes + at, piece);
        at += piece;
      }
    });
    return;
  }
  for (std::size_t l = 0; l < m; ++l)
    p[static_cast<std::ptrdiff_t>(l) * s] = fn::element_of<T>(v[l]);
}

// f.template operator()<M>(i) for the last rest (< L) elements of a row from i on, in parts of
// M = L / 2, L / 4, ..., Min lanes (those whose bits rest has), then one at a time (M = 1),
// i advancing past each: log2 L tests, where one element at a time took rest of them.
template <std::size_t L, std::size_t Min = 1, class F>
DIMGRAPH_ALWAYS_INLINE inline void for_pieces(std::size_t& i, std::size_t rest, const F& f) {
  for_each_index<std::bit_width(L) - 1>([&]<std::size_t B>(index_constant<B>)
                                            DIMGRAPH_ALWAYS_INLINE {
                                              constexpr std::size_t M = L >> (B + 1);
                                              if constexpr (M >= Min) {
                                                if (rest & M) {
                                                  f.template operator()<M>(i);
                                                  i += M;
                                                }
                                              }
                                            });
  if constexpr (Min > 1)
    for (std::size_t l = 0; l < rest % Min; ++l, ++i) f.template operator()<1>(i);
}

// A kernel of at most this many instructions reads a row's partial pieces in parts of fewer
// lanes, compiled once for each part size (see for_each_piece; the reductions' row kernels do
// the same); a longer one reads them from a padded copy.
inline constexpr std::size_t pieces_up_to = 64;

// piece.template operator()<M>(c, at, i, m) for the pieces of a row r of n elements, vectors
// of L lanes: elements [0, head) when head > 0, then whole vectors, then the rest. A whole
// vector (M = m = L) is read from r at at = i. A partial piece of m < L elements is read
// either (Pieces) from r itself in parts of M = L / 2, L / 4, ..., 1 lanes, those whose bits
// m has (M = m for each), or from a copy c of the row padded to L lanes (scratch on the
// stack) at 0 (M = L > m): the parts compile the kernel log2 L more times, the copy costs
// about a dozen cycles a leaf per row (a bias added to rows of 8 floats at -march=native
// took 18 times Eigen's time padded). piece is called in separate places for whole vectors
// (where m is the constant L, so the loop tests nothing but its end) and partial pieces. (One
// call site for both compiles the kernel once, but then every whole vector tests m and the
// segment: GCC does not unswitch loops at -O2, and W1b ran 1.5x slower.) Without Pad, n is a
// multiple of L and head is 0 (a static row): whole vectors only. With OneSite (a long
// kernel, where a test per vector costs nothing next to the kernel, and a second copy of the
// kernel doubles the compiler's work on the longest function), piece is called in one place
// for every piece, padded.
template <std::size_t L, bool Pad = true, bool OneSite = false, bool Pieces = false, class Row,
          class Piece>
DIMGRAPH_ALWAYS_INLINE inline void for_each_piece(const Row& r, std::size_t n, std::size_t head,
                                                  const std::ptrdiff_t* leaf_step,
                                                  const std::size_t* leaf_bytes, Piece&& piece) {
  if constexpr (!Pad) {
    for (std::size_t i = 0; i < n; i += L) piece.template operator()<L>(r, i, i, L);
  } else if constexpr (OneSite) {
    unsigned char scratch[Row::template scratch_bytes<L>];
    const std::size_t body_end = head + (n - head) / L * L;
    Row c = r;
    for (std::size_t i = 0; i < n;) {
      const bool whole = i >= head && i < body_end;
      const std::size_t m = whole ? L : (i < head ? head : n) - i;
      if (!whole) c.template pad<L>(r, i, m, leaf_step, leaf_bytes, scratch);
      piece.template operator()<L>(whole ? r : static_cast<const Row&>(c), whole ? i : 0, i, m);
      i += m;
    }
  } else {
    const std::size_t body_end = head + (n - head) / L * L;
    for (std::size_t i = head; i < body_end; i += L) piece.template operator()<L>(r, i, i, L);
    // The partial pieces [0, head) and [body_end, n).
    [[maybe_unused]] unsigned char scratch[Pieces ? 1 : Row::template scratch_bytes<L>];
    for (int s = 0; s < 2; ++s) {
      std::size_t from = s == 0 ? 0 : body_end;
      const std::size_t to = s == 0 ? head : n;
      if (from == to) continue;
      if constexpr (Pieces) {
        for_pieces<L>(from, to - from, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
          piece.template operator()<M>(r, at, at, M);
        });
      } else {
        Row c = r;
        c.template pad<L>(r, from, to - from, leaf_step, leaf_bytes, scratch);
        piece.template operator()<L>(static_cast<const Row&>(c), 0, from, to - from);
      }
    }
  }
}

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
