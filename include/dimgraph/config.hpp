// User configuration knobs (DIMGRAPH_CONFIG_*) and portable attribute macros.
#pragma once

// Define to 1 to route large contractions through a CBLAS (e.g. OpenBLAS).
// The program must then link a CBLAS implementation itself.
#ifndef DIMGRAPH_CONFIG_USE_CBLAS
#define DIMGRAPH_CONFIG_USE_CBLAS 0
#endif

// Define to 1 to check internal invariants at run time (indices, extents).
// Costs speed; meant for debugging dimgraph or code that extends it.
#ifndef DIMGRAPH_CONFIG_ENABLE_ASSERTS
#define DIMGRAPH_CONFIG_ENABLE_ASSERTS 0
#endif

// Force or forbid inlining of a function where the compiler supports it. Attributes only:
// write them before the declaration of an inline function, template or lambda body
// (`DIMGRAPH_ALWAYS_INLINE constexpr auto f() {...}`, `[](auto x) DIMGRAPH_ALWAYS_INLINE {...}`).
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_ALWAYS_INLINE __attribute__((always_inline))
#define DIMGRAPH_NOINLINE __attribute__((noinline))
#else
#define DIMGRAPH_ALWAYS_INLINE
#define DIMGRAPH_NOINLINE
#endif
