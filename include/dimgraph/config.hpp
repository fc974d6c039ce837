// User configuration knobs (DIMGRAPH_CONFIG_*) and portable attribute macros.
#pragma once

// Define to 1 to route large float and double contractions (dg::dot) through a CBLAS
// (cblas_sgemm/dgemm, cblas_sgemv/dgemv; e.g. OpenBLAS: <cblas.h> must be on the include
// path and the program must link it). The CMake option DIMGRAPH_USE_CBLAS does both for
// targets linking dimgraph::dimgraph. Operands whose strides CBLAS cannot express, other
// element types, and products below the threshold use the built-in kernel.
#ifndef DIMGRAPH_CONFIG_USE_CBLAS
#define DIMGRAPH_CONFIG_USE_CBLAS 0
#endif

// With DIMGRAPH_CONFIG_USE_CBLAS: the smallest m * n * k (per batch entry) of a contraction
// that is handed to CBLAS; smaller ones stay with the built-in kernel and skip the library
// call. (Measured against OpenBLAS 0.3.21 single-threaded, whose small-matrix kernels win
// from about 8 x 8 x 8 up; raise it for a CBLAS that is slow on small products.)
#ifndef DIMGRAPH_CONFIG_CBLAS_THRESHOLD
#define DIMGRAPH_CONFIG_CBLAS_THRESHOLD 512
#endif

// The largest all-static tensor, in bytes of its elements, whose elements are kept inline
// (inside the tensor object: on the stack for a local, no allocation). A larger all-static
// tensor keeps its compile-time shape and strides but holds its elements on the heap, so
// that a static weight matrix such as [1024, 768] floats (3 MiB) cannot overflow a thread's
// stack, and moving it moves a pointer.
#ifndef DIMGRAPH_CONFIG_INLINE_LIMIT
#define DIMGRAPH_CONFIG_INLINE_LIMIT 16384
#endif

// The widest SIMD vector, in bytes, that kernels use: the target's widest register (64 with
// AVX-512, 32 with AVX, 16 otherwise) unless this cap is smaller. 16 keeps AVX-512 machines
// on 128-bit vectors (e.g. to avoid frequency drops); 1 gives scalar kernels.
#ifndef DIMGRAPH_CONFIG_SIMD_MAX_BYTES
#define DIMGRAPH_CONFIG_SIMD_MAX_BYTES 64
#endif

// 1: on x86 with GCC or Clang, the matrix-product kernels behind dot are also compiled for
// AVX2 with FMA and for AVX-512 when the build's target lacks them (a build without -march,
// as -O2 alone gives: SSE2), and the widest this CPU supports runs, chosen once at the first
// product. The cap DIMGRAPH_CONFIG_SIMD_MAX_BYTES applies. Products then round as the chosen
// set does (with FMA: one rounding per multiply-add). With Clang, so are softmax and
// log_softmax over contiguous rows of at least 32 elements (eval/softmax.hpp) and element-wise
// kernels that compute math functions (exp, tanh, ...; eval/elementwise.hpp); with GCC too
// under DIMGRAPH_CONFIG_GCC_DISPATCH. 0: the build's target only.
#ifndef DIMGRAPH_CONFIG_DISPATCH
#define DIMGRAPH_CONFIG_DISPATCH 1
#endif

// GCC only: 1 tells the headers that the build passes -Wno-psabi, so that they dispatch, as
// with Clang, the kernels whose vector helpers take and return vectors by value (softmax
// rows; element-wise kernels that compute math functions): otherwise GCC notes an ABI change
// for each such vector wider than the build's target, a note no pragma silences. CMake's
// dimgraph::dimgraph sets both on x86 (option DIMGRAPH_GCC_DISPATCH). 0: with GCC those
// kernels run in the build's own instruction set (then build with -march=x86-64-v3 or
// wider for AVX2).
#ifndef DIMGRAPH_CONFIG_GCC_DISPATCH
#define DIMGRAPH_CONFIG_GCC_DISPATCH 0
#endif

// With OpenMP (-fopenmp; CMake option DIMGRAPH_USE_OPENMP): the fewest elements a kernel
// gives each thread. Smaller kernels run on the calling thread (never fork for tiny tensors).
#ifndef DIMGRAPH_CONFIG_PARALLEL_GRAIN
#define DIMGRAPH_CONFIG_PARALLEL_GRAIN 65536
#endif

