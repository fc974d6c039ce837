// Run-time instruction-set dispatch: which wider instruction sets the kernels that dispatch
// (the matrix products, the softmax rows) are also compiled for, and which of them this CPU
// has.
#pragma once

#include <atomic>

#include "dimgraph/config.hpp"

// Run-time dispatch (DIMGRAPH_CONFIG_DISPATCH): on x86 with GCC or Clang, the kernels are also
// compiled for AVX2 with FMA and for AVX-512 when the build targets less, within the cap of
// DIMGRAPH_CONFIG_SIMD_MAX_BYTES.
#if DIMGRAPH_CONFIG_DISPATCH && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#if !defined(__AVX512F__) && DIMGRAPH_CONFIG_SIMD_MAX_BYTES >= 64
#define DIMGRAPH_DISPATCH_AVX512 1
#endif
#if !(defined(__AVX2__) && defined(__FMA__)) && !defined(__AVX512F__) && \
    DIMGRAPH_CONFIG_SIMD_MAX_BYTES >= 32
#define DIMGRAPH_DISPATCH_AVX2 1
#endif
#endif
#ifndef DIMGRAPH_DISPATCH_AVX512
#define DIMGRAPH_DISPATCH_AVX512 0
#endif
#ifndef DIMGRAPH_DISPATCH_AVX2
#define DIMGRAPH_DISPATCH_AVX2 0
#endif

// Kernels built from the shared vector helpers (detail/simd*.hpp, eval/rows.hpp, the
// element-wise kernel), which take and return vectors by value: always inlined into the wide
// function, those vectors never cross a call. Clang's -Wpsabi warnings about them fall inside
// the headers' DIMGRAPH_WIDE_BEGIN/END. GCC reports its "vector return without AVX enabled"
// at the end of the user's file, outside any pragma, and notes "the ABI for passing
// parameters with 32-byte alignment has changed" through a channel no pragma reaches; so with
// GCC these kernels are dispatched only where the build says it passes -Wno-psabi
// (DIMGRAPH_CONFIG_GCC_DISPATCH, config.hpp; CMake's dimgraph::dimgraph sets both). The
// matrix-product kernels pass wide vectors by reference and are dispatched with both.
#if defined(__clang__) || DIMGRAPH_CONFIG_GCC_DISPATCH
#define DIMGRAPH_DISPATCH_HELPERS_AVX512 DIMGRAPH_DISPATCH_AVX512
#define DIMGRAPH_DISPATCH_HELPERS_AVX2 DIMGRAPH_DISPATCH_AVX2
#else
#define DIMGRAPH_DISPATCH_HELPERS_AVX512 0
#define DIMGRAPH_DISPATCH_HELPERS_AVX2 0
#endif

// The element-wise kernels' wide copies (eval/elementwise.hpp) in optimised builds only: they
// reach helpers that are not all forced inline, and at -O0 a call to one would pass a wide
// vector to a function compiled for the build's target, which takes it in other registers
// (wrong results, seen with Clang at -O0). An optimised build inlines them all into the wide
// functions, which are also flattened (no call in them: checked in the disassembly of the W8
// benchmarks at g++ -O2 and clang++-16 -O2).
#if defined(__OPTIMIZE__)
#define DIMGRAPH_DISPATCH_ELEMENTWISE_AVX512 DIMGRAPH_DISPATCH_HELPERS_AVX512
#define DIMGRAPH_DISPATCH_ELEMENTWISE_AVX2 DIMGRAPH_DISPATCH_HELPERS_AVX2
#else
#define DIMGRAPH_DISPATCH_ELEMENTWISE_AVX512 0
#define DIMGRAPH_DISPATCH_ELEMENTWISE_AVX2 0
#endif

// The attributes of a function compiled for AVX-512 or for AVX2 with FMA. (What it calls is
// inlined into it and compiled so: the always-inline helpers and the vector math, whose
// vectors of 32 or 64 bytes then live in registers of that width.)
#define DIMGRAPH_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define DIMGRAPH_TARGET_AVX2 __attribute__((target("avx2,fma")))

namespace dimgraph::detail {

enum class isa_level : unsigned char { target, avx2, avx512 };

// The widest level cpu_isa_level() may give. The tests lower it to run each level the CPU has
// (an AVX-512 machine otherwise never runs the AVX2 kernels); set it only while no kernel runs.
inline isa_level isa_level_cap = isa_level::avx512;

// The widest instruction set the dispatching kernels are compiled for (see above) that this CPU
// (and its OS) supports, found once (out of line, noexcept), within isa_level_cap. The level
// found is kept in a plain atomic byte, not a function-local static: the static's guard (a
// call with an exception path) before the loops of a dispatching kernel kept Clang from
// hoisting the kernel's constants out of them (exp over 2^20 floats, clang++-16 -O3 -march=native
// on an AVX2 CPU: 492 us, 333 with the byte; a loop over simd::exp 327).
#if DIMGRAPH_DISPATCH_AVX2 || DIMGRAPH_DISPATCH_AVX512
inline constexpr unsigned char isa_level_unknown = 0xff;
inline std::atomic<unsigned char> detected_isa_level{isa_level_unknown};
[[gnu::cold]] DIMGRAPH_NOINLINE inline isa_level detect_isa_level() noexcept {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  isa_level level = isa_level::target;
#if DIMGRAPH_DISPATCH_AVX2
  if (avx2) level = isa_level::avx2;
#endif
#if DIMGRAPH_DISPATCH_AVX512
  if (avx2 && __builtin_cpu_supports("avx512f")) level = isa_level::avx512;
#endif
  detected_isa_level.store(static_cast<unsigned char>(level), std::memory_order_relaxed);
  return level;
}
#endif
inline isa_level cpu_isa_level() noexcept {
#if DIMGRAPH_DISPATCH_AVX2 || DIMGRAPH_DISPATCH_AVX512
  const unsigned char found = detected_isa_level.load(std::memory_order_relaxed);
  const isa_level level =
      found == isa_level_unknown ? detect_isa_level() : static_cast<isa_level>(found);
  return level < isa_level_cap ? level : isa_level_cap;
#else
  return isa_level::target;
#endif
}

}  // namespace dimgraph::detail
