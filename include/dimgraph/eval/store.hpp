// Writing a row of kernel results: vectors, a one-lane remainder, and streaming stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/table.hpp"

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

// v stored to p (aligned to the vector's size) bypassing the caches, when v fills a register.
template <std::size_t L, class T>
inline constexpr bool can_stream_v =
    has_streaming_stores && (sizeof(fn::lanes_t<T, L>) == 16 ||
                             (sizeof(fn::lanes_t<T, L>) == 32 && simd::target_bytes >= 32) ||
                             (sizeof(fn::lanes_t<T, L>) == 64 && simd::target_bytes >= 64));

template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void stream_lanes(T* p, fn::lanes_t<T, L> v) {
  if constexpr (std::is_same_v<T, bool>) v &= 1;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SSE2__)
  using F = simd::vec<float, sizeof(v) / sizeof(float)>;
  F& dst = *reinterpret_cast<F*>(p);
  const F bits = simd::bits<F>(v);
  if constexpr (sizeof(F) == 64) asm("vmovntps %1, %0" : "=m"(dst) : "v"(bits));
#if defined(__AVX__)
  else asm("vmovntps %1, %0" : "=m"(dst) : "x"(bits));
#else
  else asm("movntps %1, %0" : "=m"(dst) : "x"(bits));
#endif
#else
  store_lanes<L>(p, v);
#endif
}

// Orders streaming stores before whatever follows (they are weakly ordered).
DIMGRAPH_ALWAYS_INLINE inline void stream_fence() {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SSE2__)
  asm volatile("sfence" ::: "memory");
#endif
}

// o[0, n) = at<M>(i) for M lanes at i: vectors of L lanes, then single lanes; with stream,
// single lanes up to the first vector-aligned element, then streaming vectors. The kernel
// (at) appears once per lane count, whichever stores are used: a long chain is compiled
// twice, not once per kind of store.
template <std::size_t L, class Out, class At>
DIMGRAPH_ALWAYS_INLINE inline void write_row(Out* o, std::size_t n, const At& at,
                                             [[maybe_unused]] bool stream) {
  std::size_t head = 0;  // single lanes before the vectors
  if constexpr (can_stream_v<L, Out>) {
    constexpr std::size_t align = sizeof(fn::lanes_t<Out, L>);
    if (stream) {
      const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(o) % align;
      if (misaligned % sizeof(Out) == 0 && misaligned != 0)
        head = std::min(n, (align - misaligned) / sizeof(Out));
      if (misaligned % sizeof(Out) != 0) stream = false;
    }
  }
  const std::size_t tail = head + (n - head) / L * L;  // single lanes from here
  for (std::size_t i = head; i < tail; i += L) {
    const auto v = at.template operator()<L>(i);
    if constexpr (can_stream_v<L, Out>) {
      if (stream) {
        stream_lanes<L>(o + i, v);
        continue;
      }
    }
    store_lanes<L>(o + i, v);
  }
  for (std::size_t k = 0, singles = head + (n - tail); k < singles; ++k) {
    const std::size_t i = k < head ? k : tail + (k - head);
    store_lanes<1>(o + i, at.template operator()<1>(i));
  }
}

}  // namespace dimgraph::detail