// Element-wise kernels write outputs of at least this many bytes with streaming
// (non-temporal) stores, which bypass the caches: an output much larger than the last-level
// cache would only evict the inputs. 0 turns streaming stores off.
#ifndef DIMGRAPH_CONFIG_STREAMING_BYTES
#define DIMGRAPH_CONFIG_STREAMING_BYTES (std::size_t{16} << 20)
#endif

// 1: float tanh, erf and gelu are rational functions, Eigen's forms (whose EIGEN_FAST_MATH is
// also on by default): tanh 5.3 ulp with FMA, 6.3 without; erf 6.1 and 7.4; gelu's negative
// tail has absolute error, as PyTorch's. 0: tighter bounds (tanh 2.5 ulp, erf 2.5, gelu 7.1 with
// relative accuracy in the tail) at 1.2-1.4x (tanh) and 2-3x (erf, gelu) the time. Every
// bound is stated in detail/simd_math.hpp and tested for both settings.
#ifndef DIMGRAPH_CONFIG_FAST_MATH
#define DIMGRAPH_CONFIG_FAST_MATH 1
#endif

// 1: every dg::scan hoists (as with dg::hoist) unless given dg::no_hoist. Hoisting traces the
// body on symbols, so every body must then be traceable (dg ops on its arguments only).
#ifndef DIMGRAPH_CONFIG_SCAN_HOIST
#define DIMGRAPH_CONFIG_SCAN_HOIST 0
#endif

// A hoisting scan keeps, on its thread, the tensors of its last run (the hoisted values, the
// steps' tensors, the packed weights) for its next run, when they take at most this many
// bytes: no allocation and no page faults per call. 0: every run frees them at its end.
#ifndef DIMGRAPH_CONFIG_SCAN_KEEP_BYTES
#define DIMGRAPH_CONFIG_SCAN_KEEP_BYTES (std::size_t{16} << 20)
#endif

// Force or forbid inlining of a function where the compiler supports it. Attributes only:
// write them before the declaration of an inline function, template or lambda body
// (`DIMGRAPH_ALWAYS_INLINE constexpr auto f() {...}`, `[](auto x) DIMGRAPH_ALWAYS_INLINE {...}`).
// DIMGRAPH_FLATTEN inlines every call in a function's body, recursively: the kernel of an
// expression is a tree of small functions, inlined once into the loop that runs it (were
// each node always_inline, every node's own body would first receive its whole subtree,
// and compiling a chain of N ops would cost N^2).
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_ALWAYS_INLINE __attribute__((always_inline))
#define DIMGRAPH_NOINLINE __attribute__((noinline))
#define DIMGRAPH_FLATTEN __attribute__((flatten))
#else
#define DIMGRAPH_ALWAYS_INLINE
#define DIMGRAPH_NOINLINE
#define DIMGRAPH_FLATTEN
#endif

// Unrolls the loop that follows completely (its count is a small constant): the loops over a
// register tile's rows and columns. GCC at -O2 leaves them rolled, which keeps the tile's
// accumulators in memory (a load and a store per multiply-add).
// DIMGRAPH_UNROLL_4: unrolls the loop that follows four times (independent vector steps, a
// run-time count): Clang leaves such a loop rolled, one vector per iteration.
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_UNROLL _Pragma("GCC unroll 16")
#define DIMGRAPH_UNROLL_4 _Pragma("GCC unroll 4")
#else
#define DIMGRAPH_UNROLL
#define DIMGRAPH_UNROLL_4
#endif

// The matrix-product kernels' attribute (eval/gemm.hpp, gemm_direct.hpp). eval/matmul.hpp
// compiles them for a wider instruction set by inlining them into a function of that target
// (flatten): Clang's flatten inlines only the calls written in the function itself, so there
// they are always_inline; GCC's is recursive, so they need nothing, and for the build's own
// target each stays a function of its own: forced inline, they run no faster (the same within
// a few percent, -O3 -march=native) and the translation unit takes longer to compile.
#if defined(__clang__)
#define DIMGRAPH_GEMM_KERNEL DIMGRAPH_ALWAYS_INLINE inline
#else
#define DIMGRAPH_GEMM_KERNEL inline
#endif

// Around the code that run-time dispatch (eval/dispatch.hpp) compiles for a wider instruction
// set than the build's: its helpers take and return vectors by value and are always inlined
// into the wide kernels, so no call passes such a vector across the ABI that -Wpsabi warns of.
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_WIDE_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wpsabi\"")
#define DIMGRAPH_WIDE_END _Pragma("GCC diagnostic pop")
#else
#define DIMGRAPH_WIDE_BEGIN
#define DIMGRAPH_WIDE_END
#endif
