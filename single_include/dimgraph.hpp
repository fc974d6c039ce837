// dimgraph 0.1.0: single-header distribution, generated from include/dimgraph.hpp
// by tools/amalgamate.py. Do not edit: change include/ and run the script again.
// Needs the Boost headers (Boost.Hana) on the include path.
// Distributed under the Boost Software License, Version 1.0 (see LICENSE).
#pragma once

// ---- begin dimgraph.hpp
// dimgraph: tensors typed by dimension tags. Includes every public header.

// ---- begin dimgraph/config.hpp
// User configuration knobs (DIMGRAPH_CONFIG_*) and portable attribute macros.

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
#if defined(__GNUC__) || defined(__clang__)
#define DIMGRAPH_UNROLL _Pragma("GCC unroll 16")
#else
#define DIMGRAPH_UNROLL
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
// ---- end dimgraph/config.hpp
// ---- begin dimgraph/version.hpp
// Library version: DIMGRAPH_VERSION_{MAJOR,MINOR,PATCH} and DIMGRAPH_VERSION (e.g. 0.1.0 -> 100).

#define DIMGRAPH_VERSION_MAJOR 0
#define DIMGRAPH_VERSION_MINOR 1
#define DIMGRAPH_VERSION_PATCH 0

#define DIMGRAPH_VERSION \
  (DIMGRAPH_VERSION_MAJOR * 10000 + DIMGRAPH_VERSION_MINOR * 100 + DIMGRAPH_VERSION_PATCH)
// ---- end dimgraph/version.hpp
// (First of the layers: a compile-time mistake is reported from it, and GCC prints the chain
// of includes that first reached it.)
// ---- begin dimgraph/detail/require.hpp
// DIMGRAPH_REQUIRE: a compile-time check whose one error line says what is wrong and names
// the dims involved.

#include <type_traits>

// ---- begin dimgraph/detail/fixed_string.hpp
// detail::fixed_string: a string usable as a template argument (dim names).

#include <cstddef>
#include <string_view>

namespace dimgraph::detail {

template <std::size_t N>
struct fixed_string {
  char chars[N]{};  // includes the terminating NUL

  constexpr fixed_string(const char (&s)[N]) {  // NOLINT: implicit by design
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
  constexpr std::size_t size() const { return N - 1; }
};

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/fixed_string.hpp

namespace dimgraph {

// The dims a mistake involves, by the role they play, as they appear in its error line:
// the dims a call names, the dims an operand has, the two operands of a binary op, an operand
// by its name in the op's signature.
template <class... Ds>
struct asked;
template <class... Ds>
struct has;
template <class... Ds>
struct lhs;
template <class... Ds>
struct rhs;
template <detail::fixed_string Name, class... Ds>
struct operand;  // an operand the op's signature names: operand<"W", Gate, Input>

// Declared only: a failed check instantiates it, and the compiler's error line spells it out:
//   incomplete type 'dimgraph::mistake<fixed_string<..>{"dimgraph: softmax: the tensor has no
//   such dim"}, dimgraph::asked<Hidden>, dimgraph::has<Time, Feature>>'
// (With Clang, whose error line shortens long strings in template arguments, the check is a
// static_assert whose requirement, mistake_v<...>, names the dims next to the message.)
template <detail::fixed_string Message, class... Involved>
struct mistake;
template <class... Involved>
inline constexpr bool mistake_v = false;

namespace detail {

// (A variable, not a function: its use is a constant expression, so a check may stand in a
// constexpr function evaluated at compile time and still give one error.)
template <fixed_string Message, class... Involved>
inline constexpr bool reported = sizeof(mistake<Message, Involved...>) != 0;

// For DIMGRAPH_REQUIRE_DECL: a complete class, whose body names the mistake when Ok is false.
// (Named here, not where the check is written: GCC adds a note for each macro it is written in.)
template <bool Ok, fixed_string Message, class... Involved>
struct reported_unless {};
template <fixed_string Message, class... Involved>
struct reported_unless<false, Message, Involved...> {
  static_assert(sizeof(mistake<Message, Involved...>) != 0);
};

// Role<Ds...> for a dim_list<Ds...> (or any L<Ds...>).
template <template <class...> class Role, class L>
struct as_role {
  using type = Role<>;
};
template <template <class...> class Role, template <class...> class L, class... Ds>
struct as_role<Role, L<Ds...>> {
  using type = Role<Ds...>;
};
template <template <class...> class Role, class L>
using as_role_t = typename as_role<Role, L>::type;

// operand<Name, Ds...> for the dims Ds... of X (X::dims, a dim_list; none when X has no dims,
// as a value that is not a tensor).
template <fixed_string Name, class L>
struct named_operand {
  using type = operand<Name>;
};
template <fixed_string Name, template <class...> class L, class... Ds>
struct named_operand<Name, L<Ds...>> {
  using type = operand<Name, Ds...>;
};
template <class X>
struct dims_member {
  using type = void;
};
template <class X>
  requires requires { typename X::dims; }
struct dims_member<X> {
  using type = typename X::dims;
};
// has<Ds...> for X's dims (none when X has no dims).
template <class X>
using has_role_t = typename as_role<has, typename dims_member<std::remove_cvref_t<X>>::type>::type;

// X's element type (X::value_type), or X itself when it is not a tensor.
template <class X>
struct element_of {
  using type = X;
};
template <class X>
  requires requires { typename X::value_type; }
struct element_of<X> {
  using type = typename X::value_type;
};
template <class X>
using element_of_t = typename element_of<std::remove_cvref_t<X>>::type;

template <fixed_string Name, class X>
using operand_role_t =
    typename named_operand<Name, typename dims_member<std::remove_cvref_t<X>>::type>::type;

}  // namespace detail
}  // namespace dimgraph

// In a function template: when `ok` is false, one error whose line holds `message` (a string
// literal starting "dimgraph: <op>: ") and the roles given after it (asked<...>, has<...>,
// lhs<...>, rhs<...>), each dependent on the template's parameters. Nothing is instantiated
// when ok holds. (A macro: a static_assert's message must be a literal where it is written.
// The error is reported from a variable template, not from the expansion: GCC would add a
// note for each macro the check is written in. A condition with a comma outside parentheses,
// f<A, B>(), goes in parentheses.)
#if defined(__clang__)
#define DIMGRAPH_REQUIRE(ok, message, ...) \
  if constexpr (!(ok)) static_assert(::dimgraph::mistake_v<__VA_ARGS__>, message)
#else
#define DIMGRAPH_REQUIRE(ok, message, ...) \
  if constexpr (!(ok)) static_cast<void>(::dimgraph::detail::reported<message, __VA_ARGS__>)
#endif

// DIMGRAPH_REQUIRE as a declaration, for a class body (or any scope): the same one error.
#if defined(__clang__)
#define DIMGRAPH_REQUIRE_DECL(ok, message, ...) \
  static_assert((ok) || ::dimgraph::mistake_v<__VA_ARGS__>, message)
#else
#define DIMGRAPH_REQUIRE_DECL(ok, message, ...) \
  static_assert(sizeof(::dimgraph::detail::reported_unless<(ok), message, __VA_ARGS__>) != 0)
#endif
// ---- end dimgraph/detail/require.hpp

// ---- begin dimgraph/dim/interval.hpp
// dimgraph::interval: constexpr bounds {lo, hi} of a dim's extent, with an unbounded top.

#include <algorithm>
#include <limits>
#include <string>

namespace dimgraph {

// The upper bound of an interval with no upper limit ("dynamic": [0, unbounded]).
inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

// A set of extents {lo, lo + 1, ..., hi}; hi == unbounded means no upper limit.
// lo > hi is the empty interval: the result of intersecting disjoint intervals.
// Every operation is sound (each concrete result of concrete members lies in the
// result) and the result is the tightest interval with that property; operations
// on an empty interval give the empty interval. Arithmetic saturates at unbounded.
struct interval {
  std::size_t lo = 0;
  std::size_t hi = unbounded;

  static constexpr interval empty() { return {1, 0}; }
  static constexpr interval exactly(std::size_t n) { return {n, n}; }

  constexpr bool is_empty() const { return lo > hi; }
  constexpr bool is_static() const { return lo == hi; }
  constexpr bool is_bounded() const { return hi != unbounded; }
  constexpr bool is_dynamic() const { return lo == 0 && hi == unbounded; }
  constexpr bool contains(std::size_t n) const { return lo <= n && n <= hi; }
  // o is a subset of *this (the empty interval is a subset of every interval).
  constexpr bool contains(interval o) const { return o.is_empty() || (lo <= o.lo && o.hi <= hi); }

  friend constexpr bool operator==(interval a, interval b) {
    return (a.is_empty() && b.is_empty()) || (a.lo == b.lo && a.hi == b.hi);
  }

  // {x + y}: [a.lo + b.lo, a.hi + b.hi]
  friend constexpr interval operator+(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    return {add_(a.lo, b.lo), add_(a.hi, b.hi)};
  }
  // {max(x - y, 0)}: the clamped difference (a padding removed from a length).
  friend constexpr interval operator-(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    const std::size_t low = (b.hi != unbounded && a.lo > b.hi) ? a.lo - b.hi : 0;
    const std::size_t high = a.hi == unbounded ? unbounded : (a.hi > b.lo ? a.hi - b.lo : 0);
    return {low, high};
  }
  // {x * y}: [a.lo * b.lo, a.hi * b.hi], with 0 * unbounded = 0.
  friend constexpr interval operator*(interval a, interval b) {
    if (a.is_empty() || b.is_empty()) return empty();
    return {mul_(a.lo, b.lo), mul_(a.hi, b.hi)};
  }

 private:
  static constexpr std::size_t add_(std::size_t x, std::size_t y) {
    return (x > unbounded - y) ? unbounded : x + y;
  }
  static constexpr std::size_t mul_(std::size_t x, std::size_t y) {
    if (x == 0 || y == 0) return 0;
    return (x > unbounded / y) ? unbounded : x * y;
  }
};

// The name dim tags use for an interval size: dg::dim<"t", dg::range{1, 8}>.
using range = interval;

// {floor(x / k)} for k > 0.
constexpr interval floordiv(interval a, std::size_t k) {
  if (a.is_empty()) return interval::empty();
  return {a.lo / k, a.hi == unbounded ? unbounded : a.hi / k};
}
// {ceil(x / k)} for k > 0.
constexpr interval ceildiv(interval a, std::size_t k) {
  if (a.is_empty()) return interval::empty();
  auto up = [k](std::size_t x) { return x / k + (x % k != 0); };
  return {up(a.lo), a.hi == unbounded ? unbounded : up(a.hi)};
}
// {x / y : y divides x}: a sound bound of an exact split (y = 0 is never a divisor).
constexpr interval exact_div(interval a, interval b) {
  if (a.is_empty() || b.is_empty() || b.hi == 0) return interval::empty();
  std::size_t b_lo = std::max<std::size_t>(b.lo, 1);
  // A divisor of x >= 1 is at most x, so a non-zero x gives a quotient >= 1.
  std::size_t lo = a.lo == 0           ? 0
                   : b.hi == unbounded ? 1
                                       : std::max<std::size_t>(1, a.lo / b.hi + (a.lo % b.hi != 0));
  std::size_t hi = a.hi == unbounded ? unbounded : a.hi / b_lo;
  return {lo, hi};
}

// Merge (nGraph's Dimension::merge): the extents both intervals allow. Dims that
// must agree are merged; an empty result means they cannot agree (an error for the
// caller, which knows the op and the dims).
constexpr interval intersect(interval a, interval b) {
  if (a.is_empty() || b.is_empty()) return interval::empty();
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}
// The smallest interval containing both.
constexpr interval hull(interval a, interval b) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
// nGraph's Dimension::broadcast_merge, for size-1 broadcasting by position:
//   both may be 1      -> hull (either side may be the one broadcast);
//   only one may be 1  -> the other (if it broadcasts, the result is the other;
//                         if not, the two must agree, which also gives the other);
//   neither may be 1   -> intersect (they must agree).
// dimgraph aligns by tag and never broadcasts a size-1 dim itself; the rule is here
// for importing position-aligned shapes.
constexpr interval broadcast_merge(interval a, interval b) {
  if (a.is_empty() || b.is_empty()) return interval::empty();
  bool a1 = a.contains(std::size_t{1}), b1 = b.contains(std::size_t{1});
  if (a1 && b1) return hull(a, b);
  if (a1) return b;
  if (b1) return a;
  return intersect(a, b);
}

// An interval as text, as messages print it: "[1, 8]", "[4, inf]", "[0, inf]" (dynamic).
// (Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "[" + std::string.)
inline std::string to_string(interval i) {
  std::string out(1, '[');
  out += std::to_string(i.lo);
  out += ", ";
  out += i.is_bounded() ? std::to_string(i.hi) : std::string("inf");
  out += ']';
  return out;
}

}  // namespace dimgraph
// ---- end dimgraph/dim/interval.hpp
// ---- begin dimgraph/dim/tag.hpp
// dimgraph::dim: dimension tags (identity = the type), their size, kind and traits.

#include <concepts>


namespace dimgraph {

// Metadata used by defaults (e.g. "the feature dim" of nn::linear); never a guess:
// an ambiguous default is a compile error at the op that needs it.
enum class dim_kind { batch, spatial, feature };

// Every dim expression (tags and results of the dim algebra) derives from this.
struct dim_expr_base {};
// Every tag derives from this.
struct dim_tag_base : dim_expr_base {};

// The size argument of a ragged dim: a dynamic dim whose valid length differs per entry of
// the batch dim B (a tag). struct Time : dg::dim<"time", dg::ragged<dg::batch>> {};
template <class B>
struct ragged_over {
  using batch = B;
};
template <class B>
inline constexpr ragged_over<B> ragged{};

namespace detail {

template <class S>
struct ragged_size : std::false_type {};
template <class B>
struct ragged_size<ragged_over<B>> : std::true_type {};

template <class S>
constexpr interval size_to_interval(S size) {
  if constexpr (std::is_same_v<S, interval>) {
    return size;
  } else if constexpr (ragged_size<S>::value) {
    return interval{};
  } else {
    static_assert(std::is_integral_v<S> && !std::is_same_v<S, bool>,
                  "dimgraph: dim: a size is an integer, a dg::range{lo, hi} or omitted (dynamic)");
    if constexpr (std::is_signed_v<S>)
      return size < 0 ? interval::empty() : interval::exactly(static_cast<std::size_t>(size));
    else return interval::exactly(static_cast<std::size_t>(size));
  }
}

// The default kind: a static size is a feature dim, anything else a spatial one.
constexpr dim_kind default_kind(interval size) {
  return size.is_static() ? dim_kind::feature : dim_kind::spatial;
}

// The check of a tag's size, in a class of its own: Clang drops a class whose body holds a
// failed check as a base, and a tag derived from it would then be no dim at every later use.
template <fixed_string Name, interval Bounds>
struct dim_size_check {
  DIMGRAPH_REQUIRE_DECL(!Bounds.is_empty(),
                        "dimgraph: dim: the size interval is empty (lo > hi) or the size is "
                        "negative",
                        operand<Name>);
};

}  // namespace detail

// A dimension tag. Declare one as a struct so the struct is the identity:
//   struct Time    : dg::dim<"time"> {};                 // dynamic: [0, unbounded]
//   struct Feature : dg::dim<"feature", 512> {};         // static
//   struct Beam    : dg::dim<"beam", dg::range{1, 8}> {};// interval
//   struct Time    : dg::dim<"time", dg::ragged<Batch>> {};  // dynamic, a length per batch entry
// Two tags with equal names and sizes are still different dims.
// Error: an empty size interval (lo > hi) or a negative size.
template <detail::fixed_string Name, auto Size = interval{},
          dim_kind Kind = detail::default_kind(detail::size_to_interval(Size))>
struct dim : dim_tag_base {
  static constexpr std::string_view name = Name.view();
  static constexpr interval bounds = detail::size_to_interval(Size);
  static constexpr dim_kind kind = Kind;
  static_assert(sizeof(detail::dim_size_check<Name, bounds>) != 0);
  static constexpr auto size_argument = Size;
};

// The one predefined global batch dim (dynamic).
struct batch : dim<"batch", interval{}, dim_kind::batch> {};

// A user-declared (atomic) tag.
template <class T>
inline constexpr bool is_tag_v =
    std::is_base_of_v<dim_tag_base, T> && std::is_same_v<T, std::remove_cvref_t<T>>;

namespace detail {
template <class D>
struct ragged_batch_of {
  using type = void;
};
template <class D>
  requires ragged_size<std::remove_cvref_t<decltype(D::size_argument)>>::value
struct ragged_batch_of<D> {
  using type = typename std::remove_cvref_t<decltype(D::size_argument)>::batch;
  static_assert(std::is_base_of_v<dim_tag_base, type> && !std::is_same_v<type, D>,
                "dimgraph: ragged: a dim is ragged over another dim tag");
};
}  // namespace detail

// The batch dim a ragged dim D has its lengths over (void when D is not ragged).
template <class D>
using ragged_batch_t = typename detail::ragged_batch_of<std::remove_cvref_t<D>>::type;
template <class D>
inline constexpr bool is_ragged_v = !std::is_void_v<ragged_batch_t<D>>;

// Any dim: a tag or a result of the dim algebra (cv-qualifiers and references are
// ignored, so decltype of a constexpr dim variable works everywhere).
template <class T>
concept dimension = std::is_base_of_v<dim_expr_base, std::remove_cvref_t<T>>;

// Dim equality is type identity: the algebra's result types are canonical.
template <class A, class B>
inline constexpr bool same_dim_v = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;

}  // namespace dimgraph
// ---- end dimgraph/dim/tag.hpp
// ---- begin dimgraph/dim/atom.hpp
// atomic_dim: the members a dim that the algebra never looks inside provides.



namespace dimgraph {

// Every dim is either a form of the algebra (dim/forms.hpp: a constant, a sum, a product, an
// opaque split or removal), whose size, kind and printed form come from its parts, or an
// atomic dim, which the algebra treats as one indivisible unit and which says these itself.
// Atoms are the tags (dg::dim<...>) and the private dims an op makes, declared beside it:
// reversed_dim and sliced_dim (shape/slice_rule.hpp), part_dim and trip_dim
// (graph/slicing.hpp), pad_part (ops/concat.hpp), packed_dim (ops/pack.hpp),
// nn::key_dim (nn/attention_params.hpp) and invalid_dim (the stand-in after a reported
// mistake, dim/operators.hpp). An atomic dim D has these static members:
//   D::bounds      an interval    the extents it can have (bounds_v<D>);
//   D::kind        a dim_kind     its kind (kind_v<D>), which the dims made from it share;
//   D::name        a string_view  how describe<D>() prints it ("time"), or instead
//   D::describe()  a std::string  for a printed form built from another dim ("reverse(time)");
// and, when it is made from one other dim A (a reversal, a slice, a part of A):
//   D::source      A              whose kinds it shares, all of them (so reverse(4) * batch
//                                 is a batch dim, as 4 * batch is); kind is then A's.
// A dim with a length per entry of a batch dim says so through detail::ragged_batch_of
// (dim/tag.hpp: a tag by its size argument, another atom by a specialisation beside it); any
// other atom has none. Nothing else about an atom is read: its template parameters, of
// whatever kinds, are its own business.
namespace detail {
template <class D>
concept sized_and_kinded = requires {
  { D::bounds } -> std::convertible_to<interval>;
  { D::kind } -> std::convertible_to<dim_kind>;
};
template <class D>
concept named = requires {
  { D::name } -> std::convertible_to<std::string_view>;
};
template <class D>
concept self_describing = requires { D::describe(); };
}  // namespace detail

template <class D>
concept atomic_dim =
    dimension<D> && detail::sized_and_kinded<D> && (detail::named<D> || detail::self_describing<D>);

namespace detail {

// The check, in a class of its own: made once per type, so that bounds_v, kind_v and
// describe(), which all read an atom's members, give one error between them for a dim that is
// no atom (which then reads as size 0, no kind, printed "<invalid>"); and apart from the
// readers' values, since Clang drops a class whose body holds a failed check.
template <class D>
struct atom_check {
  DIMGRAPH_REQUIRE_DECL(atomic_dim<D>,
                        "dimgraph: dim: a dim that is not a form of the algebra must be an atomic "
                        "dim (static members bounds, kind, and name or describe())",
                        asked<D>);
};

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/dim/atom.hpp
// ---- begin dimgraph/dim/forms.hpp
// The canonical forms of derived dims, and how a form splits into terms and factors.


// ---- begin dimgraph/detail/type_list.hpp
// detail::type_list and the few list operations the dim and shape layers need.

#include <utility>

namespace dimgraph::detail {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

// at_t<I, List>: constant-depth indexing (one base-class lookup, no recursion).
template <std::size_t I, class T>
struct indexed {
  using type = T;
};
template <class Is, class... Ts>
struct indexer;
template <std::size_t... Is, class... Ts>
struct indexer<std::index_sequence<Is...>, Ts...> : indexed<Is, Ts>... {};
template <std::size_t I, class T>
indexed<I, T> select_indexed(indexed<I, T>);

template <std::size_t I, class List>
struct at;
template <std::size_t I, class... Ts>
struct at<I, type_list<Ts...>> {
  static_assert(I < sizeof...(Ts), "dimgraph: internal: index out of range");
  using type =
      typename decltype(select_indexed<I>(indexer<std::index_sequence_for<Ts...>, Ts...>{}))::type;
};
template <std::size_t I, class List>
using at_t = typename at<I, List>::type;

// slice_t<B, E, List>: the elements [B, E).
template <std::size_t B, class List, class Is>
struct slice_impl;
template <std::size_t B, class List, std::size_t... Is>
struct slice_impl<B, List, std::index_sequence<Is...>> {
  using type = type_list<at_t<B + Is, List>...>;
};
template <std::size_t B, std::size_t E, class List>
using slice_t = typename slice_impl<B, List, std::make_index_sequence<E - B>>::type;

template <class List>
using front_t = at_t<0, List>;
template <class List>
using back_t = at_t<List::size - 1, List>;
template <class List>
using pop_front_t = slice_t<1, List::size, List>;
// The last element of any list L<Ts...> (type_list, dim_list, ...); void for an empty one.
template <class List>
struct last_or_void;
template <template <class...> class L, class... Ts>
struct last_or_void<L<Ts...>> {
  using type = at_t<sizeof...(Ts) - 1, type_list<Ts...>>;
};
template <template <class...> class L>
struct last_or_void<L<>> {
  using type = void;
};
template <class List>
using last_or_void_t = typename last_or_void<List>::type;
template <class List>
using pop_back_t = slice_t<0, List::size - 1, List>;

// concat_t<Lists...>: eight lists a step. (Not a fold over an operator: argument-dependent
// lookup would bring every operator of the elements' namespaces, the library's and the
// user's, into each step, and check their constraints against long lists.)
template <class... Lists>
struct concat;
template <>
struct concat<> {
  using type = type_list<>;
};
template <class... A>
struct concat<type_list<A...>> {
  using type = type_list<A...>;
};
template <class... A, class... B>
struct concat<type_list<A...>, type_list<B...>> {
  using type = type_list<A..., B...>;
};
template <class... A, class... B, class... C>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>> {
  using type = type_list<A..., B..., C...>;
};
template <class... A, class... B, class... C, class... D, class... Rest>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>, type_list<D...>, Rest...>
    : concat<type_list<A..., B..., C..., D...>, Rest...> {};
template <class... A, class... B, class... C, class... D, class... E, class... F, class... G,
          class... H, class... Rest>
struct concat<type_list<A...>, type_list<B...>, type_list<C...>, type_list<D...>, type_list<E...>,
              type_list<F...>, type_list<G...>, type_list<H...>, Rest...>
    : concat<type_list<A..., B..., C..., D..., E..., F..., G..., H...>, Rest...> {};
template <class... Lists>
using concat_t = typename concat<Lists...>::type;

// index_of_v<T, List>: position of the first T, or List::size when absent.
template <class T, class... Ts>
constexpr std::size_t index_of_impl() {
  constexpr bool hits[] = {std::is_same_v<T, Ts>..., false};
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (hits[i]) return i;
  return sizeof...(Ts);
}
template <class T, class List>
struct index_of;
template <class T, class... Ts>
struct index_of<T, type_list<Ts...>>
    : std::integral_constant<std::size_t, index_of_impl<T, Ts...>()> {};
template <class T, class List>
inline constexpr std::size_t index_of_v = index_of<T, List>::value;

template <class T, class List>
inline constexpr bool contains_v = index_of_v<T, List> < List::size;

// is_prefix_v / is_suffix_v<Part, Whole>: Part's elements start / end Whole.
template <class Part, class Whole>
constexpr bool is_prefix_impl() {
  if constexpr (Part::size > Whole::size) return false;
  else return std::is_same_v<Part, slice_t<0, Part::size, Whole>>;
}
template <class Part, class Whole>
inline constexpr bool is_prefix_v = is_prefix_impl<Part, Whole>();
template <class Part, class Whole>
constexpr bool is_suffix_impl() {
  if constexpr (Part::size > Whole::size) return false;
  else return std::is_same_v<Part, slice_t<Whole::size - Part::size, Whole::size, Whole>>;
}
template <class Part, class Whole>
inline constexpr bool is_suffix_v = is_suffix_impl<Part, Whole>();

// first_duplicate_v<List>: index of the first element that occurs earlier too, or size.
template <class... Ts>
constexpr std::size_t first_duplicate_impl(type_list<Ts...>) {
  constexpr std::size_t firsts[] = {index_of_impl<Ts, Ts...>()..., 0};
  for (std::size_t i = 0; i < sizeof...(Ts); ++i)
    if (firsts[i] != i) return i;
  return sizeof...(Ts);
}
template <class List>
inline constexpr std::size_t first_duplicate_v = first_duplicate_impl(List{});

// filter_t<Keep, List>: the elements whose Keep<T>::value is true, in order.
template <template <class> class Keep, class List>
struct filter;
template <template <class> class Keep, class... Ts>
struct filter<Keep, type_list<Ts...>> {
  using type = concat_t<std::conditional_t<Keep<Ts>::value, type_list<Ts>, type_list<>>...>;
};
template <template <class> class Keep, class List>
using filter_t = typename filter<Keep, List>::type;

// repeat_t<K, List>: List's elements K times over.
template <class List, std::size_t>
using repeat_one = List;
template <std::size_t K, class List, class Is = std::make_index_sequence<K>>
struct repeat;
template <std::size_t K, class List, std::size_t... Is>
struct repeat<K, List, std::index_sequence<Is...>> {
  using type = concat_t<repeat_one<List, Is>...>;
};
template <std::size_t K, class List>
using repeat_t = typename repeat<K, List>::type;

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/type_list.hpp

namespace dimgraph {

// Results of the dim algebra. They are produced by the operators in
// dim/algebra.hpp and are always in normal form, so that two expressions denote the
// same ordered index space exactly when their types are the same. Normal form:
//  - const_dim<K>: the anonymous constant dim of size K (written dg::c<K>);
//  - dim_prod<F...>: a merge, F[0] major; two or more factors; no factor is 1;
//    no two constants are adjacent; only the last factor may be a sum, and the
//    factor before such a sum is not a constant (k * S is S repeated k times);
//    a leading constant is the coefficient of a term;
//  - dim_sum<T...>: a concatenation of two or more terms (tags, opaque dims,
//    constants or products); no term is 0; adjacent terms never share their unit
//    (k1 * u + k2 * u is written (k1 + k2) * u);
//  - opaque dims, which the algebra could not simplify (their parts are normal):
//    dim_quotient<A, B> = A / B, dim_left_quotient<B, A> = div_left(B, A),
//    dim_difference<A, B> = A - B, dim_left_difference<B, A> = sub_left(B, A),
//    dim_ceildiv<A, K>, dim_floordiv<A, K>.
// Any other dim (a tag, or a private dim an op makes) is an atomic dim: see dim/atom.hpp.
template <std::size_t K>
struct const_dim : dim_expr_base {
  static constexpr std::size_t value = K;
};
template <class... Factors>
struct dim_prod : dim_expr_base {};
template <class... Terms>
struct dim_sum : dim_expr_base {};
template <class A, class B>
struct dim_quotient : dim_expr_base {
  using dividend = A;
  using divisor = B;
};
template <class B, class A>
struct dim_left_quotient : dim_expr_base {
  using dividend = A;
  using divisor = B;
};
template <class A, class B>
struct dim_difference : dim_expr_base {};
template <class B, class A>
struct dim_left_difference : dim_expr_base {};
template <class A, std::size_t K>
struct dim_ceildiv : dim_expr_base {};
template <class A, std::size_t K>
struct dim_floordiv : dim_expr_base {};

// dg::c<K>: the constant dim of size K.
template <std::size_t K>
inline constexpr const_dim<K> c{};

namespace detail {

using detail::type_list;

template <class T>
inline constexpr bool is_const_v = false;
template <std::size_t K>
inline constexpr bool is_const_v<const_dim<K>> = true;
template <class T>
inline constexpr bool is_sum_v = false;
template <class... Ts>
inline constexpr bool is_sum_v<dim_sum<Ts...>> = true;
template <class T>
inline constexpr bool is_quotient_form_v = false;
template <class A, class B>
inline constexpr bool is_quotient_form_v<dim_quotient<A, B>> = true;
template <class T>
inline constexpr bool is_left_quotient_form_v = false;
template <class B, class A>
inline constexpr bool is_left_quotient_form_v<dim_left_quotient<B, A>> = true;
template <class T>
inline constexpr bool is_prod_v = false;
template <class... Fs>
inline constexpr bool is_prod_v<dim_prod<Fs...>> = true;

// terms_t<X>: X as a concatenation (0 has no terms).
template <class X>
struct terms {
  using type = type_list<X>;
};
template <class... Ts>
struct terms<dim_sum<Ts...>> {
  using type = type_list<Ts...>;
};
template <>
struct terms<const_dim<0>> {
  using type = type_list<>;
};
template <class X>
using terms_t = typename terms<X>::type;

// factors_t<X>: X as a merge (1 has no factors).
template <class X>
struct factors {
  using type = type_list<X>;
};
template <class... Fs>
struct factors<dim_prod<Fs...>> {
  using type = type_list<Fs...>;
};
template <>
struct factors<const_dim<1>> {
  using type = type_list<>;
};
template <class X>
using factors_t = typename factors<X>::type;

// from_terms_t / from_factors_t: rebuild a dim from an already normal list.
template <class List>
struct from_terms;
template <>
struct from_terms<type_list<>> {
  using type = const_dim<0>;
};
template <class T>
struct from_terms<type_list<T>> {
  using type = T;
};
template <class T, class U, class... Ts>
struct from_terms<type_list<T, U, Ts...>> {
  using type = dim_sum<T, U, Ts...>;
};
template <class List>
using from_terms_t = typename from_terms<List>::type;

template <class List>
struct from_factors;
template <>
struct from_factors<type_list<>> {
  using type = const_dim<1>;
};
template <class F>
struct from_factors<type_list<F>> {
  using type = F;
};
template <class F, class G, class... Fs>
struct from_factors<type_list<F, G, Fs...>> {
  using type = dim_prod<F, G, Fs...>;
};
template <class List>
using from_factors_t = typename from_factors<List>::type;

// A term is coefficient * unit: 3 * a -> (3, a); c<5> -> (5, c<1>); a * b -> (1, a * b).
template <class T>
struct term_parts {
  static constexpr std::size_t coef = 1;
  using unit = T;
};
template <std::size_t K>
struct term_parts<const_dim<K>> {
  static constexpr std::size_t coef = K;
  using unit = const_dim<1>;
};
template <std::size_t K, class F, class... Fs>
struct term_parts<dim_prod<const_dim<K>, F, Fs...>> {
  static constexpr std::size_t coef = K;
  using unit = from_factors_t<type_list<F, Fs...>>;
};
template <class T>
using unit_t = typename term_parts<T>::unit;
template <class T>
inline constexpr std::size_t coef_v = term_parts<T>::coef;

// make_term_t<K, U>: the normal form of K * U for a unit U (K > 0).
template <std::size_t K, class U>
struct make_term {
  using type = from_factors_t<concat_t<type_list<const_dim<K>>, factors_t<U>>>;
};
template <class U>
struct make_term<1, U> {
  using type = U;
};
template <std::size_t K>
struct make_term<K, const_dim<1>> {
  using type = const_dim<K>;
};
template <>
struct make_term<1, const_dim<1>> {
  using type = const_dim<1>;
};
template <std::size_t K, class U>
using make_term_t = typename make_term<K, U>::type;

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/dim/forms.hpp
// ---- begin dimgraph/dim/size.hpp
// Sizes and kinds of dims: bounds_v, is_static_v, static_size_v, kind_v.



namespace dimgraph {
namespace detail {

// Interval arithmetic on the parts (sound, not always tight for splits).
template <class D>
struct bounds_of {  // an atom
  static_assert(sizeof(atom_check<D>) != 0);
  static constexpr interval value = [] {
    if constexpr (atomic_dim<D>) return interval{D::bounds};
    else return interval::exactly(0);
  }();
};
template <std::size_t K>
struct bounds_of<const_dim<K>> {
  static constexpr interval value = interval::exactly(K);
};
template <class... Ts>
struct bounds_of<dim_sum<Ts...>> {
  static constexpr interval value = (bounds_of<Ts>::value + ...);
};
template <class... Fs>
struct bounds_of<dim_prod<Fs...>> {
  static constexpr interval value = (bounds_of<Fs>::value * ...);
};
template <class A, class B>
struct bounds_of<dim_quotient<A, B>> {
  static constexpr interval value = exact_div(bounds_of<A>::value, bounds_of<B>::value);
};
template <class B, class A>
struct bounds_of<dim_left_quotient<B, A>> {
  static constexpr interval value = exact_div(bounds_of<A>::value, bounds_of<B>::value);
};
template <class A, class B>
struct bounds_of<dim_difference<A, B>> {
  static constexpr interval value = bounds_of<A>::value - bounds_of<B>::value;
};
template <class B, class A>
struct bounds_of<dim_left_difference<B, A>> {
  static constexpr interval value = bounds_of<A>::value - bounds_of<B>::value;
};
template <class A, std::size_t K>
struct bounds_of<dim_ceildiv<A, K>> {
  static constexpr interval value = ceildiv(bounds_of<A>::value, K);
};
template <class A, std::size_t K>
struct bounds_of<dim_floordiv<A, K>> {
  static constexpr interval value = floordiv(bounds_of<A>::value, K);
};

// The kinds of the atoms inside a dim, as a bit mask.
template <class D>
struct kinds_of {  // an atom
  static_assert(sizeof(atom_check<D>) != 0);
  static constexpr unsigned value = [] {
    if constexpr (!atomic_dim<D>) return 0u;
    else if constexpr (requires { typename D::source; }) return kinds_of<typename D::source>::value;
    else return 1u << static_cast<unsigned>(dim_kind{D::kind});
  }();
};
template <class... Parts>
struct parts_kinds {
  static constexpr unsigned value = (0u | ... | kinds_of<Parts>::value);
};
template <std::size_t K>
struct kinds_of<const_dim<K>> : parts_kinds<> {};
template <class... Ts>
struct kinds_of<dim_sum<Ts...>> : parts_kinds<Ts...> {};
template <class... Fs>
struct kinds_of<dim_prod<Fs...>> : parts_kinds<Fs...> {};
template <class A, class B>
struct kinds_of<dim_quotient<A, B>> : parts_kinds<A, B> {};
template <class B, class A>
struct kinds_of<dim_left_quotient<B, A>> : parts_kinds<B, A> {};
template <class A, class B>
struct kinds_of<dim_difference<A, B>> : parts_kinds<A, B> {};
template <class B, class A>
struct kinds_of<dim_left_difference<B, A>> : parts_kinds<B, A> {};
template <class A, std::size_t K>
struct kinds_of<dim_ceildiv<A, K>> : parts_kinds<A> {};
template <class A, std::size_t K>
struct kinds_of<dim_floordiv<A, K>> : parts_kinds<A> {};

// Which derived dims are ragged (RETURNN's rule: a dim computed from a ragged dim has a
// length per batch entry, computed from that dim's lengths by the same arithmetic):
//  - a sum (concat, pad) whose ragged terms are all ragged over the same batch dim:
//    length = the sum of the terms' lengths (a term that is not ragged counts its extent);
//  - a product with exactly one ragged factor, every other factor static (merge_dims of a
//    ragged dim with static inner dims; a + a): length = the factor's length times the rest;
//  - A - B and sub_left(B, A) with A ragged and B static (slices): the clamped difference;
//  - ceildiv(A, k) and floordiv(A, k) with A ragged (strided windows).
// Any other dim built from a ragged one (two ragged dims over different batch dims, a ragged
// factor inside a merge with a dynamic one, a quotient) is not ragged: an op that would make
// it from a dim with lengths is a compile error, not a silent loss of the lengths.
struct ragged_conflict {};

template <class Acc, class... Ds>
struct common_ragged {
  using type = std::conditional_t<std::is_same_v<Acc, ragged_conflict>, void, Acc>;
};
template <class Acc, class D, class... Ds>
struct common_ragged<Acc, D, Ds...> {
  using b = ragged_batch_t<D>;
  using next = std::conditional_t<
      std::is_void_v<b>, Acc,
      std::conditional_t<std::is_void_v<Acc> || std::is_same_v<Acc, b>, b, ragged_conflict>>;
  using type = typename common_ragged<next, Ds...>::type;
};

template <class... Ts>
struct ragged_batch_of<dim_sum<Ts...>> : common_ragged<void, Ts...> {};
template <class... Fs>
struct ragged_batch_of<dim_prod<Fs...>> {
  // One ragged factor, the major one (after a constant coefficient, k * A being A repeated k
  // times), every other factor static: each row's valid positions stay a prefix.
  static constexpr bool prefix = [] {
    const bool ragged[] = {!std::is_void_v<ragged_batch_t<Fs>>...};
    const bool fixed[] = {bounds_of<Fs>::value.is_static()...};
    const bool constant[] = {is_const_v<Fs>...};
    std::size_t count = 0, first = sizeof...(Fs);
    for (std::size_t i = 0; i < sizeof...(Fs); ++i)
      if (ragged[i]) {
        ++count;
        if (first == sizeof...(Fs)) first = i;
      } else if (!fixed[i]) {
        return false;
      }
    for (std::size_t i = 0; i < first; ++i)
      if (!constant[i]) return false;
    return count == 1;
  }();
  using type = std::conditional_t<prefix, typename common_ragged<void, Fs...>::type, void>;
};
template <class A, class B>
struct ragged_batch_of<dim_difference<A, B>> {
  using type = std::conditional_t<bounds_of<B>::value.is_static(), ragged_batch_t<A>, void>;
};
template <class B, class A>
struct ragged_batch_of<dim_left_difference<B, A>> {
  using type = std::conditional_t<bounds_of<B>::value.is_static(), ragged_batch_t<A>, void>;
};
template <class A, std::size_t K>
struct ragged_batch_of<dim_ceildiv<A, K>> {
  using type = ragged_batch_t<A>;
};
template <class A, std::size_t K>
struct ragged_batch_of<dim_floordiv<A, K>> {
  using type = ragged_batch_t<A>;
};

constexpr dim_kind kind_from_mask(unsigned mask) {
  for (unsigned k = 0; k < 3; ++k)
    if (mask == (1u << k)) return static_cast<dim_kind>(k);
  return mask == 0 ? dim_kind::feature : dim_kind::spatial;
}

}  // namespace detail

// The interval of extents a dim can have.
template <dimension D>
inline constexpr interval bounds_v = detail::bounds_of<std::remove_cvref_t<D>>::value;

template <dimension D>
inline constexpr bool is_static_v = bounds_v<D>.is_static();

// The size of a static dim. Error: the dim is not static.
template <dimension D>
constexpr std::size_t static_size() {
  static_assert(is_static_v<D>, "dimgraph: static_size: the dim is not static");
  return bounds_v<D>.lo;
}
template <dimension D>
inline constexpr std::size_t static_size_v = static_size<D>();

// A tag's kind; a derived dim has the kind all its tags share (constants alone are
// feature-like), and spatial when its tags' kinds differ.
template <dimension D>
inline constexpr dim_kind kind_v =
    detail::kind_from_mask(detail::kinds_of<std::remove_cvref_t<D>>::value);

}  // namespace dimgraph
// ---- end dimgraph/dim/size.hpp
// ---- begin dimgraph/dim/describe.hpp
// describe<D>(): a dim's readable description, e.g. "(a+b)*c" or "key_total/heads".



namespace dimgraph {
namespace detail {

// Binding strength: a part binding weaker than its context is parenthesised.
enum describe_level { level_sum = 1, level_prod = 2, level_split = 3, level_atom = 4 };

template <class D>
struct describer {  // an atom
  static_assert(sizeof(atom_check<D>) != 0);
  static constexpr int level = level_atom;
  static std::string text() {
    if constexpr (!atomic_dim<D>) return "<invalid>";
    else if constexpr (requires { D::describe(); }) return D::describe();
    else return std::string(D::name);
  }
};

template <class D>
std::string describe_at(int context) {
  std::string s = describer<D>::text();
  return describer<D>::level < context ? "(" + s + ")" : s;
}
template <class... Ds>
std::string describe_joined(const char* sep, int context) {
  std::string s;
  ((s += (s.empty() ? "" : sep) + describe_at<Ds>(context)), ...);
  return s;
}

template <std::size_t K>
struct describer<const_dim<K>> {
  static constexpr int level = level_atom;
  static std::string text() { return std::to_string(K); }
};
template <class... Ts>
struct describer<dim_sum<Ts...>> {
  static constexpr int level = level_sum;
  static std::string text() { return describe_joined<Ts...>("+", level_sum); }
};
template <class... Fs>
struct describer<dim_prod<Fs...>> {
  static constexpr int level = level_prod;
  static std::string text() { return describe_joined<Fs...>("*", level_prod); }
};
// Operands of / and - are parenthesised unless atomic, so (a*b)/c and a*(b/c) differ.
template <class A, class B>
struct describer<dim_quotient<A, B>> {
  static constexpr int level = level_split;
  static std::string text() {
    return describe_at<A>(level_atom) + "/" + describe_at<B>(level_atom);
  }
};
template <class A, class B>
struct describer<dim_difference<A, B>> {
  static constexpr int level = level_sum;
  static std::string text() {
    return describe_at<A>(level_atom) + "-" + describe_at<B>(level_atom);
  }
};
template <class B, class A>
struct describer<dim_left_quotient<B, A>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "div_left(" + describer<B>::text() + "," + describer<A>::text() + ")";
  }
};
template <class B, class A>
struct describer<dim_left_difference<B, A>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "sub_left(" + describer<B>::text() + "," + describer<A>::text() + ")";
  }
};
template <class A, std::size_t K>
struct describer<dim_ceildiv<A, K>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "ceildiv(" + describer<A>::text() + "," + std::to_string(K) + ")";
  }
};
template <class A, std::size_t K>
struct describer<dim_floordiv<A, K>> {
  static constexpr int level = level_atom;
  static std::string text() {
    return "floordiv(" + describer<A>::text() + "," + std::to_string(K) + ")";
  }
};

}  // namespace detail

// The dim in the algebra's notation: tags by name, constants by value.
template <dimension D>
std::string describe() {
  return detail::describer<std::remove_cvref_t<D>>::text();
}

}  // namespace dimgraph
// ---- end dimgraph/dim/describe.hpp
// ---- begin dimgraph/dim/operators.hpp
// The dim algebra on tag values: + * / - div_left sub_left ceildiv floordiv.


// ---- begin dimgraph/dim/difference.hpp
// Removing a term of a dim: a - b (trailing term) and sub_left(b, a) (leading term).


// ---- begin dimgraph/dim/first_verified.hpp
// first_verified: the result of a split, the first of its rules' guesses that the op it
// inverts confirms.



namespace dimgraph::detail {

// The guess of a rule that does not apply.
struct no_guess {};

// A split of X by B (X / B, div_left(B, X), X - B, sub_left(B, X)) tries its rules in order.
// A rule is a type whose guess<X, B>() is std::type_identity<Q> for a guessed result Q, or
// no_guess. A guess is kept only if the op the split inverts gives X back exactly
// (MultiplyBack::back<Q> == X: Q * B, B * Q, Q + B or B + Q), so a split is never claimed that
// the layout does not have; when no guess is kept the result is the opaque form
// MultiplyBack::opaque (dim_quotient<X, B>, ...). MultiplyBack also names X (input) and B
// (part). rule is the rule whose guess was kept (void when none was); the guesses of the rules
// after it are never instantiated.
template <class Rule, class Q>
struct split_result {
  using rule = Rule;
  using type = Q;
  static constexpr bool opaque = std::is_void_v<Rule>;
};

template <class MultiplyBack, class Guess>
inline constexpr bool gives_back_v = false;  // no_guess
template <class MultiplyBack, class Q>
inline constexpr bool gives_back_v<MultiplyBack, std::type_identity<Q>> =
    std::is_same_v<typename MultiplyBack::template back<Q>, typename MultiplyBack::input>;

template <class MultiplyBack, class Rule, class... Rules>
constexpr auto first_split_result() {
  using guess =
      decltype(Rule::template guess<typename MultiplyBack::input, typename MultiplyBack::part>());
  if constexpr (gives_back_v<MultiplyBack, guess>)
    return split_result<Rule, typename guess::type>{};
  else if constexpr (sizeof...(Rules) == 0)
    return split_result<void, typename MultiplyBack::opaque>{};
  else return first_split_result<MultiplyBack, Rules...>();
}

template <class Rules, class MultiplyBack>
struct first_verified;
template <class... Rules, class MultiplyBack>
struct first_verified<type_list<Rules...>, MultiplyBack>
    : decltype(first_split_result<MultiplyBack, Rules...>()) {};

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/first_verified.hpp
// ---- begin dimgraph/dim/sum.hpp
// Concatenation of dims (a + b) in normal form, and run grouping shared by the algebra.

#include <array>


namespace dimgraph::detail {

// Runs of a list: element i joins element i + 1 where join[i]. start[g] is the first
// element of run g; start[count] is the list size.
template <std::size_t N>
struct runs {
  std::array<std::size_t, N + 1> start{};
  std::size_t count = 0;
};
template <std::size_t N>
constexpr runs<N> find_runs(const std::array<bool, N>& join) {
  runs<N> r;
  for (std::size_t i = 0; i < N; ++i)
    if (i == 0 || !join[i - 1]) r.start[r.count++] = i;
  r.start[r.count] = N;
  return r;
}

template <class... As, class... Bs>
constexpr std::array<bool, sizeof...(As)> pairwise_same(type_list<As...>, type_list<Bs...>) {
  return {std::is_same_v<As, Bs>...};
}
// join[i] is true when neighbours i and i + 1 have the same key (keys has n entries).
template <class Keys>
constexpr auto neighbours_same() {
  if constexpr (Keys::size < 2) return std::array<bool, Keys::size>{};
  else {
    auto pairs = pairwise_same(pop_back_t<Keys>{}, pop_front_t<Keys>{});
    std::array<bool, Keys::size> join{};
    for (std::size_t i = 0; i + 1 < Keys::size; ++i) join[i] = pairs[i];
    return join;
  }
}

// merge_units_t<Terms>: adjacent terms with the same unit become one: k1*u + k2*u = (k1+k2)*u.
template <class... Ts>
inline constexpr auto unit_runs_v = find_runs(neighbours_same<type_list<unit_t<Ts>...>>());
template <class... Ts>
constexpr std::size_t unit_run_coef(std::size_t g) {
  constexpr std::size_t coefs[] = {coef_v<Ts>..., 0};
  constexpr auto r = unit_runs_v<Ts...>;
  std::size_t k = 0;
  for (std::size_t i = r.start[g]; i < r.start[g + 1]; ++i) k += coefs[i];
  return k;
}
template <class List, class Gs>
struct merge_units_build;
template <class... Ts, std::size_t... Gs>
struct merge_units_build<type_list<Ts...>, std::index_sequence<Gs...>> {
  using type =
      type_list<make_term_t<unit_run_coef<Ts...>(Gs),
                            unit_t<at_t<unit_runs_v<Ts...>.start[Gs], type_list<Ts...>>>>...>;
};
template <class Terms>
struct merge_units;
template <class... Ts>
struct merge_units<type_list<Ts...>>
    : merge_units_build<type_list<Ts...>, std::make_index_sequence<unit_runs_v<Ts...>.count>> {};
template <class Terms>
using merge_units_t = typename merge_units<Terms>::type;

// Matching a list of terms inside another, where the end term of the pattern may
// take only part of a term's coefficient: the part left over is the residual.
template <class Pattern, class Terms, std::size_t At, bool PartialAtEnd>
constexpr bool terms_match() {
  constexpr std::size_t m = Pattern::size;
  if constexpr (m == 0 || At > Terms::size ||
                At + m > Terms::size) {  // At may have wrapped below 0
    return false;
  } else {
    constexpr std::size_t p = PartialAtEnd ? m - 1 : 0;  // the partial position
    using pat = at_t<p, Pattern>;
    using got = at_t<At + p, Terms>;
    if constexpr (!std::is_same_v<unit_t<pat>, unit_t<got>> || coef_v<pat> > coef_v<got>) {
      return false;
    } else if constexpr (PartialAtEnd) {
      return std::is_same_v<slice_t<0, m - 1, Pattern>, slice_t<At, At + m - 1, Terms>>;
    } else {
      return std::is_same_v<slice_t<1, m, Pattern>, slice_t<At + 1, At + m, Terms>>;
    }
  }
}
// The residual term list (empty or one term) of a partial match.
template <class Pat, class Got, bool Left = (coef_v<Pat> < coef_v<Got>)>
struct residual_terms {
  using type = type_list<>;
};
template <class Pat, class Got>
struct residual_terms<Pat, Got, true> {
  using type = type_list<make_term_t<coef_v<Got> - coef_v<Pat>, unit_t<Got>>>;
};
template <class Pat, class Got>
using residual_terms_t = typename residual_terms<Pat, Got>::type;

// plus_t<X, Y>: the normal form of X + Y for normal X and Y. Both are normal, so
// only the two terms at the junction can merge. An opaque difference is an atom
// here: (t - 2) + 2 stays as it is (cancelling it would break associativity with
// merged coefficients, e.g. 2 * (t - 2) + 2).
template <class X, class Y>
using plus_t = from_terms_t<merge_units_t<concat_t<terms_t<X>, terms_t<Y>>>>;

// sum_of_t<Xs...>: X0 + X1 + ... (left to right).
template <class X>
struct sum_acc {
  using type = X;
};
template <class X, class Y>
sum_acc<plus_t<X, Y>> operator+(sum_acc<X>, sum_acc<Y>);
template <class... Xs>
using sum_of_t = typename decltype((sum_acc<const_dim<0>>{} + ... + sum_acc<Xs>{}))::type;

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/sum.hpp

namespace dimgraph::detail {

// X - B is Q with Q + B == X, sub_left(B, X) is Q with B + Q == X: each is the first guess of
// its rules (below, in order) that adds back to X, else the opaque dim_difference<X, B>
// (dim_left_difference<B, X>). See first_verified.

// What each removal inverts: Q + B == X and B + Q == X.
template <class X, class B>
struct trailing_term_back {
  using input = X;
  using part = B;
  using opaque = dim_difference<X, B>;
  template <class Q>
  using back = plus_t<Q, B>;
};
template <class B, class X>
struct leading_term_back {
  using input = X;
  using part = B;
  using opaque = dim_left_difference<B, X>;
  template <class Q>
  using back = plus_t<B, Q>;
};

namespace split_rule {

// x - 0 == x (and the same for sub_left).
struct nothing_removed {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (std::is_same_v<B, const_dim<0>>) return std::type_identity<X>{};
    else return no_guess{};
  }
};

// (p + b) - b == p, where b's first term may take part of X's coefficient there:
// (a + 3 * b) - 2 * b == a + b.
struct trailing_term {
  template <class X, class B>
  static constexpr auto guess() {
    using tx = terms_t<X>;
    using tb = terms_t<B>;
    constexpr std::size_t at = tx::size - (tb::size <= tx::size ? tb::size : 0);
    if constexpr (tb::size <= tx::size && terms_match<tb, tx, at, false>())
      return std::type_identity<from_terms_t<
          concat_t<slice_t<0, at, tx>, residual_terms_t<front_t<tb>, at_t<at, tx>>>>>{};
    else return no_guess{};
  }
};

// sub_left(b, b + p) == p, where b's last term may take part of X's coefficient there:
// sub_left(2, 5 + a) == 3 + a.
struct leading_term {
  template <class X, class B>
  static constexpr auto guess() {
    using tx = terms_t<X>;
    using tb = terms_t<B>;
    if constexpr (tb::size <= tx::size && terms_match<tb, tx, 0, true>())
      return std::type_identity<
          from_terms_t<concat_t<residual_terms_t<back_t<tb>, at_t<tb::size - 1, tx>>,
                                slice_t<tb::size, tx::size, tx>>>>{};
    else return no_guess{};
  }
};

}  // namespace split_rule

template <class X, class B>
struct difference
    : first_verified<type_list<split_rule::nothing_removed, split_rule::trailing_term>,
                     trailing_term_back<X, B>> {};
// difference_t<X, B>: X - B, X without its trailing term B.
template <class X, class B>
using difference_t = typename difference<X, B>::type;

template <class B, class X>
struct left_difference
    : first_verified<type_list<split_rule::nothing_removed, split_rule::leading_term>,
                     leading_term_back<B, X>> {};
// left_difference_t<B, X>: sub_left(B, X), X without its leading term B.
template <class B, class X>
using left_difference_t = typename left_difference<B, X>::type;

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/difference.hpp
// ---- begin dimgraph/dim/quotient.hpp
// Exact splits of dims: a / b (trailing factor) and div_left(b, a) (leading factor).


// ---- begin dimgraph/dim/product.hpp
// Merging of dims (a * b, a major) in normal form.



namespace dimgraph::detail {

template <class X, class Y>
struct times;
// times_t<X, Y>: the normal form of X * Y for normal X and Y.
template <class X, class Y>
using times_t = typename times<X, Y>::type;

template <class T>
inline constexpr std::size_t const_value_v = 1;
template <std::size_t K>
inline constexpr std::size_t const_value_v<const_dim<K>> = K;

// Adjacent constants fold: a * 2 * 3 == a * 6.
template <class... Fs>
inline constexpr auto const_runs_v = [] {
  constexpr bool is_const[] = {is_const_v<Fs>..., false};
  std::array<bool, sizeof...(Fs)> join{};
  for (std::size_t i = 0; i + 1 < sizeof...(Fs); ++i) join[i] = is_const[i] && is_const[i + 1];
  return find_runs(join);
}();
template <class... Fs>
constexpr std::size_t const_run_value(std::size_t g) {
  constexpr std::size_t values[] = {const_value_v<Fs>..., 1};
  constexpr auto r = const_runs_v<Fs...>;
  std::size_t k = 1;
  for (std::size_t i = r.start[g]; i < r.start[g + 1]; ++i) k *= values[i];
  return k;
}
template <std::size_t G, class... Fs>
using const_run_t =
    std::conditional_t<(const_runs_v<Fs...>.start[G + 1] - const_runs_v<Fs...>.start[G] > 1),
                       const_dim<const_run_value<Fs...>(G)>,
                       at_t<const_runs_v<Fs...>.start[G], type_list<Fs...>>>;
template <class List, class Gs>
struct fold_consts_build;
template <class... Fs, std::size_t... Gs>
struct fold_consts_build<type_list<Fs...>, std::index_sequence<Gs...>> {
  using type = type_list<const_run_t<Gs, Fs...>...>;
};
template <class Factors>
struct fold_consts;
template <class... Fs>
struct fold_consts<type_list<Fs...>>
    : fold_consts_build<type_list<Fs...>, std::make_index_sequence<const_runs_v<Fs...>.count>> {};
template <class Factors>
using fold_consts_t = typename fold_consts<Factors>::type;

// Matching a list of factors inside another, where the end factor of the pattern,
// when a constant, may take only a divisor of a constant: the quotient is the residual.
template <class Pat, class Got>
constexpr bool factor_divides() {
  if constexpr (is_const_v<Pat> && is_const_v<Got>)
    return const_value_v<Got> % const_value_v<Pat> == 0;
  else return std::is_same_v<Pat, Got>;
}
template <class Pattern, class Factors, std::size_t At, bool PartialAtEnd>
constexpr bool factors_match() {
  constexpr std::size_t m = Pattern::size;
  if constexpr (m == 0 || At > Factors::size ||
                At + m > Factors::size) {  // At may have wrapped below 0
    return false;
  } else {
    constexpr std::size_t p = PartialAtEnd ? m - 1 : 0;
    if constexpr (!factor_divides<at_t<p, Pattern>, at_t<At + p, Factors>>()) return false;
    else if constexpr (PartialAtEnd)
      return std::is_same_v<slice_t<0, m - 1, Pattern>, slice_t<At, At + m - 1, Factors>>;
    else return std::is_same_v<slice_t<1, m, Pattern>, slice_t<At + 1, At + m, Factors>>;
  }
}
template <class Pat, class Got>
using residual_factor_t = const_dim<const_value_v<Got> / const_value_v<Pat>>;  // 1 when exact

// (a / b) * b == a and b * div_left(b, a) == a.
template <class T>
inline constexpr bool is_quotient_v = false;
template <class A, class B>
inline constexpr bool is_quotient_v<dim_quotient<A, B>> = true;
template <class B, class A>
inline constexpr bool is_quotient_v<dim_left_quotient<B, A>> = true;

template <std::size_t I, class Fs, class T = at_t<I, Fs>>
struct cancel_factor_at {
  static constexpr bool ok = false;
};
template <std::size_t I, class Fs, class A, class B>
struct cancel_factor_at<I, Fs, dim_quotient<A, B>> {
  using fb = factors_t<B>;
  static constexpr bool ok = factors_match<fb, Fs, I + 1, true>();
  static auto result() {
    constexpr std::size_t end = I + fb::size;
    using before = from_factors_t<slice_t<0, I, Fs>>;
    using left = residual_factor_t<back_t<fb>, at_t<end, Fs>>;
    using after = from_factors_t<slice_t<end + 1, Fs::size, Fs>>;
    return std::type_identity<times_t<times_t<times_t<before, A>, left>, after>>{};
  }
};
template <std::size_t I, class Fs, class B, class A>
struct cancel_factor_at<I, Fs, dim_left_quotient<B, A>> {
  using fb = factors_t<B>;
  static constexpr bool ok = I >= fb::size && factors_match<fb, Fs, I - fb::size, false>();
  static auto result() {
    constexpr std::size_t begin = I - fb::size;
    using before = from_factors_t<slice_t<0, begin, Fs>>;
    using left = residual_factor_t<front_t<fb>, at_t<begin, Fs>>;
    using after = from_factors_t<slice_t<I + 1, Fs::size, Fs>>;
    return std::type_identity<times_t<times_t<times_t<before, left>, A>, after>>{};
  }
};

template <class Fs, class Is = std::make_index_sequence<Fs::size>>
struct first_factor_cancel;
template <class Fs, std::size_t... Is>
struct first_factor_cancel<Fs, std::index_sequence<Is...>> {
  static constexpr std::size_t value = [] {
    constexpr bool ok[] = {cancel_factor_at<Is, Fs>::ok..., false};
    for (std::size_t i = 0; i < sizeof...(Is); ++i)
      if (ok[i]) return i;
    return sizeof...(Is);
  }();
};

template <class... Fs>
constexpr bool any_quotient(type_list<Fs...>) {
  return (is_quotient_v<Fs> || ...);
}

template <class Fs>
constexpr bool const_before_sum() {
  if constexpr (Fs::size < 2) return false;
  else return is_sum_v<back_t<Fs>> && is_const_v<at_t<Fs::size - 2, Fs>>;
}

// Factors of normal X (no sum) followed by factors of normal Y (a sum only last).
template <class Fs>
constexpr auto normalize_factors() {
  using folded = fold_consts_t<Fs>;
  constexpr std::size_t n = folded::size;
  constexpr std::size_t cancel = [] {
    if constexpr (any_quotient(folded{})) return first_factor_cancel<folded>::value;
    else return n;
  }();
  if constexpr (cancel < n) {
    return cancel_factor_at<cancel, folded>::result();
  } else if constexpr (const_before_sum<folded>()) {
    // k * S is S repeated k times: 2 * (a + b) == a + b + a + b.
    using repeated = from_terms_t<
        merge_units_t<repeat_t<const_value_v<at_t<n - 2, folded>>, terms_t<back_t<folded>>>>>;
    return std::type_identity<times_t<from_factors_t<slice_t<0, n - 2, folded>>, repeated>>{};
  } else {
    return std::type_identity<from_factors_t<folded>>{};
  }
}

template <class X>
constexpr bool ends_with_sum() {
  if constexpr (is_prod_v<X>) return is_sum_v<back_t<factors_t<X>>>;
  else return false;
}

// (t1 + t2 + ...) * Y == t1 * Y + t2 * Y + ...: the sum is the major factor.
template <class Terms, class Y>
struct distribute;
template <class... Ts, class Y>
struct distribute<type_list<Ts...>, Y> {
  using type = sum_of_t<times_t<Ts, Y>...>;
};

template <class X, class Y>
constexpr bool junction_cancels() {
  using fs = concat_t<factors_t<X>, factors_t<Y>>;
  constexpr std::size_t n = factors_t<X>::size;
  return cancel_factor_at<n - 1, fs>::ok || cancel_factor_at<n, fs>::ok;
}

template <class X, class Y>
constexpr auto times_fn() {
  using zero = const_dim<0>;
  using one = const_dim<1>;
  if constexpr (std::is_same_v<X, zero> || std::is_same_v<Y, zero>) {
    return std::type_identity<zero>{};
  } else if constexpr (std::is_same_v<X, one>) {
    return std::type_identity<Y>{};
  } else if constexpr (std::is_same_v<Y, one>) {
    return std::type_identity<X>{};
  } else if constexpr (junction_cancels<X, Y>()) {
    // Before distributing a sum: (a / (b + c)) * (b + c) == a, (b + c) * div_left(b + c, a) == a.
    using fs = concat_t<factors_t<X>, factors_t<Y>>;
    constexpr std::size_t at = cancel_factor_at<factors_t<X>::size - 1, fs>::ok
                                   ? factors_t<X>::size - 1
                                   : factors_t<X>::size;
    return cancel_factor_at<at, fs>::result();
  } else if constexpr (is_sum_v<X>) {
    return std::type_identity<typename distribute<terms_t<X>, Y>::type>{};
  } else if constexpr (ends_with_sum<X>()) {
    using fx = factors_t<X>;  // (P * S) * Y == P * (S * Y)
    return std::type_identity<times_t<from_factors_t<pop_back_t<fx>>, times_t<back_t<fx>, Y>>>{};
  } else {
    return normalize_factors<concat_t<factors_t<X>, factors_t<Y>>>();
  }
}
template <class X, class Y>
struct times {
  using type = typename decltype(times_fn<X, Y>())::type;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/product.hpp

namespace dimgraph::detail {

// X / B is Q with Q * B == X, div_left(B, X) is Q with B * Q == X: each is the first guess of
// its rules (below, in order) that multiplies back to X, else the opaque dim_quotient<X, B>
// (dim_left_quotient<B, X>). See first_verified.
template <class X, class B>
struct quotient;
template <class B, class X>
struct left_quotient;

// What each split inverts: Q * B == X and B * Q == X.
template <class X, class B>
struct trailing_factor_back {
  using input = X;
  using part = B;
  using opaque = dim_quotient<X, B>;
  template <class Q>
  using back = times_t<Q, B>;
};
template <class B, class X>
struct leading_factor_back {
  using input = X;
  using part = B;
  using opaque = dim_left_quotient<B, X>;
  template <class Q>
  using back = times_t<B, Q>;
};

template <class Q, class... Qs>
constexpr type_list<Q, Qs...> prepend_parsed(type_list<Qs...>) {
  return {};
}
template <class Q>
constexpr no_guess prepend_parsed(no_guess) {
  return {};
}
template <class... Qs>
constexpr std::type_identity<sum_of_t<Qs...>> sum_parsed(type_list<Qs...>) {
  return {};
}
constexpr no_guess sum_parsed(no_guess) {
  return {};
}

template <class Terms, class B, std::size_t P>
constexpr bool block_at() {
  using tb = terms_t<B>;
  if constexpr (!is_sum_v<B> || P + tb::size > Terms::size) return false;
  else return std::is_same_v<slice_t<P, P + tb::size, Terms>, tb>;
}

// X's terms read left to right as blocks: a term that B divides (t -> t / B), or, when
// B is a sum, a run of B's own terms (-> 1). (2 + a) * (2 + a) / (2 + a) == 2 + a.
template <class Terms, class B, std::size_t P>
constexpr auto parse_quotient() {
  if constexpr (P == Terms::size) {
    return type_list<>{};
  } else {
    using one = quotient<at_t<P, Terms>, B>;
    if constexpr (!one::opaque)
      return prepend_parsed<typename one::type>(parse_quotient<Terms, B, P + 1>());
    else if constexpr (block_at<Terms, B, P>())
      return prepend_parsed<const_dim<1>>(parse_quotient<Terms, B, P + terms_t<B>::size>());
    else return no_guess{};
  }
}

// A sum that is k copies of a sum B: k = n / m, or (n - 1) / (m - 1) when the ends merged.
template <class X, class B>
constexpr std::size_t copies_guess() {
  constexpr std::size_t n = terms_t<X>::size, m = terms_t<B>::size;
  if constexpr (m >= 2 && n % m == 0) return n / m;
  else if constexpr (m >= 2 && (n - 1) % (m - 1) == 0) return (n - 1) / (m - 1);
  else return 0;
}

// guess | f: f applied to a guess; no_guess passes through.
template <class T, class F>
constexpr auto operator|(std::type_identity<T> t, F f) {
  return f(t);
}
template <class F>
constexpr no_guess operator|(no_guess, F) {
  return {};
}
template <class Split>  // an inner split: a guess only when it did not stay opaque
constexpr auto found_if_split() {
  if constexpr (Split::opaque) return no_guess{};
  else return std::type_identity<typename Split::type>{};
}

// The rules. Each guesses the result of one split, guess<X, B>(), from the forms of X (the dim
// split) and B (the part split off, at the end for X / B, at the front for div_left(B, X)).
namespace split_rule {

// x / 1 == x, x / x == 1, 0 / b == 0 (and the same for div_left).
struct trivial {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (std::is_same_v<B, const_dim<1>>) return std::type_identity<X>{};
    else if constexpr (std::is_same_v<X, B>) return std::type_identity<const_dim<1>>{};
    else if constexpr (std::is_same_v<X, const_dim<0>>) return std::type_identity<X>{};
    else return no_guess{};
  }
};

// X / B:

// (p * b) / b == p, where b's leading constant may take a divisor of X's factor there:
// (a * 6) / 3 == a * 2.
struct trailing_factor {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    using fb = factors_t<B>;
    if constexpr (factors_match<fb, fx, fx::size - fb::size, false>()) {
      constexpr std::size_t at = fx::size - fb::size;
      using left = residual_factor_t<front_t<fb>, at_t<at, fx>>;
      return std::type_identity<times_t<from_factors_t<slice_t<0, at, fx>>, left>>{};
    } else {
      return no_guess{};
    }
  }
};

// A sum, block by block (parse_quotient): (a * b + 2 * b) / b == a + 2.
struct blockwise_sum {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X>) return sum_parsed(parse_quotient<terms_t<X>, B, 0>());
    else return no_guess{};
  }
};

// A sum that is k copies of the sum B, the ends of neighbouring copies merged:
// (a + b + 2 * a + b + a) / (a + b + a) == 2.
struct copies_of_sum {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_sum_v<B> && copies_guess<X, B>() > 0)
      return std::type_identity<const_dim<copies_guess<X, B>()>>{};
    else return no_guess{};
  }
};

// P * S / B == P * (S / B) for a product ending in a sum S.
struct within_trailing_sum {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    if constexpr (ends_with_sum<X>())
      return found_if_split<quotient<back_t<fx>, B>>() | [](auto s) {
        return std::type_identity<
            times_t<from_factors_t<pop_back_t<fx>>, typename decltype(s)::type>>{};
      };
    else return no_guess{};
  }
};

// X / div_left(b, X) == b, and R * a / div_left(b, a) == R * b.
struct by_left_quotient {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_left_quotient_form_v<B>) {
      if constexpr (std::is_same_v<typename B::dividend, X>)
        return std::type_identity<typename B::divisor>{};
      else
        return found_if_split<quotient<X, typename B::dividend>>() | [](auto r) {
          return std::type_identity<times_t<typename decltype(r)::type, typename B::divisor>>{};
        };
    } else {
      return no_guess{};
    }
  }
};

// X / (P * f) == (X / f) / P: f may have cancelled into X. (X / f == 1 would make the result a
// reciprocal 1 / P, which is no index space.)
struct factor_by_factor {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_prod_v<B>) {
      using fb = factors_t<B>;
      using inner = quotient<X, back_t<fb>>;
      if constexpr (inner::opaque || std::is_same_v<typename inner::type, const_dim<1>>)
        return no_guess{};
      else
        return std::type_identity<
            typename quotient<typename inner::type, from_factors_t<pop_back_t<fb>>>::type>{};
    } else {
      return no_guess{};
    }
  }
};

// div_left(B, X):

// div_left(b, b * p) == p, where b's trailing constant may take a divisor of X's factor there:
// div_left(3, 6 * a) == 2 * a.
struct leading_factor {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    using fb = factors_t<B>;
    if constexpr (!is_sum_v<X> && factors_match<fb, fx, 0, true>()) {
      using left = residual_factor_t<back_t<fb>, at_t<fb::size - 1, fx>>;
      return std::type_identity<times_t<left, from_factors_t<slice_t<fb::size, fx::size, fx>>>>{};
    } else {
      return no_guess{};
    }
  }
};

// A sum that is k copies of Q, the ends of neighbouring copies merged or not:
// div_left(2, a + b + a + b) == a + b, div_left(2, 1 + a + 2 + a + 1) == 1 + a + 1.
struct copies_by_constant {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_const_v<B>) {
      using tx = terms_t<X>;
      constexpr std::size_t n = tx::size, k = B::value;
      if constexpr (n % k == 0) return std::type_identity<from_terms_t<slice_t<0, n / k, tx>>>{};
      else if constexpr ((n - 1) % k == 0)
        return std::type_identity<
            from_terms_t<concat_t<slice_t<0, (n - 1) / k, tx>, type_list<back_t<tx>>>>>{};
      else return no_guess{};
    } else {
      return no_guess{};
    }
  }
};

// X == (b1 + ... + bn) * Q: Q from X's first block, div_left(b1, x1) ...
struct first_block {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_sum_v<B>)
      return found_if_split<left_quotient<front_t<terms_t<B>>, front_t<terms_t<X>>>>();
    else return no_guess{};
  }
};
// ... or from its last block, div_left(bn, xn).
struct last_block {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_sum_v<X> && is_sum_v<B>)
      return found_if_split<left_quotient<back_t<terms_t<B>>, back_t<terms_t<X>>>>();
    else return no_guess{};
  }
};

// B == P * R and X == P * S for a sum S: div_left(B, X) == div_left(R, S).
struct shared_leading_factors {
  template <class X, class B>
  static constexpr auto guess() {
    using fx = factors_t<X>;
    using fb = factors_t<B>;
    if constexpr (ends_with_sum<X>() && fb::size >= fx::size) {
      constexpr std::size_t p = fx::size - 1;
      if constexpr (std::is_same_v<slice_t<0, p, fb>, slice_t<0, p, fx>>)
        return found_if_split<
            left_quotient<from_factors_t<slice_t<p, fb::size, fb>>, back_t<fx>>>();
      else return no_guess{};
    } else {
      return no_guess{};
    }
  }
};

// div_left(X / b, X) == b, and div_left(a / b, a * R) == b * R.
struct by_quotient {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_quotient_form_v<B>) {
      if constexpr (std::is_same_v<typename B::dividend, X>)
        return std::type_identity<typename B::divisor>{};
      else
        return found_if_split<left_quotient<typename B::dividend, X>>() | [](auto r) {
          return std::type_identity<times_t<typename B::divisor, typename decltype(r)::type>>{};
        };
    } else {
      return no_guess{};
    }
  }
};

// div_left(f * P, X) == div_left(P, div_left(f, X)) (as factor_by_factor, from the front).
struct leading_factor_by_factor {
  template <class X, class B>
  static constexpr auto guess() {
    if constexpr (is_prod_v<B>) {
      using fb = factors_t<B>;
      using inner = left_quotient<front_t<fb>, X>;
      if constexpr (inner::opaque || std::is_same_v<typename inner::type, const_dim<1>>)
        return no_guess{};
      else
        return std::type_identity<
            typename left_quotient<from_factors_t<pop_front_t<fb>>, typename inner::type>::type>{};
    } else {
      return no_guess{};
    }
  }
};

}  // namespace split_rule

// The rules of X / B and of div_left(B, X), in the order they are tried.
using quotient_rules =
    type_list<split_rule::trivial, split_rule::trailing_factor, split_rule::blockwise_sum,
              split_rule::copies_of_sum, split_rule::within_trailing_sum,
              split_rule::by_left_quotient, split_rule::factor_by_factor>;
using left_quotient_rules =
    type_list<split_rule::trivial, split_rule::leading_factor, split_rule::copies_by_constant,
              split_rule::first_block, split_rule::last_block, split_rule::shared_leading_factors,
              split_rule::by_quotient, split_rule::leading_factor_by_factor>;

template <class X, class B>
struct quotient : first_verified<quotient_rules, trailing_factor_back<X, B>> {};
// quotient_t<X, B>: X / B, the part left when the trailing factor B is split off.
template <class X, class B>
using quotient_t = typename quotient<X, B>::type;

template <class B, class X>
struct left_quotient : first_verified<left_quotient_rules, leading_factor_back<B, X>> {};
// left_quotient_t<B, X>: div_left(B, X), the part left when the leading factor B is split off.
template <class B, class X>
using left_quotient_t = typename left_quotient<B, X>::type;

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/quotient.hpp
// ---- begin dimgraph/dim/window.hpp
// Strided windows over a dim: ceildiv(a, k) and floordiv(a, k).



namespace dimgraph::detail {

// Both are opaque except: constants fold, k == 1 is the identity, an exact split
// gives the quotient (ceildiv(a * 6, 2) == a * 3), and nested ones merge
// (ceildiv(ceildiv(a, 2), 3) == ceildiv(a, 6), since ceil(ceil(x / p) / q) == ceil(x / (p q))).
template <template <class, std::size_t> class Form, class A, std::size_t K, bool Up>
constexpr auto window_fn() {
  using exact = quotient_t<A, const_dim<K>>;
  if constexpr (K == 1) return std::type_identity<A>{};
  else if constexpr (is_const_v<A>)
    return std::type_identity<const_dim<(A::value / K) + (Up && A::value % K != 0)>>{};
  else if constexpr (!std::is_same_v<exact, dim_quotient<A, const_dim<K>>>)
    return std::type_identity<exact>{};
  else return std::type_identity<Form<A, K>>{};
}
template <class A, std::size_t K>
struct ceildiv_form {
  using type = typename decltype(window_fn<dim_ceildiv, A, K, true>())::type;
};
template <class A, std::size_t J, std::size_t K>
struct ceildiv_form<dim_ceildiv<A, J>, K> {
  using type = dim_ceildiv<A, J * K>;
};
template <class A, std::size_t K>
struct floordiv_form {
  using type = typename decltype(window_fn<dim_floordiv, A, K, false>())::type;
};
template <class A, std::size_t J, std::size_t K>
struct floordiv_form<dim_floordiv<A, J>, K> {
  using type = dim_floordiv<A, J * K>;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/dim/window.hpp

namespace dimgraph {

// Meaning: a dim denotes an index space with its linear order, and two dims are
// the same type exactly when they denote the same ordered space. Laws (all tested
// in tests/static/dim/algebra.cpp):
//   (a + b) + c == a + (b + c)        (a * b) * c == a * (b * c)
//   a + 0 == 0 + a == a               a * 1 == 1 * a == a,  a * 0 == 0
//   (a + b) * c == a * c + b * c      (the sum is the major factor; c * (a + b) is not distributed)
//   a + a == 2 * a, 2 * (a + b) == a + b + a + b   (copies one after the other)
//   k1 * a + k2 * a == (k1 + k2) * a  (adjacent terms only: the order is kept)
//   a * 2 * 3 == a * 6                (constants fold when adjacent; 2 * (a * 3) != a * 6)
//   (a * b) / b == a,  div_left(b, b * a) == a,  (a / b) * b == a,  b * div_left(b, a) == a
//   (a + b) - b == a,  sub_left(b, b + a) == a,  (a - b) + b == a,  b + sub_left(b, a) == a
// Anything else stays an opaque dim: (b * a) / b, (2 + a) - 2, ceildiv(a, 2).

namespace detail {

// A stand-in result after a reported error (static size 0), so one mistake gives one message.
struct invalid_dim : dim_expr_base {
  static constexpr interval bounds = interval::exactly(0);
  static constexpr std::string_view name = "<invalid>";
  static constexpr dim_kind kind = dim_kind::spatial;
};

template <class A, class B>
constexpr bool split_possible() {
  return !exact_div(bounds_v<A>, bounds_v<B>).is_empty();
}
template <class A, class B>
constexpr bool removal_possible() {
  return bounds_v<B>.is_empty() || bounds_v<A>.hi >= bounds_v<B>.lo;
}

}  // namespace detail

// Concatenation: [a..., b...]. size(a + b) = size(a) + size(b).
// (Return types are deduced so that overload resolution on unrelated operands never
// looks inside the algebra.)
template <dimension A, dimension B>
constexpr auto operator+(A, B) {
  return detail::plus_t<A, B>{};
}

// Merge, a major: index (i, j) -> i * size(b) + j. size(a * b) = size(a) * size(b).
template <dimension A, dimension B>
constexpr auto operator*(A, B) {
  return detail::times_t<A, B>{};
}

// Exact split off a trailing factor: a == (a / b) * b.
// Error: static sizes that do not divide (compile time); a run-time extent that does
// not divide is a shape_error where the extent becomes known.
template <dimension A, dimension B>
constexpr auto operator/(A, B) {
  DIMGRAPH_REQUIRE((detail::split_possible<A, B>()),
                   "dimgraph: split: the divisor's size does not divide the dim's size",
                   ::dimgraph::lhs<A>, ::dimgraph::rhs<B>);
  if constexpr (detail::split_possible<A, B>()) return detail::quotient_t<A, B>{};
  else return detail::invalid_dim{};
}

// Exact split off a leading factor: a == b * div_left(b, a).
template <dimension B, dimension A>
constexpr auto div_left(B, A) {
  DIMGRAPH_REQUIRE((detail::split_possible<A, B>()),
                   "dimgraph: div_left: the divisor's size does not divide the dim's size",
                   ::dimgraph::lhs<A>, ::dimgraph::rhs<B>);
  if constexpr (detail::split_possible<A, B>()) return detail::left_quotient_t<B, A>{};
  else return detail::invalid_dim{};
}

// Removing a trailing term: a == (a - b) + b. Error: b is larger than a.
template <dimension A, dimension B>
constexpr auto operator-(A, B) {
  static_assert(detail::removal_possible<A, B>(),
                "dimgraph: sub: the part removed is larger than the dim");
  if constexpr (detail::removal_possible<A, B>()) return detail::difference_t<A, B>{};
  else return detail::invalid_dim{};
}

// Removing a leading term: a == b + sub_left(b, a).
template <dimension B, dimension A>
constexpr auto sub_left(B, A) {
  static_assert(detail::removal_possible<A, B>(),
                "dimgraph: sub_left: the part removed is larger than the dim");
  if constexpr (detail::removal_possible<A, B>()) return detail::left_difference_t<B, A>{};
  else return detail::invalid_dim{};
}

// Windows of k: ceil(size / k) (ceildiv) or floor(size / k) (floordiv), k > 0.
template <dimension A, std::size_t K>
constexpr auto ceildiv(A, const_dim<K>) {
  static_assert(K > 0, "dimgraph: ceildiv: the window size is 0");
  if constexpr (K > 0) return typename detail::ceildiv_form<A, K>::type{};
  else return detail::invalid_dim{};
}
template <dimension A, std::size_t K>
constexpr auto floordiv(A, const_dim<K>) {
  static_assert(K > 0, "dimgraph: floordiv: the window size is 0");
  if constexpr (K > 0) return typename detail::floordiv_form<A, K>::type{};
  else return detail::invalid_dim{};
}

}  // namespace dimgraph
// ---- end dimgraph/dim/operators.hpp
// ---- begin dimgraph/dim/list.hpp
// dim_list: an ordered set of dims at the type level, and the set operations on it.



namespace dimgraph {

// An ordered list of distinct dims. Error: a dim that appears twice.
template <class... Ds>
struct dim_list {
  static_assert(((dimension<Ds> && std::is_same_v<Ds, std::remove_cvref_t<Ds>>)&&...),
                "dimgraph: dim_list: an element is not a dim (or is cv-qualified)");
  DIMGRAPH_REQUIRE_DECL(detail::first_duplicate_v<detail::type_list<Ds...>> == sizeof...(Ds),
                        "dimgraph: dim_list: a tag appears more than once", asked<Ds...>);
  static constexpr std::size_t size = sizeof...(Ds);
};

namespace detail {
template <class L>
struct as_type_list;
template <class... Ds>
struct as_type_list<dim_list<Ds...>> {
  using type = type_list<Ds...>;
};
template <class L>
struct as_dim_list;
template <class... Ds>
struct as_dim_list<type_list<Ds...>> {
  using type = dim_list<Ds...>;
};
template <class L>
using types_of_t = typename as_type_list<L>::type;
template <class L>
using dims_of_t = typename as_dim_list<L>::type;

template <class L>
struct in_list {
  template <class D>
  struct pred : std::bool_constant<contains_v<D, types_of_t<L>>> {};
};
template <class L>
struct not_in_list {
  template <class D>
  struct pred : std::bool_constant<!contains_v<D, types_of_t<L>>> {};
};
}  // namespace detail

template <class L, class D>
inline constexpr bool list_contains_v = detail::contains_v<D, detail::types_of_t<L>>;

// Position of D in L. Error: L has no D.
template <class L, class D>
constexpr std::size_t list_index_of() {
  static_assert(list_contains_v<L, D>, "dimgraph: index_of: the dim list has no such dim");
  return detail::index_of_v<D, detail::types_of_t<L>>;
}
template <class L, class D>
inline constexpr std::size_t list_index_of_v = list_index_of<L, D>();

// [L1..., L2...]. Error: a dim in both.
template <class L1, class L2>
using list_concat_t =
    detail::dims_of_t<detail::concat_t<detail::types_of_t<L1>, detail::types_of_t<L2>>>;

// L1, then the dims of L2 that L1 lacks (first-appearance order).
template <class L1, class L2>
using list_union_t = detail::dims_of_t<detail::concat_t<
    detail::types_of_t<L1>,
    detail::filter_t<detail::not_in_list<L1>::template pred, detail::types_of_t<L2>>>>;

// The dims of L1 that L2 lacks, in L1's order.
template <class L1, class L2>
using list_difference_t = detail::dims_of_t<
    detail::filter_t<detail::not_in_list<L2>::template pred, detail::types_of_t<L1>>>;

// The dims of L1 that L2 has too, in L1's order.
template <class L1, class L2>
using list_intersection_t =
    detail::dims_of_t<detail::filter_t<detail::in_list<L2>::template pred, detail::types_of_t<L1>>>;

template <class L1, class L2>
inline constexpr bool list_is_subset_v = list_difference_t<L1, L2>::size == 0;

// Equal as sets (order ignored).
template <class L1, class L2>
inline constexpr bool list_same_set_v = list_is_subset_v<L1, L2> && list_is_subset_v<L2, L1>;

}  // namespace dimgraph
// ---- end dimgraph/dim/list.hpp

// ---- begin dimgraph/shape/error.hpp
// dimgraph::error and its subclasses: what run-time checks throw.

#include <memory>
#include <new>
#include <stdexcept>


namespace dimgraph {

// Every run-time error of dimgraph. The message starts with "dimgraph: <op>: " and
// names the dims involved with their extents. Nothing is written to an output
// before the checks that can throw have passed.
class error : public std::runtime_error {
 public:
  error(const std::string& op, const std::string& what)
      : std::runtime_error("dimgraph: " + op + ": " + what) {}

  const char* what() const noexcept override {
    return message_ ? message_->c_str() : std::runtime_error::what();
  }

  // Names the user's call the error happened in, before the op that threw it: the message
  // "dimgraph: <the message so far>" becomes "dimgraph: <op>: <where>: <the message so far>"
  // (without "<where>: " when where is empty), so calls inside calls read in call order:
  // "dimgraph: scan: at iteration 3: nn::lstm_cell: add: dim 'batch' has extent 2 in operand 1
  // and 3 in operand 2". The error keeps its class: catch it by reference, add the context
  // and rethrow it with `throw;` (detail::in_call does).
  void add_context(std::string_view op, std::string_view where = {}) {
    constexpr std::string_view prefix = "dimgraph: ";
    std::string_view so_far = what();
    if (so_far.starts_with(prefix)) so_far.remove_prefix(prefix.size());
    std::string m;
    m.reserve(prefix.size() + op.size() + where.size() + so_far.size() + 4);
    m.append(prefix).append(op).append(": ");
    if (!where.empty()) m.append(where).append(": ");
    m.append(so_far);
    message_ = std::make_shared<const std::string>(std::move(m));
  }

 private:
  std::shared_ptr<const std::string> message_;  // (shared: copying an exception never throws)
};

// Extents that do not fit: a mismatch, an extent outside a dim's interval, a split
// that does not divide.
class shape_error : public error {
 public:
  using error::error;
};

// An index outside [0, size) of its dim.
class index_error : public error {
 public:
  using error::error;
};

// An output that partially overlaps an input.
class overlap_error : public error {
 public:
  using error::error;
};

// A file that cannot be read or written, or whose contents do not fit what is loaded into
// (dimgraph/io/): the message names the file and, where there is one, the parameter with the
// file's shape and the expected one.
class io_error : public error {
 public:
  using error::error;
};

namespace detail {

// f() run as the user's call op (at where within it: a string, or a callable that makes one
// only when f throws): a dg::error f throws gets the call before its message (see
// error::add_context) and is rethrown with its class; other exceptions pass unchanged. Inlined
// into the caller; while nothing throws, none of it runs (the handler sits apart from the
// normal path).
template <class Where, class F>
DIMGRAPH_ALWAYS_INLINE inline decltype(auto) in_call(std::string_view op, const Where& where,
                                                     F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (error& e) {
    try {
      if constexpr (std::is_invocable_v<const Where&>) e.add_context(op, where());
      else e.add_context(op, where);
    } catch (const std::bad_alloc&) {
      // (No memory for the longer message: the error goes on with its own.)
    }
    throw;
  }
}
template <class F>
DIMGRAPH_ALWAYS_INLINE inline decltype(auto) in_call(std::string_view op, F&& f) {
  return in_call(op, std::string_view{}, std::forward<F>(f));
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/shape/error.hpp
// ---- begin dimgraph/shape/extent.hpp
// runtime_size<D>(tag_extent): the run-time extent of any dim from the extents of its tags.


// ---- begin dimgraph/detail/checked_size.hpp
// detail::add_overflows, mul_overflows: sums and products of sizes that report overflow.


namespace dimgraph::detail {

// r = a + b; true when the exact sum does not fit a std::size_t (r is then unspecified).
constexpr bool add_overflows(std::size_t a, std::size_t b, std::size_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_add_overflow(a, b, &r);
#else
  r = a + b;
  return r < a;
#endif
}

// r = a * b; true when the exact product does not fit a std::size_t (r is then unspecified).
constexpr bool mul_overflows(std::size_t a, std::size_t b, std::size_t& r) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_mul_overflow(a, b, &r);
#else
  r = a * b;
  return a != 0 && r / a != b;
#endif
}

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/checked_size.hpp

namespace dimgraph {
namespace detail {

template <class D>
struct runtime_sizer {  // a tag
  template <class F>
  static constexpr std::size_t get(const F& tag_extent) {
    if constexpr (is_static_v<D>) return bounds_v<D>.lo;
    else return static_cast<std::size_t>(tag_extent(std::type_identity<D>{}));
  }
};
template <std::size_t K>
struct runtime_sizer<const_dim<K>> {
  template <class F>
  static constexpr std::size_t get(const F&) {
    return K;
  }
};
// The extent of a sum (Add) or product of parts, checked: shape_error when it does not fit a
// std::size_t.
template <class D, bool Add, class... Parts>
struct combined_sizer {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t r = Add ? 0 : 1;
    bool overflow = false;
    ((overflow = overflow || (Add ? add_overflows(r, runtime_sizer<Parts>::get(f), r)
                                  : mul_overflows(r, runtime_sizer<Parts>::get(f), r))),
     ...);
    if (overflow) {
      std::string parts;
      ((parts += (parts.empty() ? "" : ", ") + std::string("'") + describe<Parts>() + "' " +
                 std::to_string(runtime_sizer<Parts>::get(f))),
       ...);
      throw shape_error("runtime_size", "dim '" + describe<D>() + "': the extents of its " +
                                            (Add ? "terms" : "factors") + " (" + parts + ") " +
                                            (Add ? "add up" : "multiply") +
                                            " to more than a std::size_t holds");
    }
    return r;
  }
};
template <class... Ts>
struct runtime_sizer<dim_sum<Ts...>> : combined_sizer<dim_sum<Ts...>, true, Ts...> {};
template <class... Fs>
struct runtime_sizer<dim_prod<Fs...>> : combined_sizer<dim_prod<Fs...>, false, Fs...> {};

template <class D, class A, class B>
struct split_sizer {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t a = runtime_sizer<A>::get(f), b = runtime_sizer<B>::get(f);
    if (b == 0 || a % b != 0)
      throw shape_error("split", "dim '" + describe<D>() + "': extent " + std::to_string(a) +
                                     " of '" + describe<A>() + "' is not divisible by extent " +
                                     std::to_string(b) + " of '" + describe<B>() + "'");
    return a / b;
  }
};
template <class A, class B>
struct runtime_sizer<dim_quotient<A, B>> : split_sizer<dim_quotient<A, B>, A, B> {};
template <class B, class A>
struct runtime_sizer<dim_left_quotient<B, A>> : split_sizer<dim_left_quotient<B, A>, A, B> {};

template <class D, class A, class B>
struct removal_sizer {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t a = runtime_sizer<A>::get(f), b = runtime_sizer<B>::get(f);
    if (a < b)
      throw shape_error("sub", "dim '" + describe<D>() + "': extent " + std::to_string(a) +
                                   " of '" + describe<A>() + "' is smaller than extent " +
                                   std::to_string(b) + " of '" + describe<B>() + "'");
    return a - b;
  }
};
template <class A, class B>
struct runtime_sizer<dim_difference<A, B>> : removal_sizer<dim_difference<A, B>, A, B> {};
template <class B, class A>
struct runtime_sizer<dim_left_difference<B, A>> : removal_sizer<dim_left_difference<B, A>, A, B> {};

template <class A, std::size_t K>
struct runtime_sizer<dim_ceildiv<A, K>> {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    std::size_t a = runtime_sizer<A>::get(f);
    return a / K + (a % K != 0);
  }
};
template <class A, std::size_t K>
struct runtime_sizer<dim_floordiv<A, K>> {
  template <class F>
  static constexpr std::size_t get(const F& f) {
    return runtime_sizer<A>::get(f) / K;
  }
};

}  // namespace detail

// The extent of dim D, given tag_extent(std::type_identity<Tag>{}) -> extent for each
// non-static tag in D (static tags are not asked). Throws shape_error when a split
// does not divide, a removed part is larger than the dim, or a sum or product of extents
// does not fit a std::size_t.
template <dimension D, class TagExtent>
constexpr std::size_t runtime_size(const TagExtent& tag_extent) {
  return detail::runtime_sizer<std::remove_cvref_t<D>>::get(tag_extent);
}

}  // namespace dimgraph
// ---- end dimgraph/shape/extent.hpp
// ---- begin dimgraph/shape/shape.hpp
// dimgraph::shape: a dim list plus the run-time extents of its non-static dims.

#include <cstdint>

// ---- begin dimgraph/detail/indices.hpp
// for_each_index<N>(f) and with_indices<N>(f): the indices 0 .. N-1 as compile-time values.



namespace dimgraph::detail {

// The index I as a value (f receives these; `[]<std::size_t I>(index_constant<I>)` names I).
template <std::size_t I>
using index_constant = std::integral_constant<std::size_t, I>;

// f(index_constant<0>{}, ..., index_constant<N - 1>{}): f's result. Always inlined, as are the
// kernels' own lambdas passed to it, so a kernel written with it compiles as if unrolled by hand.
template <std::size_t N, class F>
DIMGRAPH_ALWAYS_INLINE constexpr decltype(auto) with_indices(F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) DIMGRAPH_ALWAYS_INLINE -> decltype(auto) {
    return static_cast<F&&>(f)(index_constant<I>{}...);
  }(std::make_index_sequence<N>{});
}

// f(index_constant<I>{}) for I = 0 .. N - 1, in order.
template <std::size_t N, class F>
DIMGRAPH_ALWAYS_INLINE constexpr void for_each_index(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>)
      DIMGRAPH_ALWAYS_INLINE { (f(index_constant<I>{}), ...); }(std::make_index_sequence<N>{});
}

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/indices.hpp
// ---- begin dimgraph/shape/lengths.hpp
// The per-batch lengths of ragged dims: how a shape holds them, checks them and merges them.

#include <initializer_list>
#include <span>
#include <vector>


namespace dimgraph {

// The valid length of a ragged dim for each entry of its batch dim, in batch order. Shared
// and immutable: copying a shape or a tensor copies a pointer. A null reference means every
// entry is full (its length is the dim's extent): what a tensor without given lengths has.
using lengths_ref = std::shared_ptr<const std::vector<std::int64_t>>;

// Lengths given by tag: dg::lengths<Time>({5, 3, 1}) (or from a tensor over the batch dim, see
// tensor/lengths.hpp), next to dg::extent<Batch>(3) where a tensor is made. When no extent is
// given for the dim, its extent is the largest length.
template <class D>
struct lengths_arg {
  lengths_ref value;
};
template <dimension D>
lengths_arg<std::remove_cvref_t<D>> lengths(std::span<const std::int64_t> lens) {
  return {std::make_shared<const std::vector<std::int64_t>>(lens.begin(), lens.end())};
}
template <dimension D>
lengths_arg<std::remove_cvref_t<D>> lengths(std::initializer_list<std::int64_t> lens) {
  return {std::make_shared<const std::vector<std::int64_t>>(lens)};
}

namespace detail {

inline std::string lengths_text(const std::vector<std::int64_t>& v) {
  std::string out = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(v[i]);
  }
  return out + "}";
}

// The largest of the lengths (0 for none); negative lengths are left to check_lengths.
inline std::size_t longest(const lengths_ref& l) {
  std::int64_t m = 0;
  if (l)
    for (std::int64_t x : *l) m = std::max(m, x);
  return static_cast<std::size_t>(m);
}

// Checks lengths l of the ragged dim D against D's extent and the extent of its batch dim.
// Errors (shape_error naming op and the dims): a length count other than the batch extent, a
// negative length, a length above D's extent.
template <class D>
void check_lengths(const char* op, const lengths_ref& l, std::size_t extent,
                   std::size_t batch_extent) {
  if (!l) return;
  using B = ragged_batch_t<D>;
  if (l->size() != batch_extent)
    throw shape_error(op, std::to_string(l->size()) + " lengths are given for dim '" +
                              describe<D>() + "' but its batch dim '" + describe<B>() +
                              "' has extent " + std::to_string(batch_extent));
  for (std::size_t b = 0; b < l->size(); ++b) {
    const std::int64_t n = (*l)[b];
    if (n < 0)
      throw shape_error(op, "dim '" + describe<D>() + "' has a negative length " +
                                std::to_string(n) + " at '" + describe<B>() + "' " +
                                std::to_string(b));
    if (static_cast<std::uint64_t>(n) > extent)
      throw shape_error(op, "dim '" + describe<D>() + "' has length " + std::to_string(n) +
                                " at '" + describe<B>() + "' " + std::to_string(b) +
                                ", above its extent " + std::to_string(extent));
  }
}

// Two operands' lengths of D merged: a null reference (every entry full) takes the other's;
// lengths shared by identity or equal by value are one. Error (shape_error naming op and D):
// different lengths.
template <class D>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_lengths_differ(
    const char* op, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  throw shape_error(op, "dim '" + describe<D>() + "' has lengths " + lengths_text(a) +
                            " in one operand and " + lengths_text(b) + " in another");
}
template <class D>
void merge_lengths(const char* op, lengths_ref& into, const lengths_ref& other) {
  if (!other || into == other) return;
  if (!into) {
    into = other;
    return;
  }
  if (*into != *other) throw_lengths_differ<D>(op, *into, *other);
}

// The lengths of a dim derived from a ragged one, row by row: f(length) for each entry. Null
// (every row full) stays null: the derived dim's rows are then full too.
template <class F>
lengths_ref map_lengths(const lengths_ref& in, F f) {
  if (!in) return nullptr;
  auto out = std::make_shared<std::vector<std::int64_t>>(in->size());
  for (std::size_t b = 0; b < in->size(); ++b) (*out)[b] = f((*in)[b]);
  return out;
}

// Where N dims keep their lengths: nothing at all when N is 0 (std::array<T, 0> takes a byte).
struct no_lengths {};
template <std::size_t N>
using lengths_array = std::conditional_t<N == 0, no_lengths, std::array<lengths_ref, N>>;

// Whether dim D of the dim list L carries lengths: D is ragged, and L has it and its batch dim.
template <class D, class L>
constexpr bool carries_lengths() {
  if constexpr (is_ragged_v<D>)
    return list_contains_v<L, D> && list_contains_v<L, ragged_batch_t<D>>;
  else return false;
}
template <class D, class L>
inline constexpr bool carries_lengths_v = carries_lengths<D, L>();

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/shape/lengths.hpp

namespace dimgraph {

// An extent given by tag: dg::extent<Time>(25).
template <class D>
struct extent_arg {
  std::size_t value;
};
template <dimension D>
constexpr extent_arg<std::remove_cvref_t<D>> extent(std::size_t n) {
  return {n};
}

namespace detail {

// "time[25]" for a run-time extent, "feature=512" for a static one.
template <class D>
std::string dim_with_extent(std::size_t n) {
  return describe<D>() + (is_static_v<D> ? "=" : "[") + std::to_string(n) +
         (is_static_v<D> ? "" : "]");
}

// The most elements a shape may have: then every offset in elements, and the size in bytes
// of the elements (8 bytes at most each) with room to align them, fit a std::ptrdiff_t, so
// that no size, stride or offset computed from a shape's extents overflows.
inline constexpr std::size_t max_elements = static_cast<std::size_t>(PTRDIFF_MAX) / 8;

// Whether the product of the extents other than 0 is at most max_elements (with no 0 it is
// the element count; the row-major strides are products of trailing extents, so they fit
// too even when an extent is 0).
template <std::size_t R>
constexpr bool extents_fit(const std::array<std::size_t, R>& ext) {
  std::size_t n = 1;
  for (std::size_t e : ext)
    if (e != 0 && (mul_overflows(n, e, n) || n > max_elements)) return false;
  return true;
}

// The error of check_elements, out of line: the check itself stays small enough to inline.
template <class... Ds>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_too_many_elements(
    const char* op, const std::array<std::size_t, sizeof...(Ds)>& e) {
  std::string dims;
  bool zero = false;
  for (std::size_t x : e) zero = zero || x == 0;
  with_indices<sizeof...(Ds)>([&]<std::size_t... Is>(index_constant<Is>...) {
    ((dims += (Is ? ", " : "") + dim_with_extent<Ds>(e[Is])), ...);
  });
  throw shape_error(op, "the extents " + (zero ? std::string("other than 0 of ") : "") + dims +
                            " multiply to more than " + std::to_string(max_elements) +
                            ", the most elements a tensor can address");
}

// Checks that extents of the dims Ds... (of a shape, or of an expression whose elements are
// never stored, such as a broadcast) fit extents_fit. Error: shape_error naming `op` and
// every dim with its extent.
template <class... Ds>
constexpr void check_elements(const char* op, const std::array<std::size_t, sizeof...(Ds)>& e) {
  if (!extents_fit<sizeof...(Ds)>(e)) throw_too_many_elements<Ds...>(op, e);
}

// Checks an extent entering through `op` against D's interval.
template <class D>
constexpr std::size_t checked_extent(const char* op, std::size_t n) {
  if (!bounds_v<D>.contains(n))
    throw shape_error(op, "dim '" + describe<D>() + "' cannot have extent " + std::to_string(n) +
                              ": its size is " + to_string(bounds_v<D>));
  return n;
}

}  // namespace detail

// The extents of Ds... . Static dims cost nothing: only the others are stored. A ragged dim
// whose batch dim is among Ds... also has its lengths (a shared pointer; null when every entry
// is full); shapes without ragged dims store none.
// Shape rule: none (a shape is what rules act on). Error: an extent outside its
// dim's interval (shape_error), a missing or repeated extent argument (compile time).
template <class... Ds>
class shape {
 public:
  using dims = dim_list<Ds...>;
  static constexpr std::size_t rank = sizeof...(Ds);

 private:
  static constexpr std::array<bool, rank> dynamic_{!is_static_v<Ds>...};
  static constexpr std::size_t count_dynamic() {
    std::size_t n = 0;
    for (bool d : dynamic_) n += d;
    return n;
  }
  // slot_[i]: where dim i's extent is stored, for dynamic dims.
  static constexpr std::array<std::size_t, rank> slot_ = [] {
    std::array<std::size_t, rank> s{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < rank; ++i) s[i] = dynamic_[i] ? n++ : 0;
    return s;
  }();

  // lslot_[i]: where dim i's lengths are stored, for dims that carry lengths.
  static constexpr std::array<bool, rank> ragged_{detail::carries_lengths_v<Ds, dims>...};
  static constexpr std::array<std::size_t, rank> lslot_ = [] {
    std::array<std::size_t, rank> s{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < rank; ++i) s[i] = ragged_[i] ? n++ : 0;
    return s;
  }();

 public:
  static constexpr std::size_t ragged_count =
      (std::size_t{detail::carries_lengths_v<Ds, dims>} + ... + 0);
  static constexpr std::size_t dynamic_count = count_dynamic();
  static constexpr bool is_static = dynamic_count == 0;
  DIMGRAPH_REQUIRE_DECL(
      (detail::extents_fit<rank>({(is_static_v<Ds> ? bounds_v<Ds>.lo : 0)...})),
      "dimgraph: shape: the static dims have more elements than a tensor can address", has<Ds...>);

  // A static shape needs no extents.
  constexpr shape()
    requires is_static
  = default;

  // Every non-static dim's extent, by tag, in any order; static dims may be given
  // too (they must then match).
  template <class... Ts>
    requires(sizeof...(Ts) > 0)
  explicit constexpr shape(extent_arg<Ts>... given) {
    static_assert((list_contains_v<dims, Ts> && ...),
                  "dimgraph: shape: an extent is given for a dim the shape does not have");
    static_assert(detail::first_duplicate_v<detail::type_list<Ts...>> == sizeof...(Ts),
                  "dimgraph: shape: an extent is given twice");
    static_assert(((is_static_v<Ds> || detail::contains_v<Ds, detail::type_list<Ts...>>)&&...),
                  "dimgraph: shape: a non-static dim has no extent");
    (set_checked<Ts>("shape", given.value), ...);
    check_size("shape");
  }

  // Extents by position, for code that builds shapes from other shapes.
  static constexpr shape from_extents([[maybe_unused]] const std::array<std::size_t, rank>& ext,
                                      [[maybe_unused]] const char* op = "shape") {  // (rank 0)
    shape s(uninitialized{});
    [[maybe_unused]] std::size_t i = 0;
    ((s.template set_checked<Ds>(op, ext[i++])), ...);
    s.check_size(op);
    return s;
  }

  // The lengths of D (null: every entry full, or D carries none in this shape).
  template <class D>
  const lengths_ref& lengths() const {
    using d = std::remove_cvref_t<D>;
    if constexpr (detail::carries_lengths_v<d, dims>)
      return lengths_[lslot_[list_index_of_v<dims, d>]];
    else return none_;
  }
  // Sets the lengths of D, checked against the extents of D and of its batch dim (errors: those
  // of detail::check_lengths, naming op).
  template <class D>
  void set_lengths(const char* op, lengths_ref l) {
    using d = std::remove_cvref_t<D>;
    static_assert(detail::carries_lengths_v<d, dims>,
                  "dimgraph: lengths: the dim is not ragged, or the shape lacks its batch dim");
    detail::check_lengths<d>(op, l, extent<d>(), extent<ragged_batch_t<d>>());
    lengths_[lslot_[list_index_of_v<dims, d>]] = std::move(l);
  }
  // Every dim's lengths taken from a shape with the same ragged dims (views keep their
  // tensor's lengths).
  template <class... Es>
  void take_lengths(const shape<Es...>& other) {
    (take_one<Ds>(other), ...);
  }

  template <class D>
  constexpr std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the shape has no such dim");
    constexpr std::size_t i = list_index_of_v<dims, std::remove_cvref_t<D>>;
    if constexpr (!dynamic_[i]) return bounds_v<D>.lo;
    else return extents_[slot_[i]];
  }
  constexpr std::size_t extent(std::size_t i) const {
    constexpr std::array<std::size_t, rank + 1> fixed{bounds_v<Ds>.lo..., 0};
    return dynamic_[i] ? extents_[slot_[i]] : fixed[i];
  }
  constexpr std::array<std::size_t, rank> extents() const {
    std::array<std::size_t, rank> e{};
    for (std::size_t i = 0; i < rank; ++i) e[i] = extent(i);
    return e;
  }
  // The number of elements (at most detail::max_elements: checked where extents enter).
  constexpr std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) n *= extent(i);
    return n;
  }

  friend constexpr bool operator==(const shape& a, const shape& b) {
    return a.extents_ == b.extents_;
  }

 private:
  struct uninitialized {};
  explicit constexpr shape(uninitialized) {}

  template <class D>
  constexpr void set_checked(const char* op, std::size_t n) {
    constexpr std::size_t i = list_index_of_v<dims, D>;
    detail::checked_extent<D>(op, n);
    if constexpr (dynamic_[i]) extents_[slot_[i]] = n;
  }

  // Error: the extents other than 0 multiply to more than detail::max_elements (shape_error
  // naming `op` and every dim with its extent). Static shapes are checked at compile time.
  constexpr void check_size([[maybe_unused]] const char* op) const {
    if constexpr (!is_static) detail::check_elements<Ds...>(op, extents());
  }

  template <class D, class Other>
  void take_one(const Other& other) {
    if constexpr (detail::carries_lengths_v<D, dims> &&
                  detail::carries_lengths_v<D, typename Other::dims>)
      lengths_[lslot_[list_index_of_v<dims, D>]] = other.template lengths<D>();
  }

  static inline const lengths_ref none_{};
  [[no_unique_address]] std::array<std::size_t, dynamic_count> extents_{};
  [[no_unique_address]] detail::lengths_array<ragged_count> lengths_{};
};

// The text of a shape: "[batch[2], time[25], feature=512]"; a ragged dim with lengths shows
// them: "time[5] lengths {5, 3, 1}".
template <class... Ds>
std::string to_string(const shape<Ds...>& s) {
  std::string out = "[";
  std::size_t i = 0;
  [[maybe_unused]] auto one = [&]<class D>(std::type_identity<D>) {
    out += (i ? ", " : "") + detail::dim_with_extent<D>(s.extent(i));
    if (const auto& l = s.template lengths<D>()) out += " lengths " + detail::lengths_text(*l);
    ++i;
  };
  (one(std::type_identity<Ds>{}), ...);
  return out + "]";
}

}  // namespace dimgraph
// ---- end dimgraph/shape/shape.hpp
// ---- begin dimgraph/shape/rules.hpp
// Propagation rules of the structural ops: each result dim as a type next to its run-time extent.



// Each rule is written once. The compile-time half is a dim type made by the dim
// algebra, so its interval is bounds_v of that type (nGraph's interval rules: concat
// sums intervals, merging multiplies them, an unknown bound stays unknown); the
// run-time half computes the extent from the operands' extents and throws shape_error
// where they cannot fit. Dims that must agree are the same tag, so their intervals
// agree by construction and their run-time extents must be equal.

namespace dimgraph {

// concat: [.., a, ..] , [.., b, ..] -> [.., a + b, ..] (a + a is 2 * a).
template <dimension... Parts>
using concat_dim_t = decltype((... + std::remove_cvref_t<Parts>{}));

// merge_dims: [.., a, .., b, ..] -> [.., a * b, ..] (a major).
template <dimension A, dimension B>
using merge_dim_t = decltype(std::remove_cvref_t<A>{} * std::remove_cvref_t<B>{});

// pad: [.., a, ..] -> [.., Before + a + After, ..].
template <dimension A, std::size_t Before, std::size_t After>
using pad_dim_t = decltype(c<Before> + std::remove_cvref_t<A>{} + c<After>);

namespace detail {

// The same dim in operands i and j (1-based) must have one extent.
template <class D>
void check_agree(const char* op, std::size_t a, std::size_t i, std::size_t b, std::size_t j) {
  if (a != b)
    throw shape_error(op, "dim '" + describe<D>() + "' has extent " + std::to_string(a) +
                              " in operand " + std::to_string(i) + " and " + std::to_string(b) +
                              " in operand " + std::to_string(j));
}

// "a=3 + b[4]": parts with their extents.
template <class... Parts>
std::string parts_text(const char* sep, const std::array<std::size_t, sizeof...(Parts)>& ext) {
  std::string s;
  std::size_t i = 0;
  ((s += (i ? sep : "") + dim_with_extent<Parts>(ext[i]), ++i), ...);
  return s;
}

// The extent of the result dim R of `op`: the sum (Add) or the product of the operands'
// extents xs. Error: it does not fit a std::size_t (shape_error naming op, R and the
// operands as text() writes them).
template <class R, bool Add, class Text>
std::size_t result_extent(const char* op, std::initializer_list<std::size_t> xs, const Text& text) {
  std::size_t r = Add ? 0 : 1;
  for (std::size_t x : xs)
    if (Add ? add_overflows(r, x, r) : mul_overflows(r, x, r))
      throw shape_error(op, "dim '" + describe<R>() + "' would have extent " + text() +
                                ", more than a std::size_t holds");
  return r;
}

// The extents of the parts of a sum (split, the inverse of concat): the parts' extents
// add up to the whole's. Parts with a static size or a given extent are known; the one
// part left unknown (it may occur more than once: split<A, A> of 2 * A) gets the rest,
// shared equally. Error: the known parts exceed the whole (or add up to more than a
// std::size_t holds), or the rest does not share equally, or (nothing unknown) the parts do
// not add up to the whole.
template <class Whole, class... Parts>
std::array<std::size_t, sizeof...(Parts)> split_sum_extents(
    const char* op, std::size_t whole, std::array<std::size_t, sizeof...(Parts)> ext,
    const std::array<bool, sizeof...(Parts)>& known) {
  constexpr std::size_t n = sizeof...(Parts);
  std::size_t sum = 0, unknown = 0;
  bool overflow = false;
  for (std::size_t i = 0; i < n; ++i)
    known[i] ? void(overflow = overflow || add_overflows(sum, ext[i], sum)) : void(++unknown);
  auto fail = [&](const std::string& why) {
    throw shape_error(
        op, "dim '" + describe<Whole>() + "' has extent " + std::to_string(whole) + ", " + why);
  };
  if (overflow) {
    std::string given;
    std::size_t i = 0;
    ((known[i] ? void(given += (given.empty() ? "" : " + ") + dim_with_extent<Parts>(ext[i]))
               : void(),
      ++i),
     ...);
    fail("but its known parts add up to more than a std::size_t holds: " + given);
  }
  if (unknown == 0 && sum != whole)
    fail("but its parts add up to " + std::to_string(sum) + ": " +
         parts_text<Parts...>(" + ", ext));
  if (sum > whole) fail("less than its known parts add up to (" + std::to_string(sum) + ")");
  if (unknown > 0) {
    if ((whole - sum) % unknown != 0)
      fail("which leaves " + std::to_string(whole - sum) + " to share among " +
           std::to_string(unknown) + " equal parts");
    for (std::size_t i = 0; i < n; ++i)
      if (!known[i]) ext[i] = (whole - sum) / unknown;
  }
  return ext;
}

// The extents of the factors of a merged dim (split_dims, the inverse of merge_dims):
// a * b == whole; the known factor gives the other exactly. Error: the known factor does
// not divide the whole, or is 0 (then the other is undetermined), or (both known) the
// product is not the whole (or does not fit a std::size_t).
template <class Whole, class A, class B>
std::array<std::size_t, 2> split_product_extents(const char* op, std::size_t whole,
                                                 std::array<std::size_t, 2> ext,
                                                 std::array<bool, 2> known) {
  auto fail = [&](const std::string& why) {
    throw shape_error(
        op, "dim '" + describe<Whole>() + "' has extent " + std::to_string(whole) + ", " + why);
  };
  if (known[0] && known[1]) {
    std::size_t product = 0;
    if (mul_overflows(ext[0], ext[1], product))
      fail("but its factors' extents multiply to more than a std::size_t holds: " +
           parts_text<A, B>(" * ", ext));
    if (product != whole)
      fail("but its factors' extents multiply to " + std::to_string(product) + ": " +
           parts_text<A, B>(" * ", ext));
    return ext;
  }
  const std::size_t k = known[0] ? 0 : 1;
  const std::string part = k == 0 ? dim_with_extent<A>(ext[0]) : dim_with_extent<B>(ext[1]);
  const std::string other = k == 0 ? describe<B>() : describe<A>();
  if (ext[k] == 0)
    fail("and " + part + " leaves the extent of '" + other +
         "' undetermined; give it with dg::extent");
  if (whole % ext[k] != 0) fail("which is not divisible by " + part);
  ext[1 - k] = whole / ext[k];
  return ext;
}

// An index read from data: index_error unless 0 <= i < n (the wording of check_index).
template <class V>
void check_class_index(const char* op, std::int64_t i, std::size_t n) {
  if (i < 0 || static_cast<std::uint64_t>(i) >= n)
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" +
                              describe<V>() + "' of extent " + std::to_string(n));
}

// A dim list with its dim Old replaced by the dims News... in place.
template <class L, class Old, class... News>
struct replace_dim {
  using list = types_of_t<L>;
  static constexpr std::size_t at = index_of_v<Old, list>;
  using type =
      concat_t<slice_t<0, at, list>, type_list<News...>, slice_t<at + 1, list::size, list>>;
};
template <class L, class Old, class... News>
using replace_dim_t = typename replace_dim<L, Old, News...>::type;

// Why a rename's sizes cannot agree (rename merges Old's interval with New's).
enum class rename_sizes { ok, different_static_sizes, disjoint };
template <class Old, class New>
constexpr rename_sizes check_rename_sizes() {
  if (is_static_v<Old> && is_static_v<New> && bounds_v<Old>.lo != bounds_v<New>.lo)
    return rename_sizes::different_static_sizes;
  if (intersect(bounds_v<Old>, bounds_v<New>).is_empty()) return rename_sizes::disjoint;
  return rename_sizes::ok;
}

}  // namespace detail

// Result dim lists (as detail::type_list) of the structural ops; D is x's dim list.
//   rename<Old, New>:  [.., old, ..] -> [.., new, ..]
//   concat along a:    [.., a, ..] -> [.., a + b, ..]
//   split_dims<A, B>:  [.., a * b, ..] -> [.., a, b, ..]
//   gather:            table [.., v, ..] , idx [is...] -> [is..., table dims without v]
//   one_hot:           idx [is...] -> [is..., v]
namespace detail {
template <class D, class Old, class New>
using rename_dims_t = replace_dim_t<D, Old, New>;
template <class TableDims, class V, class IdxDims>
using gather_dims_t =
    concat_t<types_of_t<IdxDims>, types_of_t<list_difference_t<TableDims, dim_list<V>>>>;
template <class IdxDims, class V>
using one_hot_dims_t = concat_t<types_of_t<IdxDims>, type_list<V>>;
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/shape/rules.hpp
// ---- begin dimgraph/shape/slice_rule.hpp
// The slice rule: NumPy slice bounds, the extent they select, and the dim a slice gives.



namespace dimgraph {

// An open slice bound (NumPy's None): the start or end of the dim in the stride's direction.
struct none_t {
  friend constexpr bool operator==(none_t, none_t) = default;
};
inline constexpr none_t none{};

// A slice bound: an index (a negative one counts from the end) or dg::none.
// A structural type, so it can be a template argument: dg::slice<Time, 2, -1>(x).
struct slice_index {
  std::ptrdiff_t value = 0;
  bool is_none = true;

  constexpr slice_index(none_t) noexcept {}  // NOLINT: implicit, like an integer
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  constexpr slice_index(I i) noexcept
      : value(static_cast<std::ptrdiff_t>(i)), is_none(false) {}  // NOLINT
};

// The positions a slice selects along a dim of extent n: first, first + step, ...
// (count of them; first is 0 when count is 0).
struct slice_range {
  std::size_t first = 0;
  std::ptrdiff_t step = 1;
  std::size_t count = 0;
};

// |step| as a std::size_t (exact for PTRDIFF_MIN too).
constexpr std::size_t step_magnitude(std::ptrdiff_t step) {
  return step < 0 ? std::size_t{0} - static_cast<std::size_t>(step)
                  : static_cast<std::size_t>(step);
}

// NumPy's rule (Python's slice.indices): a negative bound counts from the end, bounds
// beyond either end are clamped (a slice never fails), end is exclusive; a negative
// step walks backwards, and an open bound is then the last position (start) or the
// position before the first (end). step must not be 0; any other step is exact, however
// large (|step| is taken without overflow: a step of PTRDIFF_MIN selects at most one position).
constexpr slice_range slice_positions(std::size_t extent, slice_index start, slice_index end,
                                      std::ptrdiff_t step) {
  const auto n = static_cast<std::ptrdiff_t>(extent);
  auto adjust = [&](slice_index b, std::ptrdiff_t open) {
    if (b.is_none) return open;
    std::ptrdiff_t v = b.value;
    if (v < 0) {
      v = v < -n ? (step < 0 ? -1 : 0) : v + n;
    } else if (v >= n) {
      v = step < 0 ? n - 1 : n;
    }
    return v;
  };
  const std::ptrdiff_t s = adjust(start, step < 0 ? n - 1 : 0);
  const std::ptrdiff_t e = adjust(end, step < 0 ? -1 : n);
  const std::size_t k = step_magnitude(step);
  std::size_t count = 0;
  if (step > 0 && s < e) count = static_cast<std::size_t>(e - s - 1) / k + 1;
  if (step < 0 && e < s) count = static_cast<std::size_t>(s - e - 1) / k + 1;
  return count == 0 ? slice_range{0, step, 0}
                    : slice_range{static_cast<std::size_t>(s), step, count};
}

namespace detail {

// The extents a slice can select from a dim whose extent lies in a. The count is
// monotone between the extents where a bound starts or stops being clamped (|bound|
// and its neighbours), so its extremes lie at those points or at a's ends; far beyond
// them the count grows by one per |step| (unbounded), stays put, or falls to 0.
constexpr interval slice_bounds(interval a, slice_index start, slice_index end,
                                std::ptrdiff_t step) {
  if (a.is_empty()) return interval::empty();
  auto count = [&](std::size_t n) { return slice_positions(n, start, end, step).count; };
  const std::size_t k = step_magnitude(step);
  // far: beyond every point where clamping changes, and where the distance from start to
  // end is positive if it grows with the extent (it is then n plus at most the bounds).
  std::size_t far = 2;
  interval r = interval::empty();
  auto sample = [&](std::size_t n) {
    if (!a.contains(n)) return;
    const std::size_t c = count(n);
    r = hull(r, interval::exactly(c));
  };
  for (slice_index b : {start, end}) {
    if (b.is_none) continue;
    const std::size_t m = step_magnitude(b.value);
    for (std::size_t p : {m - 1, m, m + 1})
      if (p <= m + 1) sample(p);  // (m - 1 wraps when m is 0)
    far += m;
  }
  far = std::max(far, a.lo);
  sample(a.lo);
  if (a.is_bounded()) {
    sample(a.hi);
  } else {
    const std::size_t at_far = count(far), next = count(far + k);
    sample(far);
    if (next > at_far) r.hi = unbounded;
    if (next < at_far) r.lo = 0;
  }
  return r;
}

// The canonical slice for a static dim of size n: the positive positions lo, lo + k, ...
// (m of them), as the algebra writes them: the part [lo, lo + (m - 1) k + 1) of a, cut
// into windows of k. m == 0 gives a - n (empty); m == 1 or k == 1 need no windows.
template <class A, std::size_t N, std::size_t Lo, std::size_t M, std::size_t K>
constexpr auto positive_static_slice() {
  if constexpr (M == 0) {
    return A{} - c<N>;
  } else {
    constexpr std::size_t hi = Lo + (M - 1) * K + 1;
    constexpr auto part = sub_left(c<Lo>, A{} - c<N - hi>);
    if constexpr (M == 1) return part;
    else return ceildiv(part, c<K>);
  }
}

}  // namespace detail

// The dim of a's positions in reverse order. reversed_dim<reversed_dim<a>> is a (reverse_t).
template <class A>
struct reversed_dim : dim_expr_base {
  static constexpr interval bounds = bounds_v<A>;
  using source = A;
  static constexpr dim_kind kind = kind_v<A>;
  static std::string describe() { return "reverse(" + dimgraph::describe<A>() + ")"; }
};

// The dim of a slice of a. sliced_dim<a> (no parameters) is the result of a slice whose
// bounds are known only at run time, with size [0, hi(a)]; sliced_dim<a, start, end,
// step> is a compile-time slice that the algebra cannot write (such as one counting from
// the end of a non-static dim), sized by the slice rule.
template <class A, auto... Bounds>
struct sliced_dim : dim_expr_base {
  static_assert(sizeof...(Bounds) == 0 || sizeof...(Bounds) == 3,
                "dimgraph: sliced_dim: give no bounds or three");
  static constexpr interval bounds = [] {
    if constexpr (sizeof...(Bounds) == 0) return interval{0, bounds_v<A>.hi};
    else return detail::slice_bounds(bounds_v<A>, Bounds...);
  }();
  using source = A;
  static constexpr dim_kind kind = kind_v<A>;
  static std::string describe() {
    if constexpr (sizeof...(Bounds) == 0) {
      return "slice(" + dimgraph::describe<A>() + ")";
    } else {
      const slice_index b[] = {Bounds...};
      auto bound = [](slice_index i) { return i.is_none ? "" : std::to_string(i.value); };
      return detail::describe_at<A>(detail::level_atom) + "[" + bound(b[0]) + ":" + bound(b[1]) +
             ":" + bound(b[2]) + "]";
    }
  }
};

namespace detail {

// A slice of a ragged dim is ragged over the same batch dim when each row's valid part stays a
// prefix: the slice starts from the front (or its start is known only at run time, and checked
// there) and steps forwards. Its lengths are the slice rule applied to each row's length.
template <class A>
struct ragged_batch_of<sliced_dim<A>> {
  using type = ragged_batch_t<A>;
};
template <class A, slice_index Start, slice_index End, std::ptrdiff_t Step>
struct ragged_batch_of<sliced_dim<A, Start, End, Step>> {
  using type = std::conditional_t<(Step > 0 && (Start.is_none || Start.value >= 0)),
                                  ragged_batch_t<A>, void>;
};

template <class A>
struct reverse_of {
  using type = reversed_dim<A>;
};
template <class A>
struct reverse_of<reversed_dim<A>> {
  using type = A;
};

}  // namespace detail

template <dimension A>
using reverse_t = typename detail::reverse_of<std::remove_cvref_t<A>>::type;

namespace detail {

// The positions cut from the front and the back (a larger cut than the dim can be
// never selects anything: that slice is left to the opaque form).
constexpr std::size_t front_back_cut(slice_index start, slice_index end) {
  return (start.is_none ? 0 : static_cast<std::size_t>(start.value)) +
         (end.is_none ? 0 : static_cast<std::size_t>(-end.value));
}

// The dim of dg::slice<A, Start, End, Step> (see slice_dim_t).
template <class A, slice_index Start, slice_index End, std::ptrdiff_t Step>
constexpr auto slice_dim_fn() {
  static_assert(Step != 0, "dimgraph: slice: the stride is 0");
  if constexpr (Step == 0) {
    return invalid_dim{};
  } else if constexpr (is_static_v<A>) {
    constexpr std::size_t n = bounds_v<A>.lo;
    constexpr slice_range r = slice_positions(n, Start, End, Step);
    if constexpr (Step > 0 || r.count <= 1) {
      return positive_static_slice<A, n, r.first, r.count,
                                   (Step > 0 ? static_cast<std::size_t>(Step) : 1)>();
    } else {
      constexpr std::size_t k = static_cast<std::size_t>(-Step);
      constexpr std::size_t last = r.first - (r.count - 1) * k;
      return reverse_t<decltype(positive_static_slice<A, n, last, r.count, k>())>{};
    }
  } else if constexpr (Step > 0 && (Start.is_none || Start.value >= 0) &&
                       (End.is_none || End.value < 0) &&
                       bounds_v<A>.hi >= front_back_cut(Start, End)) {
    constexpr std::size_t s = Start.is_none ? 0 : static_cast<std::size_t>(Start.value);
    constexpr std::size_t e = End.is_none ? 0 : static_cast<std::size_t>(-End.value);
    return ceildiv(sub_left(c<s>, A{} - c<e>), c<static_cast<std::size_t>(Step)>);
  } else if constexpr (Step == -1 && Start.is_none && End.is_none) {
    return reverse_t<A>{};
  } else {
    return sliced_dim<A, Start, End, Step>{};
  }
}

}  // namespace detail

// The dim dg::slice<A, Start, End, Step>(x) gives: the algebra's dim for the selected
// positions wherever the algebra can write them, so that equal positions give equal
// types and slicing the padding off a padded dim gives the dim itself.
//  - a static: the positions are known. A positive step gives the part of a from the
//    first to the last position, cut into windows of the step:
//    ceildiv(sub_left(c<first>, a - c<n - last - 1>), c<step>) (which folds to a itself
//    for the whole of a); a negative step gives reverse_t of the same positions read
//    forwards. The size is static.
//  - a not static, a positive step, a start from the front (>= 0 or open) and an end
//    from the back (< 0 or open): ceildiv(sub_left(c<start>, a - c<-end>), c<step>),
//    sized by interval arithmetic.
//  - a not static, the whole of a backwards (none, none, -1): reversed_dim<a>.
//  - anything else (e.g. the last 3 of a dynamic dim, slice<T, -3>): the opaque
//    sliced_dim<a, Start, End, Step>, sized exactly by the slice rule (here [0, 3]).
// A slice with bounds known only at run time gives sliced_dim<a> instead.
template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Step = 1>
using slice_dim_t = decltype(detail::slice_dim_fn<std::remove_cvref_t<A>, Start, End, Step>());

}  // namespace dimgraph
// ---- end dimgraph/shape/slice_rule.hpp

// ---- begin dimgraph/tensor/element.hpp
// Element types: the arithmetic types, dg::index<D>, the element concept and categories.

#include <compare>
#include <iosfwd>

// ---- begin dimgraph/detail/simd.hpp
// SIMD vectors: the target's vector width, fixed-lane vector types, loads, stores, casts.

#include <cstring>


// Vectors are GCC/Clang vector extensions: one source for every target (SSE2, AVX2,
// AVX-512, NEON, or the compiler's generic lowering elsewhere). Every kernel works on
// vectors of L lanes chosen so that the widest element type of the kernel fills one
// register (no vector is wider than a register, so no ABI notes); L == 1 is the scalar
// form of the same code, so a remainder computes bit-for-bit what the vector body does.
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd {

// The target's widest vector register in bytes, capped by DIMGRAPH_CONFIG_SIMD_MAX_BYTES.
#if defined(__AVX512F__)
inline constexpr std::size_t target_bytes = 64;
#elif defined(__AVX__)
inline constexpr std::size_t target_bytes = 32;
#else
inline constexpr std::size_t target_bytes = 16;
#endif
inline constexpr std::size_t bytes =
    target_bytes < DIMGRAPH_CONFIG_SIMD_MAX_BYTES ? target_bytes : DIMGRAPH_CONFIG_SIMD_MAX_BYTES;
static_assert(bytes >= 1 && (bytes & (bytes - 1)) == 0,
              "dimgraph: DIMGRAPH_CONFIG_SIMD_MAX_BYTES must be a power of two");

// The arithmetic type a lane holds for element type T: itself for numbers; bool lanes are
// masks (0 or all ones, as comparisons give them) of one byte.
template <class T>
struct lane {
  using type = T;
};
template <>
struct lane<bool> {
  using type = std::int8_t;
};
template <class T>
using lane_t = typename lane<T>::type;

// vec<T, L>: L lanes of T (T an arithmetic lane type).
template <class T, std::size_t L>
struct vec_of {
  typedef T type __attribute__((vector_size(sizeof(T) * L)));
};
template <class T, std::size_t L>
using vec = typename vec_of<T, L>::type;

// The same aligned only as T: for loads and stores at any element. An access through it is
// an access to T's (a store of floats cannot change a pointer, so the compiler keeps pointers
// in registers across it; a store through memcpy may change anything).
template <class T, std::size_t L>
struct unaligned_vec_of {
  typedef T type __attribute__((vector_size(sizeof(T) * L), aligned(alignof(T))));
};
template <class T, std::size_t L>
using unaligned_vec = typename unaligned_vec_of<T, L>::type;

// The lane type and count of a vector.
template <class V>
struct traits;
template <class V>
  requires requires(V v) { v[0]; }
struct traits<V> {
  using value_type = std::remove_cvref_t<decltype(std::declval<V>()[0])>;
  static constexpr std::size_t lanes = sizeof(V) / sizeof(value_type);
};
template <class V>
using value_t = typename traits<V>::value_type;
template <class V>
inline constexpr std::size_t lanes_v = traits<V>::lanes;

// Lanes per vector for a kernel whose widest lane type has `widest` bytes.
constexpr std::size_t lanes_for(std::size_t widest) {
  return bytes / widest ? bytes / widest : 1;
}

// The signed integer type of a lane's width (what a comparison of such lanes gives).
template <std::size_t Bytes>
struct int_of_size;
template <>
struct int_of_size<1> {
  using type = std::int8_t;
};
template <>
struct int_of_size<2> {
  using type = std::int16_t;
};
template <>
struct int_of_size<4> {
  using type = std::int32_t;
};
template <>
struct int_of_size<8> {
  using type = std::int64_t;
};
template <class T>
using mask_lane_t = typename int_of_size<sizeof(T)>::type;

// Reinterpret the bits of a vector as another of the same size.
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline To bits(V v) {
  static_assert(sizeof(To) == sizeof(V));
  To r;
  std::memcpy(&r, &v, sizeof(V));
  return r;
}

// Lane-wise conversion between vectors of the same lane count (value conversion).
// (GCC 12 converts 4 floats to 4 doubles as two halves, through a shuffle, and 2 floats from
// memory one at a time: on x86 its conversion builtins take them directly.)
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline vec<To, lanes_v<V>> convert(V v) {
  constexpr std::size_t L = lanes_v<V>;
  if constexpr (std::is_same_v<value_t<V>, To>) {
    return v;
  } else if constexpr (std::is_same_v<value_t<V>, float> && std::is_same_v<To, double> &&
                       (L == 2 || L == 4)) {
#if defined(__SSE2__) && defined(__GNUC__) && !defined(__clang__)  // (Clang's are fine)
    if constexpr (L == 2) {
      vec<long long, 2> low{};
      std::memcpy(&low, &v, sizeof(v));
      return __builtin_ia32_cvtps2pd(bits<vec<float, 4>>(low));
    }
#if defined(__AVX__)
    else {
      return __builtin_ia32_cvtps2pd256(v);
    }
#endif
#endif
    return __builtin_convertvector(v, vec<To, L>);
  } else {
    return __builtin_convertvector(v, vec<To, L>);
  }
}

// All lanes equal to x.
template <class T, std::size_t L>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> splat(T x) {
  return vec<T, L>{} + x;
}

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
namespace mask_detail {
using chunk = vec<long long, 2>;  // one 16-byte register

// Chunks of lanes W bytes wide as chunks of lanes W / 2 bytes wide: chunks 2k and 2k + 1 packed
// with saturation (exact on 0 and -1) into chunk k (the last one with itself when N is odd).
template <std::size_t W, std::size_t N, std::size_t... K>
DIMGRAPH_ALWAYS_INLINE inline std::array<chunk, (N + 1) / 2> narrow_step(
    const std::array<chunk, N>& c, std::index_sequence<K...>) {
  const auto pack = [](chunk a, chunk b) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (W == 8)  // the low half of each lane
      return bits<chunk>(
          __builtin_ia32_shufps(bits<vec<float, 4>>(a), bits<vec<float, 4>>(b), 0x88));
    else if constexpr (W == 4)
      return bits<chunk>(__builtin_ia32_packssdw128(bits<vec<int, 4>>(a), bits<vec<int, 4>>(b)));
    else
      return bits<chunk>(
          __builtin_ia32_packsswb128(bits<vec<short, 8>>(a), bits<vec<short, 8>>(b)));
  };
  return {pack(c[2 * K], c[2 * K + 1 < N ? 2 * K + 1 : 2 * K])...};
}
template <std::size_t W, std::size_t To, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline auto narrow(const std::array<chunk, N>& c) {
  if constexpr (W == To) return c;
  else return narrow<W / 2, To>(narrow_step<W>(c, std::make_index_sequence<(N + 1) / 2>{}));
}

// Chunk a of lanes W bytes wide with each lane of its low (or high) half repeated: the lanes
// of that half, twice as wide (punpckl / punpckh of a with itself).
template <std::size_t W, bool High, std::size_t... I>
DIMGRAPH_ALWAYS_INLINE inline chunk unpack_half(chunk a, std::index_sequence<I...>) {
  using V = vec<typename int_of_size<W>::type, 16 / W>;
  const V x = bits<V>(a);
  return bits<chunk>(__builtin_shufflevector(x, x, (High ? 8 / W : 0) + I / 2 ...));
}

// Chunks of lanes W bytes wide as chunks of lanes 2 W bytes wide: chunk k becomes chunks 2k
// (its low half) and 2k + 1.
template <std::size_t W, std::size_t N, std::size_t... K>
DIMGRAPH_ALWAYS_INLINE inline std::array<chunk, 2 * N> widen_step(const std::array<chunk, N>& c,
                                                                  std::index_sequence<K...>) {
  constexpr auto lanes = std::make_index_sequence<16 / W>{};
  return {
      (K % 2 ? unpack_half<W, true>(c[K / 2], lanes) : unpack_half<W, false>(c[K / 2], lanes))...};
}
template <std::size_t W, std::size_t To, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline auto widen(const std::array<chunk, N>& c) {
  if constexpr (W == To) return c;
  else return widen<W * 2, To>(widen_step<W>(c, std::make_index_sequence<2 * N>{}));
}
}  // namespace mask_detail
#endif

// A mask (every lane 0 or all ones) as a mask of To lanes (To a signed integer type), lane for
// lane. __builtin_convertvector would do, but GCC 12 turns a narrowing conversion (a float
// comparison's 32-bit mask to bool's 8 bits) into one lane at a time, and without SSE4.1 a
// widening one too; on x86 the lanes are packed with saturation, two 16-byte registers into one,
// or unpacked against themselves.
template <class To, class V>
DIMGRAPH_ALWAYS_INLINE inline vec<To, lanes_v<V>> mask_cast(V m) {
  using From = value_t<V>;
  constexpr std::size_t L = lanes_v<V>;
  static_assert(std::is_integral_v<To> && std::is_signed_v<To> && std::is_integral_v<From>);
  if constexpr (sizeof(To) == sizeof(From)) {
    return bits<vec<To, L>>(m);
  } else {
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    using mask_detail::chunk;
    constexpr std::size_t in_chunks = (sizeof(V) + 15) / 16;
#if defined(__SSE4_1__)
    constexpr bool unpack = false;  // (pmovsx)
#else
    constexpr bool unpack = sizeof(To) > sizeof(From);
#endif
    if constexpr (sizeof(To) < sizeof(From) || unpack) {
      std::array<chunk, in_chunks> c;
      if constexpr (sizeof(V) < 16) {
        // (In the low lanes of a zeroed register: a memcpy would go through the stack.)
        using S = typename int_of_size<sizeof(V)>::type;
        vec<S, 16 / sizeof(V)> low{};
        low[0] = bits<S>(m);
        c[0] = bits<chunk>(low);
      } else {
        std::memcpy(c.data(), &m, sizeof(V));
      }
      const auto r = [&] {
        if constexpr (sizeof(To) < sizeof(From))
          return mask_detail::narrow<sizeof(From), sizeof(To)>(c);
        else return mask_detail::widen<sizeof(From), sizeof(To)>(c);
      }();
      vec<To, L> out;
      static_assert(sizeof(r) >= sizeof(out));
      std::memcpy(&out, r.data(), sizeof(out));
      return out;
    } else {
      return __builtin_convertvector(m, vec<To, L>);
    }
#else
    return __builtin_convertvector(m, vec<To, L>);
#endif
  }
}

// Whether every lane of the mask m (lanes 0 or all ones) is set.
template <class M>
DIMGRAPH_ALWAYS_INLINE inline bool all_lanes(M m) {
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(M) == 16) {
    return __builtin_ia32_pmovmskb128(bits<vec<char, 16>>(m)) == 0xffff;
  }
#if defined(__AVX2__)
  else if constexpr (sizeof(M) == 32) {
    return __builtin_ia32_pmovmskb256(bits<vec<char, 32>>(m)) == -1;
  }
#endif
#if defined(__AVX512F__)
  // A lane compare into a mask register tested at once (the compiler folds it into the compare
  // that made m), instead of folding four 16-byte quarters.
  else if constexpr (sizeof(M) == 64 && sizeof(m[0]) == 4) {
    return __builtin_ia32_cmpd512_mask(bits<vec<int, 16>>(m), vec<int, 16>{}, 4, 0xffff) == 0xffff;
  } else if constexpr (sizeof(M) == 64 && sizeof(m[0]) == 8) {
    return __builtin_ia32_cmpq512_mask(bits<vec<long long, 8>>(m), vec<long long, 8>{}, 4, 0xff) ==
           0xff;
  }
#endif
  else if constexpr (sizeof(M) % 16 == 0) {
    vec<char, 16> c[sizeof(M) / 16];
    std::memcpy(c, &m, sizeof(M));
    vec<char, 16> both = c[0];
    for (std::size_t k = 1; k < sizeof(M) / 16; ++k) both &= c[k];
    return __builtin_ia32_pmovmskb128(both) == 0xffff;
  }
#endif
  bool all = true;
  for (std::size_t l = 0; l < lanes_v<M>; ++l) all = all && m[l] != 0;
  return all;
}

// The lanes of v folded into one as a tree: f(lower half, upper half) lane by lane, then the
// same on that, down to one lane: log2 L steps on the vector unit, where folding in lane order
// is L dependent scalar steps, each after a lane extract. (For a sum the order of additions
// differs from lane order.)
template <class V, class F>
DIMGRAPH_ALWAYS_INLINE inline vec<value_t<V>, 1> fold_lanes(V v, F f) {
  if constexpr (lanes_v<V> == 1) {
    return v;
  } else {
    // Halves by shuffles, so that v stays in registers (a copy through memory would make the
    // compiler keep the loop's accumulator on the stack).
    return [&]<std::size_t... I>(std::index_sequence<I...>) DIMGRAPH_ALWAYS_INLINE {
      return fold_lanes(f(__builtin_shufflevector(v, v, I...),
                          __builtin_shufflevector(v, v, (I + sizeof...(I))...)),
                        f);
    }(std::make_index_sequence<lanes_v<V> / 2>{});
  }
}

// f folded over every lane of v, the result in every lane: v with each lane combined with the
// lane W / 2 away, then W / 4, ..., 1 (butterfly shuffles). Where fold_lanes halves the
// vector, this keeps its width, for an f that must not see vectors narrower than v (GCC
// compiles a NaN-propagating compare of 2- and 1-lane vectors to a branch per lane).
template <std::size_t Half, class V, class F>
DIMGRAPH_ALWAYS_INLINE inline V butterfly_fold(V v, F f) {
  if constexpr (Half == 0) {
    return v;
  } else {
    const V swapped = [&]<std::size_t... I>(std::index_sequence<I...>) DIMGRAPH_ALWAYS_INLINE {
      return __builtin_shufflevector(v, v, (I ^ Half)...);
    }(std::make_index_sequence<lanes_v<V>>{});
    return butterfly_fold<Half / 2>(f(v, swapped), f);
  }
}
template <class V, class F>
DIMGRAPH_ALWAYS_INLINE inline V fold_lanes_in_place(V v, F f) {
  return butterfly_fold<lanes_v<V> / 2>(v, f);
}

// Whether a < b in every lane (false for a NaN lane). The same as all_lanes(a < b); with
// AVX-512 the compare goes straight into a mask register (GCC would otherwise widen the mask
// into a vector and compare it again).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline bool all_lanes_less(V a, V b) {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(V) == 64 && std::is_same_v<std::remove_cvref_t<decltype(a[0])>, float>) {
    // (No lane "not less, or unordered": a test of the mask against zero, one kortest.)
    return __builtin_ia32_cmpps512_mask(a, b, 0x15 /* not less, unordered */, 0xffff, 4) == 0;
  } else if constexpr (sizeof(V) == 64 &&
                       std::is_same_v<std::remove_cvref_t<decltype(a[0])>, double>) {
    return __builtin_ia32_cmppd512_mask(a, b, 0x15, 0xff, 4) == 0;
  }
#endif
  return all_lanes(a < b);
}

// Whether no lane of v is NaN. The same as all_lanes(v == v), compared straight into a mask
// register with AVX-512.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline bool no_nan_lanes(V v) {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(V) == 64 && std::is_same_v<std::remove_cvref_t<decltype(v[0])>, float>) {
    return __builtin_ia32_cmpps512_mask(v, v, 0x07 /* ordered */, 0xffff, 4) == 0xffff;
  } else if constexpr (sizeof(V) == 64 &&
                       std::is_same_v<std::remove_cvref_t<decltype(v[0])>, double>) {
    return __builtin_ia32_cmppd512_mask(v, v, 0x07, 0xff, 4) == 0xff;
  }
#endif
  return all_lanes(v == v);
}

// L lanes from p (unaligned), from p, p + s, p + 2s, ... (strided), or one value repeated.
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> load(const T* p) {
  vec<T, L> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline vec<T, L> load_strided(const T* p, std::ptrdiff_t s) {
  vec<T, L> v{};
  for (std::size_t l = 0; l < L; ++l) v[l] = p[static_cast<std::ptrdiff_t>(l) * s];
  return v;
}
template <std::size_t L, class V>
DIMGRAPH_ALWAYS_INLINE inline void store(value_t<V>* p, V v) {
  static_assert(lanes_v<V> == L);
  std::memcpy(p, &v, sizeof(v));
}
template <std::size_t L, class V>
DIMGRAPH_ALWAYS_INLINE inline void store_strided(value_t<V>* p, std::ptrdiff_t s, V v) {
  static_assert(lanes_v<V> == L);
  for (std::size_t l = 0; l < L; ++l) p[static_cast<std::ptrdiff_t>(l) * s] = v[l];
}

}  // namespace dimgraph::detail::simd
DIMGRAPH_WIDE_END
// ---- end dimgraph/detail/simd.hpp

namespace dimgraph {

// An integer that names a position along dim D: a class label, a token id
// (dg::index<Vocab>). Not arithmetic: it is made explicitly from an integer, read
// with value(), compared only with the same index<D>, and prints as the integer.
// A value-initialised index is 0. Error: D is not a dim (compile time).
template <class D>
class index {
  static_assert(dimension<D> && std::is_same_v<D, std::remove_cvref_t<D>>,
                "dimgraph: index: the parameter must be a dim tag (not cv-qualified)");

 public:
  using dim_type = D;

  constexpr index() = default;
  template <std::integral I>
    requires(!std::is_same_v<I, bool>)
  constexpr explicit index(I i) noexcept : value_(static_cast<std::int64_t>(i)) {}

  constexpr std::int64_t value() const noexcept { return value_; }

  friend constexpr bool operator==(index, index) = default;
  friend constexpr std::strong_ordering operator<=>(index, index) = default;

  template <class Char, class Traits>
  friend std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& os,
                                                      index i) {
    return os << i.value_;
  }

 private:
  std::int64_t value_ = 0;
};

// In SIMD kernels an index is its int64 value.
template <class D>
struct detail::simd::lane<index<D>> {
  using type = std::int64_t;
};

namespace detail {

template <class T, class... Us>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Us> || ...);

// The standard integer types: every std::intN_t / std::uintN_t is one of them. The
// character types (char, wchar_t, char8_t, ...) are not elements: they would print as
// characters and their signedness varies.
template <class T>
inline constexpr bool is_integer_element_v =
    is_one_of_v<T, signed char, short, int, long, long long, unsigned char, unsigned short,
                unsigned, unsigned long, unsigned long long>;

template <class T>
struct index_traits {
  static constexpr bool is_index = false;
};
template <class D>
struct index_traits<index<D>> {
  static constexpr bool is_index = true;
  using dim = D;
};

}  // namespace detail

// T is dg::index<D> for some dim D (cv-qualifiers ignored).
template <class T>
inline constexpr bool is_index_v = detail::index_traits<std::remove_cv_t<T>>::is_index;

// The dim of an index type: index_dim_t<dg::index<Vocab>> is Vocab. Ill-formed otherwise.
template <class T>
using index_dim_t = typename detail::index_traits<std::remove_cv_t<T>>::dim;

// A tensor element type: bool, a 8-64-bit signed or unsigned integer, float, double or
// dg::index<D> (not cv-qualified).
template <class T>
concept element = std::is_same_v<T, bool> || detail::is_integer_element_v<T> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double> || is_index_v<T>;

// The category of an element type. Promotion never lowers the category, and
// boolean < integral < floating in that order; index is apart (it mixes with nothing).
enum class element_category { boolean, integral, floating, index };

template <element T>
inline constexpr element_category element_category_v =
    std::is_same_v<T, bool>       ? element_category::boolean
    : std::is_floating_point_v<T> ? element_category::floating
    : is_index_v<T>               ? element_category::index
                                  : element_category::integral;

}  // namespace dimgraph
// ---- end dimgraph/tensor/element.hpp
// ---- begin dimgraph/tensor/promote.hpp
// Type promotion: promote_t (PyTorch's promoteTypes), promote_scalar_t, is_narrowing_v.



namespace dimgraph {
namespace detail {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559 &&
                  sizeof(float) == 4 && sizeof(double) == 8,
              "dimgraph: float and double must be IEEE 754 binary32 and binary64");

// An arithmetic element type reduced to what promotion looks at: category, signedness
// and width. Distinct types of equal width (long and long long) have the same code.
enum class type_code { b1, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, none };

constexpr bool is_unsigned_code(type_code c) {
  return c >= type_code::u8 && c <= type_code::u64;
}
constexpr bool is_signed_code(type_code c) {
  return c >= type_code::i8 && c <= type_code::i64;
}
constexpr bool is_float_code(type_code c) {
  return c == type_code::f32 || c == type_code::f64;
}
// log2 of the width in bytes, within the code's family (u8 -> 0, u64 -> 3).
constexpr int width_step(type_code c) {
  if (is_unsigned_code(c)) return static_cast<int>(c) - static_cast<int>(type_code::u8);
  if (is_signed_code(c)) return static_cast<int>(c) - static_cast<int>(type_code::i8);
  return static_cast<int>(c) - static_cast<int>(type_code::f32);
}
constexpr type_code wider(type_code a, type_code b) {
  return width_step(a) >= width_step(b) ? a : b;
}

template <class T>
constexpr type_code code_of() {
  if constexpr (std::is_same_v<T, bool>) return type_code::b1;
  else if constexpr (std::is_same_v<T, float>) return type_code::f32;
  else if constexpr (std::is_same_v<T, double>) return type_code::f64;
  else if constexpr (is_integer_element_v<T>) {
    constexpr int step = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    constexpr type_code first = std::is_signed_v<T> ? type_code::i8 : type_code::u8;
    return static_cast<type_code>(static_cast<int>(first) + step);
  } else return type_code::none;  // index<D> and non-elements
}

// The fixed-width type of each code, in type_code's order.
using code_types = type_list<bool, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t,
                             std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double>;
template <type_code C>
using type_of_code_t = at_t<static_cast<std::size_t>(C), code_types>;

// The promotion of two arithmetic codes, or none. Rules (PyTorch's promoteTypes on
// bool, u8, i8, i16, i32, i64, f32, f64, extended to u16, u32, u64):
//   bool with X -> X;  floating with floating -> the wider;  integer with floating -> the floating;
//   signed with signed, unsigned with unsigned -> the wider;
//   unsigned u_n with signed i_m -> i_m if m > n, else the signed type of width 2n
//   (u8 with i8 -> i16, u16 with i32 -> i32, u32 with i32 -> i64), and none for u64.
constexpr type_code promote_codes(type_code a, type_code b) {
  if (a == type_code::none || b == type_code::none) return type_code::none;
  if (a == b) return a;
  if (a == type_code::b1) return b;
  if (b == type_code::b1) return a;
  if (is_float_code(a) && is_float_code(b)) return wider(a, b);
  if (is_float_code(a)) return a;
  if (is_float_code(b)) return b;
  if (is_signed_code(a) == is_signed_code(b)) return wider(a, b);
  type_code u = is_unsigned_code(a) ? a : b, s = is_unsigned_code(a) ? b : a;
  if (width_step(s) > width_step(u)) return s;
  if (u == type_code::u64) return type_code::none;
  return static_cast<type_code>(static_cast<int>(type_code::i8) + width_step(u) + 1);
}

template <class A, class B>
struct promote_impl {};  // no promotion
template <class A, class B>
  requires(!std::is_same_v<A, B> && promote_codes(code_of<A>(), code_of<B>()) != type_code::none)
struct promote_impl<A, B> {
  using type = type_of_code_t<promote_codes(code_of<A>(), code_of<B>())>;
};
template <element A>
struct promote_impl<A, A> {
  using type = A;
};

// The fixed-width type an element type promotes as (long long -> std::int64_t on LP64).
template <element T>
struct canonical_element {
  using type = T;
};
template <element T>
  requires(code_of<T>() != type_code::none)
struct canonical_element<T> {
  using type = type_of_code_t<code_of<T>()>;
};

// A C++ scalar does not raise a tensor's type within its category; a scalar of a
// higher category gives that category's default type (int64 for integers, float32
// for floating point, as PyTorch's default dtype). index<D> scalars go only with index<D>.
template <class Elem, class Scalar>
struct promote_scalar_impl {};
template <element Elem, element Scalar>
  requires(!is_index_v<Elem> && !is_index_v<Scalar>)
struct promote_scalar_impl<Elem, Scalar> {
  static constexpr element_category elem_c = element_category_v<Elem>;
  static constexpr element_category scalar_c = element_category_v<Scalar>;
  using type = std::conditional_t<
      (scalar_c <= elem_c), Elem,
      std::conditional_t<scalar_c == element_category::integral, std::int64_t, float>>;
};
template <class D>
struct promote_scalar_impl<index<D>, index<D>> {
  using type = index<D>;
};

}  // namespace detail

// The common element type of two tensors' elements, as torch.promote_types on the
// types PyTorch has (bool, uint8, int8..int64, float32, float64):
//   bool < integers < floating; within signed or unsigned integers the wider wins;
//   uint8 with int8 -> int16; any integer with float32 -> float32; float32 with float64 -> float64.
// Extension to uint16/uint32/uint64 (PyTorch refuses these with integers):
//   unsigned with unsigned -> the wider; u_n with i_m -> the smallest signed type holding
//   both ranges (u16 with i8 -> i32, u32 with i64 -> i64); u64 with any signed integer:
//   no promotion. Any unsigned with float32/float64 -> that floating type (as PyTorch).
// index<D> promotes only with the same index<D>. A type promotes with itself to itself.
// Types of equal width and signedness (long, long long) promote as the fixed-width type.
// promote_t is ill-formed (SFINAE-friendly) where there is no promotion: test it with
// has_promotion_v to report an error.
template <class A, class B>
using promote_t = typename detail::promote_impl<A, B>::type;

template <class A, class B>
inline constexpr bool has_promotion_v = requires { typename detail::promote_impl<A, B>::type; };

// The type a tensor with elements Elem and a C++ scalar of type Scalar combine in
// (PyTorch's "wrapped numbers"): the tensor's type unless the scalar's category is
// higher, then int64 (an integer scalar with a bool tensor) or float (a floating
// scalar with a bool or integer tensor). f32 with a double scalar -> f32; i8 with an
// int -> i8; u8 with a long -> u8; bool with an int -> int64; int32 with 0.5 -> float.
// Ill-formed when Elem or Scalar is index<D> (except index<D> with index<D>).
template <class Elem, class Scalar>
using promote_scalar_t = typename detail::promote_scalar_impl<Elem, Scalar>::type;

template <class Elem, class Scalar>
inline constexpr bool has_scalar_promotion_v =
    requires { typename detail::promote_scalar_impl<Elem, Scalar>::type; };

namespace detail {
template <class Src, class Dst>
constexpr bool narrowing() {
  if constexpr (has_promotion_v<Dst, Src>)
    return !std::is_same_v<typename canonical_element<promote_t<Dst, Src>>::type,
                           typename canonical_element<Dst>::type>;
  else return true;
}
}  // namespace detail

// True when writing Src elements into a Dst output needs a dg::cast: the promotion of
// Dst and Src is not Dst itself (or there is none). float -> double is fine; double ->
// float, int64 -> int32, float -> int32, int -> bool, int -> index<D> are narrowing.
template <class Src, class Dst>
inline constexpr bool is_narrowing_v = detail::narrowing<Src, Dst>();

}  // namespace dimgraph
// ---- end dimgraph/tensor/promote.hpp
// ---- begin dimgraph/tensor/shape_args.hpp
// Shape arguments by tag (dg::extent<D>(n), dg::lengths<D>(lens)): their checks and their shape.



namespace dimgraph::detail {

// Why extents given by tag do not fit the dims Ds... (checked in this order, so that the
// entry point's static_asserts give one message per mistake).
enum class extents_check { ok, unknown_dim, repeated, missing };
template <class... Ds, class... Es>
constexpr extents_check check_extents(type_list<Ds...>, type_list<Es...>) {
  if (!(contains_v<Es, type_list<Ds...>> && ...)) return extents_check::unknown_dim;
  if (first_duplicate_v<type_list<Es...>> != sizeof...(Es)) return extents_check::repeated;
  if (!((is_static_v<Ds> || contains_v<Ds, type_list<Es...>>)&&...)) return extents_check::missing;
  return extents_check::ok;
}

// What a tensor is made from, by tag: extents (dg::extent<D>(n)) and the lengths of ragged
// dims (dg::lengths<D>(lens)).
template <class A>
struct shape_arg_traits : std::false_type {};
template <class D>
struct shape_arg_traits<extent_arg<D>> : std::true_type {
  using extent_dims = type_list<D>;
  using lengths_dims = type_list<>;
};
template <class D>
struct shape_arg_traits<lengths_arg<D>> : std::true_type {
  using extent_dims = type_list<>;
  using lengths_dims = type_list<D>;
};
template <class A>
concept shape_arg = shape_arg_traits<A>::value;

// Why shape arguments As... do not fit the dims Ds... (one message per mistake, in this order).
enum class shape_args_check {
  ok,
  unknown_dim,
  unknown_lengths_dim,
  repeated,
  repeated_lengths,
  missing,
  lengths_not_ragged,
  lengths_without_batch
};
template <class... Ds, class... As>
constexpr shape_args_check check_shape_args(type_list<Ds...>, type_list<As...>) {
  using given = concat_t<typename shape_arg_traits<As>::extent_dims...>;
  using lens = concat_t<typename shape_arg_traits<As>::lengths_dims...>;
  using named = concat_t<given, lens>;
  using all = type_list<Ds...>;
  constexpr auto in_all = []<class... Xs>(type_list<Xs...>) {
    return (contains_v<Xs, all> && ...);
  };
  if (!in_all(given{})) return shape_args_check::unknown_dim;
  if (!in_all(lens{})) return shape_args_check::unknown_lengths_dim;
  if (first_duplicate_v<given> != given::size) return shape_args_check::repeated;
  if (first_duplicate_v<lens> != lens::size) return shape_args_check::repeated_lengths;
  if (!((is_static_v<Ds> || contains_v<Ds, named>)&&...)) return shape_args_check::missing;
  constexpr auto ragged = []<class... Ls>(type_list<Ls...>) { return (is_ragged_v<Ls> && ...); };
  if (!ragged(lens{})) return shape_args_check::lengths_not_ragged;
  constexpr auto batched = []<class... Ls>(type_list<Ls...>) {
    return (carries_lengths_v<Ls, dim_list<Ds...>> && ...);
  };
  if (!batched(lens{})) return shape_args_check::lengths_without_batch;
  return shape_args_check::ok;
}

// The extent given for D; else, for a ragged dim with lengths, the largest length; else D's
// static size.
template <class D, class A>
constexpr void extent_from(const A&, std::size_t&, bool&) {}
template <class D>
constexpr void extent_from(const extent_arg<D>& e, std::size_t& n, bool& given) {
  n = e.value;
  given = true;
}
template <class D, class A>
constexpr void length_extent_from(const A&, std::size_t&) {}
template <class D>
void length_extent_from(const lengths_arg<D>& l, std::size_t& n) {
  n = longest(l.value);
}
template <class D, class... As>
constexpr std::size_t given_extent(const As&... a) {
  std::size_t n = bounds_v<D>.lo;
  bool given = false;
  (extent_from<D>(a, n, given), ...);
  if (!given) (length_extent_from<D>(a, n), ...);
  return n;
}

// The shape of Ds... from shape arguments in any order (static dims optional), each extent
// checked against its dim's interval and the lengths against the extents: a shape_error that
// names `op`, the dim and the extent. The caller has checked the arguments with
// check_shape_args.
template <class S, class A>
void lengths_from(S&, const char*, const A&) {}
template <class S, class D>
void lengths_from(S& s, const char* op, const lengths_arg<D>& l) {
  if constexpr (carries_lengths_v<D, typename S::dims>)  // (else a reported mistake)
    s.template set_lengths<D>(op, l.value);
}
template <class... Ds, class... As>
shape<Ds...> shape_from(const char* op, const As&... a) {
  auto s = shape<Ds...>::from_extents({given_extent<Ds>(a...)...}, op);
  (lengths_from(s, op, a), ...);
  return s;
}

// The static_asserts of an entry point Op taking shape arguments As for the dims Ds...
#define DIMGRAPH_CHECK_SHAPE_ARGS(OP, DS, AS)                                                     \
  constexpr auto shape_check = ::dimgraph::detail::check_shape_args(                              \
      ::dimgraph::detail::type_list<DS...>{}, ::dimgraph::detail::type_list<AS...>{});            \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::unknown_dim,              \
                   "dimgraph: " OP ": an extent is given for a dim the tensor does not have",     \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::unknown_lengths_dim,      \
                   "dimgraph: " OP ": lengths are given for a dim the tensor does not have",      \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::repeated,                 \
                   "dimgraph: " OP ": an extent is given twice", ::dimgraph::has<DS...>,          \
                   ::dimgraph::asked<AS...>);                                                     \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::repeated_lengths,         \
                   "dimgraph: " OP ": lengths are given twice for a dim", ::dimgraph::has<DS...>, \
                   ::dimgraph::asked<AS...>);                                                     \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::missing,                  \
                   "dimgraph: " OP ": a non-static dim has no extent (give dg::extent<D>(n))",    \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::lengths_not_ragged,       \
                   "dimgraph: " OP                                                                \
                   ": lengths are given for a dim that is not ragged (declare it "                \
                   "dg::dim<\"name\", dg::ragged<Batch>>)",                                       \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::lengths_without_batch,    \
                   "dimgraph: " OP                                                                \
                   ": lengths are given for a ragged dim whose batch dim the "                    \
                   "tensor does not have",                                                        \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>)

// The error of elements given for a shape whose size is another.
template <class... Ds>
[[noreturn]] void throw_element_count(const char* op, std::size_t given, const shape<Ds...>& s) {
  throw shape_error(op, std::to_string(given) + " elements are given for the shape " +
                            to_string(s) + " of " + std::to_string(s.size()) + " elements");
}

}  // namespace dimgraph::detail
// ---- end dimgraph/tensor/shape_args.hpp
// ---- begin dimgraph/tensor/tensor_access.hpp
// tensor_access: what tensor and tensor_view share (extents, strides, access by position or tag).


// ---- begin dimgraph/tensor/index_arg.hpp
// dg::at<D>(i): a position along dim D, for element access and slicing by tag.



namespace dimgraph {

template <class D>
struct at_arg {
  std::size_t value;
};
template <dimension D>
constexpr at_arg<std::remove_cvref_t<D>> at(std::size_t i) {
  return {i};
}

namespace detail {
// Throws index_error unless i < n.
template <class D>
constexpr void check_index(const char* op, std::size_t i, std::size_t n) {
  if (i >= n)
    throw index_error(op, "index " + std::to_string(i) + " is out of range for dim '" +
                              describe<D>() + "' of extent " + std::to_string(n));
}
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/tensor/index_arg.hpp

namespace dimgraph {

template <class T, class... Ds>
class tensor_view;

namespace detail {

template <std::size_t R>
using strides_t = std::array<std::ptrdiff_t, R>;

// Row-major strides: the last dim is contiguous.
template <std::size_t R>
constexpr strides_t<R> row_major_strides(const std::array<std::size_t, R>& ext) {
  strides_t<R> s{};
  std::ptrdiff_t step = 1;
  for (std::size_t i = R; i-- > 0;) {
    s[i] = step;
    step *= static_cast<std::ptrdiff_t>(ext[i]);
  }
  return s;
}

// A view without dim D: the same memory, D fixed at index i.
template <class D, class T, class... Ds>
struct drop_dim_view;
template <class D, class T, class... Ds>
using drop_dim_view_t = typename drop_dim_view<D, T, Ds...>::type;

template <class D, class T, class... Ds>
struct drop_dim_view {
  template <class... Kept>
  static tensor_view<T, Kept...> make(type_list<Kept...>);
  template <class X>
  struct keep : std::bool_constant<!std::is_same_v<X, D>> {};
  using type = decltype(make(filter_t<keep, type_list<Ds...>>{}));
};

// Calls f(offset) for every element of a strided layout, in row-major order of its dims.
template <std::size_t R, class F>
void for_each_offset(const std::array<std::size_t, R>& ext, const strides_t<R>& str, F&& f) {
  for (std::size_t e : ext)
    if (e == 0) return;
  if constexpr (R == 0) {
    f(std::ptrdiff_t{0});
  } else {
    std::array<std::size_t, R> pos{};
    std::ptrdiff_t off = 0;
    for (;;) {
      f(off);
      std::size_t i = R;
      while (i-- > 0) {
        off += str[i];
        if (++pos[i] < ext[i]) break;
        off -= static_cast<std::ptrdiff_t>(pos[i]) * str[i];
        pos[i] = 0;
        if (i == 0) return;
      }
    }
  }
}

}  // namespace detail

// What tensor and tensor_view share: extents, strides, access by position and by tag.
// Derived provides data(), shape() and strides().
template <class Derived, class T, class... Ds>
class tensor_access {
  DIMGRAPH_REQUIRE_DECL(detail::first_duplicate_v<detail::type_list<Ds...>> == sizeof...(Ds),
                        "dimgraph: tensor: a dim appears more than once", asked<Ds...>);
  static_assert((dimension<Ds> && ...),
                "dimgraph: tensor: every dim must be a dim tag or a dim expression");

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using dims = dim_list<Ds...>;
  using shape_type = shape<Ds...>;
  static constexpr std::size_t rank = sizeof...(Ds);

  template <class D>
  std::size_t extent() const {
    return self().shape().template extent<D>();
  }
  std::size_t size() const { return self().shape().size(); }
  template <class D>
  std::ptrdiff_t stride() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: stride: the tensor has no such dim");
    return self().strides()[list_index_of_v<dims, std::remove_cvref_t<D>>];
  }

  // The element at positions is... in the listed dim order (unchecked).
  template <std::integral... Is>
    requires(sizeof...(Is) == rank)
  decltype(auto) operator()(Is... is) {
    return derived().data()[offset({static_cast<std::size_t>(is)...})];
  }
  template <std::integral... Is>
    requires(sizeof...(Is) == rank)
  decltype(auto) operator()(Is... is) const {
    return self().data()[offset({static_cast<std::size_t>(is)...})];
  }

  // The element at the given position of every dim, by tag, in any order (checked:
  // index_error). x.at(dg::at<Time>(3), dg::at<Feature>(0))
  template <class... As>
  decltype(auto) at(at_arg<As>... a) {
    return derived().data()[checked_offset(a...)];
  }
  template <class... As>
  decltype(auto) at(at_arg<As>... a) const {
    return self().data()[checked_offset(a...)];
  }

  // A view without dim D, fixed at index i (checked: index_error). x[dg::at<Time>(3)]
  template <class D>
  auto operator[](at_arg<D> a) {
    return drop(derived().data(), a);
  }
  template <class D>
  auto operator[](at_arg<D> a) const {
    return drop(self().data(), a);
  }

  // A copy of the elements in row-major order of the listed dims (whatever the strides).
  std::vector<value_type> to_vector() const {
    std::vector<value_type> out;
    out.reserve(size());
    const T* p = self().data();
    detail::for_each_offset<rank>(self().shape().extents(), self().strides(),
                                  [&](std::ptrdiff_t off) { out.push_back(p[off]); });
    return out;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  Derived& derived() { return static_cast<Derived&>(*this); }

  std::ptrdiff_t offset(const std::array<std::size_t, rank>& pos) const {
    std::ptrdiff_t off = 0;
    const auto& s = self().strides();
    for (std::size_t i = 0; i < rank; ++i) off += static_cast<std::ptrdiff_t>(pos[i]) * s[i];
    return off;
  }
  template <class... As>
  std::ptrdiff_t checked_offset(at_arg<As>... a) const {
    static_assert(sizeof...(As) == rank && (list_contains_v<dims, As> && ...) &&
                      detail::first_duplicate_v<detail::type_list<As...>> == sizeof...(As),
                  "dimgraph: at: give one index for every dim of the tensor, by tag");
    std::array<std::size_t, rank> pos{};
    ((detail::check_index<As>("at", a.value, extent<As>()),
      pos[list_index_of_v<dims, As>] = a.value),
     ...);
    return offset(pos);
  }
  template <class P, class D>
  auto drop(P* data, at_arg<D> a) const {
    static_assert(list_contains_v<dims, D>, "dimgraph: at: the tensor has no such dim");
    detail::check_index<D>("at", a.value, extent<D>());
    constexpr std::size_t k = list_index_of_v<dims, D>;
    using view = detail::drop_dim_view_t<D, P, Ds...>;
    std::array<std::size_t, rank - 1> ext{};
    std::array<std::ptrdiff_t, rank - 1> str{};
    for (std::size_t i = 0, j = 0; i < rank; ++i)
      if (i != k) {
        ext[j] = self().shape().extent(i);
        str[j++] = self().strides()[i];
      }
    // Entry i of a ragged dim's batch dim is that sequence: the ragged dim's extent is its length.
    [[maybe_unused]] auto to_length = [&]<class R>(std::type_identity<R>) {
      if constexpr (detail::carries_lengths_v<R, dims> && std::is_same_v<ragged_batch_t<R>, D>) {
        constexpr std::size_t r = list_index_of_v<dims, R>;
        if (const auto& l = self().shape().template lengths<R>())
          ext[r < k ? r : r - 1] = static_cast<std::size_t>((*l)[a.value]);
      }
    };
    (to_length(std::type_identity<Ds>{}), ...);
    auto vs = view::shape_type::from_extents(ext, "at");
    if constexpr (view::shape_type::ragged_count > 0) vs.take_lengths(self().shape());
    // (An empty tensor's view keeps its base: the offset would point past the storage, which
    // is undefined even unread.)
    const std::ptrdiff_t offset =
        self().size() == 0 ? 0 : static_cast<std::ptrdiff_t>(a.value) * self().strides()[k];
    return view(data + offset, vs, str);
  }
};

}  // namespace dimgraph
// ---- end dimgraph/tensor/tensor_access.hpp
// ---- begin dimgraph/tensor/tensor_view.hpp
// tensor_view (non-owning, strided) and dg::view, a row-major view over memory the caller owns.

#include <ranges>

// ---- begin dimgraph/tensor/assign_hook.hpp
// The assignment hook: how a tensor or a view takes the value of an expression (declared here,
// defined in eval/assign.hpp).


namespace dimgraph::detail {

// Whether a tensor or a view can take the value of an E (be made from it, be assigned it).
// Each layer says which of its types qualify: tensors and views (tensor.hpp), lazy nodes and
// the stand-in for a reported mistake (expr/node.hpp), so that this one need not know them.
template <class E>
inline constexpr bool assign_source_v = false;
template <class E>
concept assign_source = assign_source_v<std::remove_cvref_t<E>>;

// dst = e, for Dst a tensor or a const tensor_view (a view is a reference: writing through it
// leaves it const) and E an assign_source. The tensor layer calls it; eval/assign.hpp defines
// it, once for every kind of expression, as a specialisation for every assign_source. Without
// that header the call finds this primary template, which says what to include.
// (The message is one class's, void for every Dst and E, so that a translation unit gets it
// once however many expressions it evaluates: the mistake is one missing include.)
template <class Void>
struct assign_header_missing {
  static_assert(!std::is_void_v<Void>,
                "dimgraph: assign: evaluating an expression needs <dimgraph/eval/assign.hpp> (or "
                "<dimgraph.hpp>)");
};
template <class Dst, class E>
struct assign_hook {
  static_assert(sizeof(assign_header_missing<std::conditional_t<true, void, E>>) != 0);
  // dst = e: a tensor takes e's extents, a view must have them already.
  static void assign(Dst& dst, const E& e);
  // A tensor under construction (no shape yet, elements uninitialised) made from e.
  static void construct(Dst& dst, const E& e);
};

}  // namespace dimgraph::detail
// ---- end dimgraph/tensor/assign_hook.hpp

namespace dimgraph {

// A non-owning strided view (T may be const). Made by permute, slicing by tag, or
// over external memory with dg::view or dg::strided_view (tensor/strided_view.hpp).
template <class T, class... Ds>
class tensor_view : public tensor_access<tensor_view<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor_view<T, Ds...>, T, Ds...>;
  static_assert(
      element<std::remove_const_t<T>>,
      "dimgraph: tensor_view: the element type must be bool, an 8-64-bit integer, float, double or "
      "dg::index<D> (optionally const)");

 public:
  using base::rank;
  using typename base::dims;
  using typename base::shape_type;

  tensor_view(T* data, const shape_type& s, const detail::strides_t<rank>& strides)
      : data_(data), shape_(s), strides_(strides) {}
  // A view of a tensor (const-converting from a mutable view too).
  template <class U>
    requires std::is_same_v<const U, T>
  tensor_view(const tensor_view<U, Ds...>& v)
      : tensor_view(v.data(), v.shape(), v.strides()) {}  // NOLINT

  template <detail::assign_source E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor_view>)
  const tensor_view& operator=(E&& e) const {
    detail::assign_hook<const tensor_view, std::remove_cvref_t<E>>::assign(*this, e);
    return *this;
  }
  // Assignment writes through to the viewed elements (a view is a reference).
  const tensor_view& operator=(const tensor_view& other) const
    requires(!std::is_const_v<T>)
  {
    detail::assign_hook<const tensor_view, tensor_view>::assign(*this, other);
    return *this;
  }
  tensor_view(const tensor_view&) = default;

  T* data() const { return data_; }
  const shape_type& shape() const { return shape_; }
  const detail::strides_t<rank>& strides() const { return strides_; }

 private:
  T* data_;
  shape_type shape_;
  detail::strides_t<rank> strides_;
};

namespace detail {
template <class... Ds, class... Es>
shape<Ds...> view_shape(extent_arg<Es>... e) {
  constexpr auto check = check_extents(type_list<Ds...>{}, type_list<Es...>{});
  static_assert(check != extents_check::unknown_dim,
                "dimgraph: view: an extent is given for a dim the view does not have");
  static_assert(check != extents_check::repeated, "dimgraph: view: an extent is given twice");
  static_assert(check != extents_check::missing, "dimgraph: view: a non-static dim has no extent");
  return shape_from<Ds...>("view", e...);
}

template <class R>
using range_element_t = std::remove_reference_t<std::ranges::range_reference_t<R>>;

}  // namespace detail

// A row-major view over memory the caller owns (no copy), in either form:
//   dg::view<Batch, Feature>(ptr, dg::extent<Batch>(2))      element type from the pointer
//   dg::view<float, Batch, Feature>(ptr, dg::extent<Batch>(2))
//   dg::view<Batch, Feature>(vec, dg::extent<Batch>(2))      a contiguous range: its size must
//                                                            be the view's
// Extents by tag in any order; static dims need none. Errors: a missing, repeated or foreign
// extent (compile time); an extent outside its dim's interval; a range of another size
// (shape_error naming the shape and both sizes).
template <class T, class... Ds, class... Es>
  requires element<std::remove_const_t<T>>
tensor_view<T, Ds...> view(T* data, extent_arg<Es>... e) {
  shape<Ds...> s = detail::view_shape<Ds...>(e...);
  return {data, s, detail::row_major_strides<sizeof...(Ds)>(s.extents())};
}
template <dimension D0, class... Ds, class T, class... Es>
  requires element<std::remove_const_t<T>>
tensor_view<T, D0, Ds...> view(T* data, extent_arg<Es>... e) {
  return view<T, D0, Ds...>(data, e...);
}
template <dimension D0, class... Ds, std::ranges::contiguous_range R, class... Es>
  requires std::ranges::borrowed_range<R> && std::ranges::sized_range<R> &&
           element<std::remove_const_t<detail::range_element_t<R>>>
tensor_view<detail::range_element_t<R>, D0, Ds...> view(R&& source, extent_arg<Es>... e) {
  shape<D0, Ds...> s = detail::view_shape<D0, Ds...>(e...);
  const auto n = static_cast<std::size_t>(std::ranges::size(source));
  if (n != s.size()) detail::throw_element_count("view", n, s);
  return {std::ranges::data(source), s, detail::row_major_strides<1 + sizeof...(Ds)>(s.extents())};
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/tensor_view.hpp
// ---- begin dimgraph/tensor/tensor.hpp
// dimgraph::tensor (owning, row-major, 64-byte aligned) and permute; with tensor_view (strided).


// ---- begin dimgraph/tensor/nested_init.hpp
// detail::nested_init_t: the nested braced lists a static tensor is made of, their checks and copy.



namespace dimgraph::detail {

// One innermost list of a nested initializer list: exactly as many elements of T as the size N
// of the last dim Last, so that a list of another length is a compile error (and the
// conversions are checked for narrowing).
template <class T, class Last, std::size_t N = bounds_v<Last>.lo,
          class = std::make_index_sequence<N>>
class init_row;
template <class T, class Last, std::size_t N, std::size_t... I>
class init_row<T, Last, N, std::index_sequence<I...>> {
  template <std::size_t>
  using element_t = T;

 public:
  init_row(element_t<I>... v) : elements_{v...} {}  // NOLINT: converts from a braced list
  template <class... Us>
    requires(sizeof...(Us) != N && (std::convertible_to<Us, T> && ...))
  init_row(Us...) {  // NOLINT
    DIMGRAPH_REQUIRE(sizeof...(Us) == N,
                     "dimgraph: tensor: an innermost initializer list must have as many elements "
                     "as the last dim's size",
                     ::dimgraph::has<Last>);
  }
  const T* begin() const { return elements_.data(); }
  static constexpr std::size_t size() { return N; }

 private:
  std::array<T, N> elements_{};
};

// The longest last dim whose innermost lists are checked at compile time (init_row has one
// constructor parameter per element; a longer row is a plain list, its length checked at run
// time, so that a large static dim never makes the compiler build a huge constructor).
inline constexpr std::size_t max_checked_row = 64;

// The nested initializer list of a static tensor of rank R whose last dim is Last (void for
// rank 0): plain lists outside, init_row<T, Last> innermost (a plain list when Last's size is
// above max_checked_row; rank 1: a plain list of elements).
template <class T, std::size_t R, class Last>
struct nested_init {
  using type = std::initializer_list<typename nested_init<T, R - 1, Last>::type>;
};
template <class T, class Last, bool Checked = (bounds_v<Last>.lo <= max_checked_row)>
struct innermost_list {
  using type = init_row<T, Last>;
};
template <class T, class Last>
struct innermost_list<T, Last, false> {
  using type = std::initializer_list<T>;
};
template <class T, class Last>
struct nested_init<T, 2, Last> {
  using type = std::initializer_list<typename innermost_list<T, Last>::type>;
};
template <class T, class Last>
struct nested_init<T, 1, Last> {
  using type = std::initializer_list<T>;
};
template <class T, class Last>
struct nested_init<T, 0, Last> {
  struct type {};  // (rank 0 has no initializer list)
};
template <class T, std::size_t R, class Last>
using nested_init_t = typename nested_init<T, R, Last>::type;

// Checks the lengths of a nested initializer list against ext from level `level` on. Error:
// shape_error naming the dim and the length.
template <class... Ds, class L>
void check_nested_lengths(const L& list, const std::array<std::size_t, sizeof...(Ds)>& ext,
                          std::size_t level) {
  if (list.size() != ext[level]) {
    constexpr std::array<std::string (*)(), sizeof...(Ds)> names{&describe<Ds>...};
    throw shape_error("tensor", "the initializer list has " + std::to_string(list.size()) +
                                    " entries along dim '" + names[level]() + "' of size " +
                                    std::to_string(ext[level]) + " (shape " +
                                    to_string(shape<Ds...>{}) + ")");
  }
  if constexpr (requires { list.begin()->begin(); })
    for (const auto& inner : list) check_nested_lengths<Ds...>(inner, ext, level + 1);
}

// Copies a nested initializer list (checked) to out in row-major order; returns the end.
template <class T, class L>
T* copy_nested(const L& list, T* out) {
  if constexpr (requires { list.begin()->begin(); })
    for (const auto& inner : list) out = copy_nested(inner, out);
  else out = std::copy_n(list.begin(), list.size(), out);
  return out;
}

}  // namespace dimgraph::detail
// ---- end dimgraph/tensor/nested_init.hpp
// ---- begin dimgraph/tensor/storage.hpp
// detail::storage: element storage, 64-byte aligned on the heap, inline when the size is static.

#include <bit>


namespace dimgraph::detail {

inline constexpr std::size_t storage_alignment = 64;

// Memory from plain ::operator new, freed with plain ::operator delete.
struct raw_free {
  void operator()(void* p) const { ::operator delete(p); }
};

// The error of a heap storage whose bytes do not fit a std::size_t (out of line: the
// allocation stays small enough to inline).
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_too_many_bytes(std::size_t n,
                                                                           std::size_t size) {
  throw shape_error("tensor", std::to_string(n) + " elements of " + std::to_string(size) +
                                  " bytes take more bytes than can be addressed");
}

// Asks a storage for elements left uninitialised: the caller writes every one of them before
// any is read (a tensor constructed from an expression).
struct for_overwrite_t {};

// Heap storage of n value-initialised elements (T is trivially destructible: the
// element types are arithmetic), 64-byte aligned inside a plain allocation of n elements
// plus 64 bytes. (Not the aligned operator new: glibc serves large aligned requests with a
// fresh mmap every time, so a loop that makes one big tensor per iteration would fault
// in every page of it on every call; plain requests of a repeated size reuse the heap.)
// Error: n elements whose bytes (plus the 64) do not fit a std::size_t (shape_error; a
// tensor's shape never gets there, see detail::max_elements); std::bad_alloc when they fit
// but cannot be had.
template <class T>
class heap_storage {
 public:
  heap_storage() = default;
  explicit heap_storage(std::size_t n) : heap_storage(for_overwrite_t{}, n) {
    std::uninitialized_value_construct_n(data_, n);
  }
  // (Default-initialised: nothing is done for arithmetic T.)
  heap_storage(for_overwrite_t, std::size_t n) : size_(n) {
    if (n == 0) return;
    std::size_t space = 0;
    if (mul_overflows(n, sizeof(T), space) || add_overflows(space, storage_alignment, space))
      throw_too_many_bytes(n, sizeof(T));
    raw_.reset(::operator new(space));
    void* p = raw_.get();
    data_ = static_cast<T*>(std::align(storage_alignment, n * sizeof(T), p, space));
    std::uninitialized_default_construct_n(data_, n);
  }
  heap_storage(const heap_storage& o) : heap_storage(for_overwrite_t{}, o.size_) {
    std::uninitialized_copy_n(o.data_, size_, data_);
  }
  // A moved-from storage is empty.
  heap_storage(heap_storage&& o) noexcept
      : raw_(std::move(o.raw_)),
        data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  heap_storage& operator=(const heap_storage& o) {
    if (this != &o) {
      heap_storage copy(o);
      *this = std::move(copy);
    }
    return *this;
  }
  heap_storage& operator=(heap_storage&& o) noexcept {
    raw_ = std::move(o.raw_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }

  // (Aligned as allocated: kernels may fold loads into arithmetic where only an aligned
  // operand can be folded, as SSE's.)
  T* data() { return std::assume_aligned<storage_alignment>(data_); }
  const T* data() const { return std::assume_aligned<storage_alignment>(data_); }
  std::size_t size() const { return size_; }

 private:
  std::unique_ptr<void, raw_free> raw_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// The alignment of N inline elements of T: storage_alignment, or less for a small tensor
// (its size in bytes rounded up to a power of two, at least alignof(T)), so that an
// all-static tensor is no larger than its elements.
template <class T, std::size_t N>
inline constexpr std::size_t inline_alignment =
    std::clamp(std::bit_ceil(sizeof(T) * (N == 0 ? 1 : N)), alignof(T), storage_alignment);

// Inline storage of N elements (no heap), value-initialised unless made for overwrite.
template <class T, std::size_t N>
class inline_storage {
 public:
  constexpr inline_storage() : data_{} {}
  // (n is N: the signature is heap_storage's.)
  constexpr inline_storage(for_overwrite_t, std::size_t) {}  // NOLINT: left uninitialised
  constexpr T* data() { return std::assume_aligned<inline_alignment<T, N>>(data_); }
  constexpr const T* data() const { return std::assume_aligned<inline_alignment<T, N>>(data_); }
  static constexpr std::size_t size() { return N; }

 private:
  alignas(inline_alignment<T, N>) T data_[N == 0 ? 1 : N];
};

// At least count elements of T, not initialised, kept per thread and per Tag and reused: scratch
// for a kernel that needs the same buffer call after call (a fresh allocation per call is
// fresh pages, whose faults and zeroing cost a tenth of an LSTM's time). 64-byte aligned.
template <class T, class Tag>
T* thread_scratch(std::size_t count) {
  static thread_local heap_storage<T> kept;
  if (kept.size() < count) kept = heap_storage<T>(for_overwrite_t{}, count);
  return kept.data();
}

}  // namespace dimgraph::detail
// ---- end dimgraph/tensor/storage.hpp

namespace dimgraph {

namespace detail {
struct tensor_internals;
// A tensor's contents handed to a new tensor without the move's refill of the source (see
// tensor_internals::hand_over); only tensor_internals makes one.
template <class Tensor>
class relocation {
  friend struct tensor_internals;
  friend Tensor;
  explicit relocation(Tensor& t) : source(t) {}
  Tensor& source;
};
}  // namespace detail

// An owning tensor: row-major in the listed dim order (the last dim contiguous),
// 64-byte aligned, inline when every dim is static and its elements take at most
// DIMGRAPH_CONFIG_INLINE_LIMIT bytes (16 KiB by default; is_inline tells). Elements start
// value-initialised. An inline tensor is exactly its elements (no extents, no strides, no
// pointer; aligned to 64 bytes or, when smaller, to its size rounded up to a power of two),
// so sizeof(tensor<float, F8>) == 32 for a static dim F8 of size 8. A larger all-static
// tensor holds only a pointer to its elements (its shape and strides stay constants).
// A tensor with heap storage that has been moved from is left at each dim's smallest extent
// (a static dim's size; empty when a dim may be 0) with value-initialised elements: valid,
// and ready to be assigned again.
// Error: a repeated dim (compile time); an extent outside its dim's interval (shape_error).
template <class T, class... Ds>
class tensor : public tensor_access<tensor<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor<T, Ds...>, T, Ds...>;
  static_assert(std::is_same_v<T, std::remove_cvref_t<T>>,
                "dimgraph: tensor: the element type must not be const or a reference");
  DIMGRAPH_REQUIRE_DECL(element<std::remove_cvref_t<T>>,
                        "dimgraph: tensor: the element type must be bool, an 8-64-bit integer, "
                        "float, double or dg::index<D>",
                        has<Ds...>, T);

 public:
  using base::rank;
  using typename base::dims;
  using typename base::shape_type;
  static constexpr bool is_static = shape_type::is_static;
  // The elements are inside the object (all-static and at most DIMGRAPH_CONFIG_INLINE_LIMIT
  // bytes).
  static constexpr bool is_inline = [] {
    if constexpr (is_static)
      return sizeof(T) * shape_type{}.size() <= std::size_t{DIMGRAPH_CONFIG_INLINE_LIMIT};
    else return false;
  }();

  tensor()
    requires is_static
  = default;
  explicit tensor(const shape_type& s)
      : shape_(s), storage_(make_storage(s)), strides_(strides_of(s)) {}

  tensor(const tensor&) = default;
  tensor& operator=(const tensor&) = default;
  // (The library's own transfers out of a tensor it destroys next: detail::relocation.)
  tensor(detail::relocation<tensor> r) noexcept
    requires(!is_inline)
      : shape_(r.source.shape_),
        storage_(std::move(r.source.storage_)),
        strides_(r.source.strides_) {}
  tensor(detail::relocation<tensor> r) noexcept
    requires is_inline
      : tensor(std::move(r.source)) {}
  tensor(tensor&&) noexcept
    requires is_inline
  = default;
  tensor& operator=(tensor&&) noexcept
    requires is_inline
  = default;
  // (Allocates only when every dim's smallest extent is above 0.)
  tensor(tensor&& o) noexcept(lower_bound_size == 0)
    requires(!is_inline)
      : shape_(o.shape_), storage_(std::move(o.storage_)), strides_(o.strides_) {
    o.reset_to_lower_bounds();
  }
  tensor& operator=(tensor&& o) noexcept(lower_bound_size == 0)
    requires(!is_inline)
  {
    if (this != &o) {
      shape_ = o.shape_;
      storage_ = std::move(o.storage_);
      strides_ = o.strides_;
      o.reset_to_lower_bounds();
    }
    return *this;
  }
  // By tag, in any order: the extent of every non-static dim, and the lengths of ragged dims
  // (dg::lengths<Time>(lens); the extent is then the largest length unless given).
  // Errors: an extent outside its dim's interval; lengths that are negative, above the extent,
  // or not one per entry of the batch dim (shape_error naming the dims).
  template <detail::shape_arg... As>
    requires(sizeof...(As) > 0)
  explicit tensor(const As&... a) : tensor(detail::shape_from<Ds...>("tensor", a...)) {
    DIMGRAPH_CHECK_SHAPE_ARGS("tensor", Ds, As);
  }

  // Copies of elements given in row-major order of Ds..., from a span or a vector whose size
  // is the shape's size, or from a pointer to that many elements; extents by tag as above.
  // dg::tensor<float, Time, Feature> x(buffer, dg::extent<Time>(3)). Errors: those of the
  // extents; a span of another size (shape_error naming the shape and both sizes).
  template <detail::shape_arg... As>
  explicit tensor(std::span<const T> elements, const As&... a)
      : tensor(checked_for_overwrite<As...>(a...)) {
    if (elements.size() != this->size())
      detail::throw_element_count("tensor", elements.size(), shape());
    std::copy_n(elements.data(), this->size(), data());
  }
  template <detail::shape_arg... As>
  explicit tensor(const T* elements, const As&... a) : tensor(checked_for_overwrite<As...>(a...)) {
    std::copy_n(elements, this->size(), data());
  }

  // A static tensor from nested braced lists, one level per dim, in the listed order:
  // dg::tensor<float, Row, Col> t{{1, 2}, {3, 4}}. Errors: an innermost list whose length is
  // not the last dim's size (compile time); another list whose length is not its dim's size
  // (shape_error naming the dim, the length and the shape).
  // NOLINTNEXTLINE(google-explicit-constructor)
  tensor(detail::nested_init_t<T, rank, detail::last_or_void_t<detail::type_list<Ds...>>> list)
    requires(is_static && rank > 0)
  {
    detail::check_nested_lengths<Ds...>(list, shape().extents(), 0);
    detail::copy_nested(list, data());
  }

  // From an expression (another tensor, a view, a lazy node): evaluates it, through the
  // assignment hook (defined in eval/assign.hpp; without it, a compile error that says so).
  // The shape is not set yet, and the elements are not initialised: the hook writes every one.
  template <detail::assign_source E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>)
  DIMGRAPH_ALWAYS_INLINE tensor(E&& e)  // NOLINT: implicit, like assigning the expression's value
      : storage_(detail::for_overwrite_t{}, static_count()) {  // (none yet when not static)
    detail::assign_hook<tensor, std::remove_cvref_t<E>>::construct(*this, e);
  }
  template <detail::assign_source E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>)
  DIMGRAPH_ALWAYS_INLINE tensor& operator=(E&& e) {
    detail::assign_hook<tensor, std::remove_cvref_t<E>>::assign(*this, e);
    return *this;
  }

  T* data() { return storage_.data(); }
  const T* data() const { return storage_.data(); }
  const shape_type& shape() const {
    if constexpr (is_static) return static_shape_;
    else return shape_;
  }
  const detail::strides_t<rank>& strides() const {
    if constexpr (is_static) return static_strides_;
    else return strides_;
  }

  // Re-shapes (dynamic dims only); the contents become value-initialised when the extents change.
  void reshape(const shape_type& s) {
    if (s == shape()) {
      if constexpr (shape_type::ragged_count > 0) shape_ = s;
      return;
    }
    storage_ = make_storage(s);
    shape_ = s;
    strides_ = strides_of(s);
  }

  // A view of the whole tensor.
  tensor_view<T, Ds...> view() { return {data(), shape(), strides()}; }
  tensor_view<const T, Ds...> view() const { return {data(), shape(), strides()}; }
  operator tensor_view<const T, Ds...>() const { return view(); }  // NOLINT

 private:
  friend struct detail::tensor_internals;

  // A tensor of shape s whose elements the caller writes (the delegating constructors).
  struct overwrite_shape {
    shape_type shape;
  };
  explicit tensor(overwrite_shape s)
      : shape_(s.shape),
        storage_(detail::for_overwrite_t{}, s.shape.size()),
        strides_(strides_of(s.shape)) {}
  template <class... As>
  static overwrite_shape checked_for_overwrite(const As&... a) {
    DIMGRAPH_CHECK_SHAPE_ARGS("tensor", Ds, As);
    return {detail::shape_from<Ds...>("tensor", a...)};
  }

  static constexpr std::size_t static_count() {
    if constexpr (is_static) return shape_type{}.size();
    else return 0;
  }
  using storage_type = std::conditional_t<is_inline, detail::inline_storage<T, static_count()>,
                                          detail::heap_storage<T>>;
  static storage_type make_storage(const shape_type& s) {
    if constexpr (is_inline) return {};
    else return storage_type(s.size());
  }

  // Takes the shape s (non-static tensors) with elements left uninitialised, always
  // allocating: a tensor under construction has no storage yet.
  void reshape_for_overwrite(const shape_type& s) {
    storage_ = storage_type(detail::for_overwrite_t{}, s.size());
    shape_ = s;
    strides_ = strides_of(s);
  }

  static constexpr std::size_t lower_bound_size = (std::size_t{1} * ... * bounds_v<Ds>.lo);
  static constexpr shape_type lower_bounds() {
    return shape_type::from_extents({bounds_v<Ds>.lo...});
  }
  // A static tensor's shape and strides are constants (static_shape_, static_strides_);
  // only other tensors store theirs.
  static constexpr auto static_shape_ = [] {
    if constexpr (is_static) return shape_type::from_extents({bounds_v<Ds>.lo...});
    else return 0;  // (a shape with ragged dims is not a literal type)
  }();
  static constexpr detail::strides_t<rank> static_strides_ =
      detail::row_major_strides<rank>({bounds_v<Ds>.lo...});
  struct no_shape {
    constexpr no_shape() = default;
    constexpr no_shape(const shape_type&) {}  // NOLINT: stands in for the shape
  };
  struct no_strides {};
  using shape_member = std::conditional_t<is_static, no_shape, shape_type>;
  using strides_type = std::conditional_t<is_static, no_strides, detail::strides_t<rank>>;
  static constexpr strides_type strides_of([[maybe_unused]] const shape_type& s) {
    if constexpr (is_static) return {};
    else return detail::row_major_strides<rank>(s.extents());
  }
  void reset_to_lower_bounds() {
    shape_ = lower_bounds();
    storage_ = make_storage(shape());
    strides_ = strides_of(shape());
  }

  // (Before a constructor sets it: every dim at its smallest extent.)
  [[no_unique_address]] shape_member shape_ = lower_bounds();
  storage_type storage_ = make_storage(shape());
  [[no_unique_address]] strides_type strides_ = strides_of(shape());
};

namespace detail {
// What the evaluator needs of a tensor under construction (see assign_hook::construct).
struct tensor_internals {
  // A tensor of shape s whose elements are not initialised (the caller writes every one).
  template <class Tensor>
  static Tensor for_overwrite(const typename Tensor::shape_type& s) {
    return Tensor(typename Tensor::overwrite_shape{s});
  }
  template <class T, class... Ds>
  static void reshape_for_overwrite(tensor<T, Ds...>& t,
                                    const typename tensor<T, Ds...>::shape_type& s) {
    t.reshape_for_overwrite(s);
  }
  // What a new value takes x's contents from when x is dropped next. For a tensor, a
  // relocation: the new tensor takes t's shape and elements and leaves t without storage (where
  // a move gives a tensor with heap storage new zeroed storage of its smallest extents: for
  // all-static dims, an allocation and a fill of its whole size); t may then only be destroyed
  // or assigned a whole tensor. Anything else is moved.
  template <class T, class... Ds>
  static relocation<tensor<T, Ds...>> hand_over(tensor<T, Ds...>& t) noexcept {
    return relocation<tensor<T, Ds...>>(t);
  }
  template <class T, class... Ds>
  static relocation<tensor<T, Ds...>> hand_over(tensor<T, Ds...>&& t) noexcept {
    return hand_over(t);
  }
  template <class X>
  static std::remove_reference_t<X>&& hand_over(X&& x) noexcept {
    return static_cast<std::remove_reference_t<X>&&>(x);
  }
  // dst takes src's shape and elements, src is left as after hand_over (any other type: moved).
  template <class X>
  static void replace(X& dst, X& src) {
    dst = std::move(src);
  }
  template <class T, class... Ds>
  static void replace(tensor<T, Ds...>& dst, tensor<T, Ds...>& src) noexcept {
    if constexpr (tensor<T, Ds...>::is_inline) {
      dst = std::move(src);
    } else {
      dst.shape_ = src.shape_;
      dst.storage_ = std::move(src.storage_);
      dst.strides_ = src.strides_;
    }
  }
  // Takes the lengths of s (same extents as t's).
  template <class T, class... Ds>
  static void take_lengths(tensor<T, Ds...>& t, const shape<Ds...>& s) {
    t.shape_.take_lengths(s);
  }
};
}  // namespace detail

namespace detail {
// Tensors and views are what a tensor or a view can take the value of (see assign_source).
template <class T, class... Ds>
inline constexpr bool assign_source_v<tensor<T, Ds...>> = true;
template <class T, class... Ds>
inline constexpr bool assign_source_v<tensor_view<T, Ds...>> = true;

template <class X>
inline constexpr bool is_tensor_v = false;
template <class T, class... Ds>
inline constexpr bool is_tensor_v<tensor<T, Ds...>> = true;
template <class X>
inline constexpr bool is_view_v = false;
template <class T, class... Ds>
inline constexpr bool is_view_v<tensor_view<T, Ds...>> = true;

// A tensor or a tensor_view (cv and references ignored): elements in memory, reached through
// data() and strides, as opposed to a lazy node or a symbol.
template <class X>
concept memory_operand = is_tensor_v<std::remove_cvref_t<X>> || is_view_v<std::remove_cvref_t<X>>;
}  // namespace detail

// The same elements with the dims in another order (a view, no copy).
// Error: Ps... is not a reordering of the tensor's dims; the tensor is a temporary (the view
// would outlive its elements).
template <class... Ps, class X>
auto permute(X&& x) {
  using x_t = std::remove_cvref_t<X>;
  using dims = typename x_t::dims;
  DIMGRAPH_REQUIRE((list_same_set_v<dims, dim_list<Ps...>> && sizeof...(Ps) == dims::size),
                   "dimgraph: permute: the new order must list each dim of the tensor once",
                   asked<Ps...>, detail::has_role_t<x_t>);
  DIMGRAPH_REQUIRE(std::is_lvalue_reference_v<X> || !detail::is_tensor_v<x_t>,
                   "dimgraph: permute: the tensor is a temporary and the view would dangle; keep "
                   "it in a variable first",
                   asked<Ps...>, detail::has_role_t<x_t>);
  using elem = std::remove_pointer_t<decltype(x.data())>;
  std::array<std::size_t, sizeof...(Ps)> ext{x.template extent<Ps>()...};
  detail::strides_t<sizeof...(Ps)> str{x.template stride<Ps>()...};
  auto s = shape<Ps...>::from_extents(ext, "permute");
  if constexpr (shape<Ps...>::ragged_count > 0) s.take_lengths(x.shape());
  return tensor_view<elem, Ps...>(x.data(), s, str);
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/tensor.hpp
// ---- begin dimgraph/tensor/strided_view.hpp
// dg::strided_view: strided tensor views over memory the caller owns (no copy), checked.

#include <iterator>


namespace dimgraph {

// A step along dim D in elements, for dg::strided_view: dg::stride<Row>(8).
template <class D>
struct stride_arg {
  std::ptrdiff_t value;
};
template <dimension D>
constexpr stride_arg<std::remove_cvref_t<D>> stride(std::ptrdiff_t s) {
  return {s};
}

// Permissions for the layout checks of dg::strided_view, given among its arguments.
struct allow_negative_strides_t {};
inline constexpr allow_negative_strides_t allow_negative_strides{};
struct allow_overlap_t {};
inline constexpr allow_overlap_t allow_overlap{};

namespace detail {

// The dims of the extent_arg / stride_arg arguments among Args.
template <class X>
struct extent_dims_of : std::type_identity<type_list<>> {};
template <class E>
struct extent_dims_of<extent_arg<E>> : std::type_identity<type_list<E>> {};
template <class X>
struct stride_dims_of : std::type_identity<type_list<>> {};
template <class E>
struct stride_dims_of<stride_arg<E>> : std::type_identity<type_list<E>> {};
template <class X>
inline constexpr bool is_view_arg_v =
    std::is_same_v<X, allow_negative_strides_t> || std::is_same_v<X, allow_overlap_t>;
template <class E>
inline constexpr bool is_view_arg_v<extent_arg<E>> = true;
template <class E>
inline constexpr bool is_view_arg_v<stride_arg<E>> = true;

// The value given for D by an argument of kind Arg, or fallback.
template <template <class> class Arg, class D, class V, class... Xs>
constexpr V given_value(V fallback, const Xs&... xs) {
  V v = fallback;
  (
      [&] {
        if constexpr (std::is_same_v<Xs, Arg<D>>) v = xs.value;
      }(),
      ...);
  return v;
}

// The range [lo, hi] of offsets of a strided layout, checked. Errors (shape_error naming `op`
// and the dims with their extents and strides): a negative stride without allow_negative; two
// dims whose elements can share memory without allow_overlap (a stride not above the span of
// the dims with smaller strides: conservative, as NumPy's and ATen's overlap checks are); offsets
// that do not fit a std::ptrdiff_t.
struct offset_range {
  std::ptrdiff_t lo = 0, hi = 0;
  bool empty = false;
};
template <class... Ds>
std::string layout_text(const shape<Ds...>& s, const strides_t<sizeof...(Ds)>& str) {
  std::string out = to_string(s) + " with strides [";
  for (std::size_t i = 0; i < sizeof...(Ds); ++i) out += (i ? ", " : "") + std::to_string(str[i]);
  return out + "]";
}
template <class... Ds>
offset_range check_layout(const char* op, const shape<Ds...>& s,
                          const strides_t<sizeof...(Ds)>& str, bool allow_negative,
                          bool allow_overlap) {
  constexpr std::size_t r = sizeof...(Ds);
  const std::array<std::string (*)(), r + 1> names{&describe<Ds>..., nullptr};
  for (std::size_t i = 0; i < r; ++i)
    if (str[i] < 0 && !allow_negative)
      throw shape_error(op, "dim '" + names[i]() + "' has the negative stride " +
                                std::to_string(str[i]) + " (" + layout_text(s, str) +
                                "); pass dg::allow_negative_strides to permit it");
  offset_range out;
  for (std::size_t i = 0; i < r; ++i) out.empty = out.empty || s.extent(i) == 0;
  if (out.empty) return out;
  // span[i] = |stride| * (extent - 1): how far dim i reaches.
  std::array<std::size_t, r + 1> mag{}, span{};
  std::size_t total = 0;
  for (std::size_t i = 0; i < r; ++i) {
    mag[i] = str[i] < 0 ? std::size_t{0} - static_cast<std::size_t>(str[i])
                        : static_cast<std::size_t>(str[i]);
    if (mul_overflows(mag[i], s.extent(i) - 1, span[i]) || add_overflows(total, span[i], total) ||
        total > static_cast<std::size_t>(PTRDIFF_MAX))
      throw shape_error(op,
                        "the offsets of " + layout_text(s, str) + " do not fit a std::ptrdiff_t");
    if (str[i] < 0) out.lo -= static_cast<std::ptrdiff_t>(span[i]);
    else out.hi += static_cast<std::ptrdiff_t>(span[i]);
  }
  if (!allow_overlap) {
    std::array<std::size_t, r + 1> order{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < r; ++i)
      if (s.extent(i) > 1) order[n++] = i;
    // By stride magnitude: an insertion sort of at most r dims (std::sort here makes GCC -O3
    // warn of out-of-bounds reads it cannot rule out past n).
    for (std::size_t k = 1; k < n; ++k)
      for (std::size_t j = k; j > 0 && mag[order[j]] < mag[order[j - 1]]; --j)
        std::swap(order[j], order[j - 1]);
    std::size_t reach = 0;  // the span of the dims with smaller strides
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = order[k];
      if (mag[i] <= reach || mag[i] == 0)
        throw shape_error(op, "dim '" + names[i]() + "' (stride " + std::to_string(str[i]) + ") " +
                                  (k == 0 ? std::string("steps by 0")
                                          : "overlaps dim '" + names[order[k - 1]]() + "'") +
                                  ": elements at different positions would share memory (" +
                                  layout_text(s, str) + "); pass dg::allow_overlap to permit it");
      reach += span[i];
    }
  }
  return out;
}

// The error of a layout that reaches outside its range of `size` elements.
template <class... Ds>
void check_within(const char* op, const shape<Ds...>& s, const strides_t<sizeof...(Ds)>& str,
                  offset_range r, std::size_t size) {
  if (r.empty) return;
  if (r.lo < 0 || static_cast<std::size_t>(r.hi) >= size)
    throw shape_error(op, layout_text(s, str) + " reaches offsets " + std::to_string(r.lo) +
                              " to " + std::to_string(r.hi) + " of a range of " +
                              std::to_string(size) + " elements");
}

}  // namespace detail

// A strided view over memory the caller owns: every dim's extent (static dims need none) and
// every dim's stride in elements, by tag in any order, then optionally
// dg::allow_negative_strides and dg::allow_overlap:
//   dg::strided_view<Row, Col>(ptr, dg::extent<Row>(3), dg::stride<Row>(8), dg::stride<Col>(1))
// From a contiguous range instead of a pointer, every element the view reaches must be inside
// the range (offsets from its first element). Errors: a missing, repeated or foreign extent or
// stride (compile time); an extent outside its dim's interval, a negative stride or
// overlapping dims not permitted, offsets that do not fit a std::ptrdiff_t, offsets outside the
// range (shape_error naming the dims, extents and strides).
template <dimension D0, class... Ds, class P, class... Args>
  requires(std::is_pointer_v<std::remove_cvref_t<P>> || std::ranges::contiguous_range<P>) &&
          (detail::is_view_arg_v<Args> && ...)
auto strided_view(P&& memory, Args... args) {
  using extent_dims = detail::concat_t<typename detail::extent_dims_of<Args>::type...>;
  using stride_dims = detail::concat_t<typename detail::stride_dims_of<Args>::type...>;
  constexpr auto ext_check = detail::check_extents(detail::type_list<D0, Ds...>{}, extent_dims{});
  static_assert(ext_check != detail::extents_check::unknown_dim,
                "dimgraph: strided_view: an extent is given for a dim the view does not have");
  static_assert(ext_check != detail::extents_check::repeated,
                "dimgraph: strided_view: an extent is given twice");
  static_assert(ext_check != detail::extents_check::missing,
                "dimgraph: strided_view: a non-static dim has no extent");
  constexpr auto str_check = detail::check_extents(detail::type_list<D0, Ds...>{}, stride_dims{});
  static_assert(str_check != detail::extents_check::unknown_dim,
                "dimgraph: strided_view: a stride is given for a dim the view does not have");
  static_assert(str_check != detail::extents_check::repeated,
                "dimgraph: strided_view: a stride is given twice");
  static_assert(stride_dims::size == 1 + sizeof...(Ds),
                "dimgraph: strided_view: every dim needs a stride (dg::stride<D>(n))");
  constexpr bool negative_ok = (std::is_same_v<Args, allow_negative_strides_t> || ...);
  constexpr bool overlap_ok = (std::is_same_v<Args, allow_overlap_t> || ...);

  const auto s = shape<D0, Ds...>::from_extents(
      {detail::given_value<extent_arg, D0>(bounds_v<D0>.lo, args...),
       detail::given_value<extent_arg, Ds>(bounds_v<Ds>.lo, args...)...},
      "strided_view");
  const detail::strides_t<1 + sizeof...(Ds)> str{
      detail::given_value<stride_arg, D0>(std::ptrdiff_t{0}, args...),
      detail::given_value<stride_arg, Ds>(std::ptrdiff_t{0}, args...)...};
  const auto reached = detail::check_layout("strided_view", s, str, negative_ok, overlap_ok);
  if constexpr (std::is_pointer_v<std::remove_cvref_t<P>>) {
    using elem = std::remove_pointer_t<std::remove_cvref_t<P>>;
    static_assert(element<std::remove_const_t<elem>>,
                  "dimgraph: strided_view: the pointer's element type is not a tensor element");
    return tensor_view<elem, D0, Ds...>(memory, s, str);
  } else {
    static_assert(std::ranges::borrowed_range<P>,
                  "dimgraph: strided_view: the range is a temporary and the view would dangle");
    using elem = std::remove_reference_t<std::ranges::range_reference_t<P>>;
    detail::check_within("strided_view", s, str, reached,
                         static_cast<std::size_t>(std::ranges::size(memory)));
    return tensor_view<elem, D0, Ds...>(std::ranges::data(memory), s, str);
  }
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/strided_view.hpp
// ---- begin dimgraph/tensor/make.hpp
// Tensor factories: zeros, ones, full, iota and the seeded, portable uniform.

#include <cmath>

// ---- begin dimgraph/detail/mt19937_64.hpp
// mt19937_64: the 64-bit Mersenne twister of the C++ standard ([rand.eng.mers],
// std::mt19937_64), written out. The standard fixes its parameters and so its output for a
// seed on every platform; <random>, which holds it, is a large header (every distribution),
// and the library uses only this engine (dg::uniform).


namespace dimgraph::detail {

class mt19937_64 {
 public:
  using result_type = std::uint64_t;

  // Seeded as the standard's seed(value): x[0] = seed, x[i] = f (x[i-1] ^ (x[i-1] >> 62)) + i.
  explicit mt19937_64(std::uint64_t seed = 5489) {
    x_[0] = seed;
    for (std::size_t i = 1; i < n; ++i)
      x_[i] = 6364136223846793005ull * (x_[i - 1] ^ (x_[i - 1] >> 62)) + i;
  }

  // The next output: the next state word, tempered.
  std::uint64_t operator()() {
    if (next_ == n) twist();
    std::uint64_t z = x_[next_++];
    z ^= (z >> 29) & 0x5555555555555555ull;
    z ^= (z << 17) & 0x71d67fffeda60000ull;
    z ^= (z << 37) & 0xfff7eee000000000ull;
    return z ^ (z >> 43);
  }

 private:
  static constexpr std::size_t n = 312, m = 156;

  // The next n state words, in place: the top 33 bits of x[k] and the low 31 of x[k + 1],
  // shifted right, with a xored in when odd, xored into x[k + m].
  void twist() {
    constexpr std::uint64_t upper = ~std::uint64_t{0} << 31, lower = ~upper;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t y = (x_[k] & upper) | (x_[(k + 1) % n] & lower);
      x_[k] = x_[(k + m) % n] ^ (y >> 1) ^ ((y & 1) != 0 ? 0xb5026f5aa96619e9ull : 0);
    }
    next_ = 0;
  }

  std::array<std::uint64_t, n> x_;
  std::size_t next_ = n;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/mt19937_64.hpp

// The compile-time checks of a factory's shape arguments, one message per mistake.
#define DIMGRAPH_CHECK_EXTENTS(OP)                                                   \
  DIMGRAPH_CHECK_SHAPE_ARGS(OP, Ds, Es);                                             \
  static_assert(element<T>, "dimgraph: " OP                                          \
                            ": the element type must be bool, an 8-64-bit integer, " \
                            "float, double or dg::index<D>")

namespace dimgraph {
namespace detail {

// A value-initialised tensor of the given extents. After a reported error it is still a
// tensor (missing extents at their dims' lower bounds, a float stand-in for a non-element
// T), so that one mistake gives one message.
template <class T, class... Ds, detail::shape_arg... Es>
auto new_tensor(const char* op, const Es&... e) {
  using elem = std::conditional_t<element<T>, T, float>;
  return tensor<elem, Ds...>(shape_from<Ds...>(op, e...));
}

// The element that is the integer v (index<D> is made explicitly).
template <class T>
constexpr T element_from_integer(std::int64_t v) {
  if constexpr (is_index_v<T>) return T(v);
  else return static_cast<T>(v);
}

// The bounds uniform takes: T itself, or the integer of an index.
template <class T>
using uniform_bound_t = std::conditional_t<is_index_v<T>, std::int64_t, T>;

// A uniform integer in [0, count) from the generator, unbiased by rejection, or the raw
// 64 bits when count is 0 (meaning 2^64). Fully specified: the same on every platform.
inline std::uint64_t uniform_below(mt19937_64& gen, std::uint64_t count) {
  if (count == 0) return gen();
  const std::uint64_t reject_below = (0 - count) % count;  // 2^64 mod count
  std::uint64_t x = gen();
  while (x < reject_below) x = gen();
  return x % count;
}

// A uniform value in [lo, hi) from the top bits of one draw: k / 2^p for p = the
// mantissa width (24 or 53), which is exact, then lo + (hi - lo) * u in T with one
// rounding per step (separate statements: no fused multiply-add), clamped below hi.
template <class T>
T uniform_real(mt19937_64& gen, T lo, T hi) {
  constexpr int bits = std::numeric_limits<T>::digits;
  const T u =
      static_cast<T>(gen() >> (64 - bits)) * (T(1) / static_cast<T>(std::uint64_t{1} << bits));
  const T span = hi - lo;
  const T scaled = span * u;
  const T r = lo + scaled;
  return r < hi ? r : std::nextafter(hi, lo);
}

}  // namespace detail

// A tensor of zeros: dg::zeros<float, Batch, Feature>(dg::extent<Batch>(2)). Extents by
// tag in any order; static dims need none. Errors: a missing, repeated or foreign
// extent (compile time); an extent outside its dim's interval (shape_error, "zeros").
template <class T, class... Ds, detail::shape_arg... Es>
auto zeros(const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("zeros");
  return detail::new_tensor<T, Ds...>("zeros", e...);
}

// A tensor of ones (true for bool, index 1 for dg::index<D>). Errors: as zeros.
template <class T, class... Ds, detail::shape_arg... Es>
auto ones(const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("ones");
  auto x = detail::new_tensor<T, Ds...>("ones", e...);
  if constexpr (element<T>) std::fill_n(x.data(), x.size(), detail::element_from_integer<T>(1));
  return x;
}

// A tensor with every element equal to value: dg::full<float, Time>(0.5f, dg::extent<Time>(4)).
// Errors: as zeros.
template <class T, class... Ds, detail::shape_arg... Es>
auto full(std::type_identity_t<T> value, const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("full");
  auto x = detail::new_tensor<T, Ds...>("full", e...);
  if constexpr (element<T>) std::fill_n(x.data(), x.size(), value);
  return x;
}

// 0, 1, 2, ... in row-major order of Ds... (converted to T: an integer type narrower than
// the count wraps around; a dg::index<D> holds the count). Errors: as zeros; a bool
// element type (compile time).
template <class T, class... Ds, detail::shape_arg... Es>
auto iota(const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("iota");
  static_assert(!std::is_same_v<T, bool>, "dimgraph: iota: counting in bool makes no sense");
  auto x = detail::new_tensor<T, Ds...>("iota", e...);
  if constexpr (element<T> && !std::is_same_v<T, bool>) {
    T* p = x.data();
    for (std::size_t i = 0, n = x.size(); i < n; ++i)
      p[i] = detail::element_from_integer<T>(static_cast<std::int64_t>(i));
  }
  return x;
}

// Pseudo-random elements, the same for a seed on every platform and standard library:
// std::mt19937_64's sequence (fully specified by the standard) seeded with `seed`, one draw per
// element in row-major order of Ds..., mapped by dimgraph itself (not by a std::
// distribution, whose output is implementation-defined):
//   float, double: uniform in [lo, hi) from the draw's top 24 or 53 bits;
//   integers, bool and dg::index<D> (bounds are then integers): uniform in [lo, hi],
//   unbiased (rejection sampling; a rejected draw takes another).
// Errors: as zeros; lo > hi, or for floating point lo >= hi or a non-finite lo, hi or
// hi - lo (dg::error, "uniform").
template <class T, class... Ds, detail::shape_arg... Es>
auto uniform(std::uint64_t seed, detail::uniform_bound_t<T> lo, detail::uniform_bound_t<T> hi,
             const Es&... e) {
  DIMGRAPH_CHECK_EXTENTS("uniform");
  using bound = detail::uniform_bound_t<T>;
  auto x = detail::new_tensor<T, Ds...>("uniform", e...);
  if constexpr (element<T>) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!(lo < hi) || !std::isfinite(hi - lo))
        throw error("uniform", "the range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                   ") is empty or not finite");
    } else if (lo > hi) {
      throw error("uniform",
                  "the range [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is empty");
    }
    detail::mt19937_64 gen(seed);
    T* p = x.data();
    const std::size_t n = x.size();
    if constexpr (std::is_floating_point_v<T>) {
      for (std::size_t i = 0; i < n; ++i) p[i] = detail::uniform_real<T>(gen, lo, hi);
    } else {
      // In 64-bit two's complement: v = lo + k for k uniform in [0, hi - lo].
      using wide = std::conditional_t<std::is_signed_v<bound>, std::int64_t, std::uint64_t>;
      const auto lo_bits = static_cast<std::uint64_t>(static_cast<wide>(lo));
      const std::uint64_t count = static_cast<std::uint64_t>(static_cast<wide>(hi)) - lo_bits + 1;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = lo_bits + detail::uniform_below(gen, count);
        if constexpr (is_index_v<T>) p[i] = T(static_cast<std::int64_t>(v));
        else p[i] = static_cast<T>(static_cast<wide>(v));
      }
    }
  }
  return x;
}

}  // namespace dimgraph

#undef DIMGRAPH_CHECK_EXTENTS
// ---- end dimgraph/tensor/make.hpp
// ---- begin dimgraph/tensor/equal.hpp
// operator== / != between tensors and views: equal extents and elements, aligned by tag.



namespace dimgraph {
namespace detail {

// Two tensors or views with the same element type and the same set of dims.
template <class A, class B>
concept same_dims_and_element = memory_operand<A> && memory_operand<B> &&
                                std::is_same_v<typename A::value_type, typename B::value_type> &&
                                list_same_set_v<typename A::dims, typename B::dims>;

// Compares the elements below `level` (positions in a's dim order), at a and b.
template <std::size_t R, class P, class Q>
bool equal_elements(std::size_t level, const std::array<std::size_t, R>& extent,
                    const std::array<std::ptrdiff_t, R>& a_stride,
                    const std::array<std::ptrdiff_t, R>& b_stride, P a, Q b) {
  if (level == R) return *a == *b;
  for (std::size_t i = 0; i < extent[level]; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    if (!equal_elements<R>(level + 1, extent, a_stride, b_stride, a + k * a_stride[level],
                           b + k * b_stride[level]))
      return false;
  }
  return true;
}

template <class... Ds, class A, class B>
bool equal_by_tag(dim_list<Ds...>, const A& a, const B& b) {
  if (((a.template extent<Ds>() != b.template extent<Ds>()) || ...)) return false;
  constexpr std::size_t rank = sizeof...(Ds);
  return equal_elements<rank>(0, {a.template extent<Ds>()...}, {a.template stride<Ds>()...},
                              {b.template stride<Ds>()...}, a.data(), b.data());
}

}  // namespace detail

// a == b for tensors and views (any mix) with the same element type and the same dim
// set, in any order: true when every dim has the same extent in both and every element,
// aligned by tag, compares equal (so NaN makes tensors unequal). A tensor equals its
// permuted views. Different dim sets or element types: no operator (compile error, not
// a silent false). a != b is !(a == b).
template <class A, class B>
  requires detail::same_dims_and_element<A, B>
bool operator==(const A& a, const B& b) {
  return detail::equal_by_tag(typename A::dims{}, a, b);
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/equal.hpp
// ---- begin dimgraph/tensor/print.hpp
// operator<< for shapes, tensors and views: a line of dims, then NumPy-style brackets.

#include <charconv>
#include <ostream>


namespace dimgraph {

// "[batch[2], time[25], feature=512]": a non-static dim as name[extent], a static one as name=size.
template <class... Ds>
std::ostream& operator<<(std::ostream& os, const shape<Ds...>& s) {
  return os << to_string(s);
}

namespace detail {

// The name of an element type: bool, int8..int64, uint8..uint64, float32, float64, index<dim>.
template <class T>
std::string element_name() {
  if constexpr (is_index_v<T>) {
    return "index<" + describe<index_dim_t<T>>() + ">";
  } else {
    constexpr const char* names[] = {"bool",  "uint8", "uint16", "uint32",  "uint64", "int8",
                                     "int16", "int32", "int64",  "float32", "float64"};
    return names[static_cast<int>(code_of<T>())];
  }
}

// One element as text: bool as true/false, integers (int8/uint8 too) and indices as
// numbers, floating point as printf's %.4g (locale-independent).
template <class T>
std::string element_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (is_index_v<T>) {
    return std::to_string(v.value());
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 4).ptr;
    return std::string(buf, end);
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<std::int64_t>(v));
  } else {
    return std::to_string(static_cast<std::uint64_t>(v));
  }
}

// NumPy's defaults: summarise above 1000 elements, keeping 3 items at each edge.
inline constexpr std::size_t print_threshold = 1000;
inline constexpr std::size_t print_edge_items = 3;

// Writes the nested brackets of a rank-R strided array (R >= 1). Elements are right-
// aligned to the widest one printed. In a summarised array a dim longer than
// 2 * edge items shows its first and last edge items around "...".
template <class T, std::size_t R>
class array_printer {
 public:
  array_printer(const T* data, const std::array<std::size_t, R>& extent,
                const std::array<std::ptrdiff_t, R>& stride)
      : data_(data), extent_(extent), stride_(stride) {
    std::size_t n = 1;
    for (std::size_t e : extent_) n *= e;
    summarise_ = n > print_threshold;
  }

  void write(std::ostream& os) {
    width_ = 0;
    measure(0, data_);
    write(os, 0, data_);
  }

 private:
  bool cut(std::size_t level) const { return summarise_ && extent_[level] > 2 * print_edge_items; }
  // The k-th printed position along `level` (skipping the middle when cut).
  std::size_t position(std::size_t level, std::size_t k) const {
    return cut(level) && k >= print_edge_items ? extent_[level] - 2 * print_edge_items + k : k;
  }
  std::size_t printed(std::size_t level) const {
    return cut(level) ? 2 * print_edge_items : extent_[level];
  }
  const T* at(std::size_t level, const T* p, std::size_t k) const {
    return p + static_cast<std::ptrdiff_t>(position(level, k)) * stride_[level];
  }

  void measure(std::size_t level, const T* p) {
    for (std::size_t k = 0; k < printed(level); ++k) {
      if (level + 1 == R) {
        std::size_t w = element_text(*at(level, p, k)).size();
        if (w > width_) width_ = w;
      } else {
        measure(level + 1, at(level, p, k));
      }
    }
  }

  void write(std::ostream& os, std::size_t level, const T* p) const {
    // Between items: ", " in the last dim; otherwise a comma, one line break per
    // remaining dim, and an indent under the opening bracket.
    // (Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "," + string.)
    if (level >= R) return;  // (never: said for GCC, which warns on a wrapped count below)
    std::string sep(1, ',');
    if (level + 1 == R) {
      sep += ' ';
    } else {
      sep.append(R - 1 - level, '\n');
      sep.append(level + 1, ' ');
    }
    os << '[';
    for (std::size_t k = 0; k < printed(level); ++k) {
      if (k > 0) os << sep;
      if (cut(level) && k == print_edge_items) os << "..." << sep;
      if (level + 1 == R) {
        std::string s = element_text(*at(level, p, k));
        os << std::string(width_ - s.size(), ' ') << s;
      } else {
        write(os, level + 1, at(level, p, k));
      }
    }
    os << ']';
  }

  const T* data_;
  std::array<std::size_t, R> extent_;
  std::array<std::ptrdiff_t, R> stride_;
  bool summarise_ = false;
  std::size_t width_ = 0;
};

// The header line, then the elements (rank 0: the one element; no elements: []).
template <class X>
std::ostream& print_tensor(std::ostream& os, const char* kind, const X& x) {
  using value_type = typename X::value_type;
  os << kind << '<' << element_name<value_type>() << "> " << dimgraph::to_string(x.shape()) << '\n';
  const value_type* data = x.data();
  if constexpr (X::rank == 0) {
    os << element_text(*data);
  } else if (x.size() == 0) {
    os << "[]";  // as NumPy: the header line has the extents
  } else {
    array_printer<value_type, X::rank>(data, x.shape().extents(), x.strides()).write(os);
  }
  return os;
}

}  // namespace detail

// A tensor as text, e.g. for dg::tensor<int, A, B> with A of extent 2 and B of size 3:
//   tensor<int32> [a[2], b=3]
//   [[0, 1, 2],
//    [3, 4, 5]]
// Rows on separate lines, elements right-aligned, floats as %.4g, bool as true/false;
// above 1000 elements NumPy's summary (first and last 3 of each long dim around "...").
template <class T, class... Ds>
std::ostream& operator<<(std::ostream& os, const tensor<T, Ds...>& x) {
  return detail::print_tensor(os, "tensor", x);
}

// A view as text: as a tensor, with the header "tensor_view<...>".
template <class T, class... Ds>
std::ostream& operator<<(std::ostream& os, const tensor_view<T, Ds...>& x) {
  return detail::print_tensor(os, "tensor_view", x);
}

}  // namespace dimgraph
// ---- end dimgraph/tensor/print.hpp

// ---- begin dimgraph/expr/node.hpp
// What an expression is: tensors, views, scalars and lazy nodes, and how nodes hold operands.



namespace dimgraph {

// Every lazy node derives from this.
struct expr_node_base {};

// A tensor, a view or a lazy node: anything with dims, a value type and extents.
template <class E>
concept expression =
    detail::memory_operand<E> || std::is_base_of_v<expr_node_base, std::remove_cvref_t<E>>;

template <expression E>
using value_t = typename std::remove_cvref_t<E>::value_type;
template <expression E>
using dims_t = typename std::remove_cvref_t<E>::dims;

namespace detail {
// The lengths of the ragged dim D in x (null: every entry full, or x has no lengths for D).
// Tensors and views keep them in their shape; every kind of node that can have D with its batch
// dim answers lengths<D>().
template <class D, class X>
lengths_ref lengths_in(const X& x) {
  if constexpr (!carries_lengths_v<D, typename X::dims>) return {};
  else if constexpr (memory_operand<X>) return x.shape().template lengths<D>();
  else return x.template lengths<D>();
}
}  // namespace detail

// A C++ scalar used as an operand ("wrapped number": it does not raise a tensor's
// type within its category).
template <class S>
concept scalar = element<std::remove_cvref_t<S>> && !expression<S>;

// A rank-0 operand holding one value, already converted to the type it combines in.
template <class T>
struct scalar_expr : expr_node_base {
  using value_type = T;
  using dims = dim_list<>;
  T value;
};

// How a node holds an operand: lvalues by reference, rvalues by value, so
// `auto e = dg::exp(make_tensor()) + x;` never dangles.
template <class E>
using operand_t = std::conditional_t<std::is_lvalue_reference_v<E>, const std::remove_cvref_t<E>&,
                                     std::remove_cvref_t<E>>;

namespace detail {

// tensor_of_list_t<T, L<Ds...>>: the tensor of elements T with the dims in L (a dim_list or a
// type_list). The one name for it: of an expression e, tensor_of_list_t<value_t<E>, dims_t<E>>.
template <class T, class List>
struct tensor_of_list;
template <class T, template <class...> class L, class... Ds>
struct tensor_of_list<T, L<Ds...>> {
  using type = tensor<T, Ds...>;
};
template <class T, class List>
using tensor_of_list_t = typename tensor_of_list<T, List>::type;

// The stand-in result of an op whose mistake was already reported: every op on it
// quietly gives it again, so one mistake gives one message. So do the members of a tensor
// or a graph that a program goes on to use (size, extents, elements, comparisons of an
// element, a graph's output count), and it converts to any value type: none of them is
// ever evaluated, as a program that holds the stand-in has already failed to compile.
struct invalid_expr {
  static constexpr std::size_t rank = 0;
  static constexpr std::size_t output_count = 0;
  static constexpr std::size_t size() { return 0; }
  template <class D>
  static constexpr std::size_t extent() {
    return 0;
  }
  template <class... Is>
  constexpr invalid_expr operator()(const Is&...) const {
    return {};
  }
  template <class I>
  constexpr invalid_expr operator[](const I&) const {
    return {};
  }
  template <class... Is>
  constexpr invalid_expr at(const Is&...) const {
    return {};
  }
  // (Not to a tensor type, which takes the stand-in in its constructor from an expression:
  // two ways to convert would be ambiguous, a -Wconversion warning.)
  template <class T>
    requires std::is_default_constructible_v<T> && (!requires { typename T::dims; })
  constexpr operator T() const {
    return T{};
  }
  template <class U>
  friend constexpr bool operator==(const invalid_expr&, const U&) {
    return false;
  }
  template <class U>
  friend constexpr bool operator<(const invalid_expr&, const U&) {
    return false;
  }
  template <class U>
  friend constexpr bool operator>(const invalid_expr&, const U&) {
    return false;
  }
};
template <class X>
concept poisoned = std::is_same_v<std::remove_cvref_t<X>, invalid_expr>;
// How every public op takes it: its signature admits the stand-in in the place of any operand
// (so overload resolution never fails on it), and its body gives it again before any check:
//   template <detail::expression_or_poisoned X>
//   auto op(X&& x) {
//     if constexpr (detail::poisoned<X>) return detail::invalid_expr{};
//     else { ...the checks and the op... }
//   }
// (several operands: requires (expression<A> && expression<B>) || detail::any_poisoned<A, B>).
template <class... Xs>
concept any_poisoned = (poisoned<Xs> || ...);
template <class X>
concept expression_or_poisoned = expression<X> || poisoned<X>;

// Lazy nodes are what a tensor or a view can take the value of (see assign_source), and so is
// the stand-in for a reported mistake (taken silently).
template <class E>
  requires std::is_base_of_v<expr_node_base, E>
inline constexpr bool assign_source_v<E> = true;
template <>
inline constexpr bool assign_source_v<invalid_expr> = true;

// The extent of D in e (e must have D).
template <class D, class E>
std::size_t extent_in(const E& e) {
  return e.template extent<D>();
}

// Index of the first operand whose dim set contains every operand's dims, or npos.
inline constexpr std::size_t no_operand = static_cast<std::size_t>(-1);
template <class... Ls>
constexpr std::size_t containing_operand() {
  std::size_t i = 0, found = no_operand;
  auto check = [&]<class L>(std::type_identity<L>) {
    if (found == no_operand && (list_is_subset_v<Ls, L> && ...)) found = i;
    ++i;
  };
  (check(std::type_identity<Ls>{}), ...);
  return found;
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/expr/node.hpp
// ---- begin dimgraph/expr/lengths.hpp
// The lengths of ragged dims at the tensor level: given from a tensor over the batch dim, and
// read back from any expression.



namespace dimgraph {

// Lengths of the ragged dim D from an integer tensor or view over D's batch dim:
// dg::lengths<Time>(lens) next to dg::extent<Batch>(n) where a tensor is made.
// Errors (compile time): D is not ragged; x is not an integer tensor over D's batch dim alone.
template <dimension D, expression X>
  requires detail::memory_operand<X>
lengths_arg<std::remove_cvref_t<D>> lengths(const X& x) {
  using d = std::remove_cvref_t<D>;
  static_assert(is_ragged_v<d>,
                "dimgraph: lengths: the dim is not ragged (declare it dg::dim<\"name\", "
                "dg::ragged<Batch>>)");
  if constexpr (is_ragged_v<d>) {
    static_assert(std::is_same_v<dims_t<X>, dim_list<ragged_batch_t<d>>> &&
                      std::integral<value_t<X>> && !std::is_same_v<value_t<X>, bool>,
                  "dimgraph: lengths: the lengths are an integer tensor over the ragged dim's "
                  "batch dim alone");
  }
  std::vector<std::int64_t> v;
  v.reserve(x.size());
  for (auto n : x.to_vector()) v.push_back(static_cast<std::int64_t>(n));
  return {std::make_shared<const std::vector<std::int64_t>>(std::move(v))};
}

// The lengths of the ragged dim D in x, as a tensor over D's batch dim (every entry is D's
// extent when x's lengths are full). Error (compile time): D is not a ragged dim of x, or x
// lacks its batch dim.
template <dimension D, detail::expression_or_poisoned X>
auto lengths_of(const X& x) {
  using d = std::remove_cvref_t<D>;
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    static_assert(is_ragged_v<d>, "dimgraph: lengths_of: the dim is not ragged");
    if constexpr (is_ragged_v<d>) {
      using B = ragged_batch_t<d>;
      static_assert(list_contains_v<dims_t<X>, d> && list_contains_v<dims_t<X>, B>,
                    "dimgraph: lengths_of: the expression lacks the dim or its batch dim");
      if constexpr (list_contains_v<dims_t<X>, d> && list_contains_v<dims_t<X>, B>) {
        tensor<std::int64_t, B> out(extent<B>(x.template extent<B>()));
        const lengths_ref l = detail::lengths_in<d>(x);
        for (std::size_t b = 0; b < out.size(); ++b)
          out.data()[b] = l ? (*l)[b] : static_cast<std::int64_t>(x.template extent<d>());
        return out;
      }
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/expr/lengths.hpp
// ---- begin dimgraph/expr/evaluator.hpp
// evaluator<E>: how each kind of expression is evaluated — its program of per-lane
// instructions, its leaves, and the walk that finds them at run time.


// ---- begin dimgraph/expr/functors.hpp
// The element functions of dimgraph's element-wise ops (what one lane of a vector computes).

#include <tuple>

// ---- begin dimgraph/detail/simd_math.hpp
// Math functions on SIMD vectors (and plain float and double): exp, expm1, log, log1p, tanh,
// sigmoid, erf, gelu, sqrt, rsqrt, pow, sin, cos.


// ---- begin dimgraph/detail/simd_float_bits.hpp
// The SIMD math functions' tools: float layout, exact splits and sums, polynomials, wider lanes.



DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd::math {

template <class V>
using int_t = vec<mask_lane_t<value_t<V>>, lanes_v<V>>;
template <class V>
using uint_t = vec<std::make_unsigned_t<mask_lane_t<value_t<V>>>, lanes_v<V>>;

// The binary layout of float and double.
template <class T>
struct layout {
  using bits_type = std::make_unsigned_t<mask_lane_t<T>>;
  static constexpr bool is_float = std::is_same_v<T, float>;
  static constexpr int mantissa = is_float ? 23 : 52;
  static constexpr int bias = is_float ? 127 : 1023;
  static constexpr bits_type sign = bits_type(1) << (sizeof(T) * 8 - 1);
  static constexpr bits_type one = bits_type(bias) << mantissa;
  // sqrt(1/2) rounded down: the lower end of the mantissa range [sqrt(1/2), sqrt(2)) of log.
  static constexpr bits_type sqrt_half = is_float ? 0x3f3504f3u : 0x3fe6a09e667f3bccull;
  static constexpr T infinity = is_float ? __builtin_inff() : __builtin_inf();
  static constexpr T nan = is_float ? __builtin_nanf("") : __builtin_nan("");
  // Adding 1.5 * 2^mantissa rounds to an integer that the low bits of the sum hold.
  static constexpr T round_magic = is_float ? 0x1.8p23f : 0x1.8p52;
};

template <class V>
DIMGRAPH_ALWAYS_INLINE inline V fill(value_t<V> c) {
  return V{} + c;
}

template <class V>
DIMGRAPH_ALWAYS_INLINE inline V abs(V x) {
  using U = uint_t<V>;
  return bits<V>(bits<U>(x) & ~layout<value_t<V>>::sign);
}

// min(x, c) and max(x, c) for a constant c, a NaN lane of x kept (c < x ? c : x, as the x86
// min and max instructions compare). GCC writes a vector ?: as a compare and a blend (three
// instructions without SSE4.1; with AVX-512 a compare into a mask and a masked move), so the
// instruction is asked for.
template <bool Max, class V>
DIMGRAPH_ALWAYS_INLINE inline V bound(V x, value_t<V> c) {
  const V cv = fill<V>(c);
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
  constexpr bool is_float = std::is_same_v<value_t<V>, float>;
  if constexpr (sizeof(V) == 16) {
    if constexpr (is_float) return Max ? __builtin_ia32_maxps(cv, x) : __builtin_ia32_minps(cv, x);
    else return Max ? __builtin_ia32_maxpd(cv, x) : __builtin_ia32_minpd(cv, x);
  }
#if defined(__AVX__)
  if constexpr (sizeof(V) == 32) {
    if constexpr (is_float)
      return Max ? __builtin_ia32_maxps256(cv, x) : __builtin_ia32_minps256(cv, x);
    else return Max ? __builtin_ia32_maxpd256(cv, x) : __builtin_ia32_minpd256(cv, x);
  }
#endif
#if defined(__AVX512F__)
  // (GCC's builtins take a merge source and a mask, Clang's do not.)
  if constexpr (sizeof(V) == 64) {
#if defined(__clang__)
    if constexpr (is_float)
      return Max ? __builtin_ia32_maxps512(cv, x, 4) : __builtin_ia32_minps512(cv, x, 4);
    else return Max ? __builtin_ia32_maxpd512(cv, x, 4) : __builtin_ia32_minpd512(cv, x, 4);
#else
    if constexpr (is_float)
      return Max ? __builtin_ia32_maxps512_mask(cv, x, cv, -1, 4)
                 : __builtin_ia32_minps512_mask(cv, x, cv, -1, 4);
    else
      return Max ? __builtin_ia32_maxpd512_mask(cv, x, cv, 0xff, 4)
                 : __builtin_ia32_minpd512_mask(cv, x, cv, 0xff, 4);
#endif
  }
#endif
#endif
  if constexpr (Max) return cv > x ? cv : x;
  else return cv < x ? cv : x;
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V at_most(V x, value_t<V> c) {
  return bound<false>(x, c);
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V at_least(V x, value_t<V> c) {
  return bound<true>(x, c);
}
// x within [lo, hi]; NaN stays NaN.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V clamped(V x, value_t<V> lo, value_t<V> hi) {
  return at_most(at_least(x, lo), hi);
}

// |magnitude| with the sign of `sign` (magnitude has its sign bit clear).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V with_sign_of(V magnitude, V sign) {
  using U = uint_t<V>;
  return bits<V>(bits<U>(magnitude) | (bits<U>(sign) & layout<value_t<V>>::sign));
}

// x with its low `Drop` mantissa bits cleared: exact, and products of two such halves are exact.
template <int Drop, class V>
DIMGRAPH_ALWAYS_INLINE inline V high_part(V x) {
  using U = uint_t<V>;
  using B = typename layout<value_t<V>>::bits_type;
  return bits<V>(bits<U>(x) & B(~B(0) << Drop));
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V high_half(V x) {
  return high_part < layout<value_t<V>>::is_float ? 12 : 27 > (x);
}

// c0 + x * (c1 + x * (c2 + ...)), evaluated as (c0 + c1 x) + x^2 ((c2 + c3 x) + x^2 (...)):
// the pairs are independent, so the chain of dependent multiply-adds is half as long (a
// kernel's loop keeps fewer iterations in flight than a chain this long needs, most of all
// without FMA), for one more product.
template <class V, class... C>
DIMGRAPH_ALWAYS_INLINE inline V horner_pairs(V x, V x2, value_t<V> c0, value_t<V> c1, C... c) {
  if constexpr (sizeof...(C) == 0) return x * c1 + c0;
  else if constexpr (sizeof...(C) == 1) return x2 * fill<V>(c...) + (x * c1 + c0);
  else return x2 * horner_pairs<V>(x, x2, c...) + (x * c1 + c0);
}
template <class V, class... C>
DIMGRAPH_ALWAYS_INLINE inline V horner_serial(V x, value_t<V> c0, C... c) {
  if constexpr (sizeof...(C) == 0) return fill<V>(c0);
  else return horner_serial<V>(x, c...) * x + c0;
}
template <class V, class... C>
DIMGRAPH_ALWAYS_INLINE inline V horner(V x, value_t<V> c0, C... c) {
  if constexpr (sizeof...(C) < 3) return horner_serial<V>(x, c0, c...);
  else return horner_pairs<V>(x, x * x, c0, c...);
}

// The nearest integer to x (|x| < 2^(mantissa - 1)) as a float lane and as an integer lane.
template <class V>
struct rounded {
  V value;
  int_t<V> integer;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline rounded<V> round_to_int(V x) {
  constexpr auto magic = layout<value_t<V>>::round_magic;
  const V t = x + magic;
  return {t - magic, bits<int_t<V>>(t) - bits<int_t<V>>(fill<V>(magic))};
}

// 2^k for integer lanes k in the normal exponent range.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow2i(int_t<V> k) {
  using L = layout<value_t<V>>;
  return bits<V>((k + L::bias) << L::mantissa);
}

// x * 2^k for integer lanes k, given as float lanes kf and integer lanes ki of the same
// values, with x * 2^k a normal number: one instruction with AVX-512 (scalef), else k added to
// x's exponent field. (Exact either way, so the bits are the same.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V times_pow2(V x, [[maybe_unused]] V kf, int_t<V> ki) {
#if defined(__AVX512F__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (sizeof(V) == 64) {
    // (The mask is unsigned in Clang's builtin, signed in GCC's: all lanes either way.)
#if defined(__clang__)
    constexpr unsigned short all = 0xffff;
#else
    constexpr short all = -1;
#endif
    if constexpr (std::is_same_v<value_t<V>, float>)
      return __builtin_ia32_scalefps512_mask(x, kf, V{}, all, 4);
    else return __builtin_ia32_scalefpd512_mask(x, kf, V{}, 0xff, 4);
  }
#endif
  using L = layout<value_t<V>>;
  return bits<V>(bits<int_t<V>>(x) + (ki << L::mantissa));
}

// a + b as a rounded sum and its exact rounding error (Knuth's two-sum: additions only).
template <class V>
struct pair {
  V hi, lo;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline pair<V> two_sum(V a, V b) {
  const V s = a + b;
  const V bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// ln 2 split so that k * ln2_hi is exact for every exponent k.
template <class T>
inline constexpr T ln2_hi = layout<T>::is_float ? T(0x1.62ep-1f) : T(0x1.62e42feep-1);
template <class T>
inline constexpr T ln2_lo = layout<T>::is_float ? T(0x1.0bfbe8p-15f) : T(0x1.a39ef35793c76p-33);
template <class T>
inline constexpr T log2e = layout<T>::is_float ? T(0x1.715476p+0f) : T(0x1.71547652b82fep+0);

// float lanes computed as double lanes, half a vector at a time (so no vector is wider; the
// public functions pass at least 16 bytes, so a half is at least two lanes).
template <class F, class V, class... A>
DIMGRAPH_ALWAYS_INLINE inline V via_double(F f, V x, A... y) {
  using H = vec<float, lanes_v<V> / 2>;
  V out;
  for (std::size_t half = 0; half < 2; ++half) {
    const auto part = [half](V v) DIMGRAPH_ALWAYS_INLINE {
      H h;
      std::memcpy(&h, reinterpret_cast<const char*>(&v) + half * sizeof(H), sizeof(H));
      return convert<double>(h);
    };
    const H r = convert<float>(f(part(x), part(y)...));
    std::memcpy(reinterpret_cast<char*>(&out) + half * sizeof(H), &r, sizeof(H));
  }
  return out;
}

// f(x, y...) for vectors narrower than 16 bytes (the one-lane remainder of a loop), computed
// in the first lanes of 16-byte vectors: lanes are computed as in any vector, so the results
// are the same bits, and no one-lane comparison is left for GCC 12 to expand into branches,
// around which it can drop the stack adjustments of calls in an enclosing loop (the stack
// then grows with each iteration).
template <class F, class V, class... A>
DIMGRAPH_ALWAYS_INLINE inline V widened(F f, V x, A... y) {
  using W = vec<value_t<V>, 16 / sizeof(value_t<V>)>;
  const auto widen = [](V v) DIMGRAPH_ALWAYS_INLINE {
    W w{};
    std::memcpy(&w, &v, sizeof(V));
    return w;
  };
  const W r = f(widen(x), widen(y)...);
  std::memcpy(&x, &r, sizeof(V));
  return x;
}

}  // namespace dimgraph::detail::simd::math
DIMGRAPH_WIDE_END
// ---- end dimgraph/detail/simd_float_bits.hpp
// ---- begin dimgraph/detail/simd_math_reductions.hpp
// The range reductions and polynomials behind the SIMD math functions: exp, log, erf, sin, pow.



// (How they are accurate, and what they assume of the compiler: detail/simd_math.hpp.)
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd::math {

// (expm1(r) - r) / r^2 for |r| <= ln2 / 2. (One chain for exp: evaluated in pairs, float exp's
// largest error over all floats grows from 0.96 to 1.002 ulp. Paired: in pairs, a shorter
// chain of latencies, for callers whose bound has room.)
template <bool Paired = false, class V>
DIMGRAPH_ALWAYS_INLINE inline V expm1_poly(V r) {
  if constexpr (layout<value_t<V>>::is_float && Paired)
    return horner_pairs(r, r * r, 0x1p-1f, 0x1.555556p-3f, 0x1.5554e4p-5f, 0x1.1110ep-7f,
                        0x1.6d492p-10f, 0x1.a12a42p-13f);
  else if constexpr (layout<value_t<V>>::is_float)
    return horner_serial(r, 0x1p-1f, 0x1.555556p-3f, 0x1.5554e4p-5f, 0x1.1110ep-7f, 0x1.6d492p-10f,
                         0x1.a12a42p-13f);
  else
    return horner_serial(r, 0x1p-1, 0x1.5555555555557p-3, 0x1.5555555555556p-5,
                         0x1.111111110ff87p-7, 0x1.6c16c16c16212p-10, 0x1.a01a01aca0134p-13,
                         0x1.a01a01a741b3cp-16, 0x1.71ddffef9e7b1p-19, 0x1.27e4da1a3bf04p-22,
                         0x1.af52906239de4p-26, 0x1.1f75aba0b1e2ep-29);
}

// exp(hi + lo) as exp_sum below, for lanes whose result is a normal number (|hi| below
// normal_exp_limit): the power of two is added to the exponent field, the same value as
// exp_sum's two products.
template <class T>
inline constexpr T normal_exp_limit = layout<T>::is_float ? T(86) : T(700);
template <bool Lo, class V>
DIMGRAPH_ALWAYS_INLINE inline V exp_sum_normal(V hi, V lo) {
  using T = value_t<V>;
  const auto k = round_to_int(hi * log2e<T>);
  V r = (hi - k.value * ln2_hi<T>)-k.value * ln2_lo<T>;
  if constexpr (Lo) r = r + lo;
  const V e = T(1) + (r + r * r * expm1_poly(r));
  return times_pow2(e, k.value, k.integer);
}

// exp(hi + lo) for |lo| much smaller than ulp(hi); hi is clamped to where exp is 0 or inf.
// The power of two is applied in two halves so that a subnormal result is rounded once. A
// vector whose lanes all have normal results (the common case) takes exp_sum_normal (Lo: lo
// may be nonzero).
template <class V, bool Lo = true>
DIMGRAPH_ALWAYS_INLINE inline V exp_sum(V hi, V lo, std::bool_constant<Lo> = {}) {
  using T = value_t<V>;
  if (all_lanes_less(abs(hi), fill<V>(normal_exp_limit<T>))) [[likely]]
    return exp_sum_normal<Lo>(hi, lo);
  constexpr T lowest = layout<T>::is_float ? T(-104) : T(-746);
  constexpr T highest = layout<T>::is_float ? T(89) : T(710);
  const int_t<V> outside = (hi < lowest) | (hi > highest);
  hi = clamped(hi, lowest, highest);  // NaN stays NaN
  lo = outside ? V{} : lo;
  const auto k = round_to_int(hi * log2e<T>);
  const V r = (hi - k.value * ln2_hi<T>)-k.value * ln2_lo<T> + lo;
  const V e = T(1) + (r + r * r * expm1_poly(r));
  const int_t<V> k1 = k.integer >> 1;
  return e * pow2i<V>(k1) * pow2i<V>(k.integer - k1);
}

// x = k ln2 + r with |r| <= ln2 / 2, and expm1(r), for |x| within the exponent range, where
// x = Scale a (1 or 2). For 2, k is rounded from a (the same product, exactly: the doubling is
// off the chain of latencies). Paired: the polynomial in pairs (a shorter chain, other bits).
template <class V>
struct expm1_split {
  V p;
  V kf;  // k as float lanes
  int_t<V> k;
};
template <int Scale = 1, bool Paired = false, class V>
DIMGRAPH_ALWAYS_INLINE inline expm1_split<V> expm1_reduce(V a) {
  static_assert(Scale == 1 || Scale == 2, "dimgraph: expm1_reduce: the scale is 1 or 2");
  using T = value_t<V>;
  const auto k = round_to_int(a * (T(Scale) * log2e<T>));
  V x = a;
  if constexpr (Scale == 2) x = a + a;
  const V r = (x - k.value * ln2_hi<T>)-k.value * ln2_lo<T>;
  return {r + r * r * expm1_poly<Paired>(r), k.value, k.integer};
}

// expm1(x) without the sign of zero: 2^k expm1(r) + (2^k - 1), k capped at the largest finite
// power of two and the rest applied after.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V expm1_unsigned_zero(V x) {
  using T = value_t<V>;
  using L = layout<T>;
  constexpr T lowest = L::is_float ? T(-17.5) : T(-38);  // expm1 rounds to -1 below
  constexpr T highest = L::is_float ? T(89) : T(710);
  x = clamped(x, lowest, highest);
  const expm1_split<V> e = expm1_reduce(x);
  const int_t<V> max_exponent = int_t<V>{} + L::bias;
  const int_t<V> kc = e.k > max_exponent ? max_exponent : e.k;
  const V s = pow2i<V>(kc);
  return (s * e.p + (s - T(1))) * pow2i<V>(e.k - kc);
}

// R(z) = (2 atanh(s) - 2 s) / s / z with z = s^2, s in [-(3 - 2 sqrt2), 3 - 2 sqrt2].
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V log_poly(V z) {
  if constexpr (layout<value_t<V>>::is_float)
    return horner(z, 0x1.555556p-1f, 0x1.9999eep-2f, 0x1.245b28p-2f, 0x1.de0b02p-3f);
  else
    return horner(z, 0x1.5555555555558p-1, 0x1.9999999994e76p-2, 0x1.2492492e6dfddp-2,
                  0x1.c71c6247410e3p-3, 0x1.7462e17b4cdd0p-3, 0x1.39f8963ccbdc2p-3,
                  0x1.2b9f7fb3de73fp-3);
}

// The small integer lanes k as floating-point lanes (|k| < 2^22).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V int_to_float(int_t<V> k) {
  constexpr auto magic = layout<value_t<V>>::round_magic;
  return bits<V>(bits<int_t<V>>(fill<V>(magic)) + k) - magic;
}

// k ln2 + log(1 + f) + c for 1 + f in [sqrt(1/2), sqrt(2)) and a small correction c
// (fdlibm's log: s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V log_reduced(V f, int_t<V> k, V c) {
  using T = value_t<V>;
  const V s = f / (T(2) + f);
  const V z = s * s;
  const V hfsq = T(0.5) * f * f;
  const V dk = int_to_float<V>(k);
  return s * (hfsq + z * log_poly(z)) + (dk * ln2_lo<T> + c) - hfsq + f + dk * ln2_hi<T>;
}

// x = 2^k m with m in [sqrt(1/2), sqrt(2)), for positive finite x (subnormals included).
template <class V>
struct log_split {
  V m;
  int_t<V> k;
};
template <class V>
DIMGRAPH_ALWAYS_INLINE inline log_split<V> split_exponent(V x) {
  using T = value_t<V>;
  using L = layout<T>;
  using I = int_t<V>;
  using U = uint_t<V>;
  constexpr int shift = L::mantissa + 2;
  constexpr T min_normal = static_cast<T>(L::is_float ? 0x1p-126 : 0x1p-1022);  // (exact in T)
  const I subnormal = x < min_normal;
  x = subnormal ? x * T(L::is_float ? 0x1p25f : 0x1p54) : x;
  const U u = bits<U>(x) + (L::one - L::sqrt_half);
  const I k = bits<I>(u >> L::mantissa) - L::bias - (subnormal & shift);
  const U mantissa_mask = U{} + ((typename L::bits_type(1) << L::mantissa) - 1);
  return {bits<V>((u & mantissa_mask) + L::sqrt_half), k};
}

// erf(x) / x - 1 as a polynomial in x^2 for |x| < 0.75.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erf_small_poly(V s) {
  if constexpr (layout<value_t<V>>::is_float)
    return horner(s, 0x1.06ebbp-3f, -0x1.812746p-2f, 0x1.ce2efep-4f, -0x1.b82706p-6f,
                  0x1.55e334p-8f, -0x1.b624cap-11f, 0x1.8d385p-14f);
  else
    return horner(s, 0x1.06eba8214db68p-3, -0x1.812746b0379e7p-2, 0x1.ce2f21a042bc6p-4,
                  -0x1.b82ce31287ce6p-6, 0x1.565bcd0e2c679p-8, -0x1.c02db3ec9fd99p-11,
                  0x1.f9a32306e0932p-14, -0x1.f4d1d6286861cp-17, 0x1.b9dae461077e7p-20,
                  -0x1.5ec0e0bec99f7p-23, 0x1.ef41d2b29a3a8p-27, -0x1.05364c48fa2d3p-30);
}

// erfc(z) * scale for z >= 0.75: exp(-z^2) (R(t) scale) with R(t) = erfc(z) exp(z^2),
// t = 1 / (1 + c z), given z^2 as hi + lo; a subnormal result is rounded once. Fitted up to
// z = 10.5 (float) and 28 (double), where erfc underflows.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erfc_tail(V z, pair<V> z2, V scale) {
  using T = value_t<V>;
  if constexpr (layout<T>::is_float) {
    z = at_most(z, T(10.5));
    const V t = T(1) / (T(1) + T(0.5) * z);
    const V r = horner(t, 0x1.28ed7ep-19f, 0x1.20cb34p-2f, 0x1.21d898p-2f, 0x1.ea032ep-3f,
                       0x1.b6b2cap-3f, -0x1.4f18eap-5f, 0x1.0d778cp-2f, -0x1.a1bfbep-2f,
                       0x1.57906ap-3f, 0x1.5bfc76p-6f, -0x1.6664f6p-6f);
    return exp_sum(-z2.hi, -z2.lo) * (r * scale);
  } else {
    z = at_most(z, T(28));
    const V t = T(1) / (T(1) + T(0.25) * z);
    const V r = horner(
        t, 0x1.286e97734a393p-39, 0x1.20dd74ff288adp-3, 0x1.20dd75a5c35aap-3, 0x1.17d67cb21ea95p-3,
        0x1.05c96333ec8d2p-3, 0x1.d70accdd15916p-4, 0x1.9619e52dd4137p-4, 0x1.4934dc18a0c9ep-4,
        0x1.0e63ee3dc2a39p-4, 0x1.ef8341ade6d3dp-6, 0x1.4053da8bed8eep-4, -0x1.ea4ef400761e7p-4,
        0x1.462ab5847f73cp-2, -0x1.293a52c8b5e2ep-1, 0x1.c5f308ebabde8p-1, -0x1.175a0a3bb90c3p+0,
        0x1.0e4338aee5a67p+0, -0x1.938bf4f3525fdp-1, 0x1.b918e093e5276p-2, -0x1.464e1f2cdd3adp-3,
        0x1.21826f347c18ap-5, -0x1.d0a1582df1cffp-9);
    return exp_sum(-z2.hi, -z2.lo) * (r * scale);
  }
}

// x^2 * scale as hi + lo (scale a power of two): hi exact, lo rounded once.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline pair<V> scaled_square(V x, value_t<V> scale) {
  const V h = high_half(x);
  return {h * h * scale, (x - h) * (x + h) * scale};
}

// sin(r) and cos(r) for |r| <= pi/4 (double), r = hi + lo.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V sin_poly(V r, V lo) {
  const V z = r * r;
  const V s = horner(z, -0x1.5555555555555p-3, 0x1.1111111110b23p-7, -0x1.a01a019e620eep-13,
                     0x1.71de376b644ccp-19, -0x1.ae5fde7f12068p-26, 0x1.5dfb39c3139b6p-33);
  return r + (r * z * s + lo * (1.0 - 0.5 * z));
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V cos_poly(V r, V lo) {
  const V z = r * r;
  const V c = horner(z, 0x1.5555555555555p-5, -0x1.6c16c16c1691fp-10, 0x1.a01a019f3dde1p-16,
                     -0x1.27e4fa0241f7cp-22, 0x1.1eeb52a201da3p-29, -0x1.906dbf4fda044p-37);
  const V hz = 0.5 * z;
  const V w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * z * c - r * lo));
}

// sin(x + Quarter * pi/2) for double lanes: Cody-Waite reduction by pi/2 in four parts, the
// first three of 33 bits so that k * part is exact for |k| < 2^20, i.e. |x| < 1.6e6.
template <int Quarter, class V>
DIMGRAPH_ALWAYS_INLINE inline V sin_quarter(V x) {
  using I = int_t<V>;
  using U = uint_t<V>;
  const auto k = round_to_int(x * 0x1.45f306dc9c883p-1);
  const V kf = k.value;
  const V r1 = x - kf * 0x1.921fb544p+0;
  const pair<V> r2 = two_sum(r1, -(kf * 0x1.0b4611a6p-34));
  const V tail = r2.lo - kf * 0x1.3198a2ep-69 - kf * 0x1.b839a252049c1p-104;
  const pair<V> r = two_sum(r2.hi, tail);
  // Beyond 2^51 the quadrant is lost: keep the result finite and within [-1, 1].
  const I lost = abs(r.hi) > 2.0;
  const V rh = lost ? V{} : r.hi;
  const V rl = lost ? V{} : r.lo;
  const I q = k.integer + Quarter;
  const V y = (q & 1) != 0 ? cos_poly(rh, rl) : sin_poly(rh, rl);
  const U flip = bits<U>((q & 2) << 62);
  return bits<V>(bits<U>(y) ^ flip);
}

// log(a) as hi + lo for positive finite double lanes, to about 2^-70 relative (for pow), after
// fdlibm's pow: with s = f / (2 + f), log(1 + f) = 2/3 s (3 + s^2 + r), r = 3/2 s^4 Q2(s^2),
// where s, 3 + s^2 + r and their product are carried as a half-width high part plus the rest.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline pair<V> log_double_word(V a) {
  const log_split<V> sp = split_exponent(a);
  const V f = sp.m - 1.0;
  const V den = sp.m + 1.0;
  const V den_h = high_half(den);
  const V den_l = sp.m - (den_h - 1.0);
  const V s = f / den;
  const V s_h = high_half(s);
  const V s_l = (f - s_h * den_h - s_h * den_l) / den;
  const V z = s * s;
  const V q2 = horner(z, 0x1.999999999999fp-2, 0x1.249249248e146p-2, 0x1.c71c71d8c53b5p-3,
                      0x1.745d09640eef7p-3, 0x1.3b18e0ae3818bp-3, 0x1.10138b989b9b4p-3,
                      0x1.08b7b3fabc5b2p-3);
  const V s2_h = s_h * s_h;
  const V r = 1.5 * z * z * q2 + s_l * (s_h + s);
  const V t_h = high_half(3.0 + s2_h + r);
  const V t_l = r - ((t_h - 3.0) - s2_h);
  const V u = s_h * t_h;
  const V v = s_l * t_h + t_l * s;
  const V p_h = high_half(u + v);
  const V p_l = v - (p_h - u);
  constexpr double two_thirds_h = 0x1.555555p-1, two_thirds_l = 0x1.5555555555555p-27;
  const V m_h = two_thirds_h * p_h;
  const V m_l = two_thirds_l * p_h + p_l * (2.0 / 3.0);
  const V dk = int_to_float<V>(sp.k);
  const pair<V> h = two_sum(dk * ln2_hi<double>, m_h);
  const V lo = h.lo + (m_l + dk * ln2_lo<double>);
  const V hi = h.hi + lo;
  return {hi, lo - (hi - h.hi)};
}

// |x|^y for double lanes with x, y finite and x nonzero: exp(y log|x|) in double-word steps.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow_finite(V a, V y) {
  const pair<V> l = log_double_word(a);
  const V y_h = high_half(y);
  const V l_h = high_half(l.hi);
  const V p_hi = y_h * l_h;
  const V p_lo = y_h * (l.hi - l_h) + (y - y_h) * l.hi + y * l.lo;
  const V hi = p_hi + p_lo;
  return exp_sum(hi, p_lo - (hi - p_hi));
}

// C's pow(x, y) for double lanes.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow_double(V x, V y) {
  using I = int_t<V>;
  using U = uint_t<V>;
  constexpr double inf = layout<double>::infinity;
  const V a = abs(x);
  const V ay = abs(y);
  const I finite_a = (a > 0.0) & (a < inf);
  const I infinite_y = ay == inf;
  V r = pow_finite(finite_a ? a : fill<V>(1.0), ay < inf ? y : V{});
  // Zero or infinite |x|, or infinite y: 0 or inf, by whether |x|^y grows.
  const V grows = ((a > 1.0) == (y > 0.0)) ? fill<V>(inf) : V{};
  r = (~finite_a | infinite_y) ? grows : r;
  r = ((a == 1.0) & infinite_y) ? fill<V>(1.0) : r;
  // Odd integer y keeps the sign of x; negative finite x with y not an integer gives NaN.
  const V shifted = ay < 0x1p52 ? ay + 0x1p52 : ay;
  const I integer = (ay >= 0x1p52) | ((shifted - 0x1p52) == ay);
  const I odd = integer & (ay < 0x1p53) & ((bits<I>(shifted) & 1) != 0);
  const U sign = bits<U>(x) & layout<double>::sign;
  r = bits<V>(bits<U>(r) ^ (odd ? sign : U{}));
  r = ((x < 0.0) & (x > -inf) & ~integer) ? fill<V>(layout<double>::nan) : r;
  r = ((x != x) | (y != y)) ? x + y : r;
  return ((y == 0.0) | (x == 1.0)) ? fill<V>(1.0) : r;
}

}  // namespace dimgraph::detail::simd::math
DIMGRAPH_WIDE_END
// ---- end dimgraph/detail/simd_math_reductions.hpp

// Each function works on vec<float, L> and vec<double, L> for any L, lane by lane with the same
// operations whatever L is, so a lane's result is bit-for-bit the same in a vector body and in
// its L == 1 remainder (and in the plain float and double overloads at the end). No libm: range
// reduction and polynomials (coefficients fitted for these reductions), with special values as
// C's <math.h> gives them (NaN, infinities, signed zeros, subnormals, overflow and underflow).
// Accuracy does not rely on the compiler fusing a * b + c: exact products come from operands cut
// to half width by masking bits, and exact sums from two-sum sequences of additions.
// Error bounds are in ulp of the result, measured against libm in the next wider type (double
// for float, long double for double); tests/unit/detail/simd_math.cpp checks each of them.
// IEEE arithmetic as C++ has it by default is assumed: -ffast-math (-fassociative-math folds
// the rounding and two-sum steps, -ffinite-math-only the NaN and infinity checks) breaks them.
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::simd {

template <class V>
concept float_vec = requires(V v) { v[0]; } &&
                    (std::is_same_v<value_t<V>, float> || std::is_same_v<value_t<V>, double>);

// exp(x). Max error: float 1 ulp, double 1 ulp (subnormal results included).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V exp(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return exp(v); }, x);
  } else {
    return math::exp_sum(x, V{}, std::false_type{});
  }
}

// expm1(x) = exp(x) - 1, accurate near 0. Max error: float 2 ulp, double 2 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V expm1(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return expm1(v); }, x);
  } else {
    const V y = math::expm1_unsigned_zero(x);
    return x == 0 ? x : y;
  }
}

// log(x): -inf at +-0, NaN below 0. Max error: float 1 ulp, double 1 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V log(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return log(v); }, x);
  } else {
    using L = math::layout<value_t<V>>;
    const math::log_split<V> sp = math::split_exponent(x);
    V y = math::log_reduced(sp.m - value_t<V>(1), sp.k, V{});
    y = x < 0 ? math::fill<V>(L::nan) : y;
    y = x == 0 ? math::fill<V>(-L::infinity) : y;
    return x < L::infinity ? y : x;  // +inf and NaN
  }
}

// log1p(x) = log(1 + x), accurate near 0: -inf at -1, NaN below. Max error: float 1 ulp,
// double 1 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V log1p(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return log1p(v); }, x);
  } else {
    using T = value_t<V>;
    using L = math::layout<T>;
    using I = math::int_t<V>;
    // u = 1 + x rounds; c = (1 + x - u) / u puts the rounding error back (fdlibm's log1p).
    // Where 1 + x is within [sqrt(1/2), sqrt(2)), f = x is exact and no correction is needed.
    const V u = T(1) + x;
    const math::log_split<V> sp = math::split_exponent(u);
    const V c = (sp.k >= 2 ? T(1) - (u - x) : x - (u - T(1))) / u;
    const I near_zero = sp.k == 0;
    V y = math::log_reduced(near_zero ? x : sp.m - T(1), sp.k, near_zero ? V{} : c);
    y = x < T(-1) ? math::fill<V>(L::nan) : y;
    y = x == T(-1) ? math::fill<V>(-L::infinity) : y;
    y = x == 0 ? x : y;
    return x < L::infinity ? y : x;
  }
}

namespace math {

// tanh(x) = expm1(2|x|) / (expm1(2|x|) + 2) with the sign of x; exactly +-1 from |x| = 10
// (float) or 20 (double) on. Max error: float 2.5 ulp, double 2.5 ulp.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V tanh_expm1(V x) {
  using T = value_t<V>;
  constexpr T saturated = layout<T>::is_float ? T(10) : T(20);
  const V a = at_most(abs(x), saturated);
  // expm1(2a) = 2^k expm1(r) + (2^k - 1), 2^k within range as 2a <= 2 saturated.
  const expm1_split<V> em = expm1_reduce<2, true>(a);
  const V s = times_pow2(fill<V>(T(1)), em.kf, em.k);
  const V e = s * em.p + (s - T(1));
  return with_sign_of(e / (e + T(2)), x);
}

// tanh(x) for float lanes as x P(x^2) / Q(x^2), |x| capped: a rational minimax fit
// (relative error 7e-9) on |x| <= 9.03, from where tanh rounds to 1 (and so does the fit).
// Max error over all floats: 5.3 ulp with fused multiply-adds, 6.3 without, most of it the
// rounding of P and Q near saturation (Eigen's fast tanh, the same form: 4.9 and 6.7).
// Thirteen vector instructions and a division, about 3/4 of tanh_expm1's time. (P, Q:
// tools/fit_rational.py tanh 6 3 81.5, rounded to float.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V tanh_rational(V x) {
  static_assert(layout<value_t<V>>::is_float);
  const V a = clamped(x, -9.03f, 9.03f);  // (x's sign carries through: P, Q are even)
  const V s = a * a;
  const V p = horner_serial(s, 1.0f, 0x1.0bf95ap-3f, 0x1.96eec2p-9f, 0x1.767afap-17f,
                            -0x1.5bc4aep-26f, 0x1.d0a912p-35f, -0x1.7e6776p-44f);
  const V q = horner_serial(s, 1.0f, 0x1.db52p-2f, 0x1.91604cp-6f, 0x1.0b14d2p-12f);
  return a * p / q;
}

}  // namespace math

// tanh(x): float lanes as math::tanh_rational (5.3-6.3 ulp) with DIMGRAPH_CONFIG_FAST_MATH
// (the default), else and for double as math::tanh_expm1 (2.5 ulp).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V tanh(V x) {
  if constexpr (sizeof(V) < 16)
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return tanh(v); }, x);
  else if constexpr (math::layout<value_t<V>>::is_float && DIMGRAPH_CONFIG_FAST_MATH)
    return math::tanh_rational(x);
  else return math::tanh_expm1(x);
}

// sigmoid(x) = 1 / (1 + exp(-x)), which does not cancel for either sign: for x < 0, 1 + exp(-x)
// is large and has exp's relative error. Below -normal_exp_limit, where exp(-x) would overflow
// and sigmoid is tiny or subnormal, it is exp(x) (1 + exp(x) rounds to 1); a vector with such
// a lane computes both, so every lane's bits are those of the first form. Max error: float
// 2.5 ulp, double 2.5 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sigmoid(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sigmoid(v); }, x);
  } else {
    using T = value_t<V>;
    constexpr T limit = math::normal_exp_limit<T>;
    if (all_lanes_less(math::abs(x), math::fill<V>(limit))) [[likely]]
      return T(1) / (T(1) + math::exp_sum_normal<false>(-x, V{}));
    const V capped = math::clamped(x, -limit, limit);
    const V near = T(1) / (T(1) + math::exp_sum_normal<false>(-capped, V{}));
    // (A NaN lane is given back as it is: exp_sum_normal's exponent arithmetic may turn it
    // into a number.)
    const V y = x < -limit ? exp(x) : near;
    return x == x ? y : x;
  }
}

namespace math {

// erf(x): x + x P(x^2) below |x| = 0.75, 1 - erfc(|x|) above. Max error: float 2.5 ulp over
// all floats (2.0 with fused multiply-adds), double 3.2 (sampled densely), the largest just
// above 0.75, where erfc's fit is least accurate.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erf_erfc(V x) {
  using T = value_t<V>;
  constexpr T one_from = layout<T>::is_float ? T(4) : T(6);  // erf rounds to 1 beyond
  const V a = at_most(abs(x), one_from);
  const V small = x + x * erf_small_poly(x * x);
  const V large = T(1) - erfc_tail(a, scaled_square(a, T(1)), fill<V>(T(1)));
  return a < T(0.75) ? small : with_sign_of(large, x);
}

// erf(x) for float lanes as x P(x^2) / Q(x^2): a rational minimax fit (relative error 6e-8)
// on |x| <= 3.94, from where erf rounds to +-1. Beyond, x^2 is capped at 4.3^2 (the fit rises
// monotonically from 3.93 on and is 185 ulp above 1 there) and the result at +-1. Max error
// over all floats: 6.1 ulp with fused multiply-adds, 7.4 without (Eigen's fast erf, the same
// form: 5.5 with). (P, Q: tools/fit_rational.py erf 6 4 15.5, rounded to float.)
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V erf_rational(V x) {
  static_assert(layout<value_t<V>>::is_float);
  const V s = at_most(x * x, 18.49f);
  const V p = horner_serial(s, 0x1.20dd76p+0f, 0x1.996cap-3f, 0x1.9e4156p-5f, 0x1.e455ecp-9f,
                            0x1.28208ep-13f, -0x1.0502fep-19f, 0x1.5316d4p-26f);
  const V q =
      horner_serial(s, 1.0f, 0x1.056076p-1f, 0x1.d6ff52p-4f, 0x1.d621eep-7f, 0x1.f38cccp-11f);
  return clamped(x * p / q, -1.0f, 1.0f);
}

// gelu(x) = x / 2 (1 + erf(x / sqrt2)) (PyTorch's exact GELU). For x / sqrt2 <= -0.75 it is
// x / 2 erfc(|x| / sqrt2), with exp(-x^2 / 2) from x^2 carried in two parts, so the negative
// tail keeps its relative accuracy down to the subnormal range. Max error: 3.5 ulp for
// x > -0.75 sqrt2; in the negative tail 7.1 ulp (float, every float) and 10 (double, 9.5
// sampled densely near -1.33), where the rounding of t = 1 / (1 + c z) in erfc's fit is
// amplified about twofold.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V gelu_erfc(V x) {
  using T = value_t<V>;
  // Below -limit gelu rounds to -0; above +limit it is x (and w below is 2).
  constexpr T limit = layout<T>::is_float ? T(15) : T(40);
  x = at_least(x, -limit);
  const V xw = at_most(x, limit);
  const V z = xw * T(0x1.6a09e667f3bcdp-1);
  const V a = abs(z);
  const V half_x = T(0.5) * x;
  const V small = half_x * (T(1) + (z + z * erf_small_poly(z * z)));
  // x / 2 erfc(|z|): subtracted from x for positive x, the result itself for negative x.
  const V tail = erfc_tail(a, scaled_square(xw, T(0.5)), T(0.5) * xw);
  return a < T(0.75) ? small : (x > 0 ? x - tail : tail);
}

// gelu(x) = x / 2 (1 + erf_rational(x / sqrt2)) for float lanes, as PyTorch and Eigen write it:
// relative accuracy for x >= 0 (max error 4 ulp), absolute in the negative tail, where 1 + erf
// cancels: |error| <= 2^-22 |x| (in ulp: 6 at x = -1, 60 at -2, 10^3 at -3; x / 2 erfc(-x / sqrt2)
// is the accurate form there). x is raised to -15 first, from where gelu is -0 (not -inf * 0).
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V gelu_rational(V x) {
  static_assert(layout<value_t<V>>::is_float);
  x = at_least(x, -15.0f);
  return (0.5f * x) * (1.0f + erf_rational(x * 0x1.6a09e6p-1f));
}

}  // namespace math

// erf(x): float lanes as math::erf_rational (6.1-7.4 ulp) with DIMGRAPH_CONFIG_FAST_MATH (the
// default), else and for double as math::erf_erfc (2.5 ulp; double 3.2).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V erf(V x) {
  if constexpr (sizeof(V) < 16)
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return erf(v); }, x);
  else if constexpr (math::layout<value_t<V>>::is_float && DIMGRAPH_CONFIG_FAST_MATH)
    return math::erf_rational(x);
  else return math::erf_erfc(x);
}

// gelu(x): float lanes as math::gelu_rational (absolute accuracy in the negative tail) with
// DIMGRAPH_CONFIG_FAST_MATH (the default), else and for double as math::gelu_erfc (relative
// accuracy everywhere: 7.1 ulp, double 10).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V gelu(V x) {
  if constexpr (sizeof(V) < 16)
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return gelu(v); }, x);
  else if constexpr (math::layout<value_t<V>>::is_float && DIMGRAPH_CONFIG_FAST_MATH)
    return math::gelu_rational(x);
  else return math::gelu_erfc(x);
}

// sqrt(x), correctly rounded (the hardware's square root on x86).
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sqrt(V x) {
  using T = value_t<V>;
#if defined(__SSE2__)
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sqrt(v); }, x);
  } else if constexpr (sizeof(V) == 16) {
    if constexpr (std::is_same_v<T, float>) return __builtin_ia32_sqrtps(x);
    else return __builtin_ia32_sqrtpd(x);
#if defined(__AVX__)
  } else if constexpr (sizeof(V) == 32) {
    if constexpr (std::is_same_v<T, float>) return __builtin_ia32_sqrtps256(x);
    else return __builtin_ia32_sqrtpd256(x);
#endif
  } else {
    using H = vec<T, lanes_v<V> / 2>;
    H h[2];
    std::memcpy(h, &x, sizeof(V));
    h[0] = sqrt(h[0]);
    h[1] = sqrt(h[1]);
    std::memcpy(&x, h, sizeof(V));
    return x;
  }
#else
  // Elsewhere the compiler's square root per lane (which may call libm for a negative lane to
  // set errno unless -fno-math-errno).
  for (std::size_t l = 0; l < lanes_v<V>; ++l) x[l] = __builtin_sqrt(x[l]);
  return x;
#endif
}

// rsqrt(x) = 1 / sqrt(x): +-inf at +-0, NaN below 0. Max error: 1.5 ulp.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V rsqrt(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return rsqrt(v); }, x);
  } else {
    return value_t<V>(1) / sqrt(x);
  }
}

// pow(x, y) with C's special cases (pow(x, +-0) = 1, pow(1, y) = 1, zeros, infinities, negative
// x with integer y, NaN for negative finite x with non-integer y). float is computed in double.
// log|x| is carried to about 2^-70 and y log|x| in two parts, so the error does not grow with
// |y log x|. Max error: float 1 ulp, double 1.5 ulp. As for every function here, not covered:
// floating-point exception flags and errno, and which NaN (payload, sign) comes out.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V pow(V x, V y) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return pow(a, b); }, x, y);
  } else {
    if constexpr (std::is_same_v<value_t<V>, float>)
      return math::via_double(
          [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return math::pow_double(a, b); }, x, y);
    else return math::pow_double(x, y);
  }
}

// sin(x) and cos(x), float computed in double. Max error: float 1 ulp, double 1 ulp for
// |x| < 1.6e6; beyond, the error grows with |x| (the reduction's k * pi/2 is no longer exact),
// and past 2^51 the results are only guaranteed to be within [-1, 1]. NaN for +-inf.
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V sin(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return sin(v); }, x);
  } else {
    if constexpr (std::is_same_v<value_t<V>, float>) {
      return math::via_double([](auto d) DIMGRAPH_ALWAYS_INLINE { return sin(d); }, x);
    } else {
      const V y = math::sin_quarter<0>(x);
      return x == 0 ? x : y;
    }
  }
}
template <float_vec V>
DIMGRAPH_ALWAYS_INLINE inline V cos(V x) {
  if constexpr (sizeof(V) < 16) {
    return math::widened([](auto v) DIMGRAPH_ALWAYS_INLINE { return cos(v); }, x);
  } else {
    if constexpr (std::is_same_v<value_t<V>, float>)
      return math::via_double([](auto d) DIMGRAPH_ALWAYS_INLINE { return cos(d); }, x);
    else return math::sin_quarter<1>(x);
  }
}

// The same functions on plain float and double: the L == 1 vectors, so scalar and vector
// results agree bit for bit. (Templates, so that a translation unit instantiates only the
// ones it calls: as plain functions, including the library compiled all of them.)
template <class T>
concept float_or_double = std::is_same_v<T, float> || std::is_same_v<T, double>;
#define DIMGRAPH_SIMD_MATH_SCALAR(NAME)       \
  template <float_or_double T>                \
  DIMGRAPH_ALWAYS_INLINE inline T NAME(T x) { \
    return NAME(vec<T, 1>{x})[0];             \
  }
DIMGRAPH_SIMD_MATH_SCALAR(exp)
DIMGRAPH_SIMD_MATH_SCALAR(expm1)
DIMGRAPH_SIMD_MATH_SCALAR(log)
DIMGRAPH_SIMD_MATH_SCALAR(log1p)
DIMGRAPH_SIMD_MATH_SCALAR(tanh)
DIMGRAPH_SIMD_MATH_SCALAR(sigmoid)
DIMGRAPH_SIMD_MATH_SCALAR(erf)
DIMGRAPH_SIMD_MATH_SCALAR(gelu)
DIMGRAPH_SIMD_MATH_SCALAR(sqrt)
DIMGRAPH_SIMD_MATH_SCALAR(rsqrt)
DIMGRAPH_SIMD_MATH_SCALAR(sin)
DIMGRAPH_SIMD_MATH_SCALAR(cos)
#undef DIMGRAPH_SIMD_MATH_SCALAR
template <float_or_double T>
DIMGRAPH_ALWAYS_INLINE inline T pow(T x, T y) {
  return pow(vec<T, 1>{x}, vec<T, 1>{y})[0];
}

}  // namespace dimgraph::detail::simd
DIMGRAPH_WIDE_END
// ---- end dimgraph/detail/simd_math.hpp
// ---- begin dimgraph/expr/op_table.hpp
// The op table: every element-wise op with a fixed arity, one line each.

// DIMGRAPH_ELEMENTWISE_OPS(BINARY, UNARY) expands to BINARY(...) for each op of two operands and
// UNARY(...) for each op of one, with the columns
//   public   the public function: dg::<public>(x, y) or dg::<public>(x) (an operator's name
//            spells the operator: a + b)
//   op       the op's name, an identifier: the functor detail::fn::<op>, the "<op>" of its
//            messages ("dimgraph: <op>: ...") and of a traced graph's listing
//   kind     which operands it takes, the element type it gives, and how operand lanes are
//            converted before `lanes` sees them (detail::fn, expr/functors.hpp):
//              wrapping   arithmetic in the promoted type, integers wrapping (two's complement)
//              promoting  arithmetic in the promoted type, the result in that type
//              floating   arithmetic in the promoted type's floating-point type (integers
//                         compute in float)
//              comparing  compared in the promoted type, bool result
//              logical    on bool operands (lanes are masks), bool result
//   lanes    what computes one vector of lanes from the converted operand lanes, called as
//            lanes(a, b) or lanes(a) (names are those of namespace dimgraph::detail::fn)
// From each line come the functor (expr/functors.hpp) and the public op, which takes tensors,
// views, lazy expressions, C++ scalars (binary ops) and the symbols of a traced function
// (ops/elementwise.hpp; graph/ops.hpp records a node). Adding an element-wise op is one line
// here. (Ops with further operands or attributes, such as where, cast and map, are written out
// in ops/elementwise.hpp.) The macro stays defined: it is the table, which those headers and
// the table's test (tests/unit/expr/op_table.cpp) expand with macros of their own.
// clang-format off
#define DIMGRAPH_ELEMENTWISE_OPS(BINARY, UNARY)                                    \
  /*     public         op             kind       lanes                      */   \
  BINARY(operator+,     add,           wrapping,  std::plus<>{})                  \
  BINARY(operator-,     sub,           wrapping,  std::minus<>{})                 \
  BINARY(operator*,     mul,           wrapping,  std::multiplies<>{})            \
  BINARY(operator/,     div,           floating,  std::divides<>{})               \
  BINARY(pow,           pow,           promoting, lanes::pow)                     \
  BINARY(min,           min,           promoting, lanes::minimum)                 \
  BINARY(max,           max,           promoting, lanes::maximum)                 \
  BINARY(equal,         equal,         comparing, std::equal_to<>{})              \
  BINARY(not_equal,     not_equal,     comparing, std::not_equal_to<>{})          \
  BINARY(less,          less,          comparing, std::less<>{})                  \
  BINARY(less_equal,    less_equal,    comparing, std::less_equal<>{})            \
  BINARY(greater,       greater,       comparing, std::greater<>{})               \
  BINARY(greater_equal, greater_equal, comparing, std::greater_equal<>{})         \
  BINARY(logical_and,   logical_and,   logical,   std::bit_and<>{})               \
  BINARY(logical_or,    logical_or,    logical,   std::bit_or<>{})                \
  BINARY(logical_xor,   logical_xor,   logical,   std::bit_xor<>{})               \
  UNARY(logical_not,    logical_not,   logical,   std::bit_not<>{})               \
  UNARY(operator-,      neg,           wrapping,  std::negate<>{})                \
  UNARY(abs,            abs,           promoting, lanes::abs)                     \
  UNARY(relu,           relu,          promoting, lanes::relu)                    \
  UNARY(floor,          floor,         promoting, lanes::floor)                   \
  UNARY(ceil,           ceil,          promoting, lanes::ceil)                    \
  UNARY(exp,            exp,           floating,  simd::exp)                      \
  UNARY(expm1,          expm1,         floating,  simd::expm1)                    \
  UNARY(log,            log,           floating,  simd::log)                      \
  UNARY(log1p,          log1p,         floating,  simd::log1p)                    \
  UNARY(sqrt,           sqrt,          floating,  simd::sqrt)                     \
  UNARY(rsqrt,          rsqrt,         floating,  simd::rsqrt)                    \
  UNARY(tanh,           tanh,          floating,  simd::tanh)                     \
  UNARY(sigmoid,        sigmoid,       floating,  simd::sigmoid)                  \
  UNARY(erf,            erf,           floating,  simd::erf)                      \
  UNARY(gelu,           gelu,          floating,  simd::gelu)                     \
  UNARY(sin,            sin,           floating,  simd::sin)                      \
  UNARY(cos,            cos,           floating,  simd::cos)
// clang-format on
// ---- end dimgraph/expr/op_table.hpp

// Every functor works on vectors of lanes (detail/simd.hpp), one lane per element; the
// scalar form is the one-lane vector, so a loop's remainder computes exactly what its vector
// body does. A functor has
//   name                                  the op's name in messages and listings
//                                         (the op table's functors also have it as `label`,
//                                         a detail::fixed_string: a traced node's op_tag)
//   template <class... Es> result_t       the element type of the result for operands of
//                                         element types Es...
//   template <class... Es> apply(vs...)   the result lanes, for operand lanes vs... of
//                                         element types Es...
// Semantics follow IEEE 754 and PyTorch: NaN propagates through min, max and relu; integer
// arithmetic wraps (two's complement) instead of overflowing; math functions of integers
// compute in float.
DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail::fn {

template <class T>
using float_of_t = std::conditional_t<std::is_floating_point_v<T>, T, float>;

template <class E, std::size_t L>
using lanes_t = simd::vec<simd::lane_t<E>, L>;

// Lanes of element type From as lanes of element type To (a value conversion: bool lanes
// are masks, so true converts to 1 and a non-zero number to true).
template <class To, class From, class V>
DIMGRAPH_ALWAYS_INLINE inline lanes_t<To, simd::lanes_v<V>> as(V v) {
  constexpr std::size_t L = simd::lanes_v<V>;
  if constexpr (std::is_same_v<simd::lane_t<To>, simd::lane_t<From>>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return simd::mask_cast<std::int8_t>(v != simd::splat<simd::value_t<V>, L>(0));
  } else if constexpr (std::is_same_v<From, bool>) {
    // The mask at To's width, then 1 for all ones (a conversion between lanes of one width).
    using I = simd::mask_lane_t<simd::lane_t<To>>;
    return simd::convert<simd::lane_t<To>>(simd::mask_cast<I>(v) & simd::splat<I, L>(1));
  } else {
    return simd::convert<simd::lane_t<To>>(v);
  }
}

// A comparison's mask (lanes of the operands' width) as bool lanes.
template <class M>
DIMGRAPH_ALWAYS_INLINE inline simd::vec<std::int8_t, simd::lanes_v<M>> to_bool(M m) {
  return simd::mask_cast<std::int8_t>(m);
}

// Integer arithmetic in the unsigned type of the same width: wraps, never undefined.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline auto as_unsigned(V v) {
  using T = simd::value_t<V>;
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return simd::bits<simd::vec<std::make_unsigned_t<T>, simd::lanes_v<V>>>(v);
  else return v;
}
template <class V, class U>
DIMGRAPH_ALWAYS_INLINE inline V from_unsigned(U u) {
  if constexpr (std::is_same_v<U, V>) return u;
  else return simd::bits<V>(u);
}

// The lanes of the table's ops whose computation is more than an operator or a function of
// simd_math.hpp (expr/op_table.hpp names them), on lanes of the type the op computes in.
namespace lanes {

// min and max: a NaN in either operand gives NaN (torch.minimum / torch.maximum).
template <bool Max, class V>
DIMGRAPH_ALWAYS_INLINE inline V extreme(V a, V b) {
  const auto take_b = [&] {
    if constexpr (Max) return a < b;
    else return b < a;
  }();
  if constexpr (std::is_floating_point_v<simd::value_t<V>>) return (take_b | (b != b)) ? b : a;
  else return take_b ? b : a;
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V minimum(V a, V b) {
  return extreme<false>(a, b);
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V maximum(V a, V b) {
  return extreme<true>(a, b);
}

// Integer powers by squaring (wrapping); a negative exponent gives 0 except for bases 1 and
// -1, as integer pow in PyTorch. Floating-point powers as simd::pow.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V pow(V base, V exponent) {
  using C = simd::value_t<V>;
  if constexpr (std::is_floating_point_v<C>) {
    return simd::pow(base, exponent);
  } else {
    V r{};
    for (std::size_t l = 0; l < simd::lanes_v<V>; ++l) {
      using U = std::make_unsigned_t<C>;
      C x = base[l], e = exponent[l];
      if constexpr (std::is_signed_v<C>) {
        if (e < 0) {
          r[l] = x == 1 ? C(1) : x == -1 ? ((e & 1) ? C(-1) : C(1)) : C(0);
          continue;
        }
      }
      U acc = 1, sq = static_cast<U>(x);
      for (U k = static_cast<U>(e); k; k >>= 1) {
        if (k & 1) acc = static_cast<U>(acc * sq);
        sq = static_cast<U>(sq * sq);
      }
      r[l] = static_cast<C>(acc);
    }
    return r;
  }
}

// |x|: clears the sign of floats (|-0| = 0, |NaN| is NaN); wraps for the lowest integer.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V abs(V a) {
  using T = simd::value_t<V>;
  if constexpr (std::is_unsigned_v<T>) return a;
  else if constexpr (std::is_floating_point_v<T>) return a < T(0) ? -a : a * T(1) + T(0);
  else return from_unsigned<V>(a < T(0) ? -as_unsigned(a) : as_unsigned(a));
}

// max(x, 0); relu(NaN) is NaN.
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V relu(V a) {
  using T = simd::value_t<V>;
  return a < T(0) ? V{} : a;
}

// floor and ceil (identity on integers); NaN, infinities and signed zeros kept.
template <bool Up, class V>
DIMGRAPH_ALWAYS_INLINE inline V rounded(V a) {
  using T = simd::value_t<V>;
  if constexpr (!std::is_floating_point_v<T>) {
    return a;
  } else {
    using I = simd::mask_lane_t<T>;
    constexpr T big = std::is_same_v<T, float> ? T(8388608.0) : T(4503599627370496.0);
    const auto t = simd::convert<T>(simd::convert<I>(a < big && a > -big ? a : V{}));
    const V r = Up ? (t < a ? t + T(1) : t) : (t > a ? t - T(1) : t);
    using B = simd::vec<std::make_unsigned_t<I>, simd::lanes_v<V>>;
    const auto sign = simd::bits<B>(a) & simd::bits<B>(simd::splat<T, simd::lanes_v<V>>(T(-0.0)));
    const V signed_r = simd::bits<V>(
        (simd::bits<B>(r) & ~simd::bits<B>(simd::splat<T, simd::lanes_v<V>>(T(-0.0)))) | sign);
    return a < big && a > -big ? signed_r : a;
  }
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V floor(V a) {
  return rounded<false>(a);
}
template <class V>
DIMGRAPH_ALWAYS_INLINE inline V ceil(V a) {
  return rounded<true>(a);
}

}  // namespace lanes

// Which operands an op of the table takes (the public op checks them, ops/elementwise.hpp):
//   arithmetic  numbers: no dg::index<D>, and bool only next to a number (not two bools, not
//               the one operand of a unary op)
//   comparison  any two operands with a common type
//   logical     bool operands
enum class operand_rule : unsigned char { arithmetic, comparison, logical };

// The promoted type of the element types Es (one: itself).
template <class... Es>
struct common_element;
template <class A>
struct common_element<A> {
  using type = A;
};
template <class A, class B>
struct common_element<A, B> {
  using type = promote_t<A, B>;
};
template <class... Es>
using common_element_t = typename common_element<Es...>::type;

template <class V, class...>
inline constexpr std::size_t lanes_of_first_v = simd::lanes_v<V>;

// The kinds of op (the table's third column) are the bases of the table's functors; each
// converts the operand lanes and hands them to Op::compute, the table's lanes column.
// wrapping: arithmetic in the promoted type C; integers compute in the unsigned type of C's
// width, so they wrap instead of overflowing.
template <class Op>
struct wrapping {
  static constexpr operand_rule operands = operand_rule::arithmetic;
  template <class... Es>
  using result_t = common_element_t<Es...>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    using C = common_element_t<Es...>;
    using V = lanes_t<C, lanes_of_first_v<Vs...>>;
    return from_unsigned<V>(Op::compute(as_unsigned(as<C, Es>(vs))...));
  }
};
// promoting: arithmetic in the promoted type.
template <class Op>
struct promoting {
  static constexpr operand_rule operands = operand_rule::arithmetic;
  template <class... Es>
  using result_t = common_element_t<Es...>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    return Op::compute(as<common_element_t<Es...>, Es>(vs)...);
  }
};
// floating: arithmetic in the promoted type's floating-point type, so integers compute in
// float (true division as torch.div, x / 0 as IEEE; math functions, vectorised with the
// accuracy detail/simd_math.hpp states).
template <class Op>
struct floating {
  static constexpr operand_rule operands = operand_rule::arithmetic;
  template <class... Es>
  using result_t = float_of_t<common_element_t<Es...>>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    return Op::compute(as<float_of_t<common_element_t<Es...>>, Es>(vs)...);
  }
};
// comparing: bool lanes; NaN compares unequal to everything (IEEE). (mask: the comparison's
// own mask, lanes of the compared type's width.)
template <class Op>
struct comparing {
  static constexpr operand_rule operands = operand_rule::comparison;
  static constexpr bool is_comparison = true;
  template <class A, class B>
  using result_t = bool;
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE static auto mask(VA a, VB b) {
    using C = promote_t<A, B>;
    return Op::compute(as<C, A>(a), as<C, B>(b));
  }
  template <class A, class B, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b) const {
    return to_bool(mask<A, B>(a, b));
  }
};
// logical: on bool lanes (masks: 0 or all ones).
template <class Op>
struct logical {
  static constexpr operand_rule operands = operand_rule::logical;
  template <class... Es>
  using result_t = bool;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    return Op::compute(vs...);
  }
};

// The functors of the op table: fn::add, fn::tanh, ...
#define DIMGRAPH_TABLE_FUNCTOR(PUBLIC, OP, KIND, LANES)    \
  struct OP : KIND<OP> {                                   \
    static constexpr const char* name = #OP;               \
    static constexpr fixed_string<sizeof(#OP)> label{#OP}; \
    template <class... Vs>                                 \
    DIMGRAPH_ALWAYS_INLINE static auto compute(Vs... vs) { \
      return LANES(vs...);                                 \
    }                                                      \
  };
DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_TABLE_FUNCTOR, DIMGRAPH_TABLE_FUNCTOR)
#undef DIMGRAPH_TABLE_FUNCTOR

// The names of the table's ops.
#define DIMGRAPH_TABLE_NAME(PUBLIC, OP, KIND, LANES) #OP,
inline constexpr std::string_view table_op_names[] = {
    DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_TABLE_NAME, DIMGRAPH_TABLE_NAME)};
#undef DIMGRAPH_TABLE_NAME

// where(c, a, b).
struct select {
  static constexpr const char* name = "where";
  template <class Cond, class A, class B>
  using result_t = promote_t<A, B>;
  template <class Cond, class A, class B, class VC, class VA, class VB>
  DIMGRAPH_ALWAYS_INLINE auto apply(VC c, VA a, VB b) const {
    using C = promote_t<A, B>;
    const auto m = simd::mask_cast<simd::mask_lane_t<simd::lane_t<C>>>(c);
    return m ? as<C, A>(a) : as<C, B>(b);
  }
};

// where(Cmp(a, b), x, y) as one instruction: the comparison's mask selects at its own width
// (a comparison alone gives bool lanes, which select would widen again).
template <class Cmp>
struct select_compared {
  static constexpr const char* name = "where";
  template <class A, class B, class X, class Y>
  using result_t = promote_t<X, Y>;
  template <class A, class B, class X, class Y, class VA, class VB, class VX, class VY>
  DIMGRAPH_ALWAYS_INLINE auto apply(VA a, VB b, VX x, VY y) const {
    using R = promote_t<X, Y>;
    const auto m =
        simd::mask_cast<simd::mask_lane_t<simd::lane_t<R>>>(Cmp::template mask<A, B>(a, b));
    return m ? as<R, X>(x) : as<R, Y>(y);
  }
};
template <class F>
inline constexpr bool is_comparison_v = false;
template <class F>
  requires F::is_comparison
inline constexpr bool is_comparison_v<F> = true;

template <class T>
struct cast_to {
  static constexpr const char* name = "cast";
  template <class A>
  using result_t = T;
  template <class A, class V>
  DIMGRAPH_ALWAYS_INLINE auto apply(V a) const {
    return as<T, A>(a);
  }
};

// A lane value as the element it stands for, and back.
template <class E, class L>
DIMGRAPH_ALWAYS_INLINE inline E element_of(L v) {
  if constexpr (std::is_same_v<E, bool>) return v != 0;
  else return E(v);
}
template <class E>
DIMGRAPH_ALWAYS_INLINE inline simd::lane_t<E> lane_of(E e) {
  if constexpr (std::is_same_v<E, bool>) return e ? -1 : 0;
  else if constexpr (is_index_v<E>) return e.value();
  else return e;
}

// A user function: dg::map(f, xs...), called lane by lane. (Functors of the library
// itself have result_t and apply and are used as they are.)
template <class F>
struct user {
  static constexpr const char* name = "map";
  F f;
  template <class... Es>
  using result_t = std::remove_cvref_t<std::invoke_result_t<const F&, Es...>>;
  template <class... Es, class... Vs>
  DIMGRAPH_ALWAYS_INLINE auto apply(Vs... vs) const {
    constexpr std::size_t L = simd::lanes_v<std::tuple_element_t<0, std::tuple<Vs...>>>;
    lanes_t<result_t<Es...>, L> r{};
    for (std::size_t l = 0; l < L; ++l) r[l] = lane_of(f(element_of<Es>(vs[l])...));
    return r;
  }
};

template <class F>
concept lane_functor = requires { F::name; };
template <class F>
using functor_t = std::conditional_t<lane_functor<F>, F, user<F>>;
template <class F>
DIMGRAPH_ALWAYS_INLINE inline functor_t<F> as_functor(F f) {
  if constexpr (lane_functor<F>) return f;
  else return user<F>{std::move(f)};
}

}  // namespace dimgraph::detail::fn
DIMGRAPH_WIDE_END
// ---- end dimgraph/expr/functors.hpp
// ---- begin dimgraph/expr/program.hpp
// An expression's program: its instructions (leaf_op, scalar_op, apply_op) and what it reads.



// (What a program is, and how it is run: expr/evaluator.hpp.)
namespace dimgraph::detail {

// ---- Instructions ----------------------------------------------------------------------

// Read leaf object X (a tensor, a view, or the tensor a temporary was evaluated into), of
// element type T.
template <class X, class T>
struct leaf_op {
  using object = X;
  using value_type = T;
  using dims = typename X::dims;
  using state = void;
  static constexpr std::size_t arity = 0;
  static constexpr bool is_leaf = true;
  static constexpr bool is_view = is_view_v<X>;
  static constexpr bool stateful = false;
};
// A scalar: the same value in every lane (the value is state).
template <class T>
struct scalar_op {
  using value_type = T;
  using state = T;
  static constexpr std::size_t arity = 0;
  static constexpr bool is_leaf = false;
  static constexpr bool is_view = false;
  static constexpr bool stateful = true;
};
// F applied to the results of the instructions Dist... places before this one, whose element
// types are Args (a type_list). F is state when it holds data (a user's function with
// captures).
template <class F, class Value, class Args, std::size_t... Dist>
struct apply_op {
  using value_type = Value;
  using state = F;
  static constexpr std::size_t arity = sizeof...(Dist);
  static constexpr bool is_leaf = false;
  static constexpr bool is_view = false;
  static constexpr bool stateful = !(std::is_empty_v<F> && std::is_default_constructible_v<F>);
};

template <class I>
struct is_leaf_op : std::bool_constant<I::is_leaf> {};
template <class I>
struct is_stateful_op : std::bool_constant<I::stateful> {};
template <class List>
struct state_types_of;
template <class... Is>
struct state_types_of<type_list<Is...>> {
  using type = type_list<typename Is::state...>;
};

// Exclusive prefix sums of flags: {0, f0, f0 + f1, ...}.
template <std::size_t N>
constexpr std::array<std::size_t, N + 1> prefix_counts(const std::array<bool, N + 1>& f) {
  std::array<std::size_t, N + 1> r{};
  for (std::size_t k = 0; k < N; ++k) r[k + 1] = r[k] + std::size_t{f[k]};
  return r;
}

// Registers are kept in one array per kind of lane (float, double, signed and unsigned
// integers of 1, 2, 4 and 8 bytes): instruction K's value is element reg_at[K] of the array
// of its kind. (One struct member per instruction would make every access a lookup among N
// members, quadratic in the program's length.)
template <class T>
constexpr std::size_t reg_kind() {
  using U = simd::lane_t<T>;
  static_assert(std::is_arithmetic_v<U> && sizeof(U) <= 8 && (sizeof(U) & (sizeof(U) - 1)) == 0,
                "dimgraph: a lane is a number of 1, 2, 4 or 8 bytes");
  constexpr std::size_t log = sizeof(U) == 1 ? 0 : sizeof(U) == 2 ? 1 : sizeof(U) == 4 ? 2 : 3;
  if constexpr (std::is_floating_point_v<U>) return sizeof(U) == 4 ? 0 : 1;
  else if constexpr (std::is_signed_v<U>) return 2 + log;
  else return 6 + log;
}
template <class T>
inline constexpr std::size_t reg_kind_v = reg_kind<T>();
inline constexpr std::size_t reg_kinds = 10;
template <std::size_t Kind>
using reg_lane_t =
    at_t<Kind, type_list<float, double, std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                         std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>>;

// Facts::registers (the count of each kind of register) as an index_sequence. (Not a template
// on the array itself: GCC 12 misreads the elements of a std::array template argument.)
template <class Facts, class Kinds = std::make_index_sequence<reg_kinds>>
struct register_counts;
template <class Facts, std::size_t... Kinds>
struct register_counts<Facts, std::index_sequence<Kinds...>> {
  using type = std::index_sequence<Facts::registers[Kinds]...>;
};

// What a program reads: for instruction K, its leaf number leaf_at[K] (among leaves), view
// number view_at[K], state number state_at[K] and register reg_at[K] (among those of its
// kind); the leaf instructions, and the state types.
template <class Program>
struct program_facts;
template <class... Is>
struct program_facts<type_list<Is...>> {
  static constexpr std::size_t size = sizeof...(Is);
  static constexpr auto leaf_at = prefix_counts<size>({Is::is_leaf..., false});
  static constexpr auto view_at = prefix_counts<size>({Is::is_view..., false});
  static constexpr auto state_at = prefix_counts<size>({Is::stateful..., false});
  static constexpr std::size_t leaves = leaf_at[size];
  static constexpr std::size_t views = view_at[size];
  static constexpr std::size_t states = state_at[size];
  static constexpr std::array<std::size_t, size + 1> reg_kind{
      reg_kind_v<typename Is::value_type>..., 0};
  // Registers are reused: the program is a tree in post-order, each value read once, by the
  // instruction that consumes it, so the live values form a stack and a value's register is
  // the height of its kind's part of that stack when it is pushed (a chain of N ops needs two
  // registers per kind, not N: a register file the optimiser keeps in SSA values, not in an
  // array in memory whose every load it must check against every store before it).
  static constexpr std::array<std::size_t, size + 1> arity{Is::arity..., 0};
  struct allocation {
    std::array<std::size_t, size + 1> at{};
    std::array<std::size_t, reg_kinds> count{};
  };
  static constexpr allocation allocate() {
    allocation a{};
    std::array<std::size_t, reg_kinds> height{};
    std::array<std::size_t, size + 1> stack{};  // the kinds of the live values, bottom first
    std::size_t top = 0;
    for (std::size_t k = 0; k < size; ++k) {
      for (std::size_t j = 0; j < arity[k]; ++j) --height[stack[--top]];
      const std::size_t kind = reg_kind[k];
      a.at[k] = height[kind]++;
      if (height[kind] > a.count[kind]) a.count[kind] = height[kind];
      stack[top++] = kind;
    }
    return a;
  }
  static constexpr allocation allocated = allocate();
  static constexpr auto registers = allocated.count;
  static constexpr auto reg_at = allocated.at;
  using leaf_ops = filter_t<is_leaf_op, type_list<Is...>>;
  using state_types = typename state_types_of<filter_t<is_stateful_op, type_list<Is...>>>::type;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/expr/program.hpp
// ---- begin dimgraph/expr/program_kernel.hpp
// program_kernel: an expression's program run on L lanes, one statement per instruction.



DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// ---- Running a program -----------------------------------------------------------------

// A base holding one value.
template <std::size_t K, class V>
struct reg_slot {
  V v;
};

// The registers of a program with N[k] values of kind k, L lanes each.
template <std::size_t L, class N, class Kinds = std::make_index_sequence<reg_kinds>>
struct register_file;
template <std::size_t L, std::size_t... N, std::size_t... Kinds>
struct register_file<L, std::index_sequence<N...>, std::index_sequence<Kinds...>>
    : reg_slot<Kinds, simd::vec<reg_lane_t<Kinds>, L>[N + 1]>... {
  static constexpr std::array<std::size_t, reg_kinds> counts{N...};
  // The registers of kind K.
  template <std::size_t K>
  DIMGRAPH_ALWAYS_INLINE auto& bank() {
    return static_cast<reg_slot<K, simd::vec<reg_lane_t<K>, L>[counts[K] + 1]>&>(*this).v;
  }
  template <std::size_t K>
  DIMGRAPH_ALWAYS_INLINE const auto& bank() const {
    return static_cast<const reg_slot<K, simd::vec<reg_lane_t<K>, L>[counts[K] + 1]>&>(*this).v;
  }
};

// Lanes of element type T from memory: bool as masks, dg::index as its int64 value.
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, L> load_lanes(const T* p) {
  fn::lanes_t<T, L> v;
  std::memcpy(&v, static_cast<const void*>(p), sizeof(v));
  if constexpr (std::is_same_v<T, bool>) return -v;
  else return v;
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, L> load_lanes(const T* p, std::ptrdiff_t s) {
  simd::lane_t<T> lanes[L];
  for (std::size_t l = 0; l < L; ++l) lanes[l] = fn::lane_of(p[static_cast<std::ptrdiff_t>(l) * s]);
  fn::lanes_t<T, L> v;
  std::memcpy(&v, lanes, sizeof(v));
  return v;
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void store_lanes(T* p, fn::lanes_t<T, L> v) {
  if constexpr (std::is_same_v<T, bool>) v &= 1;
  if constexpr (std::is_same_v<simd::lane_t<T>, T>)
    *reinterpret_cast<simd::unaligned_vec<T, L>*>(p) = v;
  else std::memcpy(static_cast<void*>(p), &v, sizeof(v));
}
template <std::size_t L, class T>
DIMGRAPH_ALWAYS_INLINE inline void store_lanes(T* p, std::ptrdiff_t s, fn::lanes_t<T, L> v) {
  for (std::size_t l = 0; l < L; ++l)
    p[static_cast<std::ptrdiff_t>(l) * s] = fn::element_of<T>(v[l]);
}

// Register At (among those of its kind) of element type T, read and written.
template <class T, std::size_t At, std::size_t L, class Regs>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, L> reg_get(const Regs& r) {
  const auto& v = r.template bank<reg_kind_v<T>>()[At];
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, fn::lanes_t<T, L>>) return v;
  else return simd::bits<fn::lanes_t<T, L>>(v);
}
template <class T, std::size_t At, std::size_t L, class Regs>
DIMGRAPH_ALWAYS_INLINE inline void reg_set(Regs& r, fn::lanes_t<T, L> value) {
  auto& v = r.template bank<reg_kind_v<T>>()[At];
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, fn::lanes_t<T, L>>) v = value;
  else v = simd::bits<std::remove_cvref_t<decltype(v)>>(value);
}

// One instruction run into register Out: a function template per kind of instruction whose
// arguments are the instruction, its registers and what it reads, never the program or the
// row (a function named by the whole program, once per instruction, would be N names of
// length N for a chain of N ops).
//   leaf: lanes of a leaf at `at`, stepping by `step` elements (when it is not unit), at i;
template <std::size_t Out, std::size_t L, class Inner, bool Unit, class Regs, class X, class T>
DIMGRAPH_ALWAYS_INLINE inline void exec(Regs& r, std::type_identity<leaf_op<X, T>>,
                                        std::index_sequence<>, std::nullptr_t, const void* at,
                                        std::ptrdiff_t step, std::size_t i) {
  using dims = typename X::dims;
  const T* p = static_cast<const T*>(at);
  if constexpr (!list_contains_v<dims, Inner>) {
    reg_set<T, Out, L>(r, simd::splat<simd::lane_t<T>, L>(fn::lane_of(*p)));
  } else if constexpr (is_view_v<X> ? Unit : std::is_same_v<back_t<types_of_t<dims>>, Inner>) {
    reg_set<T, Out, L>(r, load_lanes<L>(p + i));
  } else {
    reg_set<T, Out, L>(r, load_lanes<L>(p + static_cast<std::ptrdiff_t>(i) * step, step));
  }
}
//   scalar: the value in every lane;
template <std::size_t Out, std::size_t L, class Inner, bool Unit, class Regs, class T>
DIMGRAPH_ALWAYS_INLINE inline void exec(Regs& r, std::type_identity<scalar_op<T>>,
                                        std::index_sequence<>, const T* value, const void*,
                                        std::ptrdiff_t, std::size_t) {
  reg_set<T, Out, L>(r, simd::splat<simd::lane_t<T>, L>(fn::lane_of(*value)));
}
//   apply: F over the registers In... (of types As...), F itself as state when it has data.
template <std::size_t Out, std::size_t L, class Inner, bool Unit, class Regs, class F, class V,
          class... As, std::size_t... Dist, std::size_t... In, class State>
DIMGRAPH_ALWAYS_INLINE inline void exec(
    Regs& r, std::type_identity<apply_op<F, V, type_list<As...>, Dist...>>,
    std::index_sequence<In...>, State f, const void*, std::ptrdiff_t, std::size_t) {
  if constexpr (std::is_null_pointer_v<State>)
    reg_set<V, Out, L>(r, F{}.template apply<As...>(reg_get<As, In, L>(r)...));
  else reg_set<V, Out, L>(r, f->template apply<As...>(reg_get<As, In, L>(r)...));
}

// The registers instruction K (an I) of a program with facts Facts reads.
template <class Facts, std::size_t K, class I>
struct input_registers {
  using type = std::index_sequence<>;
};
template <class Facts, std::size_t K, class F, class V, class Args, std::size_t... Dist>
struct input_registers<Facts, K, apply_op<F, V, Args, Dist...>> {
  using type = std::index_sequence<Facts::reg_at[K - Dist]...>;
};

// The program's state, copied from where the walk found it.
template <std::size_t S, class T>
struct state_slot {
  T value;
};
struct state_tag {};
template <class Ss, class... Ts>
struct state_pack_impl;
template <std::size_t... Ss, class... Ts>
struct state_pack_impl<std::index_sequence<Ss...>, Ts...> : state_tag, state_slot<Ss, Ts>... {
  explicit state_pack_impl([[maybe_unused]] const void* const* from)
      : state_slot<Ss, Ts>{*static_cast<const Ts*>(from[Ss])}... {}
};
template <class List>
struct state_pack;
// Many pieces of plain state: bytes at fixed offsets, copied in one loop (one statement per
// piece would make the optimiser look each copied pointer up against every store before it).
template <class... Ts>
struct state_bytes : state_tag {
  static constexpr std::size_t count = sizeof...(Ts);
  static constexpr std::array<std::size_t, count> size{sizeof(Ts)...};
  static constexpr std::array<std::size_t, count + 1> offset = [] {
    constexpr std::array<std::size_t, count> align{alignof(Ts)...};
    std::array<std::size_t, count + 1> o{};
    std::size_t at = 0;
    for (std::size_t k = 0; k < count; ++k) {
      at = (at + align[k] - 1) / align[k] * align[k];
      o[k] = at;
      at += size[k];
    }
    o[count] = at;
    return o;
  }();
  alignas(std::max({alignof(Ts)...})) unsigned char bytes[offset[count]];
  explicit state_bytes(const void* const* from) {
    for (std::size_t k = 0; k < count; ++k) std::memcpy(bytes + offset[k], from[k], size[k]);
  }
  template <std::size_t S, class T>
  DIMGRAPH_ALWAYS_INLINE const T* at() const {
    return std::launder(reinterpret_cast<const T*>(bytes + offset[S]));
  }
};
inline constexpr std::size_t state_bytes_above = 64;
template <class... Ts>
struct state_pack<type_list<Ts...>> {
  using type = std::conditional_t<
      (sizeof...(Ts) > state_bytes_above) && (std::is_trivially_copyable_v<Ts> && ...) &&
          (std::is_trivially_destructible_v<Ts> && ...),
      state_bytes<Ts...>, state_pack_impl<std::index_sequence_for<Ts...>, Ts...>>;
};

// The state of an instruction: a pointer to slot S (of type T) of a state pack, or none.
template <bool Stateful>
struct state_of {
  template <std::size_t S, class T>
  DIMGRAPH_ALWAYS_INLINE static std::nullptr_t get(const state_tag&) {
    return nullptr;
  }
};
template <>
struct state_of<true> {
  template <std::size_t S, class T>
  DIMGRAPH_ALWAYS_INLINE static const T* get(const state_slot<S, T>& slot) {
    return &slot.value;
  }
  template <std::size_t S, class T, class... Ts>
  DIMGRAPH_ALWAYS_INLINE static const T* get(const state_bytes<Ts...>& pack) {
    return pack.template at<S, T>();
  }
};

// The kernel of a program: its state, and packet<L>(row, i), the L lanes of the result at
// position i of the current row (the row, in eval/, knows where each leaf is).
template <class Program>
struct program_kernel : state_pack<typename program_facts<Program>::state_types>::type {
  using facts = program_facts<Program>;
  using value_type = typename back_t<Program>::value_type;
  static constexpr std::size_t leaves = facts::leaves;
  static constexpr std::size_t views = facts::views;
  static constexpr std::size_t instructions = facts::size;
  using state_base = typename state_pack<typename facts::state_types>::type;
  using state_base::state_base;

  template <std::size_t L, class Row>
  DIMGRAPH_ALWAYS_INLINE fn::lanes_t<value_type, L> packet(const Row& row, std::size_t i) const {
    return run<L>(row, i, std::make_index_sequence<facts::size>{}, Program{});
  }

 private:
  template <std::size_t L, class Row, std::size_t... Ks, class... Is>
  DIMGRAPH_ALWAYS_INLINE fn::lanes_t<value_type, L> run(const Row& row, std::size_t i,
                                                        std::index_sequence<Ks...>,
                                                        type_list<Is...>) const {
    register_file<L, typename register_counts<facts>::type> r;
    // (A braced list runs its elements in order, and does not nest like a fold.)
    const int order[] = {
        (exec<facts::reg_at[Ks], L, typename Row::inner, Row::unit>(
             r, std::type_identity<Is>{}, typename input_registers<facts, Ks, Is>::type{},
             state_of<Is::stateful>::template get<facts::state_at[Ks], typename Is::state>(*this),
             row.at[facts::leaf_at[Ks]], row.step[Row::leaf_slot[facts::leaf_at[Ks]]], i),
         0)...};
    (void)order;
    return reg_get<value_type, facts::reg_at[facts::size - 1], L>(r);
  }
};

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
// ---- end dimgraph/expr/program_kernel.hpp

// An expression is evaluated against a flat description of its memory operands (its
// "leaves": tensors, views and evaluated temporaries, numbered in visiting order) and a
// program: the expression's nodes in post-order, each one instruction that reads a leaf, a
// scalar, or applies a function to the results of earlier instructions. The program is a
// type, built bottom-up as each node's type is made (a node's program is its operands'
// programs followed by its own instruction), and it is run by one function whose body is one
// statement per instruction: a chain of N ops is one flat function of N statements, with no
// nesting of N functions or instantiations, however deep the expression.
//
// Owning tensors are row-major, and tensors with the same dims in one expression have the
// same extents, so they have the same strides: the loop planner treats each distinct dim
// list of owning leaves (a "layout") as one operand, and each view as one. A chain over
// five tensors and a bias is a plan with three operands, whatever its length.
//
// Every node kind has one evaluator specialisation, holding together
//   program           the node's instructions (a type_list, post-order)
//   layouts           the distinct dim lists of its owning leaves (a type_list)
//   lane_bytes        the widest lane in the node's program (sets the vector length)
//   static_layout     every leaf is an all-static owning tensor (the plan is a constant)
//   needs_temporary   the node is evaluated into a tensor of its own when it is the operand
//                     of an element-wise op (a reduction, a contraction)
//   has_temporaries   the node or one below it needs a temporary
//   walk(e, w)        hands the walker the node's leaves and state (scalars, functions with
//                     data), in program order.
// A node's evaluator is instantiated when the node's type is (map_expr names its operands'
// evaluators), and it asks for its walk there, so that a chain of N ops never nests N
// instantiations.
namespace dimgraph::detail {

template <class E>
struct evaluator;  // specialised next to each node kind

template <class E>
using evaluator_of = evaluator<std::remove_cvref_t<E>>;

// Whether its arguments have values (they always do: naming them in a static_assert makes the
// compiler compute them there).
template <class... Ts>
constexpr bool known(Ts...) {
  return true;
}

// set_union_t<A, B>: A's elements, then those of B not in A (type_lists).
template <class A, class B>
struct set_union;
template <class A, class... Bs>
struct set_union<A, type_list<Bs...>> {
  using type = concat_t<A, std::conditional_t<contains_v<Bs, A>, type_list<>, type_list<Bs>>...>;
};
template <class A, class B>
using set_union_t = typename set_union<A, B>::type;
template <class... Ls>
struct set_union_all {
  using type = type_list<>;
};
template <class L, class... Ls>
struct set_union_all<L, Ls...> {
  using type = set_union_t<L, typename set_union_all<Ls...>::type>;
};

// ---- Walking an expression -------------------------------------------------------------

// An evaluated temporary kept alive for the duration of an assignment.
struct kept_base {
  virtual ~kept_base() = default;
};
template <class Tensor>
struct kept final : kept_base {
  Tensor value;
  explicit kept(Tensor&& t) : value(std::move(t)) {}
};

// A node that is not element-wise (a reduction, a product), evaluated into a tensor of its
// own (declared here, defined with the assignment in eval/assign.hpp).
template <class E>
auto materialize(const E& e);

// What a walk records, in program order: a pointer to each leaf object and to each piece of
// state, and the temporaries it evaluated.
struct walker {
  const void** leaf;
  const void** state;
  std::vector<std::unique_ptr<kept_base>>* temporaries = nullptr;

  void add_leaf(const void* x) { *leaf++ = x; }
  void add_state(const void* s) { *state++ = s; }
  // e evaluated into a tensor that lives as long as the walk's owner.
  template <class E>
  const void* keep(const E& e) {
    using tensor_t = decltype(materialize(e));
    auto k = std::make_unique<kept<tensor_t>>(materialize(e));
    const void* p = &k->value;
    temporaries->push_back(std::move(k));
    return p;
  }
};

// ---- Leaves and scalars ----------------------------------------------------------------

// The evaluator of memory: an object X of element type T.
template <class X, class T, bool Static>
struct leaf_evaluator {
  using program = type_list<leaf_op<X, T>>;
  using layouts = std::conditional_t<is_view_v<X>, type_list<>, type_list<typename X::dims>>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = Static && !is_view_v<X>;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  static void walk(const X& x, walker& w) { w.add_leaf(&x); }
};
template <class T, class... Ds>
struct evaluator<tensor<T, Ds...>>
    : leaf_evaluator<tensor<T, Ds...>, T, tensor<T, Ds...>::is_static> {};
template <class T, class... Ds>
struct evaluator<tensor_view<T, Ds...>>
    : leaf_evaluator<tensor_view<T, Ds...>, std::remove_const_t<T>, false> {};

// A node evaluated into a tensor of its own first (needs_temporary): a leaf of that tensor.
template <class E>
struct temporary_evaluator {
  using object = tensor_of_list_t<typename E::value_type, typename E::dims>;
  using program = type_list<leaf_op<object, typename E::value_type>>;
  using layouts = type_list<typename E::dims>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<typename E::value_type>);
  static constexpr bool static_layout = false;
  static constexpr bool needs_temporary = true;
  static constexpr bool has_temporaries = true;
  static void walk(const E& e, walker& w) { w.add_leaf(w.keep(e)); }
};

template <class T>
struct evaluator<scalar_expr<T>> {
  using program = type_list<scalar_op<T>>;
  using layouts = type_list<>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = true;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  static void walk(const scalar_expr<T>& e, walker& w) { w.add_state(&e.value); }
};

}  // namespace dimgraph::detail
// ---- end dimgraph/expr/evaluator.hpp
// ---- begin dimgraph/expr/map.hpp
// map_expr: the lazy element-wise node (one fused loop for a whole chain).



namespace dimgraph {

// F applied element by element to operands aligned by tag. Dims is the result's dim
// list: the dims of the operand that contains every other operand's dims.
// Error: a shared non-static dim with different extents in two operands (shape_error,
// thrown when the node is made, before anything is written).
template <class F, class Dims, class... Ops>
class map_expr;

namespace detail {
template <class F>
constexpr const char* op_name() {
  if constexpr (requires { F::name; }) return F::name;
  else return "map";
}
}  // namespace detail

namespace detail {
// The operands of a node: an aggregate whose bases hold one operand each, built in place
// from the node's arguments (std::tuple's converting constructors are a dozen functions per
// node, and a chain of N ops instantiates them N times).
template <std::size_t I, class T>
struct operand_slot {
  T value;
};
// A lazy map node held by value is the member of an anonymous union: to GCC's points-to
// analysis the node it is in is then flat (it does not walk into unions), where a node N ops
// deep would otherwise be a struct nested N deep, every field of every such temporary of a
// chain walked (quadratic). Still an aggregate, read as a member: no function of its own per
// node, and the optimiser still sees which leaves are the same (a node read from bytes through
// std::launder would hide that, at one more load per leaf).
template <class T>
inline constexpr bool opaque_operand_v = !std::is_reference_v<T> && requires {
  typename T::operand_types;
} && std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;
template <std::size_t I, class T>
  requires opaque_operand_v<T>
struct operand_slot<I, T> {
  union {
    T value;
  };
};
template <class Is, class... Ts>
struct operand_pack_impl;
template <std::size_t... Is, class... Ts>
struct operand_pack_impl<std::index_sequence<Is...>, Ts...> : operand_slot<Is, Ts>... {};
template <class... Ts>
using operand_pack = operand_pack_impl<std::index_sequence_for<Ts...>, Ts...>;
template <std::size_t I, class T>
constexpr const std::remove_reference_t<T>& operand_at(const operand_slot<I, T>& slot) {
  return slot.value;
}

// Two operands of `op` disagree on the extent of a dim (cold, out of line, and shared by every
// node: a long chain carries one call per dim, not one message builder per node).
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_operand_extents(
    const char* op, std::string (*dim)(), std::size_t first, std::size_t first_at,
    std::size_t other, std::size_t other_at) {
  throw shape_error(op, "dim '" + dim() + "' has extent " + std::to_string(first) + " in operand " +
                            std::to_string(first_at + 1) + " and " + std::to_string(other) +
                            " in operand " + std::to_string(other_at + 1));
}
// x's extent of D when D is a non-static dim of x, else 0.
template <class D, class X>
std::size_t dynamic_extent_or_zero(const X& x) {
  if constexpr (!is_static_v<D> && list_contains_v<typename X::dims, D>)
    return x.template extent<D>();
  else return 0;
}

// Checks that operands agree on the extents of shared dims: ext[k][d] is operand k's extent
// of dim d where has[k][d]. Error: shape_error naming the op, the dim and both extents.
template <std::size_t K, std::size_t R>
DIMGRAPH_ALWAYS_INLINE inline void check_operand_extents(
    const char* op, const std::array<std::array<std::size_t, R>, K>& ext,
    const std::array<std::array<bool, R>, K>& has,
    const std::array<std::string (*)(), R>& dim_names) {
  for (std::size_t d = 0; d < R; ++d) {
    std::size_t first_at = K;
    for (std::size_t k = 0; k < K; ++k) {
      if (!has[k][d]) continue;
      if (first_at == K) first_at = k;
      else if (ext[k][d] != ext[first_at][d])
        throw_operand_extents(op, dim_names[d], ext[first_at][d], first_at, ext[k][d], k);
    }
  }
}

// The extents of a map node's non-static dims, kept in the node: a query is one read, and
// what reads them is instantiated once per dim list, not once per node (a node's type names
// its whole subtree, so a function per node of a chain of N ops is N names of length up to
// N).
struct node_extents_tag {};
template <class Dims>
struct node_extents;
template <class... Ds>
struct node_extents<dim_list<Ds...>> : node_extents_tag {
  using dims = dim_list<Ds...>;
  static constexpr std::size_t dynamic = (std::size_t{!is_static_v<Ds>} + ... + 0);
  using array = std::array<std::size_t, dynamic>;

  // The dims that carry lengths (ragged, with their batch dim in the list): none, usually.
  static constexpr std::size_t ragged = (std::size_t{carries_lengths_v<Ds, dims>} + ... + 0);

  explicit node_extents(const array& e) : ext_(e) {}

  // The extent of D.
  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (is_static_v<d>) return bounds_v<d>.lo;
    else return ext_[slot<d>()];
  }

  // The lengths of D (null: every entry full).
  template <class D>
  lengths_ref lengths() const {
    using d = std::remove_cvref_t<D>;
    if constexpr (carries_lengths_v<d, dims>) return len_[lslot<d>()];
    else return {};
  }

 protected:
  // The lengths of the operands xs merged (error: two operands with different lengths for a
  // dim, shape_error naming op and the dim).
  template <class... Xs>
  void merge_operand_lengths(const char* op, const Xs&... xs) {
    auto dim = [&]<class D>(std::type_identity<D>) {
      if constexpr (carries_lengths_v<D, dims>) {
        auto one = [&]<class X>(const X& x) {
          if constexpr (carries_lengths_v<D, typename X::dims>)
            merge_lengths<D>(op, len_[lslot<D>()], lengths_in<D>(x));
        };
        (one(xs), ...);
      }
    };
    (dim(std::type_identity<Ds>{}), ...);
  }
  template <class D>
  void set_lengths(lengths_ref l) {
    len_[lslot<D>()] = std::move(l);
  }

 private:
  template <class D>
  static constexpr std::size_t lslot() {
    std::size_t k = 0, at = 0;
    ((std::is_same_v<Ds, D> ? (at = k) : 0, k += carries_lengths_v<Ds, dims>), ...);
    return at;
  }
  template <class D>
  static constexpr std::size_t slot() {
    std::size_t k = 0, at = 0;
    ((std::is_same_v<Ds, D> ? (at = k) : 0, k += !is_static_v<Ds>), ...);
    return at;
  }
  array ext_;
  [[no_unique_address]] lengths_array<ragged> len_{};
};
template <class... Ds>
  requires((is_static_v<Ds> && ...))
struct node_extents<dim_list<Ds...>> : node_extents_tag {
  using dims = dim_list<Ds...>;
  static constexpr std::size_t dynamic = 0;
  static constexpr std::size_t ragged = 0;
  template <class D>
  static lengths_ref lengths() {
    return {};
  }
  using array = std::array<std::size_t, 0>;
  explicit node_extents(const array&) {}
  template <class D>
  static constexpr std::size_t extent() {
    static_assert(list_contains_v<dim_list<Ds...>, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return bounds_v<std::remove_cvref_t<D>>.lo;
  }
};

// What a node reads an operand's extents from: a map node's extents (shared by every node
// with its dims), anything else as it is.
template <class Dims>
const node_extents<Dims>& extents_source(const node_extents<Dims>& x) {
  return x;
}
template <class X>
  requires(!std::is_base_of_v<node_extents_tag, X>)
const X& extents_source(const X& x) {
  return x;
}

// Which of Ds... are non-static dims of X, and their extents in x (0 for the others).
template <class X, class... Ds>
constexpr std::array<bool, sizeof...(Ds)> dynamic_dims_in(std::type_identity<dim_list<Ds...>>) {
  return {(!is_static_v<Ds> && list_contains_v<typename X::dims, Ds>)...};
}
template <class... Ds, class X>
std::array<std::size_t, sizeof...(Ds)> dynamic_extents_in(std::type_identity<dim_list<Ds...>>,
                                                          const X& x) {
  return {dynamic_extent_or_zero<Ds>(x)...};
}

// The non-static extents of operands xs... over Ds..., in order; operands that share a
// non-static dim must agree on it (shape_error naming op, the dim and both extents).
template <class... Ds, class... Xs>
std::array<std::size_t, node_extents<dim_list<Ds...>>::dynamic> merge_extents(
    std::type_identity<dim_list<Ds...>>, const char* op, const Xs&... xs) {
  constexpr std::size_t K = sizeof...(Xs), R = sizeof...(Ds);
  using result = std::array<std::size_t, node_extents<dim_list<Ds...>>::dynamic>;
  if constexpr (node_extents<dim_list<Ds...>>::dynamic == 0) {
    return result{};
  } else {
    using dims = std::type_identity<dim_list<Ds...>>;
    constexpr std::array<std::array<bool, R>, K> has{dynamic_dims_in<Xs>(dims{})...};
    const std::array<std::array<std::size_t, R>, K> ext{dynamic_extents_in(dims{}, xs)...};
    constexpr bool shared = [&] {
      for (std::size_t d = 0; d < R; ++d) {
        std::size_t n = 0;
        for (std::size_t k = 0; k < K; ++k) n += has[k][d];
        if (n > 1) return true;
      }
      return false;
    }();
    if constexpr (shared) check_operand_extents<K, R>(op, ext, has, {&describe<Ds>...});
    // Dim d's extent comes from operand source[d] (K: none has it) and goes to r[place[d]]:
    // constants, so every index into r is one (a counter through a run-time loop made g++ -O2
    // warn of r[1] in a one-element r, -Warray-bounds).
    constexpr std::array<std::size_t, R> source = [&] {
      std::array<std::size_t, R> s{};
      for (std::size_t d = 0; d < R; ++d) {
        s[d] = K;
        for (std::size_t k = K; k-- > 0;)
          if (has[k][d]) s[d] = k;
      }
      return s;
    }();
    constexpr std::array<std::size_t, R> place = [&] {
      std::array<std::size_t, R> p{};
      for (std::size_t d = 0, at = 0; d < R; ++d) {
        p[d] = at;
        at += source[d] < K;
      }
      return p;
    }();
    result r{};
    for_each_index<R>([&]<std::size_t D>(index_constant<D>) {
      if constexpr (source[D] < K) r[place[D]] = ext[source[D]][D];
    });
    return r;
  }
}

}  // namespace detail

template <class F, class... Ds, class... Ops>
class map_expr<F, dim_list<Ds...>, Ops...> : public expr_node_base,
                                             public detail::node_extents<dim_list<Ds...>> {
  using extents_base = detail::node_extents<dim_list<Ds...>>;

 public:
  using dims = dim_list<Ds...>;
  using value_type = typename F::template result_t<value_t<Ops>...>;
  using operand_types = std::tuple<Ops...>;  // (as held: a reference or a value)
  static constexpr const char* name = detail::op_name<F>();

  // (The extents are checked and kept before the operands are taken.)
  template <class... Args>
  explicit map_expr(F f, Args&&... args)
      : extents_base(detail::merge_extents(std::type_identity<dims>{}, name,
                                           detail::extents_source(std::as_const(args))...)),
        f_(std::move(f)),
        ops_{{std::forward<Args>(args)}...} {
    if constexpr (extents_base::ragged > 0)
      detail::with_indices<sizeof...(Ops)>([&]<std::size_t... Is>(detail::index_constant<Is>...) {
        this->merge_operand_lengths(name, detail::operand_at<Is>(ops_)...);
      });
  }

  // The extent of D (kept in the node).
  using extents_base::extent;

  const F& fn() const { return f_; }
  template <std::size_t I>
  const auto& operand() const {
    return detail::operand_at<I>(ops_);
  }

 private:
  // Naming the operands' evaluators instantiates them now, bottom-up as the expression is
  // built, so that evaluating a deep chain never nests their instantiations.
  static_assert(((detail::evaluator_of<Ops>::program::size > 0) && ...));

  friend struct detail::evaluator<map_expr>;  // (walks ops_ without a function per operand)
  [[no_unique_address]] F f_;
  detail::operand_pack<Ops...> ops_;
};

namespace detail {

// The instruction of a map node whose operands' programs have sizes Ns...: operand J's result
// is 1 + (the sizes of the operands after J) places before it.
template <class F, class V, class Args, class Js, std::size_t... Ns>
struct map_instruction;
template <class F, class V, class Args, std::size_t... Js, std::size_t... Ns>
struct map_instruction<F, V, Args, std::index_sequence<Js...>, Ns...> {
  static constexpr std::array<std::size_t, sizeof...(Ns)> sizes{Ns...};
  static constexpr std::size_t distance(std::size_t j) {
    std::size_t d = 1;
    for (std::size_t k = j + 1; k < sizes.size(); ++k) d += sizes[k];
    return d;
  }
  using type = apply_op<F, V, Args, distance(Js)...>;
};

// F over the operands' results: the operands' programs, then one instruction.
template <class F, class Dims, class... Ops>
struct evaluator<map_expr<F, Dims, Ops...>> {
  using node = map_expr<F, Dims, Ops...>;
  using value_type = typename node::value_type;
  using instruction = typename map_instruction<F, value_type, type_list<value_t<Ops>...>,
                                               std::index_sequence_for<Ops...>,
                                               evaluator_of<Ops>::program::size...>::type;
  using program = concat_t<typename evaluator_of<Ops>::program..., type_list<instruction>>;
  using layouts = typename set_union_all<typename evaluator_of<Ops>::layouts...>::type;
  static constexpr std::size_t lane_bytes = [] {
    std::size_t m = sizeof(simd::lane_t<value_type>);
    ((m = evaluator_of<Ops>::lane_bytes > m ? evaluator_of<Ops>::lane_bytes : m), ...);
    return m;
  }();
  static constexpr bool static_layout = (evaluator_of<Ops>::static_layout && ...);
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = (evaluator_of<Ops>::has_temporaries || ...);

  static void walk(const node& e, walker& w) {
    walk_operands(e, w, std::index_sequence_for<Ops...>{});
    if constexpr (instruction::stateful) w.add_state(&e.fn());
  }
  // (Used here, so the facts and the walk are made as the node's type is, bottom-up, not all
  // at once, nested, on first use at the top of a deep chain.)
  static_assert(known(program::size, lane_bytes, static_layout, has_temporaries, &walk));

 private:
  template <std::size_t... Ks>
  static void walk_operands(const node& e, walker& w, std::index_sequence<Ks...>) {
    (evaluator_of<Ops>::walk(static_cast<const operand_slot<Ks, Ops>&>(e.ops_).value, w), ...);
  }
};

}  // namespace detail

namespace detail {

// A scalar operand becomes a scalar_expr of the type it combines in.
template <class Other, class X>
decltype(auto) as_operand(X&& x) {
  if constexpr (expression<X>) return std::forward<X>(x);
  else
    return scalar_expr<promote_scalar_t<value_t<Other>, std::remove_cvref_t<X>>>{
        {}, static_cast<promote_scalar_t<value_t<Other>, std::remove_cvref_t<X>>>(x)};
}

// The node for f over operands xs (expressions), dims from the containing operand.
template <class F, class... Xs>
auto make_map(F f, Xs&&... xs) {
  constexpr std::size_t at = containing_operand<dims_t<Xs>...>();
  using result_dims = dims_t<std::tuple_element_t<at, std::tuple<Xs...>>>;
  return map_expr<F, result_dims, operand_t<Xs&&>...>(std::move(f), std::forward<Xs>(xs)...);
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/expr/map.hpp
// ---- begin dimgraph/expr/elementwise.hpp
// The element-wise nodes the public ops make once their checks pass: binary ops on expressions
// and scalars, and where's select (unchecked builders, also what eval/'s machinery makes).



namespace dimgraph::detail {

// A rank-0 tensor next to a tensor with dims combines as PyTorch's 0-dim tensors do: within
// the other's category it does not raise the other's type (float[4] * double{} is float);
// from a higher category it promotes as a tensor would (int[4] * double{} is double).
template <class Other, class X>
decltype(auto) rank0_as_scalar(X&& x) {
  using other = value_t<Other>;
  using own = value_t<X>;
  if constexpr (dims_t<X>::size == 0 && dims_t<Other>::size > 0 && !is_index_v<own> &&
                !is_index_v<other> && !std::is_same_v<own, other>) {
    if constexpr (element_category_v<own> <= element_category_v<other>)
      return make_map(fn::cast_to<other>{}, std::forward<X>(x));
    else return std::forward<X>(x);
  } else {
    return std::forward<X>(x);
  }
}

template <class F, class A, class B>
auto make_binary(A&& a, B&& b) {
  if constexpr (expression<A> && expression<B>) {
    if constexpr (dims_t<A>::size > 0 && dims_t<B>::size > 0)
      return make_map(F{}, std::forward<A>(a), std::forward<B>(b));  // (no call per operand)
    else
      return make_map(F{}, rank0_as_scalar<B>(std::forward<A>(a)),
                      rank0_as_scalar<A>(std::forward<B>(b)));
  } else if constexpr (expression<A>)
    return make_map(F{}, std::forward<A>(a), as_operand<A>(std::forward<B>(b)));
  else return make_map(F{}, as_operand<B>(std::forward<A>(a)), std::forward<B>(b));
}

// The expression of the table's op F on expressions and scalars that passed its checks.
template <class F, class... Xs>
auto make_elementwise(Xs&&... xs) {
  if constexpr (sizeof...(Xs) == 2) return make_binary<F>(std::forward<Xs>(xs)...);
  else return make_map(F{}, std::forward<Xs>(xs)...);
}

// Whether E is a comparison node (its operands then feed a where directly).
template <class E>
inline constexpr bool is_compared_v = false;
template <class F, class Ds, class P, class Q>
inline constexpr bool is_compared_v<map_expr<F, Ds, P, Q>> = fn::is_comparison_v<F>;

// Operand K of node c as an operand of a new node: a reference where c holds one, or where c
// is itself held by reference (c outlives the new node then); a copy of what a temporary c
// holds by value.
template <std::size_t K, class C, class Node = std::remove_cvref_t<C>>
decltype(auto) operand_of(C&& c) {
  using held = std::tuple_element_t<K, typename Node::operand_types>;
  if constexpr (std::is_lvalue_reference_v<C> || std::is_reference_v<held>)
    return c.template operand<K>();
  else return std::remove_cvref_t<held>(c.template operand<K>());
}

// where(c, a, b) for a comparison c = Cmp(p, q): one node select_compared<Cmp>(p, q, a, b).
template <class C, class A, class B>
auto compared_where(C&& c, A&& a, B&& b) {
  using cmp = std::remove_cvref_t<decltype(c.fn())>;
  return make_map(fn::select_compared<cmp>{}, operand_of<0>(std::forward<C>(c)),
                  operand_of<1>(std::forward<C>(c)), std::forward<A>(a), std::forward<B>(b));
}

// where(c, a, b) on a bool c and branches whose dims nest (checked by dg::where): a select
// node, or, for a comparison c, the select of the comparison's operands.
template <class C, class A, class B>
auto make_where(C&& c, A&& a, B&& b) {
  // A scalar branch takes the other branch's element type (both scalars: their common one).
  auto&& a_op = [&]() -> decltype(auto) {
    if constexpr (expression<A>) return std::forward<A>(a);
    else if constexpr (expression<B>) return as_operand<std::remove_cvref_t<B>>(std::forward<A>(a));
    else return scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, a};
  }();
  auto&& b_op = [&]() -> decltype(auto) {
    if constexpr (expression<B>) return std::forward<B>(b);
    else if constexpr (expression<A>) return as_operand<std::remove_cvref_t<A>>(std::forward<B>(b));
    else return scalar_expr<promote_t<std::remove_cvref_t<A>, std::remove_cvref_t<B>>>{{}, b};
  }();
  if constexpr (is_compared_v<std::remove_cvref_t<C>>)
    // where(p OP q, a, b): the comparison's operands go straight into the select.
    return compared_where(std::forward<C>(c), std::forward<decltype(a_op)>(a_op),
                          std::forward<decltype(b_op)>(b_op));
  else
    return make_map(fn::select{}, std::forward<C>(c), std::forward<decltype(a_op)>(a_op),
                    std::forward<decltype(b_op)>(b_op));
}

}  // namespace dimgraph::detail
// ---- end dimgraph/expr/elementwise.hpp
// ---- begin dimgraph/expr/broadcast.hpp
// broadcast_expr, and the nodes of broadcast_to and outer: operands read along dims they lack.



namespace dimgraph {

// x read as a tensor with dims Ds... (a superset of x's dims, in any order); the new
// dims repeat x (stride 0: never materialised). Extents of new non-static dims are given.
template <class X, class... Ds>
class broadcast_expr : public expr_node_base {
 public:
  using dims = dim_list<Ds...>;
  using value_type = value_t<X>;

  template <class Arg>
  broadcast_expr(Arg&& x, const std::array<std::size_t, sizeof...(Ds)>& new_extents)
      : x_(std::forward<Arg>(x)), extents_(new_extents) {}

  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (list_contains_v<dims_t<X>, d>) return x_.template extent<d>();
    else return extents_[list_index_of_v<dims, d>];
  }
  // The lengths of D: the operand's (a new dim has every entry full).
  template <class D>
  lengths_ref lengths() const {
    return detail::lengths_in<std::remove_cvref_t<D>>(x_);
  }
  const std::remove_cvref_t<X>& operand() const { return x_; }

 private:
  static_assert(detail::evaluator_of<X>::program::size > 0);  // (instantiated now)
  X x_;
  std::array<std::size_t, sizeof...(Ds)> extents_;
};

namespace detail {
// The operand's program: its leaves simply do not step along the new dims.
template <class X, class... Ds>
struct evaluator<broadcast_expr<X, Ds...>> : evaluator_of<X> {
  static void walk(const broadcast_expr<X, Ds...>& e, walker& w) {
    evaluator_of<X>::walk(e.operand(), w);
  }
  static constexpr bool static_layout = evaluator_of<X>::static_layout && (is_static_v<Ds> && ...);
  static_assert(known(static_layout, &walk));
};

// x read with the dims Ds... (broadcast_to's checks passed): the given extents checked
// against x's and the new dims' intervals, the element count against what a tensor can
// address (shape_error), then the node.
template <class... Ds, class X, class... Es>
auto make_broadcast(X&& x, extent_arg<Es>... given) {
  using xd = dims_t<X>;
  using target = dim_list<Ds...>;
  std::array<std::size_t, sizeof...(Ds)> ext{bounds_v<Ds>.lo...};
  [[maybe_unused]] auto take = [&]<class E>(extent_arg<E> g) {
    if constexpr (list_contains_v<xd, E>) {
      const std::size_t have = x.template extent<E>();
      if (g.value != have)
        throw shape_error("broadcast_to", "dim '" + describe<E>() + "' has extent " +
                                              std::to_string(have) + " in the operand, but " +
                                              std::to_string(g.value) + " is given");
    } else if constexpr (list_contains_v<target, E>) {
      ext[list_index_of_v<target, E>] = checked_extent<E>("broadcast_to", g.value);
    }
  };
  (take(given), ...);
  auto extent_of = [&]<class D>(std::type_identity<D>, std::size_t new_extent) {
    if constexpr (list_contains_v<xd, D>) return x.template extent<D>();
    else return new_extent;
  };
  check_elements<Ds...>("broadcast_to",
                        {extent_of(std::type_identity<Ds>{}, ext[list_index_of_v<target, Ds>])...});
  return broadcast_expr<operand_t<X&&>, Ds...>(std::forward<X>(x), ext);
}

// f over every pair of elements of a and b aligned by their shared dims (outer's node): the
// element count checked (shape_error), then the node.
template <class A, class B, class F>
auto make_outer(A&& a, B&& b, F f) {
  using result_dims = list_union_t<dims_t<A>, dims_t<B>>;
  [&]<class... Rs>(dim_list<Rs...>) {
    auto extent_of = [&]<class D>(std::type_identity<D>) {
      if constexpr (list_contains_v<dims_t<A>, D>) return a.template extent<D>();
      else return b.template extent<D>();
    };
    check_elements<Rs...>("outer", {extent_of(std::type_identity<Rs>{})...});
  }(result_dims{});
  return map_expr<fn::functor_t<F>, result_dims, operand_t<A&&>, operand_t<B&&>>(
      fn::as_functor(std::move(f)), std::forward<A>(a), std::forward<B>(b));
}
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/expr/broadcast.hpp
// ---- begin dimgraph/expr/reduce.hpp
// The lazy node of reductions over named dims (reduce_expr) and the ops it runs: sum, mean,
// prod, max, min, any, all.



namespace dimgraph {
namespace detail::fn {

// How a reduction starts (identity) and combines lanes (combine, on lane vectors of Acc).
// result<T>: the element type it gives for elements of type T; acc<T>: the type it
// accumulates in. Sums and products of integers and bools accumulate in int64 (torch.sum's
// rule) and wrap; float sums and means accumulate in double, so that 2^25 ones sum exactly
// and long sums keep their precision. Over no elements (a reduced extent of 0) a reduction
// gives its identity (sum 0, prod 1, any false, all true; mean 0 / 0, i.e. NaN), except where
// empty_is_error: max and min of nothing have no value, and evaluating them throws
// dg::shape_error. max and min propagate NaN (a NaN anywhere gives NaN, as torch.max).
// Over a ragged dim (or its batch dim) only valid positions count: padding is read as the
// identity, a mean divides by the number of valid positions, and a max or min over a row
// with no valid position (length 0) throws as over an empty extent.
template <class T>
using sum_type_t = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;

struct sum_reduce {
  static constexpr const char* name = "sum";
  static constexpr bool empty_is_error = false;
  template <class T>
  using result = sum_type_t<T>;
  template <class T>
  using acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
  template <class Acc>
  static constexpr Acc identity() {
    return Acc(0);
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    return add{}.template apply<simd::value_t<V>, simd::value_t<V>>(a, b);
  }
};
struct prod_reduce {
  static constexpr const char* name = "prod";
  static constexpr bool empty_is_error = false;
  template <class T>
  using result = sum_type_t<T>;
  template <class T>
  using acc = sum_type_t<T>;
  template <class Acc>
  static constexpr Acc identity() {
    return Acc(1);
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    return mul{}.template apply<simd::value_t<V>, simd::value_t<V>>(a, b);
  }
};
// mean: a sum, divided by the count afterwards.
struct mean_reduce : sum_reduce {
  static constexpr const char* name = "mean";
  template <class T>
  using result = std::conditional_t<std::is_floating_point_v<T>, T, float>;
  template <class T>
  using acc = double;
};
// (EmptyIsError false: the identity, -inf for max, over no elements; what logsumexp needs.)
template <bool Max, bool EmptyIsError = true>
struct extreme_reduce {
  static constexpr const char* name = Max ? "max" : "min";
  static constexpr bool empty_is_error = EmptyIsError;
  template <class T>
  using result = T;
  template <class T>
  using acc = T;
  template <class Acc>
  static constexpr Acc identity() {
    constexpr Acc sign = Max ? Acc(-1) : Acc(1);
    if constexpr (std::numeric_limits<Acc>::has_infinity)
      return sign * std::numeric_limits<Acc>::infinity();
    else if constexpr (Max) return std::numeric_limits<Acc>::lowest();
    else return std::numeric_limits<Acc>::max();
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    return lanes::extreme<Max>(a, b);
  }
  // The max (min) instruction's combine, which keeps a and drops a NaN in b: for a caller
  // that finds NaNs otherwise.
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine_numbers(V a, V b) {
    if constexpr (Max) return b > a ? b : a;
    else return b < a ? b : a;
  }
};
using max_reduce = extreme_reduce<true>;
using min_reduce = extreme_reduce<false>;
template <bool All>
struct logical_reduce {
  static constexpr const char* name = All ? "all" : "any";
  static constexpr bool empty_is_error = false;
  template <class T>
  using result = bool;
  template <class T>
  using acc = bool;
  template <class Acc>
  static constexpr Acc identity() {
    return All;
  }
  template <class V>
  DIMGRAPH_ALWAYS_INLINE static V combine(V a, V b) {
    if constexpr (All) return a & b;
    else return a | b;
  }
};
using any_reduce = logical_reduce<false>;
using all_reduce = logical_reduce<true>;

}  // namespace detail::fn

namespace detail {
// Whether an op over the dims Over (reduced, contracted, or the softmax dim) of an operand with
// the dims L must respect the lengths of D: D carries lengths in L (it is ragged and L has its
// batch dim), and D or its batch dim is in Over. (Over the batch dim alone, the positions past
// each row's length are padding too.)
template <class D, class L, class Over>
constexpr bool respects_lengths_of() {
  if constexpr (carries_lengths_v<D, L>)
    return list_contains_v<Over, D> || list_contains_v<Over, ragged_batch_t<D>>;
  else return false;
}
template <class L, class Over>
struct respects_lengths {
  template <class D>
  struct pred : std::bool_constant<respects_lengths_of<D, L, Over>()> {};
};
// masked_dims_t<L, Over>: the dims of L, in L's order, whose lengths an op over Over respects
// (an empty list for every operand without ragged dims).
template <class L, class Over>
using masked_dims_t = dims_of_t<filter_t<respects_lengths<L, Over>::template pred, types_of_t<L>>>;
// Whether an op over Over reads a position of an operand with the dims L that may be padding.
template <class L, class Over>
inline constexpr bool ragged_over_v = masked_dims_t<L, Over>::size > 0;
}  // namespace detail

// Op over the dims Rs... of X. Shape rule: [x dims] -> [x dims without Rs...], in x's order.
template <class Op, class X, class... Rs>
class reduce_expr : public expr_node_base {
 public:
  using reduced = dim_list<Rs...>;
  using dims = list_difference_t<dims_t<X>, reduced>;
  using value_type = typename Op::template result<value_t<X>>;
  using op = Op;

  template <class Arg>
  explicit reduce_expr(Arg&& x) : x_(std::forward<Arg>(x)) {}

  template <class D>
  std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return x_.template extent<D>();
  }
  // The lengths of a kept ragged dim: the operand's.
  template <class D>
  lengths_ref lengths() const {
    return detail::lengths_in<std::remove_cvref_t<D>>(x_);
  }
  const std::remove_cvref_t<X>& source() const { return x_; }
  // The number of elements reduced into each result element.
  std::size_t count() const { return (std::size_t{1} * ... * x_.template extent<Rs>()); }

 private:
  static_assert(detail::evaluator_of<X>::program::size > 0);  // (instantiated now)
  X x_;
};

// As the operand of an element-wise op, a reduction is evaluated into a tensor first.
template <class Op, class X, class... Rs>
struct detail::evaluator<reduce_expr<Op, X, Rs...>>
    : detail::temporary_evaluator<reduce_expr<Op, X, Rs...>> {};

}  // namespace dimgraph
// ---- end dimgraph/expr/reduce.hpp
// ---- begin dimgraph/expr/contract.hpp
// contract_expr: the lazy node of dot<Ks...>(a, b), a contraction over named shared dims.



namespace dimgraph {

// The contraction of A and B over the dims Ks... (their sum of products). Dims in both
// operands but not in Ks... are batch dims: aligned by tag and kept once. Shape rule:
//   [a dims] . [b dims] -> [a dims without Ks..., then b's dims that are neither in Ks...
//   nor in a]
// The element type is the operands' promoted type (int64 for integers and bool, as for sum).
// Evaluated as a (batched) matrix product by eval/contract.hpp: assigning the node to a
// tensor or view runs the kernel; an element-wise op that reads the node evaluates it first.
template <class A, class B, class... Ks>
class contract_expr : public expr_node_base {
 public:
  using contracted = dim_list<Ks...>;
  using dims = list_union_t<list_difference_t<dims_t<A>, contracted>,
                            list_difference_t<dims_t<B>, contracted>>;
  using value_type = detail::fn::sum_type_t<promote_t<value_t<A>, value_t<B>>>;

  // Error: a dim the operands share (contracted or batch) with different run-time extents
  // (shape_error naming dot, the dim and both extents).
  template <class ArgA, class ArgB>
  contract_expr(ArgA&& a, ArgB&& b) : a_(std::forward<ArgA>(a)), b_(std::forward<ArgB>(b)) {
    check_shared(list_intersection_t<dims_t<A>, dims_t<B>>{});
  }

  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (list_contains_v<dims_t<A>, d>) return a_.template extent<d>();
    else return b_.template extent<d>();
  }
  // The lengths of a kept ragged dim: those of the operands that carry them (equal: checked
  // when the node is made).
  template <class D>
  lengths_ref lengths() const {
    using d = std::remove_cvref_t<D>;
    lengths_ref l = detail::lengths_in<d>(a_);
    if constexpr (detail::carries_lengths_v<d, dims_t<B>>)
      detail::merge_lengths<d>("dot", l, detail::lengths_in<d>(b_));
    return l;
  }
  const std::remove_cvref_t<A>& lhs() const { return a_; }
  const std::remove_cvref_t<B>& rhs() const { return b_; }
  // The operands. (A node with a source is evaluated into a tensor of its own before an
  // element-wise op reads it.)
  std::tuple<const std::remove_cvref_t<A>&, const std::remove_cvref_t<B>&> source() const {
    return {a_, b_};
  }

 private:
  template <class... Ss>
  void check_shared(dim_list<Ss...>) const {
    (check_one<Ss>(), ...);
  }
  template <class S>
  void check_one() const {
    if constexpr (detail::carries_lengths_v<S, dims_t<A>> &&
                  detail::carries_lengths_v<S, dims_t<B>>) {
      lengths_ref l = detail::lengths_in<S>(a_);
      detail::merge_lengths<S>("dot", l, detail::lengths_in<S>(b_));
    }
    if constexpr (!is_static_v<S>) {
      const std::size_t ea = a_.template extent<S>(), eb = b_.template extent<S>();
      if (ea != eb)
        throw shape_error("dot", "dim '" + describe<S>() + "' has extent " + std::to_string(ea) +
                                     " in the left operand and " + std::to_string(eb) +
                                     " in the right operand");
    }
  }

  A a_;
  B b_;
};

// As the operand of an element-wise op, a product is evaluated into a tensor first.
template <class A, class B, class... Ks>
struct detail::evaluator<contract_expr<A, B, Ks...>>
    : detail::temporary_evaluator<contract_expr<A, B, Ks...>> {};

}  // namespace dimgraph
// ---- end dimgraph/expr/contract.hpp

// ---- begin dimgraph/eval/plan.hpp
// loop_plan: the loop nest of an element-wise assignment (reordered, coalesced).



namespace dimgraph {

// The loops that run an assignment over R dims with N operands (operand 0 is the
// output). Levels are outermost first; the last level is the inner loop. Built the
// way ATen's TensorIterator builds its loops: dims of extent 1 are dropped, outer
// dims are ordered by the output's strides (largest outermost), and neighbouring
// levels are coalesced into one where every operand steps through them as through
// one dim (stride[outer] == stride[inner] * extent[inner]). The inner loop is always
// the output's last dim (the one each operand's inner-stride kind was decided for at
// compile time), extended by coalescing.
template <std::size_t R, std::size_t N>
struct loop_plan {
  std::size_t depth = 0;  // number of levels; 0 when there is nothing to do
  std::array<std::size_t, R> extent{};
  std::array<std::array<std::ptrdiff_t, R>, N> stride{};

  constexpr std::size_t inner_extent() const { return extent[depth - 1]; }
  constexpr std::ptrdiff_t inner_stride(std::size_t op) const { return stride[op][depth - 1]; }
  constexpr std::size_t elements() const {
    std::size_t n = depth ? 1 : 0;
    for (std::size_t k = 0; k < depth; ++k) n *= extent[k];
    return n;
  }
};

namespace detail {

constexpr std::ptrdiff_t magnitude(std::ptrdiff_t s) {
  return s < 0 ? -s : s;
}

// ext: the output's extents; strides[op][d]: operand op's stride along output dim d.
template <std::size_t R, std::size_t N>
DIMGRAPH_ALWAYS_INLINE constexpr loop_plan<R, N> make_loop_plan(
    const std::array<std::size_t, R>& ext,
    const std::array<std::array<std::ptrdiff_t, R>, N>& strides) {
  loop_plan<R, N> p;
  if constexpr (R == 0) {
    return p;  // a rank-0 assignment is one element; the executor handles it
  } else {
    for (std::size_t d = 0; d < R; ++d)
      if (ext[d] == 0) return p;  // nothing to do
    // Outer dims (all but the last), extent-1 dims dropped, ordered by output stride.
    std::array<std::size_t, R> order{};
    std::size_t n_outer = 0;
    for (std::size_t d = 0; d + 1 < R; ++d)
      if (ext[d] != 1) order[n_outer++] = d;
    for (std::size_t i = 1; i < n_outer; ++i)  // stable insertion sort, largest stride first
      for (std::size_t j = i;
           j > 0 && magnitude(strides[0][order[j - 1]]) < magnitude(strides[0][order[j]]); --j) {
        std::size_t t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
    order[n_outer] = R - 1;
    const std::size_t levels = n_outer + 1;
    // Coalesce from the inner end outwards.
    std::array<std::size_t, R> e{};
    std::array<std::array<std::ptrdiff_t, R>, N> s{};
    std::size_t out = R;  // filled from the back
    for (std::size_t l = levels; l-- > 0;) {
      const std::size_t d = order[l];
      bool merge = out < R;
      for (std::size_t op = 0; merge && op < N; ++op)
        merge = strides[op][d] == s[op][out] * static_cast<std::ptrdiff_t>(e[out]);
      if (merge) {
        e[out] *= ext[d];
      } else {
        --out;
        e[out] = ext[d];
        for (std::size_t op = 0; op < N; ++op) s[op][out] = strides[op][d];
      }
    }
    p.depth = R - out;
    // Levels move to the front. A fixed trip count, so that this stays a few moves and
    // does not become a call to memcpy in the caller's hot path.
    for (std::size_t k = 0; k < R; ++k) {
      const bool used = k < p.depth;
      const std::size_t from = used ? out + k : 0;
      p.extent[k] = used ? e[from] : 0;
      for (std::size_t op = 0; op < N; ++op) p.stride[op][k] = used ? s[op][from] : 0;
    }
    return p;
  }
}

}  // namespace detail

// The plan as text, for tests and debugging: "2 loops: [4096 x 512]; strides out {512, 1}, in1 {0,
// 1}".
template <std::size_t R, std::size_t N>
std::string to_string(const loop_plan<R, N>& p) {
  std::string s = std::to_string(p.depth) + (p.depth == 1 ? " loop: [" : " loops: [");
  for (std::size_t k = 0; k < p.depth; ++k) s += (k ? " x " : "") + std::to_string(p.extent[k]);
  s += "]; strides";
  for (std::size_t op = 0; op < N; ++op) {
    s += op ? ", in" + std::to_string(op) + " {" : " out {";
    for (std::size_t k = 0; k < p.depth; ++k)
      s += (k ? ", " : "") + std::to_string(p.stride[op][k]);
    s += "}";
  }
  return s;
}

}  // namespace dimgraph
// ---- end dimgraph/eval/plan.hpp
// ---- begin dimgraph/eval/threads.hpp
// dg::set_num_threads, dg::num_threads: how many threads kernels may use (OpenMP builds).

#include <exception>


#if defined(_OPENMP)
#include <omp.h>
#endif

namespace dimgraph {

namespace detail {
inline std::size_t& thread_setting() {
  static std::size_t n = 0;  // 0: OpenMP's default (omp_get_max_threads)
  return n;
}
}  // namespace detail

// The number of threads kernels use: 1 without OpenMP; with OpenMP, the last value given to
// set_num_threads, else OpenMP's default (OMP_NUM_THREADS or the number of cores).
inline std::size_t num_threads() {
#if defined(_OPENMP)
  const std::size_t n = detail::thread_setting();
  return n ? n : static_cast<std::size_t>(omp_get_max_threads());
#else
  return 1;
#endif
}

// Sets the number of threads kernels use (0: OpenMP's default). Without OpenMP kernels run
// serially whatever is set. Not meant to be called while kernels run on other threads.
inline void set_num_threads(std::size_t n) {
  detail::thread_setting() = n;
}

namespace detail {
// Threads for a kernel over `elements` elements: at least DIMGRAPH_CONFIG_PARALLEL_GRAIN
// elements per thread, none inside a parallel region already.
inline std::size_t parallel_threads_for(std::size_t elements) {
#if defined(_OPENMP)
  if (elements < 2 * std::size_t{DIMGRAPH_CONFIG_PARALLEL_GRAIN} || omp_in_parallel()) return 1;
  const std::size_t most = elements / std::size_t{DIMGRAPH_CONFIG_PARALLEL_GRAIN};
  const std::size_t n = num_threads();
  return n < most ? n : most;
#else
  (void)elements;
  return 1;
#endif
}

// f(first, last) over `threads` contiguous parts of [0, count), one per thread (serially, as
// one part, without OpenMP or with one thread). An exception in a part is caught in its
// thread and the first one rethrown after all parts have ended (none escapes a thread).
template <class F>
void parallel_parts(std::size_t count, std::size_t threads, F&& f) {
#if defined(_OPENMP)
  if (threads > 1 && count > 1) {
    if (threads > count) threads = count;
    std::exception_ptr failed;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t t = 0; t < threads; ++t) {
      try {
        f(count * t / threads, count * (t + 1) / threads);
      } catch (...) {
#pragma omp critical(dimgraph_parallel_parts)
        if (!failed) failed = std::current_exception();
      }
    }
    if (failed) std::rethrow_exception(failed);
    return;
  }
#else
  (void)threads;
#endif
  f(std::size_t{0}, count);
}
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/eval/threads.hpp
// ---- begin dimgraph/eval/loop.hpp
// for_each_row: the one loop nest that every kernel runs in (rows of a loop plan), and threads.



namespace dimgraph::detail {

// body(off, n) for every row of the plan: off[op] is operand op's offset (in elements) at
// the start of the row, n the row's length; consecutive elements of the row are
// plan.inner_stride(op) apart. A rank-0 plan is one row of one element.
//
// With OpenMP and Parallel (the rows write disjoint memory), a plan of at least
// DIMGRAPH_CONFIG_PARALLEL_GRAIN elements is split into one contiguous range of rows per thread
// (or, for a single long row, into pieces of it, each a multiple of Align elements, unless
// split_rows is false); the body sees the same rows either way, so results do not depend on the
// thread count. weight: the work of one element of the plan, in elements (a body that runs
// over several rows per call), for the grain.
template <std::size_t Align = 1, bool Parallel = true, std::size_t R, std::size_t N, class Body>
DIMGRAPH_ALWAYS_INLINE inline void for_each_row(const loop_plan<R, N>& p, Body&& body,
                                                [[maybe_unused]] std::size_t weight = 1,
                                                [[maybe_unused]] bool split_rows = true) {
  if constexpr (R == 0) {
    body(std::array<std::ptrdiff_t, N>{}, std::size_t{1});
  } else {
    if (p.depth == 0) return;
    const std::size_t n = p.inner_extent();
    std::size_t rows = 1;
    for (std::size_t k = 0; k + 1 < p.depth; ++k) rows *= p.extent[k];
    // rows [first, last) of the flattened outer levels.
    const auto run_rows = [&](std::size_t first, std::size_t last) DIMGRAPH_ALWAYS_INLINE {
      if (first >= last) return;
      std::array<std::ptrdiff_t, N> off{};
      std::array<std::size_t, R> idx{};
      // (Skipped when starting at row 0, where the compiler would turn it into a memset.)
      for (std::size_t k = p.depth - 1, rest = first; rest != 0 && k-- > 0;) {
        idx[k] = rest % p.extent[k];
        rest /= p.extent[k];
        for (std::size_t op = 0; op < N; ++op)
          off[op] += p.stride[op][k] * static_cast<std::ptrdiff_t>(idx[k]);
      }
      for (std::size_t r = first;;) {
        body(off, n);
        if (++r == last) return;
        std::size_t k = p.depth - 1;
        for (;;) {
          --k;
          for (std::size_t op = 0; op < N; ++op) off[op] += p.stride[op][k];
          if (++idx[k] < p.extent[k]) break;
          for (std::size_t op = 0; op < N; ++op)
            off[op] -= p.stride[op][k] * static_cast<std::ptrdiff_t>(p.extent[k]);
          idx[k] = 0;
        }
      }
    };
#if defined(_OPENMP)
    std::size_t threads = Parallel ? parallel_threads_for(rows * n * weight) : 1;
    if (!split_rows && rows < threads) threads = rows;
    if (threads > 1) {
      if (rows >= threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t t = 0; t < threads; ++t)
          run_rows(rows * t / threads, rows * (t + 1) / threads);
      } else {
        // One long row (or a few): pieces of each row, aligned to Align elements.
        for (std::size_t r = 0; r < rows; ++r) {
          std::array<std::ptrdiff_t, N> off{};
          std::size_t rest = r;
          for (std::size_t k = p.depth - 1; k-- > 0;) {
            const std::size_t i = rest % p.extent[k];
            rest /= p.extent[k];
            for (std::size_t op = 0; op < N; ++op)
              off[op] += p.stride[op][k] * static_cast<std::ptrdiff_t>(i);
          }
#pragma omp parallel for num_threads(threads) schedule(static)
          for (std::size_t t = 0; t < threads; ++t) {
            const std::size_t a = n * t / threads / Align * Align;
            const std::size_t b = t + 1 == threads ? n : n * (t + 1) / threads / Align * Align;
            if (a >= b) continue;
            std::array<std::ptrdiff_t, N> at = off;
            for (std::size_t op = 0; op < N; ++op)
              at[op] += p.stride[op][p.depth - 1] * static_cast<std::ptrdiff_t>(a);
            body(at, b - a);
          }
        }
      }
      return;
    }
#endif
    run_rows(0, rows);
  }
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/loop.hpp
// ---- begin dimgraph/eval/table.hpp
// leaf_table: the flat description of an expression's memory that kernels read (and its rows).


// ---- begin dimgraph/eval/table_row.hpp
// row: one row of a loop plan over a leaf_table, where each leaf starts and how it steps.



DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// The step of each leaf of a Table along the inner loop whose operands step by `step`.
template <class Table>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, Table::leaf_count + 1> leaf_steps(
    const std::array<std::ptrdiff_t, Table::slots>& step) {
  std::array<std::ptrdiff_t, Table::leaf_count + 1> s{};
  for (std::size_t k = 0; k < Table::leaf_count; ++k) s[k] = step[Table::leaf_slot[k]];
  return s;
}

// The n (< lanes) elements of a row from element i on, as a full vector of lanes reads them:
// leaf k (elements of bytes[k], step[k] elements apart along the row; 0: it does not step)
// is copied to its own piece of scratch (stride bytes apart), its first element repeated after the
// n-th (a value the kernel computes anyway, so padding lanes never trap or overflow where the real
// ones do not), and padded[k] points there; a leaf that does not step keeps its pointer.
inline void pad_leaves(const void* const* at, const std::ptrdiff_t* step, const std::size_t* bytes,
                       std::size_t leaves, std::size_t i, std::size_t n, std::size_t lanes,
                       std::size_t stride, unsigned char* scratch, const void** padded) {
  for (std::size_t k = 0; k < leaves; ++k) {
    padded[k] = at[k];
    if (step[k] == 0) continue;
    const std::ptrdiff_t b = static_cast<std::ptrdiff_t>(bytes[k]);
    const char* src =
        static_cast<const char*>(at[k]) + static_cast<std::ptrdiff_t>(i) * step[k] * b;
    unsigned char* dst = scratch + k * stride;
    for (std::size_t l = 0; l < lanes; ++l) {
      const char* from = src + (l < n ? static_cast<std::ptrdiff_t>(l) * step[k] * b : 0);
      switch (b) {  // (fixed sizes: no call to memcpy)
        case 1:
          std::memcpy(dst + l, from, 1);
          break;
        case 2:
          std::memcpy(dst + 2 * l, from, 2);
          break;
        case 4:
          std::memcpy(dst + 4 * l, from, 4);
          break;
        default:
          std::memcpy(dst + 8 * l, from, 8);
          break;
      }
    }
    padded[k] = dst;
  }
}

// One row of a plan over a table: where each leaf starts and how it steps. Inner is the
// output's last dim (the plan's inner loop); a leaf without it is read once per row. Unit
// says every view (and the output) steps by 1 in this row; owning leaves step by 1 exactly
// when Inner is their last dim. The row holds copies (its own locals, which no store through
// an output pointer can alias, so the compiler keeps them in registers).
template <class Table, class Inner, bool Unit>
struct row {
  using inner = Inner;
  static constexpr bool unit = Unit;
  static constexpr std::size_t leaves = Table::leaf_count;
  static constexpr const auto& leaf_slot = Table::leaf_slot;  // leaf k steps by step[leaf_slot[k]]
  std::array<const void*, Table::leaf_count + 1> at{};
  std::array<std::ptrdiff_t, Table::slots> step{};

  DIMGRAPH_ALWAYS_INLINE row(const typename Table::bases_type& bases,
                             const std::array<std::ptrdiff_t, Table::slots>& off,
                             const std::array<std::ptrdiff_t, Table::slots>& inner_step)
      : step(inner_step) {
    place(bases, off, std::make_index_sequence<Table::leaf_count>{});
  }

  // The widest leaf element in bytes, and the scratch a piece padded to L lanes takes (see pad).
  static constexpr std::size_t widest_leaf = [] {
    std::size_t b = 1;
    for (std::size_t k = 0; k < Table::leaf_count; ++k)
      b = Table::leaf_bytes[k] > b ? Table::leaf_bytes[k] : b;
    return b;
  }();
  template <std::size_t L>
  static constexpr std::size_t scratch_bytes = (Table::leaf_count + 1) * L * widest_leaf;

  // This row becomes r's n (< L) elements from element i on, padded to L lanes in scratch
  // (scratch_bytes<L>), read at 0; leaf_step[k] is leaf k's step along r.
  template <std::size_t L>
  DIMGRAPH_ALWAYS_INLINE void pad(const row& r, std::size_t i, std::size_t n,
                                  const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes,
                                  unsigned char* scratch) {
    // (Through copies: the rows themselves never have their address taken, so that they stay
    // in registers.)
    std::array<const void*, Table::leaf_count + 1> from{}, p{};
    give(from, r, std::make_index_sequence<Table::leaf_count>{});
    pad_leaves(from.data(), leaf_step, leaf_bytes, Table::leaf_count, i, n, L, L * widest_leaf,
               scratch, p.data());
    take(p, std::make_index_sequence<Table::leaf_count>{});
    for (std::size_t s = 0; s < Table::slots; ++s) step[s] = r.step[s] != 0;
  }

 private:
  template <std::size_t... Is>
  DIMGRAPH_ALWAYS_INLINE void place(const typename Table::bases_type& bases,
                                    const std::array<std::ptrdiff_t, Table::slots>& off,
                                    std::index_sequence<Is...>) {
    const int order[] = {
        (at[Is] = static_cast<const char*>(bases[Is]) +
                  off[Table::leaf_slot[Is]] * static_cast<std::ptrdiff_t>(Table::leaf_bytes[Is]),
         0)...,
        0};
    (void)order;
  }
  template <std::size_t... Is>
  DIMGRAPH_ALWAYS_INLINE static void give(std::array<const void*, Table::leaf_count + 1>& to,
                                          const row& r, std::index_sequence<Is...>) {
    const int order[] = {(to[Is] = r.at[Is], 0)..., 0};
    (void)order;
  }
  template <std::size_t... Is>
  DIMGRAPH_ALWAYS_INLINE void take(const std::array<const void*, Table::leaf_count + 1>& p,
                                   std::index_sequence<Is...>) {
    const int order[] = {(at[Is] = p[Is], 0)..., 0};
    (void)order;
  }
};

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
// ---- end dimgraph/eval/table_row.hpp

namespace dimgraph::detail {

// The strides of x along Dims (0 where x lacks the dim).
template <class Dims, class X>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, Dims::size> strides_along(const X& x) {
  return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::ptrdiff_t, Dims::size>{[&] {
      if constexpr (list_contains_v<typename X::dims, Ds>) return x.template stride<Ds>();
      else return std::ptrdiff_t{0};
    }()...};
  }(std::type_identity<Dims>{});
}

// The row-major strides of an owning tensor with dims Layout along Dims, given the extents
// of Dims (Layout's dims are among them).
template <class Dims, class Layout, std::size_t R>
constexpr std::array<std::ptrdiff_t, R> layout_strides(const std::array<std::size_t, R>& ext) {
  std::array<std::ptrdiff_t, R> s{};
  [&]<class... Ls>(std::type_identity<dim_list<Ls...>>) {
    constexpr std::size_t at[] = {list_index_of_v<Dims, Ls>..., 0};
    std::ptrdiff_t step = 1;
    for (std::size_t k = sizeof...(Ls); k-- > 0;) {
      s[at[k]] = step;
      step *= static_cast<std::ptrdiff_t>(ext[at[k]]);
    }
  }(std::type_identity<Layout>{});
  return s;
}
// The number of elements of a tensor with dims Layout.
template <class Dims, class Layout, std::size_t R>
constexpr std::size_t layout_size(const std::array<std::size_t, R>& ext) {
  return [&]<class... Ls>(std::type_identity<dim_list<Ls...>>) {
    return (std::size_t{1} * ... * ext[list_index_of_v<Dims, Ls>]);
  }(std::type_identity<Layout>{});
}

// The bytes [lo, hi) that a strided tensor touches (empty for 0 elements).
template <class X>
inline std::pair<const char*, const char*> memory_span(const X& x) {
  using value = std::remove_const_t<std::remove_pointer_t<decltype(x.data())>>;
  const char* base = reinterpret_cast<const char*>(x.data());
  std::ptrdiff_t lo = 0, hi = 0;
  const auto ext = x.shape().extents();
  for (std::size_t d = 0; d < ext.size(); ++d) {
    if (ext[d] == 0) return {base, base};
    std::ptrdiff_t span = x.strides()[d] * static_cast<std::ptrdiff_t>(ext[d] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo * static_cast<std::ptrdiff_t>(sizeof(value)),
          base + (hi + 1) * static_cast<std::ptrdiff_t>(sizeof(value))};
}

// (Cold and out of line, so that checks cost a few compares in the hot path.)
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_partial_overlap(std::size_t operand) {
  throw overlap_error("assign",
                      "operand " + std::to_string(operand) +
                          " partially overlaps the output (same memory, different element order); "
                          "evaluate it into a new tensor first");
}

// The output of a kernel as the table sees it: where it is and how it steps.
template <std::size_t R>
struct output_info {
  const void* data = nullptr;
  std::array<std::ptrdiff_t, R> strides{};
  const char* lo = nullptr;  // the bytes it spans (lo == hi: nothing)
  const char* hi = nullptr;
  std::size_t element_bytes = 1;
};

// Whether a strided layout (extents, strides in elements) reaches some element twice, e.g.
// through a zero stride: writing through it would make the result depend on loop order.
template <std::size_t R>
bool self_overlapping(const std::array<std::size_t, R>& ext,
                      const std::array<std::ptrdiff_t, R>& str) {
  std::array<std::size_t, R> order{};
  std::size_t n = 0;
  for (std::size_t d = 0; d < R; ++d) {
    if (ext[d] == 0) return false;
    if (ext[d] > 1) order[n++] = d;
  }
  const auto mag = [&](std::size_t d) {
    return static_cast<std::size_t>(str[d] < 0 ? -str[d] : str[d]);
  };
  for (std::size_t i = 1; i < n; ++i)  // by stride, smallest first
    for (std::size_t j = i; j > 0 && mag(order[j]) < mag(order[j - 1]); --j)
      std::swap(order[j], order[j - 1]);
  std::size_t reach = 0;  // the largest offset the smaller dims reach
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t d = order[i];
    if (mag(d) <= reach) return true;
    reach += mag(d) * (ext[d] - 1);
  }
  return false;
}

// The memory of a leaf object (an Op::object).
template <class Op>
DIMGRAPH_ALWAYS_INLINE inline const void* leaf_data(const void* object) {
  return static_cast<const typename Op::object*>(object)->data();
}

// The leaves of an expression evaluated over OutDims: their base pointers, the strides of
// each operand of the loop plan ("slots": 0 the output, then one per layout, then one per
// view) along OutDims, and the temporaries the expression needed. Filled from the
// expression's walk (make_kernel), checking each leaf against the output: a leaf whose
// memory overlaps the output must be the output itself, element for element (in-place
// element-wise work).
// Above this many leaves, a table takes the leaves' data pointers in a loop (see add_leaves).
inline constexpr std::size_t loop_leaves_above = 64;

template <class OutDims, class Layouts, class LeafOps, bool Temporaries>
struct leaf_table {
  static constexpr std::size_t rank = OutDims::size;
  static constexpr std::size_t layouts = Layouts::size;
  static constexpr std::size_t Leaves = LeafOps::size;
  static constexpr auto view_at = []<class... Ops>(type_list<Ops...>) {
    return prefix_counts<sizeof...(Ops)>({Ops::is_view..., false});
  }(LeafOps{});
  static constexpr std::size_t Views = view_at[Leaves];
  static constexpr std::size_t slots = 1 + layouts + Views;

  template <class Dims>
  static constexpr std::size_t slot_of_layout = 1 + index_of_v<Dims, Layouts>;
  template <std::size_t V>
  static constexpr std::size_t slot_of_view = 1 + layouts + V;

  static constexpr std::size_t leaf_count = Leaves;
  using bases_type = std::array<const void*, Leaves + 1>;  // (+1: never empty)
  // Leaf J's plan operand, and the size of its elements.
  static constexpr std::array<std::size_t, Leaves + 1> leaf_slot =
      []<class... Ops, std::size_t... Js>(type_list<Ops...>, std::index_sequence<Js...>) {
        return std::array<std::size_t, Leaves + 1>{[] {
                                                     if constexpr (Ops::is_view)
                                                       return slot_of_view<view_at[Js]>;
                                                     else return slot_of_layout<typename Ops::dims>;
                                                   }()...,
                                                   0};
      }(LeafOps{}, std::make_index_sequence<Leaves>{});
  static constexpr std::array<std::size_t, Leaves + 1> leaf_bytes =
      []<class... Ops>(type_list<Ops...>) {
        return std::array<std::size_t, Leaves + 1>{sizeof(typename Ops::value_type)..., 0};
      }(LeafOps{});

  std::array<std::array<std::ptrdiff_t, rank>, slots> strides{};
  std::array<std::size_t, rank> extents{};
  output_info<rank> out{};
  bool check_overlap = false;
  std::size_t bad_leaf = 0;  // 1 + the first leaf that partially overlaps the output
  std::array<bool, Views + 1> view_steps{};      // view V has the output's last dim
  std::array<const char*, Views + 1> view_lo{};  // the bytes view V spans (when checked)
  std::array<const char*, Views + 1> view_hi{};
  [[no_unique_address]] std::conditional_t<Temporaries, std::vector<std::unique_ptr<kept_base>>,
                                           std::tuple<>>
      temporaries;

  // extents: the output's; the layouts' strides follow from them.
  leaf_table(const std::array<std::size_t, rank>& ext, const output_info<rank>& o, bool check)
      : extents(ext), out(o), check_overlap(check) {
    strides[0] = o.strides;
    set_layouts(std::make_index_sequence<layouts>{});
  }

  template <std::size_t V, class X>
  DIMGRAPH_ALWAYS_INLINE void add_view(const X& x) {
    strides[slot_of_view<V>] = strides_along<OutDims>(x);
    if constexpr (rank > 0)
      view_steps[V] = list_contains_v<typename X::dims, back_t<types_of_t<OutDims>>>;
    if (check_overlap) std::tie(view_lo[V], view_hi[V]) = memory_span(x);
  }
  // The leaves a walk found (objects[J] is leaf J, an object of type LeafOps[J]::object):
  // their base pointers go to bases (which the caller keeps to itself, so the compiler sees
  // that leaves of one tensor share them) and to the table.
  DIMGRAPH_ALWAYS_INLINE void add_leaves(const void* const* objects, bases_type& bases) {
    add_leaves(objects, bases, LeafOps{}, std::make_index_sequence<Leaves>{});
    if (check_overlap) check_leaves(bases);
  }

  // Whether every view that steps along the inner loop of p (and, with out_steps, the
  // output) steps by 1.
  template <std::size_t N>
  bool unit_inner(const loop_plan<rank, N>& p, bool out_steps = true) const {
    if (p.depth == 0) return true;
    if (out_steps && p.inner_stride(0) != 1) return false;
    for (std::size_t v = 0; v < Views; ++v)
      if (view_steps[v] && p.inner_stride(1 + layouts + v) != 1) return false;
    return true;
  }

 private:
  // (Expressions and functions named by the leaf's type, not by the table, which names every
  // leaf: a chain of N ops is not N functions with names of length N.)
  template <class... Ops, std::size_t... Js>
  DIMGRAPH_ALWAYS_INLINE void add_leaves(const void* const* objects, bases_type& bases,
                                         type_list<Ops...>, std::index_sequence<Js...>) {
    if constexpr (sizeof...(Ops) <= loop_leaves_above) {
      const int order[] = {(bases[Js] = leaf_data<Ops>(objects[Js]), 0)..., 0};
      (void)order;
    } else {
      // Many leaves: one loop (through each leaf's kind of object), not one statement per
      // leaf. The optimiser then looks up each later read of bases[k] (the rows' placement)
      // against one store, not against every leaf's store before it: quadratic in the leaves.
      static constexpr const void* (*data[])(const void*) = {&leaf_data<Ops>...};
      for (std::size_t k = 0; k < sizeof...(Ops); ++k) bases[k] = data[k](objects[k]);
    }
    add_views(objects, std::make_index_sequence<Views>{});
  }
  // The leaf of view V.
  static constexpr std::array<std::size_t, Views + 1> view_leaf = [] {
    std::array<std::size_t, Views + 1> r{};
    for (std::size_t k = 0; k < Leaves; ++k)
      if (view_at[k + 1] != view_at[k]) r[view_at[k]] = k;
    return r;
  }();
  template <std::size_t... Vs>
  DIMGRAPH_ALWAYS_INLINE void add_views([[maybe_unused]] const void* const* objects,
                                        std::index_sequence<Vs...>) {
    (add_view<Vs>(*static_cast<const typename at_t<view_leaf[Vs], LeafOps>::object*>(
         objects[view_leaf[Vs]])),
     ...);
  }
  // Every leaf against the output (one loop: a long expression's leaves do not each carry
  // their own copy of the test). Almost every assignment reads memory apart from its output's,
  // so a first pass without branches asks only whether any leaf's bytes meet the output's
  // bytes; each leaf is tested exactly only when one does. (A branch per leaf and flags kept
  // on the stack made this check half the cost of `out = a * b + c` over 256 floats.)
  DIMGRAPH_ALWAYS_INLINE void check_leaves(const bases_type& base) {
    if (out.lo == out.hi) return;
    std::array<std::size_t, layouts + 1> elements{};
    set_elements(elements, std::make_index_sequence<layouts>{});
    const auto span = [&](std::size_t k) {
      const std::size_t slot = leaf_slot[k];
      const char* lo = static_cast<const char*>(base[k]);
      const char* hi = lo;
      if (slot > layouts) {
        lo = view_lo[slot - 1 - layouts];
        hi = view_hi[slot - 1 - layouts];
      } else if constexpr (layouts > 0) {  // (slot >= 1: a leaf's slot is never the output's)
        hi += elements[slot - 1] * leaf_bytes[k];
      }
      return std::pair{lo, hi};
    };
    bool meets = false;
    for (std::size_t k = 0; k < Leaves; ++k) {
      const auto [lo, hi] = span(k);
      meets |= (lo != hi) & (out.lo < hi) & (lo < out.hi);
    }
    if (!meets) [[likely]]
      return;
    for (std::size_t k = 0; k < Leaves; ++k) {
      const auto [lo, hi] = span(k);
      note(k, lo, hi, base[k], strides[leaf_slot[k]], leaf_bytes[k]);
    }
  }
  template <std::size_t... Ls>
  void set_elements(std::array<std::size_t, layouts + 1>& elements, std::index_sequence<Ls...>) {
    ((elements[Ls] = layout_size<OutDims, at_t<Ls, Layouts>>(extents)), ...);
  }
  template <std::size_t... Ls>
  void set_layouts(std::index_sequence<Ls...>) {
    ((strides[1 + Ls] = layout_strides<OutDims, at_t<Ls, Layouts>>(extents)), ...);
  }
  void note(std::size_t leaf, const char* lo, const char* hi, const void* data,
            const std::array<std::ptrdiff_t, rank>& s, std::size_t bytes) {
    if (lo == hi || out.lo == out.hi || hi <= out.lo || out.hi <= lo) return;
    if (data == out.data && s == out.strides) return;
    if (disjoint_lattices(data, s, bytes)) return;
    if (bad_leaf == 0) bad_leaf = leaf + 1;
  }
  // Whether no element of the leaf (at data, strides s, elements of `bytes`) can share a
  // byte with an element of the output: every address of each lies on its own residue class
  // modulo the gcd g of all their byte strides, and the two classes (with the elements'
  // sizes) do not meet. This accepts interleavings such as even and odd columns, or two
  // rows of one matrix; it never accepts two sets that share an element.
  bool disjoint_lattices(const void* data, const std::array<std::ptrdiff_t, rank>& s,
                         std::size_t bytes) const {
    std::size_t g = 0;
    const auto add = [&g](std::ptrdiff_t stride, std::size_t size) {
      std::size_t v = static_cast<std::size_t>(stride < 0 ? -stride : stride) * size;
      while (v) {
        const std::size_t t = g % v;
        g = v;
        v = t;
      }
    };
    for (std::size_t d = 0; d < rank; ++d) {
      if (extents[d] < 2) continue;
      add(s[d], bytes);
      add(out.strides[d], out.element_bytes);
    }
    if (g == 0) return false;  // one element each, and their spans meet
    const std::ptrdiff_t delta =
        static_cast<const char*>(data) - static_cast<const char*>(out.data);
    const std::size_t diff = static_cast<std::size_t>(
        ((delta % static_cast<std::ptrdiff_t>(g)) + static_cast<std::ptrdiff_t>(g)) %
        static_cast<std::ptrdiff_t>(g));
    return out.element_bytes <= diff && diff + bytes <= g;
  }
};

// The kernel of e over a table: walks e, recording its leaves in the table (which checks them
// against the output) and evaluating its temporaries, and copies its state.
template <class E, class Table>
DIMGRAPH_ALWAYS_INLINE inline program_kernel<typename evaluator_of<E>::program> make_kernel(
    const E& e, Table& table, typename Table::bases_type& bases) {
  using program = typename evaluator_of<E>::program;
  using facts = program_facts<program>;
  std::array<const void*, facts::leaves + 1> objects{};
  std::array<const void*, facts::states + 1> states{};
  walker w{objects.data(), states.data()};
  if constexpr (evaluator_of<E>::has_temporaries) w.temporaries = &table.temporaries;
  evaluator_of<E>::walk(e, w);
  table.add_leaves(objects.data(), bases);
  return program_kernel<program>(states.data());
}

// The table of the leaves of an expression E evaluated over OutDims.
template <class OutDims, class E>
using table_for = leaf_table<OutDims, typename evaluator_of<E>::layouts,
                             typename program_facts<typename evaluator_of<E>::program>::leaf_ops,
                             evaluator_of<E>::has_temporaries>;

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/table.hpp
// ---- begin dimgraph/eval/store.hpp
// Writing a row of kernel results: pieces of a row, partial stores, and streaming stores.



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
// ---- end dimgraph/eval/store.hpp
// ---- begin dimgraph/eval/elementwise.hpp
// Element-wise evaluation into a tensor or a view: the leaf table, the overlap checks, the plan
// and the fused SIMD loop.


// ---- begin dimgraph/eval/dispatch.hpp
// Run-time instruction-set dispatch: which wider instruction sets the kernels that dispatch
// (the matrix products, the softmax rows) are also compiled for, and which of them this CPU
// has.


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
// (and its OS) supports, found once, within isa_level_cap.
inline isa_level cpu_isa_level() {
#if DIMGRAPH_DISPATCH_AVX2 || DIMGRAPH_DISPATCH_AVX512
  static const isa_level level = [] {
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#if DIMGRAPH_DISPATCH_AVX512
    if (avx2 && __builtin_cpu_supports("avx512f")) return isa_level::avx512;
#endif
#if DIMGRAPH_DISPATCH_AVX2
    if (avx2) return isa_level::avx2;
#endif
    return isa_level::target;
  }();
  return level < isa_level_cap ? level : isa_level_cap;
#else
  return isa_level::target;
#endif
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/dispatch.hpp

DIMGRAPH_WIDE_BEGIN

namespace dimgraph {
namespace detail {

// b, hidden from the optimiser: a branch on it cannot be threaded, so the cold code behind
// it stays in one place (GCC moves it to <function>.cold instead of copying the call into the
// hot path).
DIMGRAPH_ALWAYS_INLINE inline bool opaque(bool b) {
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+r"(b));
#endif
  return b;
}

// The lanes of a kernel writing Out: the widest lane type fills one register.
template <class Ev, class Out>
inline constexpr std::size_t kernel_lanes_v =
    simd::lanes_for(std::max(Ev::lane_bytes, sizeof(simd::lane_t<Out>)));

// Whether an instruction computes a math function (a floating op other than division: exp,
// tanh, ...; pow) or a user's function (dg::map, lane by lane).
template <class I>
inline constexpr bool heavy_instruction_v = false;
template <class F, class Value, class Args, std::size_t... Dist>
inline constexpr bool heavy_instruction_v<apply_op<F, Value, Args, Dist...>> =
    (std::is_base_of_v<fn::floating<F>, F> && !std::is_same_v<F, fn::div>) ||
    std::is_same_v<F, fn::pow>;
template <class G, class Value, class Args, std::size_t... Dist>
inline constexpr bool heavy_instruction_v<apply_op<fn::user<G>, Value, Args, Dist...>> = true;

// Whether an instruction computes a math function (heavy, not a user's function), and whether
// a program has one: such kernels are also compiled for wider instruction sets (run-time
// dispatch, eval/dispatch.hpp), where their arithmetic takes fewer instructions.
template <class I>
inline constexpr bool math_instruction_v = heavy_instruction_v<I>;
template <class G, class Value, class Args, std::size_t... Dist>
inline constexpr bool math_instruction_v<apply_op<fn::user<G>, Value, Args, Dist...>> = false;
template <class Program>
inline constexpr bool math_program_v = false;
template <class... Is>
inline constexpr bool math_program_v<type_list<Is...>> = [] {
  constexpr bool math[] = {math_instruction_v<Is>..., false};
  for (bool m : math)
    if (m) return true;
  return false;
}();

// How many registers of lanes the element-wise kernel of a program writing Out computes at a
// time. A long kernel is a long chain of dependent instructions per vector (W7: 100 ops, each
// waiting on the one before), and its loop body is too long for the processor to overlap one
// vector's chain with the next: a vector type of 4 registers gives the compiler independent
// chains to interleave, and each leaf's base pointer is loaded once for all of them. (W7 with
// AVX-512, g++ -O3: 7.9 ms at one register, 4.1 at two, 3.0 at four; the hand loop 3.0 to
// 3.5.) So 4 for 16 instructions or more, but one register
// - with SSE: its 16 registers would spill, and the default -O2 build compiles its kernels
//   unchanged;
// - without AVX-512, when some lanes are half the widest (floats beside doubles): GCC warns
//   (-Wpsabi) of a 64-byte vector passed by value, even between inlined functions (128 bytes
//   and more go in memory), which is also why AVX2 takes 4 registers, not 2;
// - with a math function or a user's function (heavy_instruction_v): each holds a dozen
//   values at once, and 4 registers of them spilled (the LSTM cell's c' = f c + i g, three
//   math functions: 4.6 times as long);
// and fewer (2 with AVX-512, then 1) when the padded last piece of a row (a copy of every
// leaf's vector on the stack) would take more than padded_piece_budget bytes. (W7 has 71
// leaves: 18 KiB at 4 registers of floats. At one register, with AVX-512 and g++ -O3, it took
// 1.7 times the hand loop's time; 1.0 at four.)
// (Arrays, not fold expressions: Clang nests a fold 256 deep at most, and W7's programs are
// longer.)
inline constexpr std::size_t padded_piece_budget = std::size_t{32} << 10;
template <class Program, class Out>
inline constexpr std::size_t kernel_registers_v = 1;
template <class... Is, class Out>
inline constexpr std::size_t kernel_registers_v<type_list<Is...>, Out> = [] {
  using kernel = program_kernel<type_list<Is...>>;
  if (kernel::instructions < 16 || simd::target_bytes < 32) return 1;
  constexpr std::size_t bytes[] = {sizeof(simd::lane_t<typename Is::value_type>)...,
                                   sizeof(simd::lane_t<Out>)};
  constexpr bool heavy[] = {heavy_instruction_v<Is>..., false};
  std::size_t widest = 0;
  for (std::size_t b : bytes) widest = std::max(widest, b);
  for (std::size_t i = 0; i < std::size(bytes); ++i)
    if (heavy[i] || (simd::target_bytes < 64 && 2 * bytes[i] == widest)) return 1;
  // (A padded piece keeps each leaf's lanes at the widest leaf's size: at most widest. Two
  // registers of AVX2 are a 64-byte vector, which -Wpsabi would warn of as above.)
  const auto fits = [&](std::size_t registers) {
    return (kernel::leaves + 1) * simd::lanes_for(widest) * registers * widest <=
           padded_piece_budget;
  };
  return fits(4) ? 4 : simd::target_bytes >= 64 && fits(2) ? 2 : 1;
}();

// A static row of n elements takes vectors no longer than the row (a [2, 4] sum is one
// vector of 8, not 8 single lanes after no vector of 16).
constexpr std::size_t lanes_for_row(std::size_t lanes, std::size_t n) {
  return n >= lanes ? lanes : n == 0 ? 1 : std::bit_floor(n);
}

// A kernel of more instructions than this is compiled once, not once for whole vectors and
// once for padded pieces (see for_each_piece). (It then runs slower: W7's 170 instructions at
// g++ -O2 took 46 ms compiled once, 29 ms twice; 1,500 took 66 s to compile once, 76 s twice.)
inline constexpr std::size_t one_site_above = 512;

// What a row of the element-wise kernel needs: where it writes, the kernel, the leaf table and
// each operand's step along the inner loop.
template <class Out, class Kernel, class Table>
struct kernel_args {
  using out_type = Out;
  using kernel_type = Kernel;
  using table_type = Table;
  using offsets = std::array<std::ptrdiff_t, Table::slots>;
  Out* out;
  const Kernel& k;
  const Table& t;
  const typename Table::bases_type& bases;
  offsets step;
  std::array<std::ptrdiff_t, Table::leaf_count + 1> leaf_step;
  bool stream;
};

// The element-wise kernel over the row at off of n elements, in vectors of L lanes. Unit: the
// output and every view step by 1 along the inner loop. Stream: 1 or 0, streaming stores or
// not; -1, as a.stream says (decided per row).
template <std::size_t L, bool Unit, class Inner, bool Pad, int Stream, class Args>
DIMGRAPH_ALWAYS_INLINE inline void kernel_row(const Args& a, const typename Args::offsets& off,
                                              std::size_t n) {
  using Out = typename Args::out_type;
  using Kernel = typename Args::kernel_type;
  using E = typename Kernel::value_type;
  using row_t = row<typename Args::table_type, Inner, Unit>;
  const row_t r(a.bases, off, a.step);
  Out* o = a.out + off[0];
  const std::ptrdiff_t os = Unit ? 1 : a.step[0];
  bool streaming = Stream == 1;
  std::size_t head = 0;
  if constexpr (Unit && can_stream_v<L, Out>) {
    if constexpr (Stream == -1) streaming = a.stream;
    if (streaming) head = stream_head<L>(o, n, streaming);
  }
  for_each_piece<L, Pad, (Kernel::instructions > one_site_above),
                 (Kernel::instructions <= pieces_up_to)>(
      r, n, head, a.leaf_step.data(), a.t.leaf_bytes.data(),
      [&]<std::size_t M>(const row_t& c, std::size_t at, std::size_t i, std::size_t m)
          DIMGRAPH_ALWAYS_INLINE {
            const auto v = fn::as<Out, E>(a.k.template packet<M>(c, at));
            Out* to = o + static_cast<std::ptrdiff_t>(i) * os;
            if constexpr (M < L) {
              if constexpr (Unit) store_lanes<M>(to, v);
              else store_lanes<M>(to, os, v);
            } else if (m != L) [[unlikely]] {
              store_first<L>(to, os, v, m);
            } else if constexpr (Unit) {
              if constexpr (can_stream_v<L, Out> && Stream != 0)
                if (streaming) {
                  stream_lanes<L>(to, v);
                  return;
                }
              store_lanes<L>(to, v);
            } else {
              store_lanes<L>(to, os, v);
            }
          });
}

// The element-wise kernel over one row (or piece of a row), compiled for a wider instruction set
// than the build's (run-time dispatch, eval/dispatch.hpp) in vectors of that width: for kernels
// that compute math functions (math_program_v), whose time is arithmetic (W8's tanh over 2^20
// floats, g++ -O2: 1.48 ms in x86-64's default SSE2, 0.44 ms with AVX-512). A call per row, and no
// streaming stores: one compiled row per level, for the compiler's time; the arithmetic outweighs
// both.
template <isa_level Level>
struct wide_kernel;
#if DIMGRAPH_DISPATCH_ELEMENTWISE_AVX512
template <>
struct wide_kernel<isa_level::avx512> {
  static constexpr std::size_t bytes = 64;
  template <std::size_t L, bool Unit, class Inner, class Args>
  DIMGRAPH_TARGET_AVX512 DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN static void row(
      const Args& a, const typename Args::offsets& off, std::size_t n) {
    kernel_row<L, Unit, Inner, true, 0>(a, off, n);
  }
};
#endif
#if DIMGRAPH_DISPATCH_ELEMENTWISE_AVX2
template <>
struct wide_kernel<isa_level::avx2> {
  static constexpr std::size_t bytes = 32;
  template <std::size_t L, bool Unit, class Inner, class Args>
  DIMGRAPH_TARGET_AVX2 DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN static void row(
      const Args& a, const typename Args::offsets& off, std::size_t n) {
    kernel_row<L, Unit, Inner, true, 0>(a, off, n);
  }
};
#endif

// Every row of plan p at the instruction-set level given (one wider than the build's), for a
// kernel whose widest lane type has Widest bytes.
template <isa_level Level, std::size_t Widest, bool Unit, class Inner, class Args, class Plan>
DIMGRAPH_ALWAYS_INLINE inline void run_wide(const Args& a, const Plan& p) {
  using wide = wide_kernel<Level>;
  constexpr std::size_t L = wide::bytes / Widest;
  for_each_row<L>(p, [&](const typename Args::offsets& off, std::size_t n)
                         DIMGRAPH_ALWAYS_INLINE { wide::template row<L, Unit, Inner>(a, off, n); });
}

// The element-wise kernel k over every row of plan p, writing out. Unit: the output and
// every view step by 1 along the inner loop. Widest: for a kernel that run-time dispatch
// compiles for wider instruction sets too, its widest lane type's bytes; else 0.
template <std::size_t L, bool Unit, class Inner, bool Pad = true, std::size_t Widest = 0, class Out,
          class Kernel, class Table, class Plan>
DIMGRAPH_ALWAYS_INLINE DIMGRAPH_FLATTEN inline void run_kernel(
    Out* out, const Kernel& k, const Table& t, const typename Table::bases_type& bases,
    const Plan& p, bool stream) {
  using args_t = kernel_args<Out, Kernel, Table>;
  args_t a{out, k, t, bases, {}, {}, stream};
  if (p.depth > 0)
    for (std::size_t op = 0; op < Table::slots; ++op) a.step[op] = p.inner_stride(op);
  a.leaf_step = leaf_steps<Table>(a.step);
  // The row's pieces, stored plainly or streamed: Stream is a constant (a short kernel, whose
  // loop is compiled once for each) or decided per row (a long one, where the test per vector
  // costs nothing next to the kernel and a second copy would double the compiler's work).
  // (GCC does not unswitch loops at -O2: a test in a short loop costs as much as its work.)
  constexpr bool split_stream = Unit && can_stream_v<L, Out> && Kernel::instructions <= 64;
  if constexpr (Unit && Widest != 0) {
    switch (cpu_isa_level()) {
#if DIMGRAPH_DISPATCH_ELEMENTWISE_AVX512
      case isa_level::avx512:
        return run_wide<isa_level::avx512, Widest, Unit, Inner>(a, p);
#endif
#if DIMGRAPH_DISPATCH_ELEMENTWISE_AVX2
      case isa_level::avx2:
        return run_wide<isa_level::avx2, Widest, Unit, Inner>(a, p);
#endif
      default:
        break;
    }
  }
  const auto rows = [&]<int Stream>(std::integral_constant<int, Stream>) DIMGRAPH_ALWAYS_INLINE {
    for_each_row<L>(
        p, [&](const typename args_t::offsets& off, std::size_t n)
               DIMGRAPH_ALWAYS_INLINE { kernel_row<L, Unit, Inner, Pad, Stream>(a, off, n); });
  };
  if constexpr (!split_stream) rows(std::integral_constant<int, -1>{});
  else if (stream) rows(std::integral_constant<int, 1>{});
  else rows(std::integral_constant<int, 0>{});
  if (stream) stream_fence();
}

// (Cold and out of line.)
template <class Dst>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_self_overlap(const Dst& dst) {
  throw overlap_error("assign", "the destination " + to_string(dst.shape()) +
                                    " reaches some element twice (a zero or overlapping "
                                    "stride); write to a tensor or a view of distinct elements");
}

// dst = e for an element-wise e: the leaf table, the checks, the plan, the kernel.
template <bool CheckOverlap, class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void assign_elementwise(Dst& dst, const E& e) {
  using ev = evaluator_of<E>;
  using kernel = program_kernel<typename ev::program>;
  using out_dims = typename Dst::dims;
  using out_t = typename Dst::value_type;
  using inner = last_or_void_t<out_dims>;  // (void for rank 0)
  using table_t = table_for<out_dims, E>;
  constexpr std::size_t R = out_dims::size;
  constexpr std::size_t L =
      kernel_lanes_v<ev, out_t> * kernel_registers_v<typename ev::program, out_t>;
  // A math kernel's widest lane type, in bytes: run-time dispatch compiles it for wider
  // instruction sets too.
  constexpr std::size_t widest = math_program_v<typename ev::program>
                                     ? std::max(ev::lane_bytes, sizeof(simd::lane_t<out_t>))
                                     : 0;
  constexpr bool owning = is_tensor_v<std::remove_const_t<Dst>>;
  constexpr bool static_plan = [] {
    if constexpr (owning) return Dst::is_static && ev::static_layout;
    else return false;
  }();

  output_info<R> info{dst.data(), dst.strides()};
  info.element_bytes = sizeof(out_t);
  if constexpr (CheckOverlap) std::tie(info.lo, info.hi) = memory_span(dst);
  if constexpr (!owning)
    if (self_overlapping(dst.shape().extents(), dst.strides())) throw_self_overlap(dst);
  if constexpr (static_plan) {
    // Every stride and extent is a constant: so is the plan.
    static constexpr auto plan = [] {
      constexpr auto ext = typename Dst::shape_type{}.extents();
      std::array<std::array<std::ptrdiff_t, R>, table_t::slots> strides{};
      strides[0] = layout_strides<out_dims, out_dims>(ext);
      for_each_index<table_t::layouts>([&]<std::size_t Layout>(index_constant<Layout>) {
        strides[1 + Layout] = layout_strides<out_dims, at_t<Layout, typename ev::layouts>>(ext);
      });
      return make_loop_plan<R>(ext, strides);
    }();
    table_t table(typename Dst::shape_type{}.extents(), info, CheckOverlap);
    typename table_t::bases_type bases;
    const kernel k = make_kernel(e, table, bases);
    if constexpr (CheckOverlap)
      if (opaque(table.bad_leaf != 0)) [[unlikely]]
        throw_partial_overlap(table.bad_leaf);
    constexpr std::size_t lanes = plan.depth ? lanes_for_row(L, plan.inner_extent()) : 1;
    // (A row that is whole vectors needs no padding.)
    constexpr bool pad = plan.depth == 0 ? lanes != 1 : plan.inner_extent() % lanes != 0;
    // (Rows shorter than an AVX-512 vector stay in the build's own vectors.)
    constexpr bool wide = widest != 0 && plan.depth != 0 && plan.inner_extent() >= 64 / widest;
    run_kernel<lanes, true, inner, pad, wide ? widest : 0>(dst.data(), k, table, bases, plan,
                                                           false);
  } else {
    table_t table(dst.shape().extents(), info, CheckOverlap);
    typename table_t::bases_type bases;
    const kernel k = make_kernel(e, table, bases);
    if constexpr (CheckOverlap)
      if (opaque(table.bad_leaf != 0)) [[unlikely]]
        throw_partial_overlap(table.bad_leaf);
    const auto plan = make_loop_plan<R>(table.extents, table.strides);
    // A static output of fewer elements than a vector (its leaves are views) takes vectors no
    // longer than itself, as a static plan does: then no path of the kernel, taken or not,
    // stores past it (g++ -O2 -Warray-bounds saw a 4-lane store into a 2-element tensor).
    constexpr std::size_t out_size = [] {
      if constexpr (owning) {
        if constexpr (Dst::is_static) return typename Dst::shape_type{}.size();
        else return std::size_t{0};
      } else {
        return std::size_t{0};
      }
    }();
    constexpr bool small = out_size != 0 && out_size < L;
    constexpr std::size_t lanes = small ? lanes_for_row(L, out_size) : L;
    constexpr std::size_t wide = small && out_size * widest < 64 ? 0 : widest;
    if constexpr (!owning || kernel::views > 0) {
      if (!table.unit_inner(plan)) {
        run_kernel<lanes, false, inner>(dst.data(), k, table, bases, plan, false);
        return;
      }
    }
    run_kernel<lanes, true, inner, true, wide>(dst.data(), k, table, bases, plan,
                                               streaming_worthwhile<out_t>(plan));
  }
}

// A long expression's evaluation is a function of its own: the optimiser's cost grows faster
// than linearly with a function's length, and the expression's construction (its nodes, their
// extent checks) and its evaluation are each as long as the expression. A short one is
// inlined where it is assigned (a call would cost as much as a tiny tensor's loop).
inline constexpr std::size_t outline_above = 32;
template <bool CheckOverlap, class Dst, class E>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void assign_outlined(Dst& dst, const E& e) {
  assign_elementwise<CheckOverlap>(dst, e);
}

}  // namespace detail
}  // namespace dimgraph
DIMGRAPH_WIDE_END
// ---- end dimgraph/eval/elementwise.hpp
// ---- begin dimgraph/eval/reduce.hpp
// Evaluation of reductions: one pass over the input (fused with its element-wise ops), and the
// write-back of the result.


// ---- begin dimgraph/eval/reduce_down.hpp
// The row kernels of a reduction that reduce down: a block of rows reduced into an acc row
// (reduce_block), and rows that follow each other into a narrow acc row (reduce_periodic), in
// registers.


// ---- begin dimgraph/eval/reduce_rows.hpp
// The row kernels of a reduction that reduce across a row into one element (reduce_across),
// and the lane helpers they share with the kernels that reduce down (eval/reduce_down.hpp).



namespace dimgraph::detail {

// A vertical reduction's rows are reduced in blocks of this many (see accumulate); a float
// sum reduces a block in float (then into a float row of partial sums, eval/reduce.hpp).
inline constexpr std::size_t block_rows = 16;

// Lanes [P * H, P * H + H) of v (lanes of elements E), converted to To. (To may be wider
// than v's lanes: a vector of v's lane count would then be wider than a register, so it is
// taken in parts.)
// (By a shuffle: a copy through memory would keep a loop's accumulator of v on the stack.)
template <class To, class E, std::size_t H, std::size_t P, class V>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<To, H> widened_part(V v) {
  if constexpr (sizeof(V) == sizeof(fn::lanes_t<E, H>)) {
    return fn::as<To, E>(v);
  } else {
    return with_indices<H>([&]<std::size_t... I>(index_constant<I>...) DIMGRAPH_ALWAYS_INLINE {
      return fn::as<To, E>(fn::lanes_t<E, H>(__builtin_shufflevector(v, v, (P * H + I)...)));
    });
  }
}

template <std::size_t S>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, S> add_offsets(
    std::array<std::ptrdiff_t, S> a, const std::array<std::ptrdiff_t, S>& b) {
  for (std::size_t op = 0; op < S; ++op) a[op] += b[op];
  return a;
}

// The parts of two sets of lane accumulators combined part by part.
template <class Op, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline std::array<T, N> combine_parts(std::array<T, N> a,
                                                             const std::array<T, N>& b) {
  for_each_index<N>([&]<std::size_t P>(index_constant<P>)
                        DIMGRAPH_ALWAYS_INLINE { a[P] = Op::combine(a[P], b[P]); });
  return a;
}

// A vertical reduction's registers for one vector of L elements (of type E) of an acc row:
// L / H parts of H lanes of Acc, from acc. t = Op(t, v):
template <class Op, class Acc, class E, std::size_t L, std::size_t H, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void combine_into(std::array<T, N>& t, fn::lanes_t<E, L> v) {
  for_each_index<N>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
    t[P] = Op::combine(t[P], widened_part<Acc, E, H, P>(v));
  });
}

// sum (a number of type Acc, or one lane of it) combined with Op (NaN-propagating) with the
// M lanes of v, widened to Acc, folded as a tree. (M <= H: the callers' pieces are at most
// L / 2 lanes, and L is the lane count of the wider of E and Acc, so M lanes of Acc fit in a
// register.)
template <class Op, class Acc, std::size_t H, std::size_t M, class E, class Sum>
DIMGRAPH_ALWAYS_INLINE inline Sum add_piece(Sum sum, fn::lanes_t<E, M> v) {
  static_assert(M <= H, "dimgraph: add_piece: a piece wider than a register of the accumulator");
  const auto folded = simd::fold_lanes(
      fn::as<Acc, E>(v), [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return Op::combine(a, b); });
  if constexpr (std::is_same_v<Sum, Acc>) return Op::combine(simd::splat<Acc, 1>(sum), folded)[0];
  else return Op::combine(sum, folded);
}

// Whether Op's NaN-propagating combine of Acc lanes is a max or min of floating-point numbers:
// GCC compiles it for vectors shorter than 16 bytes (2 floats, 1 float or double) to
// general-register code, a compare, a flag and a branch per lane.
template <class Op, class Acc>
inline constexpr bool narrow_combine_slow =
    std::is_floating_point_v<Acc> && requires(Acc a) { Op::combine_numbers(a, a); };

// sum combined with the m (0 < m < W) elements of row r from i on, in one W-lane register of
// 16 bytes: element 0 in every lane, then element j put in lane j, sum combined into every
// lane, and the lanes folded by shuffles that keep all W of them (a row of 3 floats: one
// register, no compare narrower than 16 bytes).
template <class Op, class Acc, std::size_t W, class E, class Kernel, class Row, class Sum>
DIMGRAPH_ALWAYS_INLINE inline Sum add_in_register(const Kernel& k, const Row& r, std::size_t i,
                                                  std::size_t m, Sum sum) {
  using wide = fn::lanes_t<Acc, W>;
  const auto element = [&](std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    return simd::splat<Acc, W>(fn::as<Acc, E>(k.template packet<1>(r, i + j))[0]);
  };
  wide w = element(0);
  for_each_index<W - 1>([&]<std::size_t J>(index_constant<J>) DIMGRAPH_ALWAYS_INLINE {
    if (J + 1 < m) {
      const wide e = element(J + 1);
      w = with_indices<W>([&]<std::size_t... I>(index_constant<I>...) DIMGRAPH_ALWAYS_INLINE {
        return __builtin_shufflevector(w, e, (I == J + 1 ? W + I : I)...);
      });
    }
  });
  if constexpr (std::is_same_v<Sum, Acc>) w = Op::combine(simd::splat<Acc, W>(sum), w);
  else w = Op::combine(simd::splat<Acc, W>(sum[0]), w);
  w = simd::fold_lanes_in_place(
      w, [](wide a, wide b) DIMGRAPH_ALWAYS_INLINE { return Op::combine(a, b); });
  if constexpr (std::is_same_v<Sum, Acc>) return w[0];
  else return simd::splat<Acc, 1>(w[0]);
}

// sum combined with the rest elements of row r from i on (rest < 2 M) by add_piece: a piece of
// M lanes when rest has that bit, then of M / 2, and so on; for a floating-point max or min,
// the last ones (fewer than a 16-byte register holds) in one register (add_in_register).
// (Values, not captures by reference, so that the sum stays in a register.)
template <class Op, class Acc, std::size_t H, class E, std::size_t M, class Kernel, class Row,
          class Sum>
DIMGRAPH_ALWAYS_INLINE inline Sum add_pieces(const Kernel& k, const Row& r, std::size_t i,
                                             std::size_t rest, Sum sum) {
  constexpr std::size_t W = 16 / sizeof(Acc);
  if constexpr (M == 0) {
    return sum;
  } else if constexpr (M < W && W > 1 && narrow_combine_slow<Op, Acc>) {
    const std::size_t m = rest & (2 * M - 1);
    return m == 0 ? sum : add_in_register<Op, Acc, W, E>(k, r, i, m, sum);
  } else {
    if (rest & M) {
      sum = add_piece<Op, Acc, H, M, E>(sum, k.template packet<M>(r, i));
      i += M;
    }
    return add_pieces<Op, Acc, H, E, M / 2>(k, r, i, rest, sum);
  }
}

template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel>
void reduce_across_exact(const Kernel& k, const Row& r, std::size_t n, Acc* o,
                         const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes);

// *o = Op(*o, every element of the row r of n elements) (the inner dim is reduced): L lane
// accumulators of Acc in parts of H lanes (C sets of them for a short kernel, C vectors at a
// time: a combine is a chain of dependent instructions, and one set would wait on it at every
// vector), folded together and then as a tree into *o at the end, then the last m < L
// elements in pieces of fewer lanes (and a row shorter than L in those pieces only).
//
// Floating-point max and min (unless Exact) take the max (min) instruction, which drops a NaN
// operand, and beside it add up the elements, which a NaN makes NaN: a row whose sum is NaN (a
// NaN, or both infinities) is reduced again with the NaN-propagating combine. (Two
// instructions a vector where the propagating combine takes four, six without SSE4.1.)
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel,
          bool Exact = false>
DIMGRAPH_ALWAYS_INLINE inline void reduce_across(const Kernel& k, const Row& r, std::size_t n,
                                                 Acc* o, const std::ptrdiff_t* leaf_step,
                                                 const std::size_t* leaf_bytes) {
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  using lanes_type = std::array<part, L / H>;
  constexpr std::size_t C = Kernel::facts::size <= 8 ? 4 : 1;
  // (A floating-point sum starts its lanes from -0, which x + -0 leaves exactly as x, so the
  // first addition folds away; *o, from +0, still gives +0 to a sum of zeros.)
  constexpr bool signed_zero_sum =
      std::is_base_of_v<fn::sum_reduce, Op> && std::is_floating_point_v<Acc>;
  const auto identity = [] {
    if constexpr (signed_zero_sum) return simd::splat<Acc, H>(Acc(-0.0));
    else return simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>()));
  }();
  std::array<lanes_type, C> lanes;
  for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
    for_each_index<L / H>([&]<std::size_t P>(index_constant<P>)
                              DIMGRAPH_ALWAYS_INLINE { lanes[Chain][P] = identity; });
  });
  constexpr bool screened = !Exact && L == H && std::is_floating_point_v<Acc> &&
                            std::is_same_v<Acc, E> &&
                            requires(part a) { Op::combine_numbers(a, a); };
  std::array<part, screened ? C : 0> screen;
  if constexpr (screened) screen.fill(simd::splat<Acc, H>(Acc(0)));
  const auto add = [&]<std::size_t Chain>(index_constant<Chain>, const fn::lanes_t<E, L>& v)
                       DIMGRAPH_ALWAYS_INLINE {
                         if constexpr (screened) {
                           lanes[Chain][0] = Op::combine_numbers(lanes[Chain][0], v);
                           screen[Chain] += v;
                         } else {
                           combine_into<Op, Acc, E, L, H>(lanes[Chain], v);
                         }
                       };
  constexpr bool float_sum = std::is_same_v<Acc, double> && std::is_same_v<E, float> &&
                             std::is_base_of_v<fn::sum_reduce, Op>;
  // A float sum adds floats: each lane sums at most block_rows elements in float (over the
  // chains together) before the sum is added in double (as a vertical sum does). (Indexed by
  // constants only, so that the arrays stay in registers.)
  const auto float_blocks = [&]<std::size_t Chains>(std::size_t& i) DIMGRAPH_ALWAYS_INLINE {
    static_assert(block_rows % Chains == 0);
    while (i + Chains * L <= n) {
      std::array<fn::lanes_t<E, L>, Chains> t;
      for_each_index<Chains>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
        t[Chain] = simd::splat<simd::lane_t<E>, L>(0.0f);
      });
      const std::size_t whole = i + (n - i) / (Chains * L) * (Chains * L);
      const std::size_t end = std::min(whole, i + block_rows * L);
      for (; i < end; i += Chains * L)
        for_each_index<Chains>(
            [&]<std::size_t Chain>(index_constant<Chain>)
                DIMGRAPH_ALWAYS_INLINE { t[Chain] += k.template packet<L>(r, i + Chain * L); });
      if constexpr (Chains == 4) add(index_constant<0>{}, (t[0] + t[1]) + (t[2] + t[3]));
      else add(index_constant<0>{}, t[0]);
    }
  };
  std::size_t i = 0;
  if constexpr (C > 1) {
    // (Chains only for a row long enough to pay for folding them together.)
    if (n >= 2 * C * L) {
      if constexpr (float_sum) {
        float_blocks.template operator()<C>(i);
      } else {
        for (; i + C * L <= n; i += C * L)
          for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
            add(index_constant<Chain>{}, k.template packet<L>(r, i + Chain * L));
          });
        lanes[0] = combine_parts<Op>(combine_parts<Op>(lanes[0], lanes[1]),
                                     combine_parts<Op>(lanes[2], lanes[3]));
      }
    }
  }
  if constexpr (float_sum) float_blocks.template operator()<1>(i);
  else
    for (; i + L <= n; i += L) add(index_constant<0>{}, k.template packet<L>(r, i));
  if constexpr (screened) {
    part total = screen[0];
    for_each_index<C - 1>([&]<std::size_t Chain>(index_constant<Chain>)
                              DIMGRAPH_ALWAYS_INLINE { total += screen[Chain + 1]; });
    if (!simd::no_nan_lanes(total)) [[unlikely]] {
      reduce_across_exact<Op, Acc, L, H>(k, r, n, o, leaf_step, leaf_bytes);
      return;
    }
  }
  // The row's lanes folded into *o (a row shorter than a vector has none).
  const auto folded_lanes = [&]() DIMGRAPH_ALWAYS_INLINE {
    part folded = lanes[0][0];
    for_each_index<L / H - 1>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      folded = Op::combine(folded, lanes[0][P + 1]);
    });
    // (Screened lanes hold no NaN.)
    const auto combine = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE {
      if constexpr (screened) return Op::combine_numbers(a, b);
      else return Op::combine(a, b);
    };
    return Op::combine(load_lanes<1>(o), simd::fold_lanes(folded, combine));
  };
  // The last n - i < L elements in pieces of L / 2, L / 4, ..., 1 lanes (those whose bits
  // n - i has), each folded into the sum: no padded copy, and log2 L branches.
  // (A kernel longer than pieces_up_to: from a padded copy, one lane at a time.)
  const auto add_rest = [&](auto sum) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (Kernel::instructions <= pieces_up_to) {
      return add_pieces<Op, Acc, H, E, L / 2>(k, r, i, n - i, sum);
    } else {
      const std::size_t rest = n - i;
      if (rest == 0) return sum;
      unsigned char scratch[Row::template scratch_bytes<L>];
      Row c = r;
      c.template pad<L>(r, i, rest, leaf_step, leaf_bytes, scratch);
      const fn::lanes_t<E, L> last = k.template packet<L>(c, 0);
      for (std::size_t l = 0; l < rest; ++l)
        sum = add_piece<Op, Acc, H, 1, E>(sum, simd::splat<simd::lane_t<E>, 1>(last[l]));
      return sum;
    }
  };
  if constexpr (std::is_same_v<simd::lane_t<Acc>, Acc>) {
    // (A number between the steps: GCC keeps a one-lane vector in a general register or on the
    // stack, and moved this one through both at every row.)
    // (Both branches a number: a one-lane vector from one and *o from the other met in a
    // general register.)
    *o = add_rest(n >= L ? folded_lanes()[0] : *o);
  } else {
    store_lanes<1>(o, add_rest(n >= L ? folded_lanes() : load_lanes<1>(o)));
  }
}

// reduce_across with the NaN-propagating combine (out of line: rows with a NaN or an infinity
// are rare).
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel>
[[gnu::cold]] DIMGRAPH_NOINLINE void reduce_across_exact(const Kernel& k, const Row& r,
                                                         std::size_t n, Acc* o,
                                                         const std::ptrdiff_t* leaf_step,
                                                         const std::size_t* leaf_bytes) {
  reduce_across<Op, Acc, L, H, Row, Kernel, true>(k, r, n, o, leaf_step, leaf_bytes);
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/reduce_rows.hpp

namespace dimgraph::detail {

// t, L / H parts of H lanes, written to the L elements of acc at o (contiguous).
template <class Acc, std::size_t L, std::size_t H, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void finish_vector(Acc* o, const std::array<T, N>& t) {
  for (std::size_t p = 0; p < N; ++p) store_lanes<H>(o + p * H, t[p]);
}

// o[j] = Op(o[j], element j + q n of the row r of total elements) for j < n and every q: a
// vertical reduction into a row of n elements (a power of two, at most 4 L) whose input rows
// lie one after another in every operand, read as one row in vectors of L lanes, 4 at a time
// into 4 chains (chain c's lane l then always holds element (c L + l) % n of a row), the
// chains folded into o at the end; the last elements a vector at a time, then in parts of
// L / 2, L / 4, ..., 1 lanes, straight into o. (Rows of 4 floats in blocks of 16 took 10
// times Eigen's time at -O2: the block's setup cost more than its 16 additions.) Staged:
// each chain's float sums of at most block_rows / 4 vectors added in double.
template <class Op, class Acc, bool Staged, std::size_t L, std::size_t H, class Row, class Kernel>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void reduce_periodic(const Kernel& k, const Row& r,
                                                        std::size_t total, std::size_t n, Acc* o) {
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  constexpr std::size_t C = 4;
  static_assert(block_rows % C == 0);
  std::array<std::array<part, L / H>, C> lanes;
  for (auto& chain : lanes)
    chain.fill(simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>())));
  const std::size_t chunks_end = total / (C * L) * (C * L);
  std::size_t i = 0;
  if constexpr (Staged) {
    while (i < chunks_end) {
      std::array<fn::lanes_t<E, L>, C> t;
      for (auto& v : t) v = simd::splat<simd::lane_t<E>, L>(0.0f);
      const std::size_t end = std::min(chunks_end, i + block_rows * L);
      for (; i < end; i += C * L)
        for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
          t[Chain] += k.template packet<L>(r, i + Chain * L);
        });
      for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
        combine_into<Op, Acc, E, L, H>(lanes[Chain], t[Chain]);
      });
    }
  } else {
    for (; i < chunks_end; i += C * L)
      for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
        combine_into<Op, Acc, E, L, H>(lanes[Chain], k.template packet<L>(r, i + Chain * L));
      });
  }
  // from[0, count), elements start, start + 1, ... of the row, into o.
  const auto into_o = [&](const Acc* from, std::size_t count,
                          std::size_t start) DIMGRAPH_ALWAYS_INLINE {
    for (std::size_t l = 0; l < count; ++l) {
      Acc* q = o + (start + l) % n;
      store_lanes<1>(q, Op::combine(load_lanes<1>(q), load_lanes<1>(from + l)));
    }
  };
  for (std::size_t c = 0; c < C; ++c) {
    Acc folded[L];
    for (std::size_t p = 0; p < L / H; ++p) store_lanes<H>(folded + p * H, lanes[c][p]);
    into_o(folded, L, c * L);
  }
  for (; i + L <= total; i += L) {
    Acc whole[L];
    for_each_index<L / H>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      store_lanes<H>(whole + P * H, widened_part<Acc, E, H, P>(k.template packet<L>(r, i)));
    });
    into_o(whole, L, i);
  }
  for_pieces<L>(i, total - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
    Acc piece[M];
    store_lanes<M>(piece, fn::as<Acc, E>(k.template packet<M>(r, at)));
    into_o(piece, M, at);
  });
}

// o[i * s] = Op(o[i * s], element i of each row) for the count (<= B) rows of a vertical
// reduction given by their offsets, in row order, for i < n: one vector of L elements at a
// time, reduced over the rows in registers (Acc in parts of H lanes) and written to o once.
// The last piece of m < L elements is read in parts of fewer lanes (for_pieces), or, for a
// long kernel, from padded copies.
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel, class Bases,
          std::size_t B, std::size_t S>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void reduce_block(
    const Kernel& k, const Bases& bases, const std::array<std::array<std::ptrdiff_t, S>, B>& off,
    std::size_t count, const std::array<std::ptrdiff_t, S>& step, std::size_t n, Acc* o,
    std::ptrdiff_t s, const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes) {
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  constexpr std::size_t parts = L / H;
  // (Unused entries repeat the first row.)
  const auto rows =
      with_indices<B>([&]<std::size_t... J>(index_constant<J>...) DIMGRAPH_ALWAYS_INLINE {
        return std::array<Row, B>{Row(bases, off[J < count ? J : 0], step)...};
      });
  // Whole vectors of a contiguous acc row, C at a time (independent chains of combines; C
  // copies of the kernel, so fewer for a long one).
  constexpr std::size_t size = Kernel::facts::size;
  constexpr std::size_t C = size <= 8 ? 4 : size <= 32 ? 2 : 1;
  std::size_t i = 0;
  if constexpr (C > 1) {
    if (s == 1)
      for (; i + C * L <= n; i += C * L) {
        std::array<std::array<part, parts>, C> t;
        for (std::size_t c = 0; c < C; ++c)
          for (std::size_t p = 0; p < parts; ++p) t[c][p] = load_lanes<H>(o + i + c * L + p * H);
        for (std::size_t j = 0; j < count; ++j)
          for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
            combine_into<Op, Acc, E, L, H>(t[Chain], k.template packet<L>(rows[j], i + Chain * L));
          });
        for (std::size_t c = 0; c < C; ++c) finish_vector<Acc, L, H>(o + i + c * L, t[c]);
      }
  }
  // The rest, a vector at a time, acc strided or not; then the last piece of m < L elements
  // in parts of L / 2, L / 4, ..., 1 lanes (for_pieces, below), or, for a kernel longer than
  // pieces_up_to, as one padded vector.
  constexpr bool pieces = Kernel::instructions <= pieces_up_to;
  const std::size_t end = pieces ? n - n % L : n;
  [[maybe_unused]] unsigned char scratch[pieces ? 1 : Row::template scratch_bytes<L>];
  [[maybe_unused]] Row padded = rows[0];
  for (; i < end; i += L) {
    const std::size_t m = std::min(L, n - i);
    const bool whole = m == L && s == 1;
    std::array<part, parts> t;
    t.fill(simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>())));
    if (whole) {
      for (std::size_t p = 0; p < parts; ++p) t[p] = load_lanes<H>(o + i + p * H);
    } else {
      for (std::size_t l = 0; l < m; ++l)
        t[l / H][l % H] = load_lanes<1>(o + static_cast<std::ptrdiff_t>(i + l) * s)[0];
    }
    for (std::size_t j = 0; j < count; ++j) {
      const Row* r = &rows[j];
      std::size_t at = i;
      if constexpr (!pieces) {
        if (m != L) [[unlikely]] {
          padded = rows[j];
          padded.template pad<L>(rows[j], i, m, leaf_step, leaf_bytes, scratch);
          r = &padded;
          at = 0;
        }
      }
      combine_into<Op, Acc, E, L, H>(t, k.template packet<L>(*r, at));
    }
    if (whole) {
      finish_vector<Acc, L, H>(o + i, t);
    } else {
      for (std::size_t l = 0; l < m; ++l)
        store_lanes<1>(o + static_cast<std::ptrdiff_t>(i + l) * s,
                       simd::splat<simd::lane_t<Acc>, 1>(t[l / H][l % H]));
    }
  }
  // The last piece in parts: each part's M elements at o + i s combined with the rows' M
  // elements, in registers, as above.
  if constexpr (pieces)
    for_pieces<L>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
      Acc* q = o + static_cast<std::ptrdiff_t>(at) * s;
      const auto load = [&]() DIMGRAPH_ALWAYS_INLINE {
        return s == 1 ? load_lanes<M>(q) : load_lanes<M>(q, s);
      };
      const auto store = [&](const fn::lanes_t<Acc, M>& v) DIMGRAPH_ALWAYS_INLINE {
        if (s == 1) store_lanes<M>(q, v);
        else store_lanes<M>(q, s, v);
      };
      auto t = load();
      for (std::size_t j = 0; j < count; ++j)
        t = Op::combine(t, fn::as<Acc, E>(k.template packet<M>(rows[j], at)));
      store(t);
    });
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/reduce_down.hpp

namespace dimgraph::detail {

template <class E>
inline constexpr bool is_reduce_v = false;
template <class Op, class X, class... Rs>
inline constexpr bool is_reduce_v<reduce_expr<Op, X, Rs...>> = true;

// An op without identity (max, min) over a reduced extent of 0: names the empty dims.
template <class... Rs, class X>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_empty_reduction(const char* op, const X& x) {
  std::string what;
  ((x.template extent<Rs>() == 0
        ? void(what += (what.empty() ? "dim '" : ", dim '") + describe<Rs>() + "' has extent 0")
        : void()),
   ...);
  throw shape_error(op, "reduces over no elements (" + what + ") and has no identity");
}

// acc (row-major over the result's dims) combined with Op over every element of x. The loop
// nest runs over x's dims; acc steps with stride 0 along the reduced dims. A row along which
// acc does not step (the inner dim is reduced) folds into L lane accumulators and then into
// one element (reduce_across); otherwise the rows that combine into the same acc row are
// taken in blocks of up to block_rows, and each vector of the acc row is reduced over a block
// in registers (reduce_block: the input is read once, acc once per block).
//
// Float sums accumulate in double, so that long sums stay exact or nearly (2^25 ones sum to
// 2^25). Adding each element in double would double a vertical reduction's memory traffic,
// so there the blocks are summed in float into a row of partial sums, which is added into acc
// in double every partial_blocks blocks (below).
//
// Out of line, and compiled once per op and input type: acc enters as a pointer and its strides
// along x's dims (0 along the reduced ones), so every reduction of the same x with the same op
// (sum over any dims, and mean, which sums) shares one copy of this code.
// The longest kernel a vertical reduction into a narrow row reads as one row (see
// reduce_periodic): a plain tensor, or a short element-wise expression of a few.
inline constexpr std::size_t periodic_up_to = 16;

// Whether every operand but the output (slot 0) of a group of rows (levels [0, run) of
// plan, then the inner one of n elements) steps by 1 along its rows and has them one after
// another, or does not step at all.
template <std::size_t Slots, class Plan>
bool rows_follow_each_other(const Plan& group, const std::array<std::ptrdiff_t, Slots>& step,
                            std::size_t n) {
  const std::size_t run = group.depth - 1;
  for (std::size_t op = 1; op < Slots; ++op) {
    if (step[op] == 0) {
      for (std::size_t l = 0; l < run; ++l)
        if (group.stride[op][l] != 0) return false;
    } else {
      if (step[op] != 1) return false;
      auto expected = static_cast<std::ptrdiff_t>(n);
      for (std::size_t l = run; l-- > 0;) {
        if (group.stride[op][l] != expected) return false;
        expected *= static_cast<std::ptrdiff_t>(group.extent[l]);
      }
    }
  }
  return true;
}

// A float sum's vertical blocks go into a float row of partial sums, which is added into the
// double accumulators every partial_blocks blocks (each element of acc is then a double sum
// of float sums of at most partial_blocks float sums of at most block_rows terms). Adding
// each block's float sums into double instead (a conversion, a load, an add and a store per
// vector) took 1.14 of a float loop's time in W4a on a Zen 4.
inline constexpr std::size_t partial_blocks = 16;

// The float row of partial sums (thread_scratch).
struct partial_row_scratch {};

// o[j s] += partial[j] in double, and partial[j] = 0, for j < n.
DIMGRAPH_NOINLINE inline void add_partial_row(double* o, std::ptrdiff_t s, float* partial,
                                              std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    o[static_cast<std::ptrdiff_t>(j) * s] += static_cast<double>(partial[j]);
    partial[j] = 0.0f;
  }
}

template <class Op, class Acc, class X>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void accumulate_strided(
    Acc* acc_data, const std::array<std::ptrdiff_t, dims_t<X>::size>& acc_strides, const X& x) {
  using ev = evaluator_of<X>;
  using kernel = program_kernel<typename ev::program>;
  using xdims = dims_t<X>;
  using E = typename kernel::value_type;
  using table_t = table_for<xdims, X>;
  using inner = back_t<types_of_t<xdims>>;
  constexpr std::size_t R = xdims::size;
  static_assert(R > 0);  // (x has at least the reduced dims)
  constexpr bool staged = std::is_same_v<Acc, double> && std::is_same_v<E, float> &&
                          std::is_base_of_v<fn::sum_reduce, Op>;
  // L lanes of x, a register of its widest lanes; the accumulators in parts of H lanes, each
  // at most a register.
  constexpr std::size_t L = simd::lanes_for(
      staged ? ev::lane_bytes : std::max(ev::lane_bytes, sizeof(simd::lane_t<Acc>)));
  constexpr std::size_t H = std::max<std::size_t>(1, std::min(L, simd::lanes_for(sizeof(Acc))));

  const auto ext = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::size_t, R>{x.template extent<Ds>()...};
  }(std::type_identity<xdims>{});
  table_t table(ext, {acc_data, acc_strides}, false);
  typename table_t::bases_type bases;
  const kernel k = make_kernel(x, table, bases);
  const auto plan = make_loop_plan<R>(ext, table.strides);
  std::array<std::ptrdiff_t, table_t::slots> step{};
  if (plan.depth > 0)
    for (std::size_t op = 0; op < table_t::slots; ++op) step[op] = plan.inner_stride(op);
  const auto leaf_step = leaf_steps<table_t>(step);
  const bool across = step[0] == 0;

  // Groups: the rows that combine into the same acc row (across: the same acc element). The
  // levels along which acc does not step come innermost among the outer levels (the planner
  // orders the outer levels by acc's strides), so a group is the rows of the last `run`
  // outer levels: `groups` runs over the levels before them, and each group runs over
  // `rows`, the run levels and the inner one. Groups write disjoint parts of acc: they are
  // shared among threads, and each is reduced by one thread in order, so the result does
  // not depend on the thread count.
  std::size_t run = 0;
  while (run + 1 < plan.depth && plan.stride[0][plan.depth - 2 - run] == 0) ++run;
  auto groups = plan, rows = plan;
  if (plan.depth > 0) {
    groups.depth = plan.depth - run;
    groups.extent[groups.depth - 1] = plan.inner_extent();
    for (std::size_t op = 0; op < table_t::slots; ++op)
      groups.stride[op][groups.depth - 1] = plan.inner_stride(op);
    rows.depth = run + 1;
    for (std::size_t l = 0; l <= run; ++l) {
      rows.extent[l] = plan.extent[groups.depth - 1 + l];
      for (std::size_t op = 0; op < table_t::slots; ++op)
        rows.stride[op][l] = plan.stride[op][groups.depth - 1 + l];
    }
  }
  std::size_t per_group = 1;
  for (std::size_t l = 0; l < run; ++l) per_group *= rows.extent[l];

  const auto run_groups = [&]<bool Unit>(std::bool_constant<Unit>) {
    using row_t = row<table_t, inner, Unit>;
    using offsets = std::array<std::ptrdiff_t, table_t::slots>;
    // (A group of an across reduction is not split into pieces of its rows: they would all
    // write the same acc element.)
    for_each_row<1, true>(
        groups,
        [&](const offsets& first, std::size_t n) DIMGRAPH_ALWAYS_INLINE {
          Acc* o = acc_data + first[0];
          // (A group of one row, the common case, takes no loop over rows: the loop's setup
          // cost as much as a short row's work.)
          if (across && run == 0) {
            reduce_across<Op, Acc, L, H>(k, row_t(bases, first, step), n, o, leaf_step.data(),
                                         table.leaf_bytes.data());
            return;
          }
          auto group = rows;
          group.extent[run] = n;
          if (across) {
            for_each_row<1, false>(
                group, [&](const offsets& at, std::size_t) DIMGRAPH_ALWAYS_INLINE {
                  reduce_across<Op, Acc, L, H>(k, row_t(bases, add_offsets(first, at), step), n, o,
                                               leaf_step.data(), table.leaf_bytes.data());
                });
            return;
          }
          // Vertical into a row of at most 4 vectors (a power of two), the rows one after
          // another in every operand: as one row, element q into element q % n of o
          // (reduce_periodic). For kernels of at most periodic_up_to instructions: the
          // function is one more copy of the kernel for every reduction compiled.
          if constexpr (Unit && kernel::instructions <= periodic_up_to)
            if (n <= 4 * L && std::has_single_bit(n) && step[0] == 1 &&
                rows_follow_each_other<table_t::slots>(group, step, n)) {
              reduce_periodic<Op, Acc, staged, L, H>(k, row_t(bases, first, step), per_group * n, n,
                                                     o);
              return;
            }
          // Vertical: the group's rows in blocks of up to block_rows, each block reduced
          // into o one vector at a time (a register tile over the block's rows). A float sum
          // reduces its blocks into a float row first, added into o (double) every
          // partial_blocks blocks and at the end.
          std::array<offsets, block_rows> block;
          std::size_t count = 0, blocks = 0;
          float* partial = nullptr;
          if constexpr (staged) {
            partial = thread_scratch<float, partial_row_scratch>(n);
            std::fill_n(partial, n, 0.0f);
          }
          const auto run_block = [&]() DIMGRAPH_ALWAYS_INLINE {
            if constexpr (staged) {
              reduce_block<Op, float, L, L, row_t>(k, bases, block, count, step, n, partial, 1,
                                                   leaf_step.data(), table.leaf_bytes.data());
              if (++blocks == partial_blocks) {
                add_partial_row(o, step[0], partial, n);
                blocks = 0;
              }
            } else {
              reduce_block<Op, Acc, L, H, row_t>(k, bases, block, count, step, n, o, step[0],
                                                 leaf_step.data(), table.leaf_bytes.data());
            }
            count = 0;
          };
          for_each_row<1, false>(group, [&](const offsets& at, std::size_t) DIMGRAPH_ALWAYS_INLINE {
            block[count] = add_offsets(first, at);
            if (++count == block_rows) run_block();
          });
          if (count != 0) run_block();
          if constexpr (staged)
            if (blocks != 0) add_partial_row(o, step[0], partial, n);
        },
        per_group, !across);
  };
  if (table.unit_inner(plan, false)) run_groups(std::true_type{});
  else if constexpr (kernel::views > 0) run_groups(std::false_type{});
}

template <class Op, class Acc, class X, class AccTensor>
DIMGRAPH_ALWAYS_INLINE inline void accumulate(AccTensor& acc, const X& x) {
  using xdims = dims_t<X>;
  const auto ext = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::size_t, xdims::size>{x.template extent<Ds>()...};
  }(std::type_identity<xdims>{});
  // A mean accumulates as a sum (the same code).
  using fold = std::conditional_t<std::is_base_of_v<fn::sum_reduce, Op>, fn::sum_reduce, Op>;
  accumulate_strided<fold, Acc>(acc.data(), layout_strides<xdims, typename AccTensor::dims>(ext),
                                x);
}

// out[i] = To(in[i] / divisor) (Divide) or To(in[i]), for i < n: a reduction's result from its
// accumulators, in vectors of L elements, then one at a time. One copy per pair of types,
// shared by every reduction, so a reduction compiles no element-wise kernel of its own.
template <class To, class From, bool Divide>
DIMGRAPH_NOINLINE void convert_elements(To* out, const From* in, std::size_t n, double divisor) {
  static_assert(!Divide || std::is_same_v<From, double>);
  constexpr std::size_t L =
      simd::lanes_for(std::max(sizeof(simd::lane_t<To>), sizeof(simd::lane_t<From>)));
  const auto one = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    auto v = load_lanes<M>(in + i);
    if constexpr (Divide) v = v / simd::splat<double, M>(divisor);
    store_lanes<M>(out + i, fn::as<To, From>(v));
  };
  std::size_t i = 0;
  for (; i + L <= n; i += L) one.template operator()<L>(i);
  for (; i < n; ++i) one.template operator()<1>(i);
}

// dst = acc (a fresh tensor of the reduction's dims), divided by divisor when Divide, as the
// reduction's element type result_t (then widened to dst's, if wider).
template <bool Divide, class result_t, class Dst, class Acc>
DIMGRAPH_ALWAYS_INLINE inline void write_reduction(Dst& dst, const Acc& acc, double divisor) {
  using acc_t = typename Acc::value_type;
  if constexpr (is_tensor_v<std::remove_const_t<Dst>> &&
                std::is_same_v<typename Dst::dims, typename Acc::dims> &&
                std::is_same_v<typename Dst::value_type, result_t>) {
    // The same dims in the same order, both contiguous: element for element.
    convert_elements<result_t, acc_t, Divide>(dst.data(), acc.data(), acc.size(), divisor);
  } else if constexpr (Divide) {
    assign_elementwise<false>(
        dst, make_map(fn::cast_to<result_t>{}, make_binary<fn::div>(acc, divisor)));
  } else if constexpr (std::is_same_v<acc_t, result_t>) {
    assign_elementwise<false>(dst, acc);
  } else {
    assign_elementwise<false>(dst, make_map(fn::cast_to<result_t>{}, acc));
  }
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/reduce.hpp
// ---- begin dimgraph/eval/ragged.hpp
// Ragged dims in kernels: the view of a batch entry or of a row's valid part, the masks that
// keep padding out of results, and reductions over ragged dims.



namespace dimgraph::detail {

// "dim 'time' has lengths {5, 3, 0}"
template <class E>
std::string lengths_description(const std::vector<std::int64_t>& lens) {
  return "dim '" + describe<E>() + "' has lengths " + lengths_text(lens);
}

// An op without identity (max, min, argmax, argmin) at a result position whose row has no
// valid element: names the position along the dims Ks... (those of the masks the result
// keeps, such as the batch dim) and the lengths.
template <class... Ks>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_no_valid_element(
    const char* op, const std::array<std::size_t, sizeof...(Ks)>& pos, const std::string& lens) {
  std::string at;
  [[maybe_unused]] std::size_t i = 0;
  ((at += (i ? ", '" : " at '") + describe<Ks>() + "' " + std::to_string(pos[i]), ++i), ...);
  throw shape_error(op,
                    "reduces over no valid element" + at + " (" + lens + ") and has no identity");
}

// The view of x at entry i of its dim B, without B, every other dim at its full extent and with
// no lengths (so its ragged dims' padding is in it: see leading_view).
template <class B, class X>
auto entry_view(X& x, std::size_t i) {
  using elem = std::remove_pointer_t<decltype(x.data())>;
  using xdims = dims_t<std::remove_const_t<X>>;
  constexpr std::size_t k = list_index_of_v<xdims, B>;
  return [&]<class... Ds>(dim_list<Ds...>) {
    const std::array<std::size_t, sizeof...(Ds)> ext{x.template extent<Ds>()...};
    const std::array<std::ptrdiff_t, sizeof...(Ds)> str{x.template stride<Ds>()...};
    return tensor_view<elem, Ds...>(x.data() + static_cast<std::ptrdiff_t>(i) * x.strides()[k],
                                    shape<Ds...>::from_extents(ext), str);
  }(list_difference_t<xdims, dim_list<B>>{});
}

// x as a view with no lengths (every row full: its padding is in it, and x[dg::at<B>(i)] does
// not cut its ragged dims to a row's length).
template <class X>
auto without_lengths(X& x) {
  using elem = std::remove_pointer_t<decltype(x.data())>;
  return [&]<class... Ds>(dim_list<Ds...>) {
    return tensor_view<elem, Ds...>(x.data(), shape<Ds...>::from_extents(x.shape().extents()),
                                    x.strides());
  }(dims_t<std::remove_const_t<X>>{});
}

// The view of x's first n positions along D (n at most its extent), with no lengths: what a
// row of a ragged dim is once its batch dim is fixed.
template <class D, class X>
auto leading_view(const X& x, std::size_t n) {
  using elem = std::remove_pointer_t<decltype(x.data())>;
  return [&]<class... Ds>(dim_list<Ds...>) {
    auto ext = x.shape().extents();
    ext[list_index_of_v<dim_list<Ds...>, D>] = n;
    return tensor_view<elem, Ds...>(x.data(), shape<Ds...>::from_extents(ext), x.strides());
  }(dims_t<X>{});
}

// mask_dims_t<L, dim_list<Es...>>: the ragged dims Es... of L and their batch dims, in L's order.
template <class... Es>
struct in_masks_of {
  template <class D>
  struct pred : std::bool_constant<(
                    (std::is_same_v<D, Es> || std::is_same_v<D, ragged_batch_t<Es>>) || ...)> {};
};
template <class L, class Masked>
struct mask_dims;
template <class L, class... Es>
struct mask_dims<L, dim_list<Es...>> {
  using type = dims_of_t<filter_t<in_masks_of<Es...>::template pred, types_of_t<L>>>;
};
template <class L, class Masked>
using mask_dims_t = typename mask_dims<L, Masked>::type;

// The integer type f is called with for the positions and lengths of a mask over the dims
// Es... of x: int32 where every extent fits it, so that a kernel of 4-byte lanes keeps its vector
// length; int64 otherwise, and whenever x's lanes are 8 bytes anyway.
template <class X, class... Es, class F>
decltype(auto) with_position_type(const X& x, dim_list<Es...>, F&& f) {
  if constexpr (evaluator_of<X>::lane_bytes >= sizeof(std::int64_t)) {
    return f(std::type_identity<std::int64_t>{});
  } else {
    constexpr auto top = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
    if (((x.template extent<Es>() > top) || ...)) [[unlikely]]
      return f(std::type_identity<std::int64_t>{});
    return f(std::type_identity<std::int32_t>{});
  }
}

// Which positions of an operand with the dims L are valid along its ragged dims Es... (each
// with its batch dim in L): position t of E at entry b of E's batch dim is valid when t <
// length[b]. Holds each E's positions 0, 1, ... and its lengths as tensors of I (lengths not
// given read as full rows); the masks it makes are lazy expressions reading them, so it
// outlives them. A mask is one select per element, fused into the kernel that reads it.
template <class I, class L, class... Es>
class ragged_mask {
 public:
  template <class X>
  explicit ragged_mask(const X& x) : parts_{make_part<Es>(x)...} {}

  // x where every E is valid, else fill (in x's element type): lazy, x held as given.
  template <class X, class V>
  auto apply(X&& x, V fill) const {
    return apply_from<0>(std::forward<X>(x), fill);
  }

  // 1.0 where every E is valid, else 0.0, over the Es and their batch dims: lazy.
  auto valid() const { return valid_from<0>(); }

  // The number of valid positions (over the dims Rs... that are mask dims) at each position
  // of the mask dims that are not among Rs..., as double (exact below 2^53).
  template <class... Rs>
  auto count() const {
    const auto v = valid();
    using kept = list_difference_t<dims_t<decltype(v)>, dim_list<Rs...>>;
    auto out = [&]<class... Ks>(dim_list<Ks...>) {
      return tensor<double, Ks...>(shape<Ks...>::from_extents({v.template extent<Ks>()...}));
    }(kept{});
    constexpr bool lengths_count = [] {
      if constexpr (sizeof...(Es) == 1)
        return std::is_same_v<kept, dim_list<ragged_batch_t<Es>...>>;
      else return false;
    }();
    if constexpr (lengths_count) {
      // One ragged dim reduced and its batch dim kept (the usual case): the lengths.
      const auto& length = std::get<0>(parts_).length;
      for (std::size_t b = 0; b < out.size(); ++b)
        out.data()[b] = static_cast<double>(length.data()[b]);
    } else {
      accumulate<fn::sum_reduce, double>(out, v);
    }
    return out;
  }

  // Error (shape_error naming op, the position and the lengths): a zero in count, i.e. an op
  // without identity over no valid element.
  template <class... Ks>
  void check_nonempty(const char* op, const tensor<double, Ks...>& count) const {
    const double* c = count.data();
    for (std::size_t i = 0, n = count.size(); i < n; ++i)
      if (c[i] == 0.0) [[unlikely]]
        throw_empty_at(op, count, i);
  }

  // The lengths of E, given or full.
  template <class E>
  std::vector<std::int64_t> lengths() const {
    const auto& p = std::get<part<E>>(parts_);
    std::vector<std::int64_t> out(p.length.size());
    for (std::size_t b = 0; b < out.size(); ++b) out[b] = p.length.data()[b];
    return out;
  }

 private:
  template <class E>
  struct part {
    tensor<I, E> position;
    tensor<I, ragged_batch_t<E>> length;
  };
  template <class E, class X>
  static part<E> make_part(const X& x) {
    using B = ragged_batch_t<E>;
    const std::size_t n = x.template extent<E>(), rows = x.template extent<B>();
    part<E> p{dimgraph::iota<I, E>(extent<E>(n)), tensor<I, B>(extent<B>(rows))};
    const lengths_ref given = lengths_in<E>(x);
    for (std::size_t b = 0; b < rows; ++b)
      p.length.data()[b] = static_cast<I>(given ? (*given)[b] : static_cast<std::int64_t>(n));
    return p;
  }
  // position < length over E and its batch dim (in L's order), a bool expression.
  template <class E>
  auto valid_of() const {
    using B = ragged_batch_t<E>;
    const auto& p = std::get<part<E>>(parts_);
    return [&]<class... Ps>(dim_list<Ps...>) {
      return make_binary<fn::less>(make_broadcast<Ps...>(p.position, extent<B>(p.length.size())),
                                   p.length);
    }(list_intersection_t<L, dim_list<B, E>>{});
  }
  template <std::size_t K, class X, class V>
  auto apply_from(X&& x, V fill) const {
    using E = at_t<K, type_list<Es...>>;
    if constexpr (K + 1 == sizeof...(Es))
      return make_where(valid_of<E>(), std::forward<X>(x), fill);
    else return make_where(valid_of<E>(), apply_from<K + 1>(std::forward<X>(x), fill), fill);
  }
  template <std::size_t K>
  auto valid_from() const {
    auto one = make_where(valid_of<at_t<K, type_list<Es...>>>(), 1.0, 0.0);
    if constexpr (K + 1 == sizeof...(Es)) return one;
    else return make_outer(std::move(one), valid_from<K + 1>(), fn::mul{});
  }

  template <class... Ks>
  [[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_empty_at(const char* op,
                                                                const tensor<double, Ks...>& count,
                                                                std::size_t flat) const {
    const std::array<std::size_t, sizeof...(Ks)> ext{count.template extent<Ks>()...};
    std::array<std::size_t, sizeof...(Ks)> pos{};
    for (std::size_t k = sizeof...(Ks); k-- > 0;) {
      pos[k] = flat % ext[k];
      flat /= ext[k];
    }
    std::string lens;
    ((lens += (lens.empty() ? "" : "; ") + lengths_description<Es>(lengths<Es>())), ...);
    detail::throw_no_valid_element<Ks...>(op, pos, lens);
  }

  std::tuple<part<Es>...> parts_;
};

// The mask of x's ragged dims Es..., with positions of type I.
template <class I, class X, class... Es>
ragged_mask<I, dims_t<X>, Es...> make_ragged_mask(const X& x, dim_list<Es...>) {
  return ragged_mask<I, dims_t<X>, Es...>(x);
}

// dst = Op over the dims Rs... of x where the op must respect lengths (ragged_over_v): padding
// is read as Op's identity (a select, fused into the one pass over x), and a mean divides by
// the number of valid positions at each result position. Error: max or min where some result
// position has no valid element (shape_error), before anything is written.
template <class Op, class... Rs, class Dst, class X>
void reduce_ragged_into(Dst& dst, const X& x) {
  using V = value_t<X>;
  using acc_t = typename Op::template acc<V>;
  using result_t = typename Op::template result<V>;
  using masked = masked_dims_t<dims_t<X>, dim_list<Rs...>>;
  using kept = list_difference_t<dims_t<X>, dim_list<Rs...>>;
  constexpr bool mean = std::is_same_v<Op, fn::mean_reduce>;
  with_position_type(x, masked{}, [&]<class I>(std::type_identity<I>) {
    const auto mask = make_ragged_mask<I>(x, masked{});
    using mask_dims = dims_t<decltype(mask.valid())>;
    [[maybe_unused]] const auto count = [&] {
      if constexpr (mean || Op::empty_is_error) return mask.template count<Rs...>();
      else return 0;
    }();
    if constexpr (Op::empty_is_error) mask.check_nonempty(Op::name, count);
    auto acc = [&]<class... Ds>(dim_list<Ds...>) {
      return tensor<acc_t, Ds...>(
          shape<Ds...>::from_extents({x.template extent<Ds>()...}, Op::name));
    }(kept{});
    constexpr acc_t identity = Op::template identity<acc_t>();
    if constexpr (identity != acc_t(0)) std::fill_n(acc.data(), acc.size(), identity);
    accumulate<Op, acc_t>(acc, mask.apply(x, Op::template identity<V>()));
    if constexpr (mean) {
      // Each valid position of the mask dims stands for every position of the other reduced dims.
      const double others = [&]<class... Os>(dim_list<Os...>) {
        return (1.0 * ... * static_cast<double>(x.template extent<Os>()));
      }(list_difference_t<dim_list<Rs...>, mask_dims>{});
      if constexpr (std::remove_cvref_t<decltype(count)>::rank == 0)
        assign_elementwise<false>(
            dst,
            make_map(fn::cast_to<result_t>{}, make_binary<fn::div>(acc, count.data()[0] * others)));
      else
        assign_elementwise<false>(
            dst, make_map(fn::cast_to<result_t>{},
                          make_binary<fn::div>(acc, make_binary<fn::mul>(count, others))));
    } else {
      write_reduction<false, result_t>(dst, acc, 1.0);
    }
  });
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/ragged.hpp
// ---- begin dimgraph/eval/assign.hpp
// Assignment of an expression to a tensor or a view: the checks, then one dispatch to a
// contraction, a reduction or an element-wise kernel. This header defines the assignment hook
// that tensor and tensor_view call: include it (or <dimgraph.hpp>) to evaluate expressions.


// ---- begin dimgraph/eval/contract.hpp
// Evaluation of dot: the contraction mapped onto a (batched) matrix product.


// ---- begin dimgraph/eval/cblas.hpp
// The optional CBLAS backend of dot (DIMGRAPH_CONFIG_USE_CBLAS): sgemm/dgemm, sgemv/dgemv.

// ---- begin dimgraph/eval/gemm.hpp
// The blocked register-tiled GEMM behind dot: cache blocks, packing, the micro-kernel and the
// driver (eval/gemm_direct.hpp has the kernels that read operands in place).


// ---- begin dimgraph/eval/gemm_vector.hpp
// The parts the matrix-product kernels are built from: the operands (dim_group, matmul_operands),
// the instruction set (gemm_isa) and its vectors (gemm_vector, loads, multiply-add, lane sums).



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
// ---- end dimgraph/eval/gemm_vector.hpp

// (As in eval/gemm_vector.hpp: the vector helpers are always inlined into the kernels.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace dimgraph::detail {

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

// The micro-kernel out of line, for the build's own instruction set: inlined into gemm_blocked,
// GCC (-O3 -march=native) kept one of B's vectors on the stack in its loop (a store and 8
// reloads per step of kc; a product took a third longer). A wider set's kernels are all
// inlined into one function of that target (eval/matmul.hpp), and so is this one there.
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_NOINLINE void gemm_micro_tile_apart(std::size_t kc, const T* __restrict ap,
                                             const T* __restrict bp, T (&tile)[MR][NR]) {
  gemm_micro_tile<T, Isa, MR, NR>(kc, ap, bp, tile);
}

// Whether gemm_pack copies W-row slivers of T by 16-byte block transposes (float, double).
template <class T, std::size_t W>
inline constexpr bool transposes_in_blocks =
    (std::is_same_v<T, float> || std::is_same_v<T, double>)&&W % (16 / sizeof(T)) == 0;

// The Q x Q block at src (rows `stride` elements apart), transposed to dst (rows `out_stride`
// apart), Q = 16 / sizeof(T): Q loads, Q log2 Q two-vector shuffles, Q stores.
template <class T>
DIMGRAPH_ALWAYS_INLINE inline void transpose_block(const T* src, std::ptrdiff_t stride, T* dst,
                                                   std::size_t out_stride) {
  using V = simd::vec<T, 16 / sizeof(T)>;
  const auto row = [&](std::ptrdiff_t r) { return gemm_load<V>(src + r * stride); };
  const auto put = [&](std::size_t r, const V& v) { gemm_store_vector(dst + r * out_stride, v); };
  if constexpr (sizeof(T) == 4) {
    const V a = row(0), b = row(1), c = row(2), d = row(3);
    const V ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
    const V ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
    const V cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5);
    const V cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
    put(0, __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5));
    put(1, __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7));
    put(2, __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5));
    put(3, __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7));
  } else {
    const V a = row(0), b = row(1);
    put(0, __builtin_shufflevector(a, b, 0, 2));
    put(1, __builtin_shufflevector(a, b, 1, 3));
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
        // (W contiguous elements: a copy of constant size, which GCC and Clang inline as
        // vector moves at -O2 too; GCC 12's -O2 does not vectorise the element loop.)
        for (std::size_t p = pb; p < pe; ++p)
          std::memcpy(o + p * W, src + static_cast<std::ptrdiff_t>(p0 + p) * ks, W * sizeof(T));
      }
    }
    s = full;
  }
  if constexpr (transposes_in_blocks<T, W>) {
    if (kg.unit() && rg.affine) {
      // Rows contiguous along the depth (A [m, k], or B = W' for W [n, k]): the copy is a
      // transpose, done in Q x Q blocks in 16-byte vectors (Q rows of Q depth steps in, Q depth
      // steps of Q rows out); the depth steps past the last whole block one by one.
      constexpr std::size_t Q = 16 / sizeof(T);
      const std::size_t full = rows / W * W, blocks = kc / Q * Q;
      for (; s < full; s += W) {
        const T* src = base + rg.at(r0 + s) + static_cast<std::ptrdiff_t>(p0);
        T* o = out + s * kc;
        for (std::size_t i = 0; i < W; i += Q)
          for (std::size_t p = 0; p < blocks; p += Q)
            transpose_block<T>(src + rg.at(i) + static_cast<std::ptrdiff_t>(p), rg.stride,
                               o + p * W + i, W);
        for (std::size_t p = blocks; p < kc; ++p)
          for (std::size_t i = 0; i < W; ++i)
            o[p * W + i] = src[rg.at(i) + static_cast<std::ptrdiff_t>(p)];
      }
    }
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

// Writes (the first depth block) or adds (the later ones) the valid mr x nr part of a tile to C:
// in Isa's vectors where C's row is contiguous and the tile's row is whole (scalar code took a
// sixth of a product's time at GCC -O2, which does not vectorise the loop).
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_GEMM_KERNEL void gemm_store(const matmul_operands<T>& op, const T (&tile)[MR][NR],
                                     std::size_t m0, std::size_t mr, std::size_t n0, std::size_t nr,
                                     bool first) {
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t L = sizeof(V) / sizeof(T);
  const bool unit = op.cn->unit();
  const std::ptrdiff_t n_base = op.cn->at(n0);
  for (std::size_t i = 0; i < mr; ++i) {
    T* row = op.c + op.cm->at(m0 + i);
    if (unit) {
      T* r = row + n_base;
      if (NR % L == 0 && nr == NR) {
        DIMGRAPH_UNROLL
        for (std::size_t j = 0; j < NR; j += L) {
          V v = gemm_load<V>(&tile[i][j]);
          if (!first) v += gemm_load<V>(r + j);
          gemm_store_vector(r + j, v);
        }
      } else if (first) {
        for (std::size_t j = 0; j < nr; ++j) r[j] = tile[i][j];
      } else {
        for (std::size_t j = 0; j < nr; ++j) r[j] += tile[i][j];
      }
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

// The blocked kernel's scratch (thread_scratch): B's panel, up to KC x NC, and A's block.
struct gemm_b_panel_scratch {};
struct gemm_a_block_scratch {};

// Asks for the part of C a tile writes, or adds to, while the micro-kernel runs: in a product
// whose C is larger than the L2 cache, each depth block after the first reads C again from
// further out, one tile's rows apart.
template <class T>
DIMGRAPH_ALWAYS_INLINE inline void gemm_prefetch_tile(const matmul_operands<T>& op, std::size_t m0,
                                                      std::size_t mr, std::size_t n0,
                                                      std::size_t nr) {
  if (!op.cn->unit()) return;
  for (std::size_t i = 0; i < mr; ++i)
    gemm_prefetch(op.c + op.cm->at(m0 + i) + op.cn->at(n0), nr * sizeof(T));
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
  T* const bpack = packed_b ? nullptr : thread_scratch<T, gemm_b_panel_scratch>(kc_max * nc_max);
  T* const apack = thread_scratch<T, gemm_a_block_scratch>(kc_max * mc_max);
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
            gemm_prefetch_tile(op, ic + ir, std::min(MR, mc - ir), jc + jr, std::min(NR, nc - jr));
            if constexpr (std::is_same_v<Isa, gemm_target_isa>)
              gemm_micro_tile_apart<T, Isa, MR, NR>(kc, apack + ir * kc, bp + jr * kc, tile);
            else gemm_micro_tile<T, Isa, MR, NR>(kc, apack + ir * kc, bp + jr * kc, tile);
            gemm_store<T, Isa>(op, tile, ic + ir, std::min(MR, mc - ir), jc + jr,
                               std::min(NR, nc - jr), pc == 0);
          }
        }
      }
    }
  }
}

}  // namespace dimgraph::detail

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
// ---- end dimgraph/eval/gemm.hpp

#if DIMGRAPH_CONFIG_USE_CBLAS
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

namespace dimgraph::detail {

// A matrix (rows x cols) as CBLAS takes it in row-major order: stored as is (element (r, c)
// at r * ld + c) or transposed (at c * ld + r). ok is false when the strides fit neither.
struct blas_matrix {
  bool ok = false;
  bool trans = false;
  int ld = 0;
};
inline blas_matrix blas_layout(const dim_group& rg, const dim_group& cg) {
  if (!rg.affine || !cg.affine) return {};
  const auto r = static_cast<std::ptrdiff_t>(std::max<std::size_t>(rg.size, 1));
  const auto c = static_cast<std::ptrdiff_t>(std::max<std::size_t>(cg.size, 1));
  const auto fits = [](std::ptrdiff_t v) { return v <= static_cast<std::ptrdiff_t>(INT_MAX); };
  if (cg.stride == 1) {
    const std::ptrdiff_t ld = r == 1 ? c : rg.stride;
    if (ld >= c && fits(ld)) return {true, false, static_cast<int>(ld)};
  }
  if (rg.stride == 1) {
    const std::ptrdiff_t ld = c == 1 ? r : cg.stride;
    if (ld >= r && fits(ld)) return {true, true, static_cast<int>(ld)};
  }
  return {};
}

// The product through CBLAS (float and double), when every operand's layout allows it:
// sgemv/dgemv when m or n is 1, sgemm/dgemm otherwise. Returns false when it did not run.
template <class T>
bool blas_matmul(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    constexpr bool single = std::is_same_v<T, float>;
    const auto fits = [](std::size_t v) { return v <= static_cast<std::size_t>(INT_MAX); };
    if (!fits(m) || !fits(n) || !fits(k) || k == 0) return false;
    const auto tr = [](bool t) { return t ? CblasTrans : CblasNoTrans; };
    const auto inc = [&](const dim_group& g) -> int {
      return g.size <= 1 ? 1
                         : (g.affine && g.stride > 0 && g.stride <= INT_MAX ? int(g.stride) : 0);
    };
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    if (n == 1 || m == 1) {
      // y(r) = sum_k mat(r, k) x(k): mat is A (n == 1) or B seen as [n, k] (m == 1).
      const bool by_a = n == 1;
      const blas_matrix l = by_a ? blas_layout(*op.am, *op.ak) : blas_layout(*op.bn, *op.bk);
      const int xs = inc(by_a ? *op.bk : *op.ak), ys = inc(by_a ? *op.cm : *op.cn);
      if (!l.ok || xs == 0 || ys == 0) return false;
      const int rows = by_a ? mi : ni;
      const T* mat = by_a ? op.a : op.b;
      const T* x = by_a ? op.b : op.a;
      const int sr = l.trans ? ki : rows, sc = l.trans ? rows : ki;  // as stored
      if constexpr (single)
        cblas_sgemv(CblasRowMajor, tr(l.trans), sr, sc, 1.0f, mat, l.ld, x, xs, 0.0f, op.c, ys);
      else cblas_dgemv(CblasRowMajor, tr(l.trans), sr, sc, 1.0, mat, l.ld, x, xs, 0.0, op.c, ys);
      return true;
    }
    const blas_matrix lc = blas_layout(*op.cm, *op.cn);
    if (!lc.ok) return false;
    // A column-major C is the row-major C^T = B^T A^T.
    const bool swap = lc.trans;
    const blas_matrix l1 = swap ? blas_layout(*op.bn, *op.bk) : blas_layout(*op.am, *op.ak);
    const blas_matrix l2 = swap ? blas_layout(*op.ak, *op.am) : blas_layout(*op.bk, *op.bn);
    if (!l1.ok || !l2.ok) return false;
    const T* p1 = swap ? op.b : op.a;
    const T* p2 = swap ? op.a : op.b;
    const int r = swap ? ni : mi, c = swap ? mi : ni;
    if constexpr (single)
      cblas_sgemm(CblasRowMajor, tr(l1.trans), tr(l2.trans), r, c, ki, 1.0f, p1, l1.ld, p2, l2.ld,
                  0.0f, op.c, lc.ld);
    else
      cblas_dgemm(CblasRowMajor, tr(l1.trans), tr(l2.trans), r, c, ki, 1.0, p1, l1.ld, p2, l2.ld,
                  0.0, op.c, lc.ld);
    return true;
  }
}

}  // namespace dimgraph::detail
#endif
// ---- end dimgraph/eval/cblas.hpp
// ---- begin dimgraph/eval/matmul.hpp
// Matrix products of one batch entry: which kernel runs, for which instruction set, on how
// many threads.


#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

// ---- begin dimgraph/eval/gemm_direct.hpp
// The matrix-product kernels that read the operands where they are (no packing): GEMM over
// B's contiguous rows (gemm_rows), GEMM as dot products along a contiguous depth (gemm_dots),
// and GEMV.



// (As in eval/gemm_vector.hpp: the vector helpers are always inlined into the kernels.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace dimgraph::detail {

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
        gemm_store<T, Isa>(op, tile, i0, mr, j0, NR, pc == 0);
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

// One MR x NR tile of gemm_dots at rows i0.. and columns j0..: MR * NR dot products, each
// summed in a vector of partial sums, straight from the operands' rows. Columns past n repeat
// the last one and are not stored.
template <class T, class Isa, std::size_t MR, std::size_t NR>
DIMGRAPH_ALWAYS_INLINE inline void gemm_dots_tile(const matmul_operands<T>& op,
                                                  const std::array<const T*, NR>& b, std::size_t i0,
                                                  std::size_t j0, std::size_t n, std::size_t k) {
  using V = typename gemm_blocking<T, Isa>::vector;
  constexpr std::size_t L = gemm_blocking<T, Isa>::lanes;
  std::array<const T*, MR> a{};
  for (std::size_t i = 0; i < MR; ++i) a[i] = op.a + op.am->at(i0 + i);
  V acc[MR][NR] = {};
  std::size_t p = 0;
  for (; p + L <= k; p += L) {
    V bv[NR];
    DIMGRAPH_UNROLL
    for (std::size_t j = 0; j < NR; ++j) gemm_load_kept(bv[j], b[j] + p);
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      V av;
      gemm_load_kept(av, a[i] + p);
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NR; ++j) gemm_multiply_add(acc[i][j], av, bv[j]);
    }
  }
  // The lane sums of every partial sum at once, the accumulators padded with zeros to a
  // multiple of L (the compiler folds the additions of zeros away). acc itself is read at
  // indices known at compile time only, which keeps it in registers (indexed by the loop
  // below, bounded by n, it became a zeroed copy in memory: a memset and 16 stores per tile).
  alignas(64) T totals[(MR * NR + L - 1) / L * L];
  if constexpr (L > 1) {
    std::array<V, (MR * NR + L - 1) / L * L> flat{};
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NR; ++j) flat[i * NR + j] = acc[i][j];
    }
    gemm_lane_sums(flat, totals);
  } else {
    DIMGRAPH_UNROLL
    for (std::size_t i = 0; i < MR; ++i) {
      DIMGRAPH_UNROLL
      for (std::size_t j = 0; j < NR; ++j) totals[i * NR + j] = gemm_lane_sum<T>(acc[i][j]);
    }
  }
  for (std::size_t i = 0; i < MR; ++i)
    for (std::size_t j = 0; j < NR && j0 + j < n; ++j) {
      T sum = totals[i * NR + j];
      for (std::size_t q = p; q < k; ++q) sum = multiply_add<Isa::fma>(sum, a[i][q], b[j][q]);
      op.c[op.cm->at(i0 + i) + op.cn->at(j0 + j)] = sum;
    }
}

// The product when both operands are contiguous along the depth and B's columns are not
// (x . W with W[out, in]): MR x NR tiles of C (gemm_dots_tile). No packing: for B that would be
// a transpose, which costs more than the product itself when m is small. The last rows that
// do not fill a tile run in a tile of their own height (repeating a row instead took 1.1 of
// the time at m = 25).
template <class T, class Isa = gemm_target_isa>
DIMGRAPH_GEMM_KERNEL void gemm_dots(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                                    std::size_t k) {
  // The tile's MR * NR partial sums, NR vectors of B and one of A (and a product, without
  // fused multiply-add) stay in registers: 3 x 3 with 16 vector registers, 4 x 4 with 32.
  constexpr std::size_t MR = Isa::vector_registers >= 32 ? 4 : 3, NR = MR;
  const std::size_t full = m / MR * MR;
  std::array<const T*, NR> b{};
  for (std::size_t j0 = 0; j0 < n; j0 += NR) {
    for (std::size_t j = 0; j < NR; ++j) b[j] = op.b + op.bn->at(std::min(j0 + j, n - 1));
    for (std::size_t i0 = 0; i0 < full; i0 += MR)
      gemm_dots_tile<T, Isa, MR, NR>(op, b, i0, j0, n, k);
    switch (m - full) {
      case 1:
        gemm_dots_tile<T, Isa, 1, NR>(op, b, full, j0, n, k);
        break;
      case 2:
        gemm_dots_tile<T, Isa, 2, NR>(op, b, full, j0, n, k);
        break;
      case 3:
        if constexpr (MR > 3) gemm_dots_tile<T, Isa, 3, NR>(op, b, full, j0, n, k);
        break;
      default:
        break;
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
      DIMGRAPH_UNROLL
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
// ---- end dimgraph/eval/gemm_direct.hpp
// ---- begin dimgraph/eval/weight_cache.hpp
// Constant weights packed once for a scan's loop (weight_cache), and the gap-free copy of B that
// GEMV reads (gemv_b_layout).



namespace dimgraph::detail {

// B [k, n] copied whole with the dim it is contiguous along kept innermost and no gap between
// rows: [n, k] (k_inner) or [k, n]. What GEMV reads fastest for one row of A, made by copying
// rows, where gemm_b_layout is a transpose for a B contiguous along k.
struct gemv_b_layout {
  std::size_t n, k;
  bool k_inner;
  std::size_t total = n * k;
  std::size_t at(std::size_t p, std::size_t j) const { return k_inner ? j * k + p : p * n + j; }
  // The copy's groups of B's dims.
  dim_group k_group() const { return {k, k_inner ? 1 : static_cast<std::ptrdiff_t>(n), true, {}}; }
  dim_group n_group() const { return {n, k_inner ? static_cast<std::ptrdiff_t>(k) : 1, true, {}}; }
};

template <class T>
void gemv_copy_b(T* out, const gemv_b_layout& layout, const matmul_operands<T>& op) {
  if (layout.k_inner)
    for (std::size_t j = 0; j < layout.n; ++j)
      std::memcpy(out + j * layout.k, op.b + op.bn->at(j), layout.k * sizeof(T));
  else
    for (std::size_t p = 0; p < layout.k; ++p)
      std::memcpy(out + p * layout.n, op.b + op.bk->at(p), layout.n * sizeof(T));
}

// Constant weights packed once. While a scan that hoists runs its loop, the tensors its body
// multiplies by a carry and did not compute from one (the weights of an RNN cell) are
// registered here as constant; a product whose B (or A) lies in one is run by the blocked
// kernel over B packed once for the whole loop, instead of packed (or read unpacked, which is
// slower) at every step. Packs are keyed by operand address, strides, sizes, element type and
// instruction set, and checked against the operand at each use on pack_samples elements
// spread over it, bit for bit (a tensor the body makes anew in each iteration from captured
// ones may be another such tensor at the same address): a mismatch packs again.
class weight_cache {
 public:
  // [lo, hi) holds a tensor that stays constant while this cache is active.
  void add_constant(const char* lo, const char* hi) {
    if (lo == hi) return;
    for (const auto& r : constants_)
      if (r.first == lo && r.second == hi) return;
    constants_.emplace_back(lo, hi);
  }
  bool empty() const { return constants_.empty(); }
  // A new run: no constants, and each pack is made again at its first use (its buffer is
  // reused). Packs the run before did not use are freed.
  void renew() {
    constants_.clear();
    std::erase_if(packs_, [](const pack& e) { return e.stale; });
    for (auto& e : packs_) e.stale = true;
  }
  // The bytes of the packs.
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const auto& e : packs_) total += e.bytes;
    return total;
  }
  std::size_t constants() const { return constants_.size(); }
  // How many products each constant takes part in while the cache is active (a scan's trip
  // count): whether copying one for a single row of A pays (copied_b).
  void expect_uses(std::size_t uses) { uses_ = uses; }
  std::size_t expected_uses() const { return uses_; }
  // Whether [lo, hi) lies within a constant.
  bool holds(const char* lo, const char* hi) const {
    for (const auto& r : constants_)
      if (r.first <= lo && hi <= r.second) return true;
    return false;
  }
  // B of op packed for Isa, packed now if it is constant and was not; null if it is not.
  template <class T, class Isa>
  const T* packed_b(const matmul_operands<T>& op, std::size_t n, std::size_t k) {
    return find_or_make(op, n, k, &pack_tag<T, Isa>, gemm_b_layout<T, Isa>(n, k),
                        [&](T* out) { gemm_pack_b<T, Isa>(out, op, n, k); });
  }
  // B of op copied whole (gemv_b_layout), copied now if it is constant and was not; null if it
  // is not, or has no contiguous dim.
  template <class T>
  const T* copied_b(const matmul_operands<T>& op, std::size_t n, std::size_t k) {
    if (!op.bk->unit() && !op.bn->unit()) return nullptr;
    const gemv_b_layout layout{n, k, op.bk->unit()};
    return find_or_make(op, n, k, &copy_tag<T>, layout,
                        [&](T* out) { gemv_copy_b(out, layout, op); });
  }

 private:
  static constexpr std::size_t pack_samples = 64;
  // Whether the packed copy holds B's elements at pack_samples positions spread over it (the
  // first and the last among them).
  template <class T, class Layout>
  static bool same_samples(const T* packed, const Layout& layout, const matmul_operands<T>& op,
                           std::size_t n, std::size_t k) {
    const std::size_t count = n * k;
    for (std::size_t t = 0; t < pack_samples; ++t) {
      const std::size_t i = std::min(
          count - 1, count <= pack_samples
                         ? t
                         : static_cast<std::size_t>(static_cast<double>(count - 1) *
                                                    static_cast<double>(t) / (pack_samples - 1)));
      const std::size_t p = i / n, j = i % n;
      if (std::memcmp(op.b + op.bk->at(p) + op.bn->at(j), packed + layout.at(p, j), sizeof(T)) != 0)
        return false;
    }
    return true;
  }

 private:
  // The copy of B in Layout (tag: which layout), made by make(out) when there is none or it
  // no longer holds B's elements.
  template <class T, class Layout, class Make>
  const T* find_or_make(const matmul_operands<T>& op, std::size_t n, std::size_t k, const void* tag,
                        const Layout& layout, Make make) {
    const dim_group &bk = *op.bk, &bn = *op.bn;
    if (!bk.affine || !bn.affine || bk.stride < 0 || bn.stride < 0) return nullptr;
    const char* lo = reinterpret_cast<const char*>(op.b);
    const char* hi = reinterpret_cast<const char*>(op.b + bk.at(k - 1) + bn.at(n - 1) + 1);
    if (!holds(lo, hi)) return nullptr;
    for (auto& e : packs_)
      if (e.b == op.b && e.tag == tag && e.k == k && e.n == n && e.ks == bk.stride &&
          e.ns == bn.stride) {
        T* data = static_cast<T*>(e.data);
        if (e.stale || !same_samples(data, layout, op, n, k)) make(data);
        e.stale = false;
        return data;
      }
    // (64-byte aligned, as a tensor's elements: a kernel's vector loads from a copy at 16
    // bytes past a cache line split every other line, and a GEMV over it ran 1.5x slower.)
    auto owner = std::make_shared<heap_storage<T>>(for_overwrite_t{}, layout.total);
    T* data = owner->data();
    make(data);
    packs_.push_back({op.b, tag, k, n, bk.stride, bn.stride, std::move(owner), data,
                      layout.total * sizeof(T), false});
    return data;
  }

  template <class T, class Isa>
  static constexpr char pack_tag = 0;
  template <class T>
  static constexpr char copy_tag = 0;
  struct pack {
    const void* b;
    const void* tag;
    std::size_t k, n;
    std::ptrdiff_t ks, ns;
    std::shared_ptr<void> owner;
    void* data;
    std::size_t bytes;
    bool stale;  // made in a run before this one (packed again at its first use)
  };
  std::vector<std::pair<const char*, const char*>> constants_;
  std::vector<pack> packs_;
  std::size_t uses_ = 0;
};

// The weight cache of the scan loop running on this thread (null outside one).
inline weight_cache*& active_weight_cache() {
  static thread_local weight_cache* active = nullptr;
  return active;
}

// Makes a cache the active one for its lifetime.
class weight_cache_scope {
 public:
  explicit weight_cache_scope(weight_cache& cache) : saved_(active_weight_cache()) {
    active_weight_cache() = &cache;
  }
  ~weight_cache_scope() { active_weight_cache() = saved_; }
  weight_cache_scope(const weight_cache_scope&) = delete;
  weight_cache_scope& operator=(const weight_cache_scope&) = delete;

 private:
  weight_cache* saved_;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/weight_cache.hpp

namespace dimgraph::detail {

// The per-core L2 cache size the OS reports, 512 KiB where it reports none.
inline std::size_t l2_cache_bytes() {
  static const std::size_t bytes = [] {
#if defined(_SC_LEVEL2_CACHE_SIZE)
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (reported > 0) return static_cast<std::size_t>(reported);
#endif
    return std::size_t{512} * 1024;
  }();
  return bytes;
}

// When the unpacked kernels run instead of gemm_blocked. gemm_rows reads B in place, once per
// gemm_blocking::mr rows of A; gemm_blocked copies B into slivers once and then reads those
// from the cache. So gemm_rows while one pass over B does (m <= mr), or while B fits in half
// the L2 cache (the rest for A's rows and C), where the later passes find it. gemm_dots (B
// stored n-major, which packing would transpose) up to gemm_dots_rows rows of A. Measured with
// AVX-512 (GCC 12, -O3 -march=native, float) on a 2-core KVM guest of a Xeon (2 MiB L2, two
// 512-bit FMA units), m from 1 to 4096, n and k from 128 to 4096: with B up to 1 MiB gemm_rows
// took 0.7 to 0.99 of gemm_blocked's time at every m; with B of 2.25 MiB or more and m >= 64,
// 1.07 to 3.9 times as long. gemm_dots took 0.57 to 0.87 of gemm_blocked's time at m = 32,
// 0.86 to 1.29 at m = 64 (the less the deeper), 1.3 to 2 at m = 256.
inline constexpr std::size_t gemm_dots_rows = 48;

// Whether gemm_rows is the kernel for m rows of A times B [k, n] (see above).
template <class T, class Isa>
bool gemm_rows_pays(std::size_t m, std::size_t n, std::size_t k) {
  const double b_bytes = static_cast<double>(n) * static_cast<double>(k) * sizeof(T);
  return m <= gemm_blocking<T, Isa>::mr || b_bytes <= static_cast<double>(l2_cache_bytes()) / 2;
}

// The kernels behind one matrix product, chosen once for the whole product (so that a part
// of it on a thread runs the same kernel and sums in the same order).
enum class matmul_kernel { zero, gemv_rows, gemv_columns, dots, rows, blocked };

template <class T, class Isa = gemm_target_isa>
matmul_kernel choose_matmul(const matmul_operands<T>& op, std::size_t m, std::size_t n,
                            std::size_t k) {
  if (k == 0) return matmul_kernel::zero;
  if (n == 1 && op.am->affine && op.ak->affine && op.bk->affine && op.cm->affine)
    return matmul_kernel::gemv_rows;
  if (m == 1 && op.bn->affine && op.bk->affine && op.ak->affine && op.cn->affine)
    return matmul_kernel::gemv_columns;
  if (op.ak->unit() && op.bk->unit() && !op.bn->unit() && op.am->affine && op.bn->affine &&
      m <= gemm_dots_rows)
    return matmul_kernel::dots;
  if (op.bn->unit() && op.am->affine && op.ak->affine && op.bk->affine &&
      gemm_rows_pays<T, Isa>(m, n, k))
    return matmul_kernel::rows;
  return matmul_kernel::blocked;
}

// (packed_b: B packed whole for the blocked kernel, which is then the kernel.)
template <class T, class Isa = gemm_target_isa>
void run_matmul(matmul_kernel kernel, const matmul_operands<T>& op, std::size_t m, std::size_t n,
                std::size_t k, const T* packed_b = nullptr) {
  switch (kernel) {
    case matmul_kernel::zero:
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) op.c[op.cm->at(i) + op.cn->at(j)] = T(0);
      return;
    case matmul_kernel::gemv_rows:
      return gemv<T, Isa>(m, k, op.a, op.am->stride, op.ak->stride, op.b, op.bk->stride, op.c,
                          op.cm->stride);
    case matmul_kernel::gemv_columns:
      return gemv<T, Isa>(n, k, op.b, op.bn->stride, op.bk->stride, op.a, op.ak->stride, op.c,
                          op.cn->stride);
    case matmul_kernel::dots:
      return gemm_dots<T, Isa>(op, m, n, k);
    case matmul_kernel::rows:
      return gemm_rows<T, Isa>(op, m, n, k);
    case matmul_kernel::blocked:
      return gemm_blocked<T, Isa>(op, m, n, k, packed_b);
  }
}

// Elements [from, from + count) of group g: a group of count elements, and the offset to add
// to the operand's base pointer (an affine group keeps its stride; a table, its slice).
inline std::pair<dim_group, std::ptrdiff_t> dim_group_part(const dim_group& g, std::size_t from,
                                                           std::size_t count) {
  dim_group part;
  part.size = count;
  part.stride = g.stride;
  part.affine = g.affine;
  if (g.affine) return {std::move(part), g.at(from)};
  part.table.assign(g.table.begin() + static_cast<std::ptrdiff_t>(from),
                    g.table.begin() + static_cast<std::ptrdiff_t>(from + count));
  return {std::move(part), 0};
}

// The work of `batch` products of [m, k] by [k, n]: batch * m * n * (k + 1) multiply-adds
// and stores, saturated at 2^60 (it only decides the thread count).
inline std::size_t product_work(std::size_t batch, std::size_t m, std::size_t n, std::size_t k) {
  const double work = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) *
                      static_cast<double>(k + 1);
  return work >= 0x1p60 ? std::size_t{1} << 60 : static_cast<std::size_t>(work);
}

// The kernels compiled for instruction set Isa: run_matmul as it is for the build's own
// target; for a wider one, in a function of that target with every call inlined into it
// (flatten), so that the kernels' vector code is generated for Isa, not lowered to the
// build's narrower registers.
template <class Isa>
struct matmul_entry {
  template <class T>
  static void run(matmul_kernel kernel, const matmul_operands<T>& op, std::size_t m, std::size_t n,
                  std::size_t k, const T* packed_b = nullptr) {
    run_matmul<T, Isa>(kernel, op, m, n, k, packed_b);
  }
};

#if DIMGRAPH_DISPATCH_AVX2
struct gemm_avx2_isa : gemm_isa<32, 16, true> {};
template <>
struct matmul_entry<gemm_avx2_isa> {
  template <class T>
  DIMGRAPH_TARGET_AVX2 __attribute__((flatten)) static void run(matmul_kernel kernel,
                                                                const matmul_operands<T>& op,
                                                                std::size_t m, std::size_t n,
                                                                std::size_t k,
                                                                const T* packed_b = nullptr) {
    run_matmul<T, gemm_avx2_isa>(kernel, op, m, n, k, packed_b);
  }
};
#endif

#if DIMGRAPH_DISPATCH_AVX512
struct gemm_avx512_isa : gemm_isa<64, 32, true> {};
template <>
struct matmul_entry<gemm_avx512_isa> {
  template <class T>
  DIMGRAPH_TARGET_AVX512 __attribute__((flatten)) static void run(matmul_kernel kernel,
                                                                  const matmul_operands<T>& op,
                                                                  std::size_t m, std::size_t n,
                                                                  std::size_t k,
                                                                  const T* packed_b = nullptr) {
    run_matmul<T, gemm_avx512_isa>(kernel, op, m, n, k, packed_b);
  }
};
#endif

// C = A B by the kernels of instruction set Isa (the blocked one over packed_b when given).
// With threads, C's rows are split among them (its columns when it has one row and no packed
// B): each element of C is summed by one thread in the same order, whatever their number.
template <class T, class Isa>
void matmul_with(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k,
                 const T* packed_b) {
  const matmul_kernel kernel =
      packed_b ? matmul_kernel::blocked : choose_matmul<T, Isa>(op, m, n, k);
  const bool by_rows = m > 1 || packed_b;
  std::size_t threads = parallel_threads_for(product_work(1, m, n, k));
  if (threads > (by_rows ? m : n)) threads = by_rows ? m : n;
  if (threads <= 1) return matmul_entry<Isa>::run(kernel, op, m, n, k, packed_b);
  parallel_parts(by_rows ? m : n, threads, [&](std::size_t first, std::size_t last) {
    matmul_operands<T> part = op;
    if (by_rows) {
      const auto [am, a_off] = dim_group_part(*op.am, first, last - first);
      const auto [cm, c_off] = dim_group_part(*op.cm, first, last - first);
      part.a += a_off;
      part.c += c_off;
      part.am = &am;
      part.cm = &cm;
      matmul_entry<Isa>::run(kernel, part, last - first, n, k, packed_b);
    } else {
      const auto [bn, b_off] = dim_group_part(*op.bn, first, last - first);
      const auto [cn, c_off] = dim_group_part(*op.cn, first, last - first);
      part.b += b_off;
      part.c += c_off;
      part.bn = &bn;
      part.cn = &cn;
      matmul_entry<Isa>::run(kernel, part, m, last - first, k);
    }
  });
}

// The fewest rows of A for which a packed constant B pays: one row stays with GEMV, which
// reads B once where the blocked kernel computes a whole register tile of rows. (Measured
// with AVX-512, B [256, 1024] read from rows 768 apart: the blocked kernel over the packed B
// took 0.9 of GEMV's time at 2 rows, 0.45 at 4, and 0.25 to 0.4 of gemm_dots' from 4 to 48.)
inline constexpr std::size_t packed_b_min_rows = 2;

// For one row of A, GEMV reads a constant B from a copy without gaps (copied_b) when B has
// gaps and takes part in this many products at least. With AVX-512, B [256, 1024] read from
// rows 768 apart (an LSTM's W_h, 1 MiB): GEMV took 19 us there and 13 to 14 us over the copy,
// and the copy 31 us (82 us with B in memory rather than L3; GCC 12 -O2, float).
inline constexpr std::size_t gemv_copy_min_uses = 8;

// Whether B [k, n] has gaps between its rows along its contiguous dim (or no such dim).
inline bool has_gaps(const dim_group& bk, const dim_group& bn) {
  const auto whole = [](const dim_group& inner, const dim_group& outer) {
    return inner.unit() && outer.affine && outer.stride == static_cast<std::ptrdiff_t>(inner.size);
  };
  return !whole(bk, bn) && !whole(bn, bk);
}

// C = A B by Isa's kernels: over a packed constant B (or A, as C' = B' A') when there is one
// and two rows of A (or columns of B) or more; for one, over a copy of a constant B (or A)
// that has gaps, when it is used often enough.
template <class T, class Isa>
void matmul_at(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  weight_cache* cache = active_weight_cache();
  if (cache != nullptr && !cache->empty() && k != 0) {
    if (m >= packed_b_min_rows)
      if (const T* packed = cache->template packed_b<T, Isa>(op, n, k))
        return matmul_with<T, Isa>(op, m, n, k, packed);
    const matmul_operands<T> flipped{op.b, op.bn, op.bk, op.a, op.ak, op.am, op.c, op.cn, op.cm};
    if (n >= packed_b_min_rows)
      if (const T* packed = cache->template packed_b<T, Isa>(flipped, m, k))
        return matmul_with<T, Isa>(flipped, n, m, k, packed);
    if (cache->expected_uses() >= gemv_copy_min_uses && (m == 1 || n == 1)) {
      const matmul_operands<T>& v = m == 1 ? op : flipped;
      const std::size_t vn = m == 1 ? n : m;
      if (has_gaps(*v.bk, *v.bn))
        if (const T* copy = cache->copied_b(v, vn, k)) {
          const gemv_b_layout layout{vn, k, v.bk->unit()};
          const dim_group bk = layout.k_group(), bn = layout.n_group();
          const matmul_operands<T> over_copy{v.a, v.am, v.ak, copy, &bk, &bn, v.c, v.cm, v.cn};
          return matmul_with<T, Isa>(over_copy, 1, vn, k, static_cast<const T*>(nullptr));
        }
    }
  }
  matmul_with<T, Isa>(op, m, n, k, static_cast<const T*>(nullptr));
}

// C = A B for one batch entry: CBLAS above the threshold (when enabled and the layouts fit),
// else the GEMV kernel when m or n is 1, the unpacked kernels for few rows of A (or a B that
// stays in L2), the packed blocked kernel otherwise (the only one that takes offset tables).
template <class T>
void matmul(const matmul_operands<T>& op, std::size_t m, std::size_t n, std::size_t k) {
  if (m == 0 || n == 0) return;
#if DIMGRAPH_CONFIG_USE_CBLAS
  if (k != 0 &&
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >=
          static_cast<double>(DIMGRAPH_CONFIG_CBLAS_THRESHOLD) &&
      blas_matmul(op, m, n, k))
    return;
#endif
  switch (cpu_isa_level()) {
#if DIMGRAPH_DISPATCH_AVX512
    case isa_level::avx512:
      return matmul_at<T, gemm_avx512_isa>(op, m, n, k);
#endif
#if DIMGRAPH_DISPATCH_AVX2
    case isa_level::avx2:
      return matmul_at<T, gemm_avx2_isa>(op, m, n, k);
#endif
    default:
      return matmul_at<T, gemm_target_isa>(op, m, n, k);
  }
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/matmul.hpp

namespace dimgraph {
namespace detail {

template <class E>
inline constexpr bool is_contract_v = false;
template <class A, class B, class... Ks>
inline constexpr bool is_contract_v<contract_expr<A, B, Ks...>> = true;

// An operand as memory of element type T: a tensor or view of T as it is, anything else
// (an element-wise expression, another dot, another element type) evaluated once.
template <class T, class X>
decltype(auto) contract_operand(const X& x) {
  if constexpr (memory_operand<X> && std::is_same_v<typename X::value_type, T>) return (x);
  else if constexpr (std::is_same_v<value_t<X>, T>) return materialize(x);
  else return materialize(make_map(fn::cast_to<T>{}, x));
}

// The group of x's dims Gs... (x has them all), in the order listed.
template <class... Gs, class X>
dim_group group_of(dim_list<Gs...>, const X& x) {
  return make_dim_group<sizeof...(Gs)>({x.template extent<Gs>()...}, {x.template stride<Gs>()...});
}

// Whether a tensor or view operand of e shares memory with out.
template <class Out, class E>
bool contract_overlaps(const Out& out, const E& e) {
  const auto [lo, hi] = memory_span(out);
  const auto hits = [&](const auto& x) {
    if constexpr (memory_operand<std::remove_cvref_t<decltype(x)>>) {
      const auto [xl, xh] = memory_span(x);
      return lo != hi && xl != xh && xl < hi && lo < xh;
    } else {
      return false;
    }
  };
  return hits(e.lhs()) || hits(e.rhs());
}

// Whether dot over Ks (a dim_list) of operands A and B reads padding: a ragged dim of an
// operand (its batch dim there too) is contracted, or its batch dim is.
template <class A, class B, class Ks>
inline constexpr bool ragged_contract_v =
    ragged_over_v<dims_t<A>, Ks> || ragged_over_v<dims_t<B>, Ks>;

// v with each dim of Masked (from the K-th on) that it has cut to its length at entry i.
template <class Masked, std::size_t K = 0, class V, class Lengths>
auto cut_to_lengths(const V& v, std::size_t i, const Lengths& lengths) {
  if constexpr (K == Masked::size) {
    return v;
  } else {
    using E = at_t<K, types_of_t<Masked>>;
    if constexpr (list_contains_v<dims_t<V>, E>)
      return cut_to_lengths<Masked, K + 1>(
          leading_view<E>(v, static_cast<std::size_t>(lengths[K][i])), i, lengths);
    else return cut_to_lengths<Masked, K + 1>(v, i, lengths);
  }
}

// The valid part at entry i of the batch dim Bt of x: a view of x with Bt fixed at i (when x
// has it) and each dim of Masked (the ragged dims over Bt) cut to its length at i.
template <class Bt, class Masked, class X, class Lengths>
auto valid_part(X& x, std::size_t i, const Lengths& lengths) {
  if constexpr (list_contains_v<dims_t<std::remove_const_t<X>>, Bt>)
    return cut_to_lengths<Masked>(entry_view<Bt>(x, i), i, lengths);
  else return cut_to_lengths<Masked>(without_lengths(x), i, lengths);
}

template <class Out, class A, class B, class... Ks>
void contract_into(const Out& out, const contract_expr<A, B, Ks...>& e);

// out = dot over Ks... where padding must be left out (ragged_contract_v): one product per entry
// i of the ragged dims' batch dim Bt, over the valid part at i (valid_part) of each operand, so
// no padding is read and no work is done on it. Where Bt is kept, the product at i is out's
// entry i (the ragged dims are then all contracted: a row of length 0 gives zeros); where Bt
// is contracted too, the products are summed into out (zero where no row is valid).
// Error (compile time): the ragged dims to respect have different batch dims.
template <class Out, class A, class B, class... Ks>
void contract_ragged_into(const Out& out, const contract_expr<A, B, Ks...>& e) {
  using T = value_t<contract_expr<A, B, Ks...>>;
  using contracted = dim_list<Ks...>;
  using masked =
      list_union_t<masked_dims_t<dims_t<A>, contracted>, masked_dims_t<dims_t<B>, contracted>>;
  using Bt = ragged_batch_t<front_t<types_of_t<masked>>>;
  constexpr bool one_batch = []<class... Es>(dim_list<Es...>) {
    return (std::is_same_v<ragged_batch_t<Es>, Bt> && ...);
  }(masked{});
  static_assert(one_batch,
                "dimgraph: dot: the contraction reads ragged dims over different batch dims; "
                "contract over one batch dim's ragged dims at a time");
  if constexpr (one_batch) {
    auto&& a = contract_operand<T>(e.lhs());
    auto&& b = contract_operand<T>(e.rhs());
    const std::size_t rows = [&] {
      if constexpr (list_contains_v<dims_t<A>, Bt>) return a.template extent<Bt>();
      else return b.template extent<Bt>();
    }();
    // Each masked dim's lengths (full where none are given), in masked's order.
    const auto lengths = [&]<class... Es>(dim_list<Es...>) {
      const auto one = [&]<class E>(std::type_identity<E>) {
        lengths_ref l = lengths_in<E>(e.lhs());
        if (!l) l = lengths_in<E>(e.rhs());
        if (l) return *l;
        if constexpr (list_contains_v<dims_t<A>, E>)
          return std::vector<std::int64_t>(rows, static_cast<std::int64_t>(a.template extent<E>()));
        else
          return std::vector<std::int64_t>(rows, static_cast<std::int64_t>(b.template extent<E>()));
      };
      return std::array<std::vector<std::int64_t>, sizeof...(Es)>{one(std::type_identity<Es>{})...};
    }(masked{});
    if constexpr (list_contains_v<contracted, Bt>) {
      // Bt contracted: out is the sum over i of the product of the valid parts at i.
      for_each_offset<Out::rank>(out.shape().extents(), out.strides(),
                                 [&](std::ptrdiff_t off) { out.data()[off] = T(0); });
      for (std::size_t i = 0; i < rows; ++i) {
        const auto av = valid_part<Bt, masked>(a, i, lengths);
        const auto bv = valid_part<Bt, masked>(b, i, lengths);
        const auto ov = valid_part<Bt, masked>(out, i, lengths);
        [&]<class... Rest>(dim_list<Rest...>) {
          const auto part =
              materialize(contract_expr<std::remove_const_t<decltype(av)>,
                                        std::remove_const_t<decltype(bv)>, Rest...>(av, bv));
          assign_elementwise<false>(ov, ov + part);
        }(list_difference_t<contracted, dim_list<Bt>>{});
      }
    } else {
      for (std::size_t i = 0; i < rows; ++i) {
        const auto av = valid_part<Bt, masked>(a, i, lengths);
        const auto bv = valid_part<Bt, masked>(b, i, lengths);
        contract_into(entry_view<Bt>(out, i),
                      contract_expr<std::remove_const_t<decltype(av)>,
                                    std::remove_const_t<decltype(bv)>, Ks...>(av, bv));
      }
    }
  }
}

// out = dot (out's extents already match). The dims split into four groups: batch (in both
// operands, not contracted), M (only in a), K (contracted, in a's order) and N (only in b).
// Each operand sees each of its groups as one affine index where its strides allow, else
// through an offset table; per batch entry the product is one matrix product.
// Error: out shares memory with an operand (overlap_error), before any write.
template <class Out, class A, class B, class... Ks>
void contract_into(const Out& out, const contract_expr<A, B, Ks...>& e) {
  using T = value_t<contract_expr<A, B, Ks...>>;
  if constexpr (!std::is_same_v<typename Out::value_type, T>) {
    const auto tmp = materialize(e);
    assign_elementwise<false>(out, tmp);
  } else if constexpr (ragged_contract_v<A, B, dim_list<Ks...>>) {
    if (contract_overlaps(out, e))
      throw overlap_error("dot",
                          "the output shares memory with an operand; evaluate into a new tensor");
    contract_ragged_into(out, e);
  } else {
    if (contract_overlaps(out, e))
      throw overlap_error("dot",
                          "the output shares memory with an operand; evaluate into a new tensor");
    auto&& a = contract_operand<T>(e.lhs());
    auto&& b = contract_operand<T>(e.rhs());
    using adims = dims_t<A>;
    using bdims = dims_t<B>;
    using kdims = list_intersection_t<adims, dim_list<Ks...>>;
    using batch = list_difference_t<list_intersection_t<adims, bdims>, kdims>;
    using mdims = list_difference_t<adims, bdims>;
    using ndims = list_difference_t<bdims, adims>;
    const auto group = [](const auto& x, auto dims) { return group_of(dims, x); };
    const dim_group am = group(a, mdims{});
    const dim_group ak = group(a, kdims{});
    const dim_group bk = group(b, kdims{});
    const dim_group bn = group(b, ndims{});
    const dim_group cm = group(out, mdims{});
    const dim_group cn = group(out, ndims{});
    const dim_group ab = group(a, batch{});
    const dim_group bb = group(b, batch{});
    const dim_group cb = group(out, batch{});
    // (An operand with no elements may have no storage: its offsets are then not added.)
    const auto at = [](auto* p, std::ptrdiff_t offset) { return p ? p + offset : p; };
    const auto entries = [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        const matmul_operands<T> op{at(a.data(), ab.at(i)),   &am, &ak,
                                    at(b.data(), bb.at(i)),   &bk, &bn,
                                    at(out.data(), cb.at(i)), &cm, &cn};
        matmul(op, am.size, bn.size, ak.size);
      }
    };
    // With threads and at least as many batch entries, whole entries per thread (each
    // product then runs on its thread alone); otherwise each product splits its rows.
    std::size_t threads = 1;
    if (cb.size > 1) {
      threads = parallel_threads_for(product_work(cb.size, am.size, bn.size, ak.size));
    }
    if (threads > 1 && cb.size >= threads) parallel_parts(cb.size, threads, entries);
    else entries(0, cb.size);
  }
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/eval/contract.hpp

namespace dimgraph {
namespace detail {

template <class Dst, class E>
constexpr bool assign_dims_match() {
  return list_same_set_v<typename Dst::dims, dims_t<E>>;
}

// Compile-time checks of out = e, at the entry point (one message per mistake).
template <class Dst, class E>
constexpr bool check_assign() {
  constexpr bool dims_ok = assign_dims_match<Dst, E>();
  DIMGRAPH_REQUIRE(
      dims_ok, "dimgraph: assign: the expression's dims are not the destination's dims",
      detail::operand_role_t<"destination", Dst>, detail::operand_role_t<"expression", E>);
  constexpr bool narrowing = dims_ok && is_narrowing_v<value_t<E>, typename Dst::value_type>;
  DIMGRAPH_REQUIRE(!narrowing,
                   "dimgraph: assign: the expression's element type would narrow to the "
                   "destination's; use dg::cast<T>",
                   detail::operand_role_t<"destination", Dst>,
                   detail::operand_role_t<"expression", E>, typename Dst::value_type, value_t<E>);
  return dims_ok && !narrowing;
}

// The expression's extents in the destination's dim order.
template <class... Ds, class E>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::size_t, sizeof...(Ds)> extents_in_order(
    dim_list<Ds...>, const E& e) {
  return {e.template extent<Ds>()...};
}

// (Cold and out of line: the message is built only when it is thrown.)
template <class... Ds, std::size_t R>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_extent_mismatch(
    dim_list<Ds...>, const std::array<std::size_t, R>& have,
    const std::array<std::size_t, R>& want) {
  std::string what;
  std::size_t i = 0;
  ((what.empty() && have[i] != want[i]
        ? void(what = "dim '" + describe<Ds>() + "' has extent " + std::to_string(have[i]) +
                      " in the destination and " + std::to_string(want[i]) + " in the expression")
        : void(),
    ++i),
   ...);
  throw shape_error("assign", what);
}

template <class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void check_extents(const Dst& dst, const E& e) {
  if constexpr (Dst::rank > 0) {
    const auto want = extents_in_order(typename Dst::dims{}, e);
    const auto have = dst.shape().extents();
    if (want != have) throw_extent_mismatch(typename Dst::dims{}, have, want);
  }
}

// dst = a reduction: accumulated into a fresh tensor (so dst may even share memory with
// the input), then written to dst (divided by the count for a mean). Over a ragged dim or its
// batch dim, padding is masked out (reduce_ragged_into).
// Error: max or min over no elements, or over a row of length 0 (shape_error), before anything
// is written.
template <class Dst, class Op, class X, class... Rs>
DIMGRAPH_ALWAYS_INLINE inline void reduce_into(Dst& dst, const reduce_expr<Op, X, Rs...>& e) {
  using node = reduce_expr<Op, X, Rs...>;
  using acc_t = typename Op::template acc<value_t<X>>;
  using result_t = value_t<node>;
  const auto& x = e.source();
  if constexpr (Op::empty_is_error)
    if (e.count() == 0) throw_empty_reduction<Rs...>(Op::name, x);
  if constexpr (ragged_over_v<dims_t<X>, dim_list<Rs...>>) {
    reduce_ragged_into<Op, Rs...>(dst, x);
  } else {
    auto acc = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
      return tensor<acc_t, Ds...>(
          shape<Ds...>::from_extents({x.template extent<Ds>()...}, Op::name));
    }(std::type_identity<typename node::dims>{});
    constexpr acc_t identity = Op::template identity<acc_t>();
    if constexpr (identity != acc_t(0)) std::fill_n(acc.data(), acc.size(), identity);
    accumulate<Op, acc_t>(acc, x);
    constexpr bool mean = std::is_same_v<Op, fn::mean_reduce>;
    write_reduction<mean, result_t>(dst, acc, mean ? static_cast<double>(e.count()) : 1.0);
  }
}

// The lengths of e's ragged dims given to the shape s (of e's extents).
template <class... Ds, class E>
void take_lengths_of(shape<Ds...>& s, const E& e, const char* op) {
  auto one = [&]<class D>(std::type_identity<D>) {
    if constexpr (carries_lengths_v<D, dim_list<Ds...>>)
      s.template set_lengths<D>(op, lengths_in<D>(e));
  };
  (one(std::type_identity<Ds>{}), ...);
}

// A view keeps its lengths: e's must be the same, or full. Error: shape_error naming the dim.
template <class... Ds, class E>
void check_view_lengths(const shape<Ds...>& s, const E& e) {
  auto one = [&]<class D>(std::type_identity<D>) {
    if constexpr (carries_lengths_v<D, dim_list<Ds...>>) {
      lengths_ref mine = s.template lengths<D>();
      merge_lengths<D>("assign", mine, lengths_in<D>(e));
    }
  };
  (one(std::type_identity<Ds>{}), ...);
}

// New memory for an assignment that changes a tensor's extents, made and handed over out of
// line (cold), so the steady-state assignment keeps no allocation or call in its body and the
// kernel is compiled once for both.
template <class Dst>
struct fresh_tensor {
  Dst* ptr = nullptr;
  [[gnu::cold]] DIMGRAPH_NOINLINE void make(const typename Dst::shape_type& s) {
    ptr = new Dst(tensor_internals::for_overwrite<Dst>(s));
  }
  [[gnu::cold]] DIMGRAPH_NOINLINE void move_to(Dst& out) {
    out = std::move(*ptr);
    discard();
  }
  [[gnu::cold]] DIMGRAPH_NOINLINE void discard() {
    delete ptr;
    ptr = nullptr;
  }
  fresh_tensor() = default;
  fresh_tensor(const fresh_tensor&) = delete;
  fresh_tensor& operator=(const fresh_tensor&) = delete;
  ~fresh_tensor() {
    if (ptr) [[unlikely]]
      discard();  // (an exception left the assignment)
  }
};

// The shape of a tensor Dst that takes e's extents. Error: an extent outside its dim's interval
// (shape_error, named after the operation: dot for a product, else assign).
template <class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline typename Dst::shape_type shape_for(const E& e) {
  if constexpr (Dst::is_static) {
    return {};
  } else {
    const char* op = is_contract_v<E> ? "dot" : "assign";
    auto s = Dst::shape_type::from_extents(extents_in_order(typename Dst::dims{}, e), op);
    if constexpr (Dst::shape_type::ragged_count > 0) take_lengths_of(s, e, op);
    return s;
  }
}

// dst = e once dst has e's extents: the one place that tells the kinds of evaluation apart. A
// product runs as matrix products (checking that dst shares no memory with an operand), a
// reduction accumulates, anything else is one fused element-wise kernel (a long one out of
// line). CheckOverlap: whether dst may partially overlap an operand (a tensor under
// construction cannot).
template <bool CheckOverlap, class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void assign_into(Dst& dst, const E& e) {
  if constexpr (is_contract_v<E>) {
    if constexpr (is_tensor_v<std::remove_const_t<Dst>>) contract_into(dst.view(), e);
    else contract_into(dst, e);
  } else if constexpr (is_reduce_v<E>) {
    reduce_into(dst, e);
  } else if constexpr (evaluator_of<E>::program::size > outline_above) {
    assign_outlined<CheckOverlap>(dst, e);
  } else {
    assign_elementwise<CheckOverlap>(dst, e);
  }
}

// The operand of a map node E that is a product over exactly the dims of Dst (in any order)
// with Dst's element type, and no ragged dim anywhere: its index, or npos. A tensor under
// construction (memory nothing else reads) takes such a product first, then the map with the
// tensor in the product's place, element for element in place: no temporary for the product
// (dot(x, W) + b, tanh(dot(...))).
inline constexpr std::size_t no_product = static_cast<std::size_t>(-1);
template <class E>
inline constexpr bool ragged_product_v = false;
template <class A, class B, class... Ks>
inline constexpr bool ragged_product_v<contract_expr<A, B, Ks...>> =
    ragged_contract_v<A, B, dim_list<Ks...>>;
template <class Dst, class E>
inline constexpr std::size_t product_operand_v = no_product;
template <class Dst, class F, class Dims, class... Ops>
inline constexpr std::size_t product_operand_v<Dst, map_expr<F, Dims, Ops...>> = [] {
  std::size_t found = no_product, i = 0;
  const auto one = [&]<class Op>(std::type_identity<Op>) {
    using op = std::remove_cvref_t<Op>;
    if constexpr (is_contract_v<op>) {
      if (found == no_product && std::is_same_v<value_t<op>, typename Dst::value_type> &&
          list_same_set_v<dims_t<op>, typename Dst::dims> && dims_t<op>::size == Dst::dims::size &&
          Dst::shape_type::ragged_count == 0 && !ragged_product_v<op>)
        found = i;
    }
    ++i;
  };
  (one(std::type_identity<Ops>{}), ...);
  return found;
}();

// dst (under construction, its shape set) = e, a map node whose operand J is a product over
// dst's dims: the product into dst, then the map over dst in its place.
template <std::size_t J, class Dst, class F, class Dims, class... Ops>
void construct_through_product(Dst& dst, const map_expr<F, Dims, Ops...>& e) {
  const auto& product = e.template operand<J>();
  using product_dims = dims_t<std::remove_cvref_t<decltype(product)>>;
  [&]<class... Ps, std::size_t... Is>(dim_list<Ps...>, std::index_sequence<Is...>) {
    contract_into(permute<Ps...>(dst), product);
    const auto done = permute<Ps...>(std::as_const(dst));
    const auto operand =
        [&]<std::size_t I>(std::integral_constant<std::size_t, I>) -> decltype(auto) {
      if constexpr (I == J) return (done);
      else return e.template operand<I>();
    };
    using rest = map_expr<
        F, Dims,
        std::conditional_t<Is == J, tensor_view<const typename Dst::value_type, Ps...>, Ops>...>;
    assign_elementwise<false>(dst,
                              rest(e.fn(), operand(std::integral_constant<std::size_t, Is>{})...));
  }(product_dims{}, std::index_sequence_for<Ops...>{});
}

// The assignment hook (declared in tensor/assign_hook.hpp), for every expression: what
// tensor and tensor_view call. Errors: e's dims are not dst's, or e's element type would narrow
// to dst's (compile time); an extent that differs from a view's (shape_error); an operand that
// partially overlaps dst, or for a product shares any memory with a view (overlap_error); all
// before the first write. After a reported mistake (a poisoned e): nothing more to say.
template <class Dst, class E>
  requires assign_source<E>
struct assign_hook<Dst, E> {
  using dst_type = std::remove_const_t<Dst>;

  // dst = e. A view keeps its extents; a tensor takes e's, into new memory first when they
  // change or when a product reads dst (h = dot<H>(w, h)), so that an expression reading dst
  // stays valid. The kernel is the same either way: it is compiled once.
  DIMGRAPH_ALWAYS_INLINE static void assign(Dst& dst, const E& e) {
    if constexpr (poisoned<E>) {
      return;
    } else if constexpr (check_assign<dst_type, E>()) {
      if constexpr (is_view_v<dst_type>) {
        check_extents(dst, e);
        if constexpr (dst_type::shape_type::ragged_count > 0) check_view_lengths(dst.shape(), e);
        assign_into<true>(dst, e);
      } else if constexpr (dst_type::is_static && !is_contract_v<E>) {
        assign_into<true>(dst, e);
      } else {
        auto s = shape_for<dst_type>(e);
        bool in_place = s == dst.shape();
        if constexpr (is_contract_v<E>) in_place = in_place && !contract_overlaps(dst, e);
        fresh_tensor<dst_type> fresh;
        if (!opaque(in_place)) [[unlikely]]
          fresh.make(s);
        assign_into<true>(fresh.ptr ? *fresh.ptr : dst, e);
        if (fresh.ptr) [[unlikely]]
          fresh.move_to(dst);
        else if constexpr (dst_type::shape_type::ragged_count > 0)
          tensor_internals::take_lengths(dst, s);
      }
    }
  }

  // A tensor under construction made from e: it takes e's extents; its elements are
  // uninitialised, and every kind of evaluation writes every one.
  DIMGRAPH_ALWAYS_INLINE static void construct(Dst& dst, const E& e) {
    if constexpr (poisoned<E>) {
      return;
    } else if constexpr (check_assign<Dst, E>()) {
      if constexpr (!Dst::is_static)
        tensor_internals::reshape_for_overwrite(dst, shape_for<Dst>(e));
      if constexpr (product_operand_v<Dst, E> != no_product)
        construct_through_product<product_operand_v<Dst, E>>(dst, e);
      else assign_into<false>(dst, e);
    }
  }
};

// A node that is not element-wise (a reduction, a product), evaluated into a tensor of its own
// when it is the operand of an element-wise op (declared in expr/evaluator.hpp).
template <class E>
auto materialize(const E& e) {
  return tensor_of_list_t<value_t<E>, dims_t<E>>(e);
}

}  // namespace detail

// After a reported mistake: nothing more to say.
template <detail::poisoned E>
detail::invalid_expr eval(E&&) {
  return {};
}

// A new tensor holding the value of e (dims in e's order).
template <expression E>
auto eval(E&& e) {
  return detail::tensor_of_list_t<value_t<E>, dims_t<E>>(std::forward<E>(e));
}

// The loop plan of dst = e, as text (for tests and debugging). Its operands are the
// output ("out"), then each distinct layout of the owning tensors e reads, then each view.
template <class Dst, expression E>
std::string describe_plan(const Dst& dst, const E& e) {
  using table_t = detail::table_for<typename Dst::dims, E>;
  table_t table(dst.shape().extents(), {dst.data(), dst.strides()}, false);
  typename table_t::bases_type bases;
  (void)detail::make_kernel(e, table, bases);
  return to_string(detail::make_loop_plan<Dst::rank>(table.extents, table.strides));
}

}  // namespace dimgraph
// ---- end dimgraph/eval/assign.hpp
// ---- begin dimgraph/eval/rows.hpp
// The loops of row-by-row kernels (softmax, argmax): a call at every position of two views,
// lanes of a strided row, a fold over a row, and an uninitialised result.



DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// f(a_row, b_row) for every position of the dims of the views a and b (the same dims and
// extents, any strides): the pointers to the two elements there. Positions are the rows of a
// loop plan (ordered by b's strides), shared among threads: f writes only at b_row, and each
// call does `weight` elements' work.
template <class A, class B, class F>
DIMGRAPH_ALWAYS_INLINE inline void for_each_position(const A& a, const B& b, std::size_t weight,
                                                     F f) {
  constexpr std::size_t rank = A::rank;
  if constexpr (rank == 0) {
    f(a.data(), b.data());
  } else {
    std::array<std::array<std::ptrdiff_t, rank>, 2> strides{};
    for (std::size_t d = 0; d < rank; ++d) {
      strides[0][d] = b.strides()[d];
      strides[1][d] = a.strides()[d];
    }
    const auto plan = make_loop_plan<rank>(a.shape().extents(), strides);
    for_each_row(
        plan,
        [&](const std::array<std::ptrdiff_t, 2>& off, std::size_t n) DIMGRAPH_ALWAYS_INLINE {
          const std::ptrdiff_t sb = plan.inner_stride(0), sa = plan.inner_stride(1);
          for (std::size_t j = 0; j < n; ++j) {
            const auto i = static_cast<std::ptrdiff_t>(j);
            f(a.data() + off[1] + i * sa, b.data() + off[0] + i * sb);
          }
        },
        weight);
  }
}

// Lanes M of a row of element type V read as T, at element i (stride s, or 1 when Unit).
template <std::size_t M, bool Unit, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, M> row_lanes(const V* x, std::ptrdiff_t s,
                                                          std::size_t i) {
  if constexpr (Unit) return fn::as<T, V>(load_lanes<M>(x + i));
  else return fn::as<T, V>(load_lanes<M>(x + static_cast<std::ptrdiff_t>(i) * s, s));
}
template <std::size_t M, bool Unit, class T>
DIMGRAPH_ALWAYS_INLINE inline void put_row_lanes(T* o, std::ptrdiff_t s, std::size_t i,
                                                 fn::lanes_t<T, M> v) {
  if constexpr (Unit) store_lanes<M>(o + i, v);
  else store_lanes<M>(o + static_cast<std::ptrdiff_t>(i) * s, s, v);
}

// f.template operator()<M>(j) for the w columns [j, j + M) of a block of rows: vectors of L
// columns (M = L), then the last w % L columns one at a time (M = 1).
template <std::size_t L, class F>
DIMGRAPH_ALWAYS_INLINE inline void for_columns(std::size_t w, const F& f) {
  std::size_t j = 0;
  for (; j + L <= w; j += L) f.template operator()<L>(j);
  for (; j < w; ++j) f.template operator()<1>(j);
}

// fold(acc, lanes) over a row of n elements: L-lane vectors (into four accumulators when
// Chains is 4: a cheap fold is a chain of dependent instructions, and one accumulator would
// wait on it at every vector), then the vector's lanes folded as a tree, then the rest in
// parts of fewer lanes (for_pieces), each folded as a tree.
template <std::size_t L, std::size_t Chains, class T, class Load, class Fold>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, 1> fold_row(std::size_t n, T identity,
                                                         const Load& load, const Fold& fold) {
  static_assert(Chains == 1 || Chains == 4);
  auto acc = simd::splat<T, L>(identity);
  std::size_t i = 0;
  if constexpr (Chains == 4) {
    if (n >= 4 * L) {
      auto acc1 = acc, acc2 = acc, acc3 = acc;
      for (; i + 4 * L <= n; i += 4 * L) {
        acc = fold(acc, load.template operator()<L>(i));
        acc1 = fold(acc1, load.template operator()<L>(i + L));
        acc2 = fold(acc2, load.template operator()<L>(i + 2 * L));
        acc3 = fold(acc3, load.template operator()<L>(i + 3 * L));
      }
      acc = fold(fold(acc, acc1), fold(acc2, acc3));
    }
  }
  for (; i + L <= n; i += L) acc = fold(acc, load.template operator()<L>(i));
  auto one = simd::fold_lanes(acc, fold);
  for_pieces<L, 4>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
    one = fold(one, simd::fold_lanes(load.template operator()<M>(at), fold));
  });
  return one;
}

// A new tensor with x's dims and element type T whose elements the caller writes.
template <class T, class X>
auto uninitialized_like(const X& x) {
  return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return tensor_internals::for_overwrite<tensor<T, Ds...>>(x.shape());
  }(std::type_identity<typename X::dims>{});
}

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
// ---- end dimgraph/eval/rows.hpp
// ---- begin dimgraph/eval/softmax.hpp
// The kernels of softmax and log_softmax: row by row, and over ragged dims with masks.



DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// Softmax (or, with Log, log-softmax) of one row of n elements (x steps by xs, o by os; by 1
// when Unit): the max, exp(x - max) and its sum, then the scaling (or x - max - log(sum)).
// As in PyTorch, a row holding +inf or only -inf gives NaN, and NaN propagates.
template <bool Log, bool Unit, class T, class V,
          std::size_t L = simd::lanes_for(sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V))>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row(T* o, std::ptrdiff_t os, const V* x,
                                               std::ptrdiff_t xs, std::size_t n) {
  const auto in = [&]<std::size_t M>(std::size_t i)
                      DIMGRAPH_ALWAYS_INLINE { return row_lanes<M, Unit, T>(x, xs, i); };
  // The row's max without NaN propagation (one max instruction per vector): a NaN in the row
  // makes the sum below NaN, and with it every output, whatever the max is.
  const auto largest = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return a > b ? a : b; };
  const T m = fold_row<L, 4>(n, fn::max_reduce::identity<T>(), in, largest)[0];
  const auto shifted_exp = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    const auto d = in.template operator()<M>(i) - m;
    const auto e = simd::exp(d);
    put_row_lanes<M, Unit>(o, os, i, Log ? d : e);
    return e;
  };
  const auto add = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return a + b; };
  // (One accumulator: each vector's exp takes longer than the addition that waits on it.)
  const T sum = fold_row<L, 1>(n, T(0), shifted_exp, add)[0];
  const auto out = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (Unit) return load_lanes<M>(o + i);
    else return load_lanes<M>(o + static_cast<std::ptrdiff_t>(i) * os, os);
  };
  if constexpr (Log) {
    const T log_sum = simd::log(simd::splat<T, 1>(sum))[0];
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) - log_sum);
    for_pieces<L, 4>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
      put_row_lanes<M, Unit>(o, os, at, out.template operator()<M>(at) - log_sum);
    });
  } else {
    const T scale = T(1) / sum;
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) * scale);
    for_pieces<L, 4>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
      put_row_lanes<M, Unit>(o, os, at, out.template operator()<M>(at) * scale);
    });
  }
}

// Contiguous rows of at least this many elements run softmax_row compiled for the widest
// instruction set the CPU has (run-time dispatch; a build for a narrower target, such as
// x86-64's default SSE2, otherwise runs a 512-element row in vectors of 4 floats: W4b took
// 2.5 times as long). Shorter rows stay in the build's own: a call per row, and more of the
// row in parts of fewer lanes.
inline constexpr std::size_t dispatch_row_from = 32;

// softmax_row of a contiguous row compiled for AVX-512 and for AVX2 with FMA, in vectors of
// that width. (Its results may differ from the build's own in the last bit: the compiler may
// fuse multiply-adds there.)
template <bool Log, class T, class V>
struct softmax_row_isa {
  static constexpr std::size_t wider = sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V);
#if DIMGRAPH_DISPATCH_HELPERS_AVX512
  DIMGRAPH_TARGET_AVX512 static void avx512(T* o, const V* x, std::size_t n) {
    softmax_row<Log, true, T, V, 64 / wider>(o, 1, x, 1, n);
  }
#endif
#if DIMGRAPH_DISPATCH_HELPERS_AVX2
  DIMGRAPH_TARGET_AVX2 static void avx2(T* o, const V* x, std::size_t n) {
    softmax_row<Log, true, T, V, 32 / wider>(o, 1, x, 1, n);
  }
#endif
};
template <bool Log, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row_at([[maybe_unused]] isa_level level, T* o,
                                                  const V* x, std::size_t n) {
  switch (level) {
#if DIMGRAPH_DISPATCH_HELPERS_AVX512
    case isa_level::avx512:
      return softmax_row_isa<Log, T, V>::avx512(o, x, n);
#endif
#if DIMGRAPH_DISPATCH_HELPERS_AVX2
    case isa_level::avx2:
      return softmax_row_isa<Log, T, V>::avx2(o, x, n);
#endif
    default:
      return softmax_row<Log, true>(o, 1, x, 1, n);
  }
}

// The level a contiguous row of n elements runs at: the CPU's for a row of dispatch_row_from
// elements or more, else the build's own.
DIMGRAPH_ALWAYS_INLINE inline isa_level row_level([[maybe_unused]] std::size_t n) {
  if constexpr (DIMGRAPH_DISPATCH_HELPERS_AVX512 || DIMGRAPH_DISPATCH_HELPERS_AVX2)
    return n >= dispatch_row_from ? cpu_isa_level() : isa_level::target;
  else return isa_level::target;
}

// Softmax (Log: log-softmax) over D of a block of n rows along D (x steps by xs, o by os) by
// w columns (the inner dim, contiguous in x and o), in vectors of columns: the max and then
// the sum of each column kept in m and s (w elements each), in three passes over the rows in
// memory order, where the row kernel would read each column element by element with a
// stride. The same function as softmax_row column by column (a column's NaN or +inf makes
// its sum, and so all of it, NaN whatever its max is); sums are taken in row order.
template <bool Log, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_columns(T* o, std::ptrdiff_t os, const V* x,
                                                   std::ptrdiff_t xs, std::size_t n, std::size_t w,
                                                   T* m, T* s) {
  constexpr std::size_t L = simd::lanes_for(sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V));
  const auto columns = [w](const auto& f) DIMGRAPH_ALWAYS_INLINE { for_columns<L>(w, f); };
  const auto x_row = [&](std::size_t t)
                         DIMGRAPH_ALWAYS_INLINE { return x + static_cast<std::ptrdiff_t>(t) * xs; };
  const auto o_row = [&](std::size_t t)
                         DIMGRAPH_ALWAYS_INLINE { return o + static_cast<std::ptrdiff_t>(t) * os; };
  columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    store_lanes<M>(m + j, row_lanes<M, true, T>(x_row(0), 1, j));
    store_lanes<M>(s + j, simd::splat<T, M>(T(0)));
  });
  for (std::size_t t = 1; t < n; ++t)
    columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
      const auto a = load_lanes<M>(m + j);
      const auto v = row_lanes<M, true, T>(x_row(t), 1, j);
      store_lanes<M>(m + j, v > a ? v : a);
    });
  for (std::size_t t = 0; t < n; ++t)
    columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
      const auto d = row_lanes<M, true, T>(x_row(t), 1, j) - load_lanes<M>(m + j);
      const auto e = simd::exp(d);
      put_row_lanes<M, true>(o_row(t), 1, j, Log ? d : e);
      store_lanes<M>(s + j, load_lanes<M>(s + j) + e);
    });
  // m becomes what each column's elements are scaled by (1 / sum) or shifted by (log sum).
  columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    const auto sum = load_lanes<M>(s + j);
    if constexpr (Log) store_lanes<M>(m + j, simd::log(sum));
    else store_lanes<M>(m + j, T(1) / sum);
  });
  for (std::size_t t = 0; t < n; ++t)
    columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
      const auto v = load_lanes<M>(o_row(t) + j);
      const auto c = load_lanes<M>(m + j);
      put_row_lanes<M, true>(o_row(t), 1, j, Log ? v - c : v * c);
    });
}

// Softmax over D of a tensor or view, row by row: each row (all of D at one position of
// the other dims) is read and written while it is in cache, in three short passes.
template <class D, bool Log, class X>
DIMGRAPH_ALWAYS_INLINE inline auto softmax_rows(const X& x) {
  using V = typename X::value_type;
  using T = fn::float_of_t<V>;
  auto out = uninitialized_like<T>(x);
  const std::size_t n = x.template extent<D>();
  if (n == 0 || out.size() == 0) return out;
  const std::ptrdiff_t xs = x.template stride<D>(), os = out.template stride<D>();
  using inner = last_or_void_t<typename X::dims>;
  if constexpr (!std::is_same_v<inner, D>) {
    // D is not the inner dim: a block of all of D by all of the inner dim at a time, by
    // columns (softmax_columns), when the inner dim is contiguous.
    if (xs != 1 && x.template stride<inner>() == 1 && out.template stride<inner>() == 1) {
      const std::size_t w = x.template extent<inner>();
      for_each_position(x[dimgraph::at<D>(0)][dimgraph::at<inner>(0)],
                        out[dimgraph::at<D>(0)][dimgraph::at<inner>(0)], n * w,
                        [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                          // (Per block, so that threads do not share it; on the stack when small.
                          // Cache-line aligned, as a tensor: the columns are read in vectors.)
                          constexpr std::size_t on_stack = 1024;
                          if (w <= on_stack) {
                            alignas(storage_alignment) T scratch[2 * on_stack];
                            softmax_columns<Log>(o, os, xr, xs, n, w, scratch, scratch + w);
                          } else {
                            heap_storage<T> scratch(for_overwrite_t{}, 2 * w);
                            softmax_columns<Log>(o, os, xr, xs, n, w, scratch.data(),
                                                 scratch.data() + w);
                          }
                        });
      return out;
    }
  }
  const isa_level level = row_level(n);
  for_each_position(x[dimgraph::at<D>(0)], out[dimgraph::at<D>(0)], n,
                    [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                      if (xs == 1 && os == 1) softmax_row_at<Log>(level, o, xr, n);
                      else softmax_row<Log, false>(o, os, xr, xs, n);
                    });
  return out;
}

// Softmax (Log: log-softmax) over D of a tensor or view whose only dim to mask is D itself
// (ragged, its batch dim in x): the row of each batch entry over its own length, and fill at
// the padding (0, or -inf for log-softmax; an empty row is all fill).
template <class D, bool Log, class X>
auto softmax_ragged_rows(const X& x) {
  using B = ragged_batch_t<D>;
  using V = typename X::value_type;
  using T = fn::float_of_t<V>;
  auto out = uninitialized_like<T>(x);
  const std::size_t n = x.template extent<D>();
  if (n == 0 || out.size() == 0) return out;
  const lengths_ref lens = lengths_in<D>(x);
  const std::ptrdiff_t xs = x.template stride<D>(), os = out.template stride<D>();
  constexpr T fill = Log ? -std::numeric_limits<T>::infinity() : T(0);
  for (std::size_t b = 0, rows = x.template extent<B>(); b < rows; ++b) {
    const auto len = lens ? static_cast<std::size_t>((*lens)[b]) : n;
    const auto xb = entry_view<B>(x, b);
    const auto ob = entry_view<B>(out, b);
    for_each_position(xb[dimgraph::at<D>(0)], ob[dimgraph::at<D>(0)], n,
                      [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                        if (len != 0) {
                          if (xs == 1 && os == 1) softmax_row_at<Log>(row_level(len), o, xr, len);
                          else softmax_row<Log, false>(o, os, xr, xs, len);
                        }
                        for (std::size_t j = len; j < n; ++j)
                          o[static_cast<std::ptrdiff_t>(j) * os] = fill;
                      });
  }
  return out;
}

// Softmax over D of a tensor or view with ragged dims to mask (masked_dims_t over D): D's
// padding, or (D a batch dim) the entries of D at which a ragged dim's position is past its
// length. The masked positions read -inf (probability 0) and are written fill afterwards, so
// a row with no valid position is all fill. Each row of D alone: softmax_ragged_rows.
template <class D, bool Log, class X>
auto softmax_ragged(const X& x) {
  using masked = masked_dims_t<dims_t<X>, dim_list<D>>;
  if constexpr (std::is_same_v<masked, dim_list<D>>) {
    return softmax_ragged_rows<D, Log>(x);
  } else {
    using T = fn::float_of_t<typename X::value_type>;
    constexpr T inf = std::numeric_limits<T>::infinity();
    return with_position_type(x, masked{}, [&]<class I>(std::type_identity<I>) {
      const auto mask = make_ragged_mask<I>(x, masked{});
      const auto masked_x = materialize(mask.apply(make_map(fn::cast_to<T>{}, x), -inf));
      auto out = softmax_rows<D, Log>(without_lengths(masked_x));
      assign_elementwise<false>(out, mask.apply(out, Log ? -inf : T(0)));
      tensor_internals::take_lengths(out, masked_x.shape());
      return out;
    });
  }
}

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
// ---- end dimgraph/eval/softmax.hpp
// ---- begin dimgraph/eval/arg_extreme.hpp
// The kernels of argmax and argmin: row by row (vectorised), over ragged rows, and masked.



namespace dimgraph::detail {

// Whether b (at a later position) replaces a as the extreme (lanes of T): a NaN counts as more
// extreme than any number, and the first NaN stays.
template <bool Max, class T, class Lanes>
DIMGRAPH_ALWAYS_INLINE inline auto arg_replaces(Lanes b, Lanes a) {
  if constexpr (std::is_floating_point_v<T>) return (Max ? a < b : b < a) | ((b != b) & (a == a));
  else return Max ? a < b : b < a;
}

// The first position of the largest (Max) or smallest element of a row of n > 0 elements; a
// NaN counts as more extreme than any number (the first NaN wins, as torch.argmax).
template <bool Max, bool Unit, class V>
DIMGRAPH_ALWAYS_INLINE inline std::int64_t arg_extreme_row(const V* x, std::ptrdiff_t xs,
                                                           std::size_t n) {
  using T = simd::lane_t<V>;
  constexpr std::size_t L = simd::lanes_for(sizeof(std::int64_t));
  const auto in = [&]<std::size_t M>(std::size_t i)
                      DIMGRAPH_ALWAYS_INLINE { return row_lanes<M, Unit, T>(x, xs, i); };
  const auto better = [](auto b, auto a)
                          DIMGRAPH_ALWAYS_INLINE { return arg_replaces<Max, T>(b, a); };
  std::size_t i = 0;
  T best_value = x[0];
  std::int64_t best_at = 0;
  if (n >= L) {
    auto best = in.template operator()<L>(0);
    simd::vec<std::int64_t, L> at{}, iota{};
    for (std::size_t l = 0; l < L; ++l) iota[l] = at[l] = static_cast<std::int64_t>(l);
    for (i = L; i + L <= n; i += L) {
      const auto v = in.template operator()<L>(i);
      const auto take = better(v, best);
      best = take ? v : best;
      at = simd::convert<std::int64_t>(take) ? iota + static_cast<std::int64_t>(i) : at;
    }
    best_value = best[0];
    best_at = at[0];
    for (std::size_t l = 1; l < L; ++l) {
      const auto b = simd::splat<T, 1>(best[l]), a = simd::splat<T, 1>(best_value);
      const bool wins = better(b, a)[0] || (!better(a, b)[0] && at[l] < best_at);
      if (wins) {
        best_value = best[l];
        best_at = at[l];
      }
    }
  } else {
    i = 1;
  }
  for (; i < n; ++i) {
    const auto v = in.template operator()<1>(i);
    if (better(v, simd::splat<T, 1>(best_value))[0]) {
      best_value = v[0];
      best_at = static_cast<std::int64_t>(i);
    }
  }
  return best_at;
}

// The positions o[0, w) of the extreme elements of the w columns of a block of n > 0 rows (x
// steps by xs from row to row, by 1 along a row), in vectors of columns: the same choice as
// arg_extreme_row makes along each column, where that would read each column with a stride.
template <bool Max, class I, class V>
DIMGRAPH_ALWAYS_INLINE inline void arg_extreme_columns(I* o, const V* x, std::ptrdiff_t xs,
                                                       std::size_t n, std::size_t w) {
  using T = simd::lane_t<V>;
  constexpr std::size_t L = simd::lanes_for(sizeof(std::int64_t));
  const auto block = [&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    auto best = row_lanes<M, true, T>(x, 1, j);
    simd::vec<std::int64_t, M> at{};
    for (std::size_t t = 1; t < n; ++t) {
      const auto v = row_lanes<M, true, T>(x + static_cast<std::ptrdiff_t>(t) * xs, 1, j);
      const auto take = arg_replaces<Max, T>(v, best);
      best = take ? v : best;
      at = simd::convert<std::int64_t>(take) ? simd::splat<std::int64_t, M>(std::int64_t(t)) : at;
    }
    for (std::size_t l = 0; l < M; ++l) o[j + l] = I(at[l]);
  };
  for_columns<L>(w, block);
}

// out = the position of the extreme element along D of x (D's extent n > 0; out has x's other
// dims, in x's order).
template <class D, bool Max, class X, class Out>
DIMGRAPH_ALWAYS_INLINE inline void arg_extreme_into(const X& x, const Out& out) {
  using V = typename X::value_type;
  const std::size_t n = x.template extent<D>();
  if (out.size() == 0) return;
  const std::ptrdiff_t xs = x.template stride<D>();
  using inner = last_or_void_t<typename X::dims>;
  if constexpr (!std::is_same_v<inner, D>) {
    // D is not the inner dim: all of D by all of the inner dim at a time, by columns, when the
    // inner dim is contiguous in x and out.
    if (xs != 1 && x.template stride<inner>() == 1 && out.template stride<inner>() == 1) {
      const std::size_t w = x.template extent<inner>();
      for_each_position(x[dimgraph::at<D>(0)][dimgraph::at<inner>(0)], out[dimgraph::at<inner>(0)],
                        n * w, [&](const V* xr, index<D>* o) DIMGRAPH_ALWAYS_INLINE {
                          arg_extreme_columns<Max>(o, xr, xs, n, w);
                        });
      return;
    }
  }
  for_each_position(x[dimgraph::at<D>(0)], out, n,
                    [&](const V* xr, index<D>* o) DIMGRAPH_ALWAYS_INLINE {
                      *o = index<D>(xs == 1 ? arg_extreme_row<Max, true>(xr, 1, n)
                                            : arg_extreme_row<Max, false>(xr, xs, n));
                    });
}

// A new tensor of element type T with x's dims but D (D's extent > 0), keeping the lengths of
// x's other ragged dims.
template <class T, class D, class X>
auto uninitialized_without(const X& x) {
  if constexpr (X::shape_type::ragged_count > 0) {
    auto s = entry_view<D>(x, 0).shape();
    s.take_lengths(x.shape());
    return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
      return tensor_internals::for_overwrite<tensor<T, Ds...>>(s);
    }(std::type_identity<list_difference_t<dims_t<X>, dim_list<D>>>{});
  } else {
    return uninitialized_like<T>(x[dimgraph::at<D>(0)]);
  }
}

template <class D, bool Max, class X>
DIMGRAPH_ALWAYS_INLINE inline auto arg_extreme(const X& x) {
  auto out = uninitialized_without<index<D>, D>(x);
  arg_extreme_into<D, Max>(x, out.view());
  return out;
}

// argmax (Max) or argmin over the ragged dim D alone (its batch dim in x): each row over its
// own length. Error: a row of length 0 (shape_error naming the batch entry), before any work.
template <class D, bool Max, class X>
auto arg_extreme_ragged_rows(const X& x, const char* op) {
  using B = ragged_batch_t<D>;
  const std::size_t rows = x.template extent<B>();
  const lengths_ref lens = lengths_in<D>(x);
  if (lens)
    for (std::size_t b = 0; b < rows; ++b)
      if ((*lens)[b] == 0) [[unlikely]]
        throw_no_valid_element<B>(op, {b}, lengths_description<D>(*lens));
  auto out = uninitialized_without<index<D>, D>(x);
  for (std::size_t b = 0; b < rows; ++b) {
    const auto len = lens ? static_cast<std::size_t>((*lens)[b]) : x.template extent<D>();
    arg_extreme_into<D, Max>(leading_view<D>(entry_view<B>(x, b), len), entry_view<B>(out, b));
  }
  return out;
}

// The error of arg_extreme_masked at x's position p (x's dims XDims): names p along the dims
// Ks... and the lengths of the masked dims (rules, in the order of Masked).
template <class XDims, class Masked, class... Ks, std::size_t R, class Rules>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_no_valid_row(
    const char* op, const std::array<std::size_t, R>& p, const Rules& rules, dim_list<Ks...>) {
  std::string lens;
  [&]<class... Es>(dim_list<Es...>) {
    std::size_t k = 0;
    ((lens += (k ? "; " : "") + lengths_description<Es>(rules[k].lengths), ++k), ...);
  }(Masked{});
  throw_no_valid_element<Ks...>(op, {p[list_index_of_v<XDims, Ks>]...}, lens);
}

// argmax (Max) or argmin over D of a tensor or view with other ragged dims to mask (D is the
// batch dim of a ragged dim, with or without being ragged itself): a plain loop that visits
// only the valid entries of each row of D. Error: a row with no valid entry (shape_error
// naming its position along the mask dims), before the result is returned.
template <class D, bool Max, class X>
auto arg_extreme_masked(const X& x, const char* op) {
  using V = typename X::value_type;
  using xdims = dims_t<X>;
  using masked = masked_dims_t<xdims, dim_list<D>>;
  constexpr std::size_t R = X::rank, kd = list_index_of_v<xdims, D>;
  auto out = uninitialized_without<index<D>, D>(x);
  const auto ext = x.shape().extents();
  for (std::size_t i = 0; i < R; ++i)
    if (ext[i] == 0) return out;
  // Per masked dim: where it and its batch dim are in x, and its lengths.
  struct rule {
    std::size_t dim, batch;
    std::vector<std::int64_t> lengths;
  };
  const auto rules = [&]<class... Es>(dim_list<Es...>) {
    const auto one = [&]<class E>(std::type_identity<E>) {
      const lengths_ref l = lengths_in<E>(x);
      return rule{
          list_index_of_v<xdims, E>, list_index_of_v<xdims, ragged_batch_t<E>>,
          l ? *l
            : std::vector<std::int64_t>(ext[list_index_of_v<xdims, ragged_batch_t<E>>],
                                        static_cast<std::int64_t>(ext[list_index_of_v<xdims, E>]))};
    };
    return std::array<rule, sizeof...(Es)>{one(std::type_identity<Es>{})...};
  }(masked{});
  const auto better = [](V b, V a) {
    if constexpr (std::is_floating_point_v<V>) return (Max ? a < b : b < a) || (b != b && a == a);
    else return Max ? a < b : b < a;
  };
  const auto& xs = x.strides();
  const auto& os = out.strides();
  std::array<std::size_t, R> p{};
  for (;;) {
    std::ptrdiff_t xo = 0, oo = 0;
    for (std::size_t i = 0; i < R; ++i)
      if (i != kd) {
        xo += static_cast<std::ptrdiff_t>(p[i]) * xs[i];
        oo += static_cast<std::ptrdiff_t>(p[i]) * os[i < kd ? i : i - 1];
      }
    bool found = false;
    V best{};
    std::int64_t best_at = 0;
    for (std::size_t d = 0; d < ext[kd]; ++d) {
      p[kd] = d;
      bool valid = true;
      for (const rule& r : rules)
        valid = valid && static_cast<std::int64_t>(p[r.dim]) < r.lengths[p[r.batch]];
      if (!valid) continue;
      const V v = x.data()[xo + static_cast<std::ptrdiff_t>(d) * xs[kd]];
      if (!found || better(v, best)) {
        best = v;
        best_at = static_cast<std::int64_t>(d);
        found = true;
      }
    }
    p[kd] = 0;
    if (!found) [[unlikely]]
      throw_no_valid_row<xdims, masked>(
          op, p, rules, list_difference_t<mask_dims_t<xdims, masked>, dim_list<D>>{});
    out.data()[oo] = index<D>(best_at);
    bool done = true;
    for (std::size_t i = R; i-- > 0;) {
      if (i == kd) continue;
      if (++p[i] < ext[i]) {
        done = false;
        break;
      }
      p[i] = 0;
    }
    if (done) return out;
  }
}
// argmax (Max) or argmin over D of a tensor or view with ragged dims to mask: D's own rows
// by length (arg_extreme_ragged_rows) when D is the only one, else arg_extreme_masked.
template <class D, bool Max, class X>
auto arg_extreme_ragged(const X& x, const char* op) {
  if constexpr (std::is_same_v<masked_dims_t<dims_t<X>, dim_list<D>>, dim_list<D>>)
    return arg_extreme_ragged_rows<D, Max>(x, op);
  else return arg_extreme_masked<D, Max>(x, op);
}

}  // namespace dimgraph::detail
// ---- end dimgraph/eval/arg_extreme.hpp

// (Each op header is included here before any other reaches it: a mistake reported from it then
// shows a short chain of includes.)
// ---- begin dimgraph/ops/elementwise.hpp
// The element-wise ops: + - * /, math functions, comparisons, logic, where, cast, map.



namespace dimgraph {
namespace detail {

// Values of a later layer that stand for tensors without being expressions (graph/: the
// symbols a traced function sees) are operands of the op table's ops (expr/op_table.hpp)
// through one hook, which that layer specialises for them:
//   template <class N> inline constexpr bool is_deferred_v<symbol<N>> = true;
//   template <class N> struct deferred_elementwise<symbol<N>> {
//     template <class F, class... Xs>
//     static auto make(Xs&&... xs);  // the result of op F (fn::add, ...) on xs
//   };
// A deferred value V stands for a tensor of element type V::value_type over V::dims: the op
// checks its operands as such, with the same messages as for tensors, then gives
// deferred_elementwise<V>::make<F>(xs...) (V: the first deferred operand) where it gives
// make_elementwise<F>(xs...) for expressions and scalars.
template <class X>
inline constexpr bool is_deferred_v = false;
template <class X>
concept deferred = is_deferred_v<std::remove_cvref_t<X>>;
template <class X>
struct deferred_elementwise;

template <class... Xs>
concept any_deferred = (deferred<Xs> || ...);
template <class X, class... Xs>
struct first_deferred {
  using type = typename first_deferred<Xs...>::type;
};
template <deferred X, class... Xs>
struct first_deferred<X, Xs...> {
  using type = std::remove_cvref_t<X>;
};
template <class... Xs>
using first_deferred_t = typename first_deferred<Xs...>::type;

// What an element-wise op takes in place of a tensor: an expression or a deferred value.
template <class X>
concept tensor_operand = expression<X> || deferred<X>;

// Operands of a binary op: two tensor operands, or a tensor operand and a C++ scalar.
template <class A, class B>
concept binary_operands = (tensor_operand<A> && tensor_operand<B>) ||
                          (tensor_operand<A> && scalar<B>) || (scalar<A> && tensor_operand<B>);

template <class A, class B>
concept binary_operands_or_poisoned = binary_operands<A, B> || poisoned<A> || poisoned<B>;

template <class X>
concept unary_operand_or_poisoned = tensor_operand<X> || poisoned<X>;

template <class X>
struct operand_elem {
  using type = std::remove_cvref_t<X>;
};
template <tensor_operand X>
struct operand_elem<X> {
  using type = typename std::remove_cvref_t<X>::value_type;
};
template <class X>
using operand_elem_t = typename operand_elem<X>::type;

template <class X>
struct operand_dims {
  using type = dim_list<>;
};
template <tensor_operand X>
struct operand_dims<X> {
  using type = typename std::remove_cvref_t<X>::dims;
};
template <class X>
using operand_dims_t = typename operand_dims<X>::type;

// Why a binary op is rejected (checked in this order, so one mistake gives one message).
enum class binary_check {
  ok,
  outer_broadcast,
  index_arithmetic,
  bool_arithmetic,
  not_bool,
  no_common_type
};

template <class A, class B>
constexpr bool dims_nest() {
  using la = operand_dims_t<A>;
  using lb = operand_dims_t<B>;
  return list_is_subset_v<la, lb> || list_is_subset_v<lb, la>;
}

template <class A, class B, fn::operand_rule Rule>
constexpr binary_check check_binary() {
  using ea = operand_elem_t<A>;
  using eb = operand_elem_t<B>;
  constexpr bool arithmetic = Rule == fn::operand_rule::arithmetic;
  if (!dims_nest<A, B>()) return binary_check::outer_broadcast;
  if (Rule == fn::operand_rule::logical)
    return std::is_same_v<ea, bool> && std::is_same_v<eb, bool> ? binary_check::ok
                                                                : binary_check::not_bool;
  if (arithmetic && (is_index_v<ea> || is_index_v<eb>)) return binary_check::index_arithmetic;
  if (arithmetic && std::is_same_v<ea, bool> && std::is_same_v<eb, bool>)
    return binary_check::bool_arithmetic;
  if constexpr (tensor_operand<A> && tensor_operand<B>) {
    if (!has_promotion_v<ea, eb>) return binary_check::no_common_type;
  }
  return binary_check::ok;
}

// Why a unary op is rejected.
enum class unary_check { ok, index_or_bool, not_bool };

template <class X, fn::operand_rule Rule>
constexpr unary_check check_unary() {
  using e = operand_elem_t<X>;
  if (Rule == fn::operand_rule::logical)
    return std::is_same_v<e, bool> ? unary_check::ok : unary_check::not_bool;
  return is_index_v<e> || std::is_same_v<e, bool> ? unary_check::index_or_bool : unary_check::ok;
}

}  // namespace detail

// The ops of the op table (expr/op_table.hpp), one public function each.
//
// Binary ops. Shape rule: operands align by tag; one operand's dim set must contain the
// other's, and the result has that operand's order (the left one's when the sets are
// equal). Types promote as in PyTorch; C++ scalars are wrapped numbers. Comparisons and
// logical ops give bool. (operator== on tensors compares whole values; element-wise
// comparison is always spelled out.)
// Errors (compile time): an implicit outer broadcast ([B,T,F] + [B,T,H]); arithmetic on
// dg::index<D> or on two bools; a logical op on operands that are not bool; element types
// with no common type.
// Errors (run time): a shared dynamic dim with different extents (shape_error).
#define DIMGRAPH_BINARY_OP(PUBLIC, OP, KIND, LANES)                                            \
  template <class A, class B>                                                                  \
    requires detail::binary_operands_or_poisoned<A, B>                                         \
  auto PUBLIC(A&& a, B&& b) {                                                                  \
    if constexpr (detail::any_poisoned<A, B>) return detail::invalid_expr{};                   \
    else {                                                                                     \
      constexpr auto check = detail::check_binary<A, B, detail::fn::OP::operands>();           \
      using lhs_dims = detail::as_role_t<::dimgraph::lhs, detail::operand_dims_t<A>>;          \
      using rhs_dims = detail::as_role_t<::dimgraph::rhs, detail::operand_dims_t<B>>;          \
      DIMGRAPH_REQUIRE(check != detail::binary_check::outer_broadcast,                         \
                       "dimgraph: " #OP                                                        \
                       ": neither operand's dims contain the other's (an implicit outer "      \
                       "broadcast); use dg::broadcast_to<...> or dg::outer",                   \
                       lhs_dims, rhs_dims);                                                    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::index_arithmetic,                        \
                       "dimgraph: " #OP                                                        \
                       ": arithmetic on dg::index<D> makes no sense; dg::cast it first",       \
                       lhs_dims, rhs_dims);                                                    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::bool_arithmetic,                         \
                       "dimgraph: " #OP                                                        \
                       ": arithmetic on two bool operands makes no sense; use a logical "      \
                       "op or dg::cast",                                                       \
                       lhs_dims, rhs_dims);                                                    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::not_bool,                                \
                       "dimgraph: " #OP ": the operands must be bool", lhs_dims, rhs_dims);    \
      DIMGRAPH_REQUIRE(check != detail::binary_check::no_common_type,                          \
                       "dimgraph: " #OP                                                        \
                       ": the element types have no common type; dg::cast one operand",        \
                       lhs_dims, rhs_dims);                                                    \
      if constexpr (check != detail::binary_check::ok) return detail::invalid_expr{};          \
      else if constexpr (detail::any_deferred<A, B>)                                           \
        return detail::deferred_elementwise<detail::first_deferred_t<A, B>>::template make<    \
            detail::fn::OP>(std::forward<A>(a), std::forward<B>(b));                           \
      else return detail::make_binary<detail::fn::OP>(std::forward<A>(a), std::forward<B>(b)); \
    }                                                                                          \
  }

// Unary ops. Shape rule: the operand's dims. Math functions of integers compute in float.
// Errors: a logical op on an operand that is not bool; any other op on dg::index<D> or bool.
#define DIMGRAPH_UNARY_OP(PUBLIC, OP, KIND, LANES)                                                \
  template <detail::unary_operand_or_poisoned X>                                                  \
  auto PUBLIC(X&& x) {                                                                            \
    if constexpr (detail::poisoned<X>) return detail::invalid_expr{};                             \
    else {                                                                                        \
      constexpr auto check = detail::check_unary<X, detail::fn::OP::operands>();                  \
      using dims = detail::as_role_t<::dimgraph::has, detail::operand_dims_t<X>>;                 \
      DIMGRAPH_REQUIRE(check != detail::unary_check::index_or_bool,                               \
                       "dimgraph: " #OP ": the op makes no sense on dg::index<D> or bool", dims); \
      DIMGRAPH_REQUIRE(check != detail::unary_check::not_bool,                                    \
                       "dimgraph: " #OP ": the operand must be bool", dims);                      \
      if constexpr (check != detail::unary_check::ok) return detail::invalid_expr{};              \
      else if constexpr (detail::deferred<X>)                                                     \
        return detail::deferred_elementwise<std::remove_cvref_t<X>>::template make<               \
            detail::fn::OP>(std::forward<X>(x));                                                  \
      else return detail::make_map(detail::fn::OP{}, std::forward<X>(x));                         \
    }                                                                                             \
  }

DIMGRAPH_ELEMENTWISE_OPS(DIMGRAPH_BINARY_OP, DIMGRAPH_UNARY_OP)
#undef DIMGRAPH_BINARY_OP
#undef DIMGRAPH_UNARY_OP

// where(cond, a, b): a where cond holds, else b. Shape rule: as for binary ops, over
// three operands (one must contain the others' dims). Error: cond not bool.
template <class C, class A, class B>
  requires(expression<C> && (expression<A> || scalar<A>) && (expression<B> || scalar<B>)) ||
          detail::any_poisoned<C, A, B>
auto where(C&& c, A&& a, B&& b) {
  if constexpr (detail::any_poisoned<C, A, B>) {
    return detail::invalid_expr{};
  } else {
    using la = detail::operand_dims_t<A>;
    using lb = detail::operand_dims_t<B>;
    constexpr bool nest = detail::containing_operand<dims_t<C>, la, lb>() != detail::no_operand;
    constexpr bool cond_bool = std::is_same_v<value_t<C>, bool>;
    static_assert(nest,
                  "dimgraph: where: no operand's dims contain the others' (an implicit outer "
                  "broadcast)");
    static_assert(!nest || cond_bool, "dimgraph: where: the condition must be bool");
    if constexpr (nest && cond_bool) {
      return detail::make_where(std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// cast<T>(x): x's elements converted to T (the explicit narrowing).
template <class T, detail::expression_or_poisoned X>
auto cast(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    static_assert(element<T>, "dimgraph: cast: the target is not an element type");
    if constexpr (element<T>) return detail::make_map(detail::fn::cast_to<T>{}, std::forward<X>(x));
    else return detail::invalid_expr{};
  }
}

// map(f, xs...): a user function applied element by element (fused like any other op).
// f must be a pure function of its arguments: it is called for every element, and, where a
// row ends in less than a whole vector, also for padding lanes (copies of a real element)
// whose results are discarded. Shape rule: as for where. Error: no operand contains the others'
// dims.
template <class F, class... Xs>
  requires(expression<Xs> && ...) || detail::any_poisoned<Xs...>
auto map(F f, Xs&&... xs) {
  if constexpr (detail::any_poisoned<Xs...>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool nest = detail::containing_operand<dims_t<Xs>...>() != detail::no_operand;
    static_assert(
        nest, "dimgraph: map: no operand's dims contain the others' (an implicit outer broadcast)");
    if constexpr (nest)
      return detail::make_map(detail::fn::user<F>{std::move(f)}, std::forward<Xs>(xs)...);
    else return detail::invalid_expr{};
  }
}

namespace detail {
// Argument-dependent lookup on the stand-in for a reported mistake looks in this namespace
// only: the operators named here take it outside namespace dimgraph too (`bad * 2.0f`, `-bad`).
using dimgraph::operator+;
using dimgraph::operator-;
using dimgraph::operator*;
using dimgraph::operator/;
}  // namespace detail

}  // namespace dimgraph
// ---- end dimgraph/ops/elementwise.hpp
// ---- begin dimgraph/ops/compound.hpp
// Compound assignment: x += e means x = x + e, evaluated in place (exact aliasing).



namespace dimgraph {

// x op= e. Shape rule: e's dims must be a subset of x's (x keeps its dims).
#define DIMGRAPH_COMPOUND(OP, NAME)                                                                \
  template <class X, class E>                                                                      \
    requires detail::memory_operand<X> && (expression<E> || scalar<E> || detail::poisoned<E>)      \
  X&& operator OP##=(X&& x, E&& e) {                                                               \
    if constexpr (!detail::poisoned<E>) {                                                          \
      static_assert(list_is_subset_v<detail::operand_dims_t<E>, dims_t<X>>,                        \
                    "dimgraph: " NAME ": the right-hand side has a dim the left-hand side lacks"); \
      x = std::as_const(x) OP std::forward<E>(e);                                                  \
    }                                                                                              \
    return std::forward<X>(x);                                                                     \
  }
DIMGRAPH_COMPOUND(+, "add")
DIMGRAPH_COMPOUND(-, "sub")
DIMGRAPH_COMPOUND(*, "mul")
DIMGRAPH_COMPOUND(/, "div")
#undef DIMGRAPH_COMPOUND

}  // namespace dimgraph
// ---- end dimgraph/ops/compound.hpp
// ---- begin dimgraph/ops/broadcast.hpp
// broadcast_to and outer: the explicit ways to combine operands whose dims do not nest.



namespace dimgraph {

// broadcast_to<Ds...>(x, dg::extent<D>(n)...): Shape rule [x dims] -> [Ds...].
// Extents are given for new non-static dims, and may be given for x's own dims
// (they must then be x's). Errors (compile time): Ds... lacks one of x's dims;
// a new non-static dim without an extent; an extent given for a dim not in
// Ds..., or twice. Errors (run time, shape_error): a given extent of one of x's
// dims that is not x's extent; a new dim's extent outside its interval; more elements than a
// tensor can address (though none is stored, so that counts over them cannot wrap).
template <class... Ds, detail::expression_or_poisoned X, class... Es>
auto broadcast_to(X&& x, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using xd = dims_t<X>;
    using target = dim_list<Ds...>;
    static_assert(list_is_subset_v<xd, target>,
                  "dimgraph: broadcast_to: the target dims must include every dim of the operand");
    static_assert(
        ((is_static_v<Ds> || list_contains_v<xd, Ds> ||
          detail::contains_v<Ds, detail::type_list<Es...>>)&&...),
        "dimgraph: broadcast_to: a new non-static dim needs its extent: dg::extent<Dim>(n)");
    static_assert((list_contains_v<target, Es> && ...),
                  "dimgraph: broadcast_to: an extent is given for a dim that is not a target dim");
    static_assert(detail::first_duplicate_v<detail::type_list<Es...>> == sizeof...(Es),
                  "dimgraph: broadcast_to: an extent is given twice");
    return detail::make_broadcast<Ds...>(std::forward<X>(x), given...);
  }
}

// outer(a, b, f = multiply): f over every pair of elements of a and b aligned by the
// dims they share. Shape rule: [a dims] , [b dims] -> [a dims, b dims not in a].
// Error (run time): more elements than a tensor can address (shape_error).
template <class A, class B, class F = detail::fn::mul>
  requires(expression<A> && expression<B>) || detail::any_poisoned<A, B>
auto outer(A&& a, B&& b, F f = {}) {
  if constexpr (detail::any_poisoned<A, B>) {
    return detail::invalid_expr{};
  } else {
    return detail::make_outer(std::forward<A>(a), std::forward<B>(b), std::move(f));
  }
}

}  // namespace dimgraph
// ---- end dimgraph/ops/broadcast.hpp
// ---- begin dimgraph/ops/reduce.hpp
// Reductions over named dims: sum, mean, prod, max, min, any, all (lazy nodes).



namespace dimgraph {
namespace detail {
// Whether X has the dims Rs... and numbers for elements (neither dg::index<D> nor bool): the
// check of the reductions that compute on the values (logsumexp, softmax, argmax, ...).
template <class X, class... Rs>
constexpr bool numeric_over() {
  return (list_contains_v<dims_t<X>, Rs> && ...) && !is_index_v<value_t<X>> &&
         !std::is_same_v<value_t<X>, bool>;
}
}  // namespace detail

// The public reductions. Result element type: sum and prod of bool or integers give int64,
// of floats the same type; mean of bool or integers gives float; max and min keep the type;
// any and all give bool. Errors (compile time): a reduced dim the tensor does not have, a dim
// given twice, or the op on dg::index<D> (any/all: on a non-bool). Over a ragged dim or its
// batch dim, padding never counts (see fn::sum_reduce). Error (run time, when evaluated): max
// or min over a reduced extent of 0 (shape_error naming the dims), or over a ragged row of
// length 0 (shape_error naming the row and the lengths), before anything is written.
#define DIMGRAPH_REDUCTION(NAME, OP, ALLOWED, WHAT)                                         \
  template <class... Rs, detail::expression_or_poisoned X>                                  \
  auto NAME(X&& x) {                                                                        \
    if constexpr (detail::poisoned<X>) {                                                    \
      return detail::invalid_expr{};                                                        \
    } else {                                                                                \
      constexpr bool has = (list_contains_v<dims_t<X>, Rs> && ...);                         \
      constexpr bool distinct =                                                             \
          detail::first_duplicate_v<detail::type_list<Rs...>> == sizeof...(Rs);             \
      constexpr bool allowed = ALLOWED;                                                     \
      using asked_dims = ::dimgraph::asked<Rs...>;                                          \
      using x_dims = detail::has_role_t<X>;                                                 \
      DIMGRAPH_REQUIRE(has, "dimgraph: " #NAME ": the tensor has no such dim", asked_dims,  \
                       x_dims);                                                             \
      DIMGRAPH_REQUIRE(!has || distinct, "dimgraph: " #NAME ": a dim is reduced twice",     \
                       asked_dims);                                                         \
      DIMGRAPH_REQUIRE(!has || !distinct || allowed, "dimgraph: " #NAME ": " WHAT, x_dims); \
      if constexpr (has && distinct && allowed)                                             \
        return reduce_expr<OP, operand_t<X&&>, Rs...>(std::forward<X>(x));                  \
      else return detail::invalid_expr{};                                                   \
    }                                                                                       \
  }
#define DIMGRAPH_NUMERIC (!is_index_v<value_t<X>>)
#define DIMGRAPH_BOOLEAN (std::is_same_v<value_t<X>, bool>)
DIMGRAPH_REDUCTION(sum, detail::fn::sum_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(prod, detail::fn::prod_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(mean, detail::fn::mean_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(max, detail::fn::max_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(min, detail::fn::min_reduce, DIMGRAPH_NUMERIC,
                   "the op makes no sense on dg::index<D>")
DIMGRAPH_REDUCTION(any, detail::fn::any_reduce, DIMGRAPH_BOOLEAN, "the operand must be bool")
DIMGRAPH_REDUCTION(all, detail::fn::all_reduce, DIMGRAPH_BOOLEAN, "the operand must be bool")
#undef DIMGRAPH_NUMERIC
#undef DIMGRAPH_BOOLEAN
#undef DIMGRAPH_REDUCTION

}  // namespace dimgraph
// ---- end dimgraph/ops/reduce.hpp
// ---- begin dimgraph/ops/contract.hpp
// dot<Ks...>(a, b): contraction over named shared dims (an einsum by tags), a lazy node.



namespace dimgraph {

// sum over Ks... of a * b, aligned by tag (see contract_expr for the shape rule). Contracting a
// ragged dim, or its batch dim, sums only valid positions: padding is never read.
// Error (compile time): an operand lacks a contracted dim; a dim contracted twice; an
// operand of type dg::index<D>. Run time: shared dims whose extents differ (shape_error).
template <class... Ks, class A, class B>
  requires(expression<A> && expression<B>) || detail::any_poisoned<A, B>
auto dot(A&& a, B&& b) {
  if constexpr (detail::any_poisoned<A, B>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool in_a = (list_contains_v<dims_t<A>, Ks> && ...);
    constexpr bool in_b = (list_contains_v<dims_t<B>, Ks> && ...);
    constexpr bool distinct = detail::first_duplicate_v<detail::type_list<Ks...>> == sizeof...(Ks);
    constexpr bool numbers = !is_index_v<value_t<A>> && !is_index_v<value_t<B>>;
    DIMGRAPH_REQUIRE(in_a && in_b, "dimgraph: dot: an operand does not have a contracted dim",
                     ::dimgraph::asked<Ks...>, detail::as_role_t<::dimgraph::lhs, dims_t<A>>,
                     detail::as_role_t<::dimgraph::rhs, dims_t<B>>);
    DIMGRAPH_REQUIRE(!(in_a && in_b) || distinct, "dimgraph: dot: a dim is contracted twice",
                     ::dimgraph::asked<Ks...>, detail::as_role_t<::dimgraph::lhs, dims_t<A>>,
                     detail::as_role_t<::dimgraph::rhs, dims_t<B>>);
    DIMGRAPH_REQUIRE(!(in_a && in_b && distinct) || numbers,
                     "dimgraph: dot: the op makes no sense on dg::index<D>",
                     ::dimgraph::asked<Ks...>, detail::as_role_t<::dimgraph::lhs, dims_t<A>>,
                     detail::as_role_t<::dimgraph::rhs, dims_t<B>>);
    if constexpr (in_a && in_b && distinct && numbers) {
      return contract_expr<operand_t<A&&>, operand_t<B&&>, Ks...>(std::forward<A>(a),
                                                                  std::forward<B>(b));
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/ops/contract.hpp
// ---- begin dimgraph/ops/view.hpp
// The views the structural ops make of an operand's memory, the results they fill, and why
// they reject an operand (structural_check).



// The message of a structural op along the batch dim of a ragged dim (is_batch_of_lengths
// below), for concat, pad, slice, split_dims and merge_dims. (A macro: a static_assert's message
// is a literal where it is written. Left defined for the headers that use it, each reached from
// dimgraph.hpp, which #undefs it at its end.)
#define DIMGRAPH_BATCH_OF_LENGTHS(OP)                                                        \
  "dimgraph: " OP                                                                            \
  ": the dim is the batch dim of a ragged dim, whose lengths would be lost (dg::rename the " \
  "ragged dim to a dim that is not ragged first)"

namespace dimgraph::detail {

template <class P, class List>
struct view_of_list;
template <class P, class... Ds>
struct view_of_list<P, type_list<Ds...>> {
  using type = tensor_view<P, Ds...>;
};
// The view of elements P (possibly const) with the dims in List.
template <class P, class List>
using view_of_list_t = typename view_of_list<P, List>::type;

// The element type a view of x has (const for a const tensor).
template <class X>
using view_element_t = std::remove_pointer_t<decltype(std::declval<X&>().data())>;

// A view of x's memory with the dims at positions [K, K + Span) replaced by News...,
// whose extents and strides are given, starting `offset` elements in. The extents are
// checked against the new dims' intervals (shape_error naming op).
template <std::size_t K, std::size_t Span, class... News, class X>
auto spliced_view(X& x, const char* op, std::ptrdiff_t offset,
                  const std::array<std::size_t, sizeof...(News)>& ext,
                  const std::array<std::ptrdiff_t, sizeof...(News)>& str) {
  using dims = types_of_t<typename std::remove_cvref_t<X>::dims>;
  constexpr std::size_t r = dims::size, m = sizeof...(News), n = r - Span + m;
  using view_t =
      view_of_list_t<view_element_t<X>,
                     concat_t<slice_t<0, K, dims>, type_list<News...>, slice_t<K + Span, r, dims>>>;
  std::array<std::size_t, n> e{};
  std::array<std::ptrdiff_t, n> s{};
  for (std::size_t i = 0; i < n; ++i) {
    const bool is_new = i >= K && i < K + m;
    const std::size_t from = i < K ? i : i - m + Span;
    e[i] = is_new ? ext[i - K] : x.shape().extent(from);
    s[i] = is_new ? str[i - K] : x.strides()[from];
  }
  auto vs = view_t::shape_type::from_extents(e, op);
  if constexpr (view_t::shape_type::ragged_count > 0) vs.take_lengths(x.shape());
  // (An empty operand may have no memory at all: no offset from its null pointer.)
  return view_t(x.data() + (x.size() == 0 ? 0 : offset), vs, s);
}

// Whether one of the dims Old... is the batch dim of a ragged dim with lengths in x.
template <class X, class... Old>
constexpr bool is_batch_of_lengths() {
  using xd = typename std::remove_cvref_t<X>::dims;
  return []<class... Ds>(dim_list<Ds...>) {
    auto batch_of = []<class D>(std::type_identity<D>) {
      if constexpr (carries_lengths_v<D, xd>)
        return (std::is_same_v<ragged_batch_t<D>, Old> || ...);
      else return false;
    };
    return (batch_of(std::type_identity<Ds>{}) || ...);
  }(xd{});
}

// Whether a view of x that replaces the dims Old... keeps every length x has: no replaced dim
// is a ragged dim with lengths in x, or the batch dim of one.
template <class X, class... Old>
constexpr bool keeps_lengths() {
  using xd = typename std::remove_cvref_t<X>::dims;
  return !is_batch_of_lengths<X, Old...>() && !(carries_lengths_v<Old, xd> || ...);
}

// Whether an op that makes dim New of x's dim Old carries the lengths over: Old is no batch dim
// of a dim with lengths, and Old, if it has lengths, becomes a dim ragged over the same batch
// dim (whose lengths the op computes row by row).
template <class X, class Old, class New>
constexpr bool lengths_carry_to() {
  using xd = typename std::remove_cvref_t<X>::dims;
  if constexpr (carries_lengths_v<Old, xd>)
    return std::is_same_v<ragged_batch_t<New>, ragged_batch_t<Old>>;
  else return true;
}

// v with the lengths of its dim New set to f(length) of x's dim Old, row by row (v as it is
// when Old has none).
template <class Old, class New, class V, class X, class F>
V with_lengths_from(V v, const X& x, const char* op, F f) {
  if constexpr (carries_lengths_v<Old, dims_t<X>>) {
    if (const lengths_ref& l = x.shape().template lengths<Old>()) {
      auto s = v.shape();
      s.template set_lengths<New>(op, map_lengths(l, f));
      return V(v.data(), s, v.strides());
    }
  }
  return v;
}

// Error: a row of the ragged dim Whole whose length is not a multiple of Part's extent.
template <class Whole, class Part>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_length_not_divisible(const char* op,
                                                                          std::int64_t len,
                                                                          std::size_t n) {
  throw shape_error(op, "dim '" + describe<Whole>() + "' has a row of length " +
                            std::to_string(len) + ", not a multiple of the extent " +
                            std::to_string(n) + " of dim '" + describe<Part>() + "'");
}

// The same with the dim Old replaced.
template <class Old, class... News, class X>
auto replaced_view(X& x, const char* op, std::ptrdiff_t offset,
                   const std::array<std::size_t, sizeof...(News)>& ext,
                   const std::array<std::ptrdiff_t, sizeof...(News)>& str) {
  return spliced_view<list_index_of_v<typename std::remove_cvref_t<X>::dims, Old>, 1, News...>(
      x, op, offset, ext, str);
}

// Why a structural op rejects its operands (checked in this order: one message per mistake).
enum class structural_check {
  ok,
  not_memory,      // a lazy expression where a view is made
  temporary,       // a temporary tensor where a view is made
  no_such_dim,     // the operand lacks the dim the op works on
  dim_present,     // a dim the op makes is already one of the operand's other dims
  same_parts,      // split_dims / merge_dims of a dim with itself
  sizes_differ,    // rename between static dims of different sizes
  sizes_disjoint,  // rename between dims whose intervals are disjoint
  bad_extent_arg,  // an extent given for a dim that is not a part, or twice
  too_many_unknown,
  zero_stride,
  not_index,
  other_dims_differ,
  no_common_type,
};

template <class X>
constexpr structural_check check_view_operand() {
  using x = std::remove_cvref_t<X>;
  if (!memory_operand<x>) return structural_check::not_memory;
  if (is_tensor_v<x> && !std::is_lvalue_reference_v<X>) return structural_check::temporary;
  return structural_check::ok;
}

// Every element of a view set to value (a scalar broadcast over the view's dims).
template <class T, class... Ds>
void fill_view(const tensor_view<T, Ds...>& v, T value) {
  v = broadcast_expr<scalar_expr<T>, Ds...>(scalar_expr<T>{{}, value}, v.shape().extents());
}

// The shape of a result whose dims are x's with one dim (Special, of extent n) new.
// The lengths of x's ragged dims go with them.
template <class Result, class Special, class X>
typename Result::shape_type shape_with(const char* op, const X& x, std::size_t n) {
  return [&]<class... Ds>(dim_list<Ds...>) {
    auto s = Result::shape_type::from_extents({[&] {
                                                if constexpr (std::is_same_v<Ds, Special>) return n;
                                                else return x.template extent<Ds>();
                                              }()...},
                                              op);
    if constexpr (Result::shape_type::ragged_count > 0) take_lengths_of(s, x, op);
    return s;
  }(typename Result::dims{});
}

}  // namespace dimgraph::detail
// ---- end dimgraph/ops/view.hpp
// ---- begin dimgraph/ops/rename.hpp
// rename: one dim's name changed, in place (a view).



// rename returns a tensor_view of its operand's memory, so the operand must be a tensor or a view
// and must outlive the result: a temporary tensor is rejected (its view would dangle); dg::eval
// a lazy expression first.

namespace dimgraph {
namespace detail {

template <class Old, class New, class X>
constexpr structural_check check_rename() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, Old>) return structural_check::no_such_dim;
    if (!std::is_same_v<Old, New> && list_contains_v<dims, New>)
      return structural_check::dim_present;
    if (check_rename_sizes<Old, New>() == rename_sizes::different_static_sizes)
      return structural_check::sizes_differ;
    if (check_rename_sizes<Old, New>() == rename_sizes::disjoint)
      return structural_check::sizes_disjoint;
    return structural_check::ok;
  }
}

}  // namespace detail

// One dim's name changed, in place: [.., old, ..] -> [.., new, ..] (a view).
// Errors (compile time): the tensor has no dim Old; New is already one of its dims; the
// dims have different static sizes; their size intervals are disjoint. Error (run time):
// Old's extent outside New's interval (shape_error).
template <dimension Old, dimension New, class X>
auto rename(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check =
        detail::check_rename<std::remove_cvref_t<Old>, std::remove_cvref_t<New>, X>();
    DIMGRAPH_REQUIRE(
        check != check_t::not_memory,
        "dimgraph: rename: the operand must be a tensor or a view (dg::eval an expression first)",
        ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
        detail::has_role_t<X>);
    static_assert(
        check != check_t::temporary,
        "dimgraph: rename: a view of a temporary tensor would dangle; name the tensor first");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: rename: the tensor has no such dim",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: rename: the new dim is already a dim of the tensor",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::sizes_differ,
                     "dimgraph: rename: the dims have different static sizes",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::sizes_disjoint,
                     "dimgraph: rename: the dims' size intervals are disjoint, no extent fits both",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    using old_t = std::remove_cvref_t<Old>;
    using new_t = std::remove_cvref_t<New>;
    using xd = dims_t<X>;
    // A ragged dim renamed to one ragged over the same batch dim keeps its lengths; renamed to
    // a dim that is not ragged, it forgets them (the padding becomes data).
    constexpr bool batch_kept = check != check_t::ok || [] {
      return []<class... Ds>(dim_list<Ds...>) {
        return ((!detail::carries_lengths_v<Ds, xd> ||
                 !std::is_same_v<ragged_batch_t<Ds>, old_t>)&&...);
      }(xd{});
    }();
    DIMGRAPH_REQUIRE(batch_kept,
                     "dimgraph: rename: the dim is the batch dim of a ragged dim, whose lengths "
                     "would be lost",
                     ::dimgraph::asked<std::remove_cvref_t<Old>, std::remove_cvref_t<New>>,
                     detail::has_role_t<X>);
    if constexpr (check == check_t::ok && batch_kept) {
      auto v = detail::replaced_view<old_t, new_t>(x, "rename", 0, {x.template extent<Old>()},
                                                   {x.template stride<Old>()});
      using view_t = decltype(v);
      if constexpr (detail::carries_lengths_v<old_t, xd> &&
                    detail::carries_lengths_v<new_t, dims_t<view_t>> &&
                    std::is_same_v<ragged_batch_t<old_t>, ragged_batch_t<new_t>>) {
        auto vs = v.shape();
        vs.template set_lengths<new_t>("rename", x.shape().template lengths<old_t>());
        return view_t(v.data(), vs, v.strides());
      } else {
        return v;
      }
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/ops/rename.hpp
// ---- begin dimgraph/ops/split.hpp
// split and split_dims: a dim's parts, as views (the inverses of concat and merge_dims).



// split and split_dims return tensor_views of their operand's memory, so the operand must be a
// tensor or a view and must outlive the result: a temporary tensor is rejected (its view would
// dangle); dg::eval a lazy expression first.

// The message of a structural op that would lose the lengths of a ragged dim (#undef'd at the
// end of this header).
#define DIMGRAPH_LOSES_LENGTHS(OP)                                          \
  "dimgraph: " OP                                                           \
  ": the dim is ragged or the batch dim of a ragged dim (it has lengths); " \
  "its lengths would be lost: dg::rename the ragged dim to a dim that is not ragged first"

namespace dimgraph {
namespace detail {

// Extents given by tag for some of the parts Parts...: each for a part, none twice.
template <class... Es, class... Parts>
constexpr bool extent_args_fit(type_list<Es...>, type_list<Parts...>) {
  return (contains_v<Es, type_list<Parts...>> && ...) &&
         first_duplicate_v<type_list<Es...>> == sizeof...(Es);
}
// Parts known from their static size or a given extent.
template <class Part, class... Es>
inline constexpr bool part_known_v = is_static_v<Part> || contains_v<Part, type_list<Es...>>;
// The number of different parts whose extent is not known.
template <class... Parts, class... Es>
constexpr std::size_t unknown_parts(type_list<Parts...>, type_list<Es...>) {
  constexpr bool unknown[] = {!part_known_v<Parts, Es...>..., false};
  constexpr std::size_t first[] = {index_of_v<Parts, type_list<Parts...>>..., 0};
  std::size_t n = 0;
  for (std::size_t i = 0; i < sizeof...(Parts); ++i) n += unknown[i] && first[i] == i;
  return n;
}
// The parts' extents: static sizes and given ones, with which are known.
template <class... Parts, class... Es>
std::pair<std::array<std::size_t, sizeof...(Parts)>, std::array<bool, sizeof...(Parts)>>
part_extents(type_list<Parts...>, extent_arg<Es>... given) {
  return {{given_extent<Parts>(given...)...}, {part_known_v<Parts, Es...>...}};
}

template <class Whole, class Parts, class Given, class X>
constexpr structural_check check_split() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    using others = list_difference_t<dims, dim_list<Whole>>;
    if (!list_contains_v<dims, Whole>) return structural_check::no_such_dim;
    if ([]<class... Ps>(type_list<Ps...>) { return (list_contains_v<others, Ps> || ...); }(Parts{}))
      return structural_check::dim_present;
    if (!extent_args_fit(Given{}, Parts{})) return structural_check::bad_extent_arg;
    if (unknown_parts(Parts{}, Given{}) > 1) return structural_check::too_many_unknown;
    return structural_check::ok;
  }
}

template <class A, class B, class Given, class X>
constexpr structural_check check_split_dims() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    using whole = merge_dim_t<A, B>;
    using others = list_difference_t<dims, dim_list<whole>>;
    if (!list_contains_v<dims, whole>) return structural_check::no_such_dim;
    if (std::is_same_v<A, B>) return structural_check::same_parts;
    if (list_contains_v<others, A> || list_contains_v<others, B>)
      return structural_check::dim_present;
    if (!extent_args_fit(Given{}, type_list<A, B>{})) return structural_check::bad_extent_arg;
    if (unknown_parts(type_list<A, B>{}, Given{}) > 1) return structural_check::too_many_unknown;
    return structural_check::ok;
  }
}

}  // namespace detail

// The parts of a concatenated dim, as views (the inverse of concat):
//   split<a, b>(z): [.., a + b, ..] -> ([.., a, ..], [.., b, ..])   (more parts alike)
// returned as a std::tuple (use structured bindings). The parts' extents add up to the
// whole's: static parts are known, one part may be left to take the rest, others are
// given with dg::extent<Part>(n). Errors (compile time): z has no dim a + b; a part is
// one of z's other dims; an extent given for a non-part or twice; more than one part
// of unknown extent. Error (run time): extents that do not add up (shape_error).
template <dimension... Parts, class X, class... Es>
auto split(X&& z, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using whole = concat_dim_t<Parts...>;
    constexpr auto check =
        detail::check_split<whole, detail::type_list<std::remove_cvref_t<Parts>...>,
                            detail::type_list<Es...>, X>();
    static_assert(
        check != check_t::not_memory,
        "dimgraph: split: the operand must be a tensor or a view (dg::eval an expression first)");
    static_assert(
        check != check_t::temporary,
        "dimgraph: split: a view of a temporary tensor would dangle; name the tensor first");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: split: the tensor has no dim that is the sum of the parts");
    static_assert(check != check_t::dim_present,
                  "dimgraph: split: a part is already another dim of the tensor");
    static_assert(check != check_t::bad_extent_arg,
                  "dimgraph: split: an extent is given for a dim that is not a part, or twice");
    static_assert(
        check != check_t::too_many_unknown,
        "dimgraph: split: more than one part has no static size; give the extents of all but one "
        "with dg::extent<Part>(n)");
    constexpr bool keeps = check != check_t::ok || detail::keeps_lengths<X, whole>();
    static_assert(keeps, DIMGRAPH_LOSES_LENGTHS("split"));
    if constexpr (check == check_t::ok && keeps) {
      using parts = detail::type_list<std::remove_cvref_t<Parts>...>;
      auto [ext, known] = detail::part_extents(parts{}, given...);
      ext = detail::split_sum_extents<whole, std::remove_cvref_t<Parts>...>(
          "split", z.template extent<whole>(), ext, known);
      const std::ptrdiff_t s = z.template stride<whole>();
      return detail::with_indices<sizeof...(Parts)>(
          [&]<std::size_t... Is>(detail::index_constant<Is>...) {
            std::array<std::ptrdiff_t, sizeof...(Parts)> offset{};
            for (std::size_t i = 1; i < sizeof...(Parts); ++i)
              offset[i] = offset[i - 1] + static_cast<std::ptrdiff_t>(ext[i - 1]) * s;
            return std::tuple{detail::replaced_view<whole, detail::at_t<Is, parts>>(
                z, "split", offset[Is], {ext[Is]}, {s})...};
          });
    } else {
      return detail::invalid_expr{};
    }
  }
}

// A merged dim as its two factors, in place (the inverse of merge_dims; a view):
//   split_dims<a, b>(x): [.., a * b, ..] -> [.., a, b, ..]
// One factor's extent gives the other's exactly: a static factor is known; otherwise
// give one, dg::split_dims<A, B>(x, dg::extent<A>(n)). Errors (compile time): x has no
// dim a * b; a == b; a factor is one of x's other dims; an extent given for a non-factor
// or twice; neither factor known; a ragged a * b that is not a ragged a and a static b. Error
// (run time): a factor's extent that does not divide the merged extent; along a ragged a * b, a
// row whose length b's extent does not divide (shape_error). a takes those lengths divided.
template <dimension A, dimension B, class X, class... Es>
auto split_dims(X&& x, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using b = std::remove_cvref_t<B>;
    constexpr auto check = detail::check_split_dims<a, b, detail::type_list<Es...>, X>();
    DIMGRAPH_REQUIRE(check != check_t::not_memory,
                     "dimgraph: split_dims: the operand must be a tensor or a view (dg::eval an "
                     "expression first)",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::temporary,
        "dimgraph: split_dims: a view of a temporary tensor would dangle; name the tensor first",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::no_such_dim,
        "dimgraph: split_dims: the tensor has no dim that is the product of the factors",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::same_parts,
                     "dimgraph: split_dims: the two factors are the same dim",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: split_dims: a factor is already another dim of the tensor",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::bad_extent_arg,
        "dimgraph: split_dims: an extent is given for a dim that is not a factor, or twice",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(
        check != check_t::too_many_unknown,
        "dimgraph: split_dims: neither factor has a static size; give the extent of one with "
        "dg::extent<Factor>(n)",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    using whole = merge_dim_t<a, b>;
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, whole>();
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("split_dims"), ::dimgraph::asked<a, b>,
                     detail::has_role_t<X>);
    constexpr bool prefix = check != check_t::ok || (detail::lengths_carry_to<X, whole, a>() &&
                                                     (!is_ragged_v<whole> || is_static_v<b>));
    DIMGRAPH_REQUIRE(
        prefix,
        "dimgraph: split_dims: a ragged merged dim splits only into a ragged major dim "
        "and a static minor one (each row's valid part then stays a prefix)",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    if constexpr (check == check_t::ok && keeps && prefix) {
      auto [ext, known] = detail::part_extents(detail::type_list<a, b>{}, given...);
      ext = detail::split_product_extents<whole, a, b>("split_dims", x.template extent<whole>(),
                                                       ext, known);
      const std::ptrdiff_t s = x.template stride<whole>();
      auto v = detail::replaced_view<whole, a, b>(x, "split_dims", 0, ext,
                                                  {s * static_cast<std::ptrdiff_t>(ext[1]), s});
      // A ragged whole: each row's length over b's extent, which must divide it.
      const auto nb = static_cast<std::int64_t>(ext[1]);
      return detail::with_lengths_from<whole, a>(
          std::move(v), x, "split_dims", [&](std::int64_t len) {
            if (len % nb != 0)
              detail::throw_length_not_divisible<whole, b>("split_dims", len, ext[1]);
            return len / nb;
          });
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph

#undef DIMGRAPH_LOSES_LENGTHS
// ---- end dimgraph/ops/split.hpp
// ---- begin dimgraph/ops/merge_dims.hpp
// merge_dims: two dims merged into one (a view where the layout allows, else a copy).



namespace dimgraph {
namespace detail {

template <class A, class B, class X>
constexpr structural_check check_merge_dims() {
  if constexpr (!expression<X>) {
    return structural_check::not_memory;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A> || !list_contains_v<dims, B>)
      return structural_check::no_such_dim;
    if (std::is_same_v<A, B>) return structural_check::same_parts;
    if (list_contains_v<dims, merge_dim_t<A, B>>) return structural_check::dim_present;
    return structural_check::ok;
  }
}

}  // namespace detail

// Two dims merged into one, a major, at a's position:
//   merge_dims<a, b>(x): [.., a, .., b, ..] -> [.., a * b, ..]
// A view when x is a tensor (not a temporary) with b right after a: its row-major
// layout makes the merge contiguous. Otherwise (a view, whose strides are known only at
// run time; a lazy expression; a temporary; a and b apart) a new tensor with the same
// elements: the result type says which, at compile time. A ragged a with a static b gives a
// ragged a * b, each row's length times b's extent. Errors (compile time): x lacks a or b;
// a == b; a * b is already a dim of x; a ragged a with a b that is not static, a ragged b, or
// a ragged dim's batch dim (its lengths would be lost). Error (run time): a * b's extent does not
// fit a std::size_t, or the result is larger than a tensor can address (shape_error).
template <dimension A, dimension B, class X>
auto merge_dims(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using b = std::remove_cvref_t<B>;
    constexpr auto check = detail::check_merge_dims<a, b, X>();
    DIMGRAPH_REQUIRE(check != check_t::not_memory,
                     "dimgraph: merge_dims: the operand is not a tensor or an expression",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim,
                     "dimgraph: merge_dims: the tensor lacks one of the dims",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::same_parts,
                     "dimgraph: merge_dims: the two dims are the same dim", ::dimgraph::asked<a, b>,
                     detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: merge_dims: the merged dim is already a dim of the tensor",
                     ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, a, b>();
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("merge_dims"), ::dimgraph::asked<a, b>,
                     detail::has_role_t<X>);
    constexpr bool prefix =
        check != check_t::ok || (!detail::carries_lengths_v<b, dims_t<X>> &&
                                 detail::lengths_carry_to<X, a, merge_dim_t<a, b>>());
    DIMGRAPH_REQUIRE(
        prefix,
        "dimgraph: merge_dims: a ragged dim merges only as the major dim with a static "
        "one (each row's valid part then stays a prefix); merged with a dynamic dim, or "
        "as the minor dim, its lengths would be lost",
        ::dimgraph::asked<a, b>, detail::has_role_t<X>);
    if constexpr (check == check_t::ok && keeps && prefix) {
      using x_t = std::remove_cvref_t<X>;
      using dims = dims_t<x_t>;
      using m = merge_dim_t<a, b>;
      constexpr std::size_t ia = list_index_of_v<dims, a>, ib = list_index_of_v<dims, b>;
      const std::size_t na = x.template extent<a>(), nb = x.template extent<b>();
      const std::size_t nm = detail::result_extent<m, false>("merge_dims", {na, nb}, [&] {
        return detail::parts_text<a, b>(" * ", {na, nb});
      });
      // A ragged a: each row's length times b's extent.
      const auto merged_length = [nb](std::int64_t len) {
        return len * static_cast<std::int64_t>(nb);
      };
      if constexpr (detail::is_tensor_v<x_t> && std::is_lvalue_reference_v<X> && ib == ia + 1) {
        return detail::with_lengths_from<a, m>(
            detail::spliced_view<ia, 2, m>(x, "merge_dims", 0, {nm}, {x.template stride<b>()}), x,
            "merge_dims", merged_length);
      } else {
        using value = value_t<x_t>;
        using without_b = detail::dims_of_t<detail::replace_dim_t<dims, b>>;
        using result_t = detail::tensor_of_list_t<value, detail::replace_dim_t<without_b, a, m>>;
        auto shape = detail::shape_with<result_t, m>("merge_dims", x, nm);
        if constexpr (detail::carries_lengths_v<a, dims>)
          shape.template set_lengths<m>(
              "merge_dims", detail::map_lengths(detail::lengths_in<a>(x), merged_length));
        result_t r(shape);
        auto whole = r.view();
        const std::ptrdiff_t s = r.template stride<m>();
        detail::replaced_view<m, a, b>(whole, "merge_dims", 0, {na, nb},
                                       {s * static_cast<std::ptrdiff_t>(nb), s}) = x;
        return r;
      }
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/ops/merge_dims.hpp
// ---- begin dimgraph/ops/reshape.hpp
// Views that re-describe a tensor's dims: rename, split, split_dims, and merge_dims (a view
// where the layout allows, else a copy), one family; and permute after a reported mistake.


namespace dimgraph {

// permute (tensor/tensor.hpp) after a reported mistake: nothing more to say.
template <class... Ps, detail::poisoned X>
detail::invalid_expr permute(X&&) {
  return {};
}

}  // namespace dimgraph
// ---- end dimgraph/ops/reshape.hpp
// ---- begin dimgraph/ops/slice.hpp
// slice: a view of every k-th position of a dim between two bounds (NumPy's rule), with
// bounds known at compile time or at run time.



// The view is of its operand's memory, so the operand must be a tensor or a view and must
// outlive the result: a temporary tensor is rejected (its view would dangle); dg::eval a lazy
// expression first.

// The message of a slice that would break the lengths of a ragged dim (#undef'd at the end of
// this header; the one of a slice that would lose them, DIMGRAPH_BATCH_OF_LENGTHS: ops/view.hpp).
#define DIMGRAPH_SLICE_NOT_PREFIX                                                                \
  "dimgraph: slice: a slice of a ragged dim must start from the front (start >= 0 or dg::none) " \
  "and step forwards, so that each row's valid part stays a prefix (dg::rename the dim to one "  \
  "that is not ragged to slice it as plain data)"

namespace dimgraph {
namespace detail {

template <class A, class Result, bool ZeroStride, class X>
constexpr structural_check check_slice() {
  if constexpr (constexpr auto c = check_view_operand<X>(); c != structural_check::ok) {
    return c;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A>) return structural_check::no_such_dim;
    if (ZeroStride) return structural_check::zero_stride;
    if (!std::is_same_v<Result, A> && list_contains_v<dims, Result>)
      return structural_check::dim_present;
    return structural_check::ok;
  }
}

// The slice of x along A as a view with dim R (the positions are checked by the caller).
// With two positions or more, |step| is below A's extent, so step * stride fits as the
// stride times the extent does; with fewer, the step is never taken (and may be as large as
// PTRDIFF_MIN): the view keeps x's stride. A ragged A's lengths give R's by the same rule on
// each row's length (a row's positions are then those of the whole: the slice starts from the
// front).
template <class A, class R, class X>
auto slice_view(X& x, slice_index start, slice_index end, std::ptrdiff_t step) {
  const slice_range p = slice_positions(x.template extent<A>(), start, end, step);
  const std::ptrdiff_t s = x.template stride<A>();
  auto v = replaced_view<A, R>(x, "slice", static_cast<std::ptrdiff_t>(p.first) * s, {p.count},
                               {p.count > 1 ? p.step * s : s});
  return with_lengths_from<A, R>(std::move(v), x, "slice", [&](std::int64_t n) {
    return static_cast<std::int64_t>(
        slice_positions(static_cast<std::size_t>(n), start, end, step).count);
  });
}

}  // namespace detail

// A slice along dim a with bounds known at compile time (a view), NumPy's rule (see
// slice_positions): negative bounds count from the end, end is exclusive, bounds beyond
// the ends are clamped, a negative stride reads backwards; dg::none leaves a bound open.
//   slice<a, start, end, stride>(x): [.., a, ..] -> [.., slice_dim_t<a, start, end, stride>, ..]
// The result dim is the algebra's where it can say it (slice<a, 2, -3> of a padded dim
// 2 + a + 3 is a itself; a static a gives a static size), else an opaque dim (see
// slice_dim_t). Along a ragged dim a (with its lengths) the result dim is ragged over the same
// batch dim, each row's length the slice rule applied to the row's length (an end counting
// from the back counts from each row's end), so the slice must start from the front and step
// forwards. Errors (compile time): x has no dim a; stride 0; the result dim is already another
// dim of x; a slice of a ragged dim from the back or backwards; a slice of a ragged dim's batch
// dim.
template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Stride = 1,
          class X>
auto slice(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using result =
        slice_dim_t<a, Start, End, Stride == 0 ? 1 : Stride>;  // (unused when Stride is 0)
    constexpr auto check = detail::check_slice<a, result, Stride == 0, X>();
    DIMGRAPH_REQUIRE(
        check != check_t::not_memory,
        "dimgraph: slice: the operand must be a tensor or a view (dg::eval an expression first)",
        ::dimgraph::asked<a>, detail::has_role_t<X>);
    static_assert(
        check != check_t::temporary,
        "dimgraph: slice: a view of a temporary tensor would dangle; name the tensor first");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: slice: the tensor has no such dim",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::zero_stride, "dimgraph: slice: the stride is 0",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: slice: the result dim is already another dim of the tensor",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    constexpr bool batch_kept = check != check_t::ok || !detail::is_batch_of_lengths<X, a>();
    DIMGRAPH_REQUIRE(batch_kept, DIMGRAPH_BATCH_OF_LENGTHS("slice"), ::dimgraph::asked<a>,
                     detail::has_role_t<X>);
    constexpr bool prefix = check != check_t::ok || detail::lengths_carry_to<X, a, result>();
    DIMGRAPH_REQUIRE(prefix, DIMGRAPH_SLICE_NOT_PREFIX, ::dimgraph::asked<a>,
                     detail::has_role_t<X>);
    if constexpr (check == check_t::ok && batch_kept && prefix)
      return detail::slice_view<a, result>(x, Start, End, Stride);
    else return detail::invalid_expr{};
  }
}

// A slice along dim a with bounds known at run time (a view), by the same rule:
//   slice<a>(x, start, end, stride = 1): [.., a, ..] -> [.., sliced_dim<a>, ..]
// sliced_dim<a> has size [0, hi(a)] and is one dim for every run-time slice of a (rename
// it to tell two apart); ragged along a ragged a, as above. Errors: x has no dim a, or a is the
// batch dim of a ragged dim (compile time); stride 0; a negative start or stride along a ragged
// dim with lengths (shape_error).
template <dimension A, class X>
auto slice(X&& x, slice_index start, slice_index end, std::ptrdiff_t stride = 1) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using result = sliced_dim<a>;
    constexpr auto check = detail::check_slice<a, result, false, X>();
    DIMGRAPH_REQUIRE(
        check != check_t::not_memory,
        "dimgraph: slice: the operand must be a tensor or a view (dg::eval an expression first)",
        ::dimgraph::asked<a>, detail::has_role_t<X>);
    static_assert(
        check != check_t::temporary,
        "dimgraph: slice: a view of a temporary tensor would dangle; name the tensor first");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: slice: the tensor has no such dim",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: slice: the result dim is already another dim of the tensor",
                     ::dimgraph::asked<a>, detail::has_role_t<X>);
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, a>();
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("slice"), ::dimgraph::asked<a>,
                     detail::has_role_t<X>);
    if constexpr (check == check_t::ok && keeps) {
      if (stride == 0)
        throw shape_error("slice", "the stride along dim '" + describe<a>() + "' is 0");
      if constexpr (detail::carries_lengths_v<a, dims_t<X>>)
        if (const lengths_ref& l = x.shape().template lengths<a>();
            l && (stride < 0 || (!start.is_none && start.value < 0)))
          throw shape_error("slice", "dim '" + describe<a>() + "' is ragged (lengths " +
                                         detail::lengths_text(*l) +
                                         "): a slice of it must start from the front (start >= "
                                         "0 or dg::none) and step forwards");
      return detail::slice_view<a, result>(x, start, end, stride);
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph

#undef DIMGRAPH_SLICE_NOT_PREFIX
// ---- end dimgraph/ops/slice.hpp
// ---- begin dimgraph/ops/concat.hpp
// Ops that copy into a longer dim: concat (a + b + ...) and pad (c<before> + a + c<after>).



// Each op checks everything first, then allocates its result and fills it by assigning
// its operands (any expressions) to sub-views of the result with the element-wise
// machinery: no loops of their own.

namespace dimgraph {

// concat's operand: x, concatenated along its dim A.
template <class A, class X>
struct along_arg {
  using dim = A;
  X operand;
};
template <dimension A, class X>
auto along(X&& x) {
  return along_arg<std::remove_cvref_t<A>, operand_t<X&&>>{std::forward<X>(x)};
}

namespace detail {

template <class T>
inline constexpr bool is_along_v = false;
template <class A, class X>
inline constexpr bool is_along_v<along_arg<A, X>> = true;

template <class X>
using operand_value_t = value_t<std::remove_cvref_t<X>>;

template <class... Ts>
struct common_element;
template <class T>
struct common_element<T> {
  using type = T;
};
template <class T, class U, class... Ts>
  requires has_promotion_v<T, U>
struct common_element<T, U, Ts...> : common_element<promote_t<T, U>, Ts...> {};
template <class... Ts>
inline constexpr bool has_common_element_v = requires { typename common_element<Ts...>::type; };

template <class... As, class... Xs>
constexpr structural_check check_concat(type_list<along_arg<As, Xs>...>) {
  constexpr bool all_expr = (expression<Xs> && ...);
  if constexpr (!all_expr) {
    return structural_check::not_memory;
  } else {
    if (!(list_contains_v<dims_t<Xs>, As> && ...)) return structural_check::no_such_dim;
    using first = type_list<As...>;
    using others = list_difference_t<dims_t<front_t<type_list<Xs...>>>, dim_list<front_t<first>>>;
    if (!(list_same_set_v<list_difference_t<dims_t<Xs>, dim_list<As>>, others> && ...))
      return structural_check::other_dims_differ;
    if (list_contains_v<others, concat_dim_t<As...>>) return structural_check::dim_present;
    if (!has_common_element_v<operand_value_t<Xs>...>) return structural_check::no_common_type;
    return structural_check::ok;
  }
}

// concat's run-time rule: other dims and repeated concatenated tags agree; the
// concatenated extents add up.
template <class R, class... As, class... Xs>
std::array<std::size_t, sizeof...(As)> concat_extents(const along_arg<As, Xs>&... parts) {
  const auto& first = std::get<0>(std::forward_as_tuple(parts...)).operand;
  using first_t = std::remove_cvref_t<decltype(first)>;
  using others = list_difference_t<dims_t<first_t>, dim_list<front_t<type_list<As...>>>>;
  std::size_t i = 0;
  auto agree_others = [&]<class... Ds>(dim_list<Ds...>, const auto& x) {
    (check_agree<Ds>("concat", first.template extent<Ds>(), 1, x.template extent<Ds>(), i + 1),
     ...);
  };
  ((agree_others(others{}, parts.operand), ++i), ...);
  std::array<std::size_t, sizeof...(As)> ext{parts.operand.template extent<As>()...};
  // The same tag concatenated with itself (a + a == 2 * a) has one extent.
  constexpr std::size_t firsts[] = {index_of_v<As, type_list<As...>>...};
  for (std::size_t k = 0; k < sizeof...(As); ++k) {
    const std::size_t j = firsts[k];
    if (j != k && ext[j] != ext[k]) {
      for_each_index<sizeof...(As)>([&]<std::size_t K>(index_constant<K>) {
        if (K == k) check_agree<at_t<K, type_list<As...>>>("concat", ext[j], j + 1, ext[k], k + 1);
      });
    }
  }
  return ext;
}

}  // namespace detail

// Concatenation along one dim of each operand (a new tensor):
//   concat(along<a>(x), along<b>(y)): [.., a, ..] , [.., b, ..] -> [.., a + b, ..]
// The result dim is a + b by the algebra (a + a is 2 * a), at the position of x's a, and
// x's other dims in x's order; every operand must have the same other dims (in any
// order) with equal extents. More operands: along<a>(x), along<b>(y), along<c>(w), ...
// The element type is the operands' common type. Along ragged dims (ragged over one batch
// dim), each row holds the operands' valid parts one after the other and its length is their
// sum (a part that is not ragged is whole in every row); the rest of the row is zero.
// Errors (compile time): an operand lacks its dim; the operands' other dims differ; the result
// dim is one of the other dims; no common element type; dims ragged over different batch dims;
// concatenation along a ragged dim's batch dim. Errors (run time): another dim, or a tag
// concatenated with itself, with different extents; concatenated extents that add up to more than a
// std::size_t holds, or a result larger than a tensor can address (shape_error). Nothing is
// allocated before the checks.
template <class... Parts>
  requires(sizeof...(Parts) > 0 && (detail::is_along_v<Parts> && ...))
auto concat(Parts... parts) {
  if constexpr ((detail::poisoned<decltype(parts.operand)> || ...)) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check = detail::check_concat(detail::type_list<Parts...>{});
    static_assert(check != check_t::not_memory,
                  "dimgraph: concat: an operand is not a tensor or an expression");
    DIMGRAPH_REQUIRE(check != check_t::no_such_dim, "dimgraph: concat: an operand has no such dim",
                     ::dimgraph::asked<typename Parts::dim...>,
                     detail::has_role_t<decltype(parts.operand)>...);
    DIMGRAPH_REQUIRE(
        check != check_t::other_dims_differ, "dimgraph: concat: the operands' other dims differ",
        ::dimgraph::asked<typename Parts::dim...>, detail::has_role_t<decltype(parts.operand)>...);
    DIMGRAPH_REQUIRE(check != check_t::dim_present,
                     "dimgraph: concat: the result dim is already one of the other dims",
                     ::dimgraph::asked<typename Parts::dim...>,
                     detail::has_role_t<decltype(parts.operand)>...);
    static_assert(check != check_t::no_common_type,
                  "dimgraph: concat: the element types have no common type");
    using whole_dim = concat_dim_t<typename Parts::dim...>;
    constexpr bool keeps =
        check != check_t::ok ||
        (!detail::is_batch_of_lengths<decltype(parts.operand), typename Parts::dim>() && ...);
    DIMGRAPH_REQUIRE(keeps, DIMGRAPH_BATCH_OF_LENGTHS("concat"),
                     ::dimgraph::asked<typename Parts::dim...>,
                     detail::has_role_t<decltype(parts.operand)>...);
    constexpr bool one_batch =
        check != check_t::ok ||
        (detail::lengths_carry_to<decltype(parts.operand), typename Parts::dim, whole_dim>() &&
         ...);
    DIMGRAPH_REQUIRE(
        one_batch, "dimgraph: concat: the concatenated dims are ragged over different batch dims",
        ::dimgraph::asked<typename Parts::dim...>, detail::has_role_t<decltype(parts.operand)>...);
    if constexpr (check == check_t::ok && keeps && one_batch) {
      return [&]<class... As, class... Xs>(const along_arg<As, Xs>&... ps) {
        using r_dim = concat_dim_t<As...>;
        using x0 = std::remove_cvref_t<detail::front_t<detail::type_list<Xs...>>>;
        using a0 = detail::front_t<detail::type_list<As...>>;
        using value = typename detail::common_element<detail::operand_value_t<Xs>...>::type;
        using result_t =
            detail::tensor_of_list_t<value, detail::replace_dim_t<dims_t<x0>, a0, r_dim>>;
        const auto ext = detail::concat_extents<r_dim>(ps...);
        const auto& x = std::get<0>(std::forward_as_tuple(ps...)).operand;
        const std::size_t total = std::apply(
            [&](auto... e) {
              return detail::result_extent<r_dim, true>(
                  "concat", {e...}, [&] { return detail::parts_text<As...>(" + ", ext); });
            },
            ext);
        auto shape = detail::shape_with<result_t, r_dim>("concat", x, total);
        if constexpr (detail::carries_lengths_v<r_dim, dims_t<result_t>>) {
          // Along ragged dims: each row packs the valid parts of its operands, one after the
          // other (a part that is not ragged is whole in every row), and is as long as they are
          // together; the rest of the row is zero.
          const std::array<lengths_ref, sizeof...(As)> given{detail::lengths_in<As>(ps.operand)...};
          if (std::any_of(given.begin(), given.end(), [](const lengths_ref& l) { return !!l; })) {
            using bt = ragged_batch_t<r_dim>;
            const std::size_t rows = x.template extent<bt>();
            auto part_length = [&](std::size_t k, std::size_t b) {
              return given[k] ? static_cast<std::size_t>((*given[k])[b]) : ext[k];
            };
            auto lengths = std::make_shared<std::vector<std::int64_t>>(rows);
            for (std::size_t b = 0; b < rows; ++b)
              for (std::size_t k = 0; k < sizeof...(As); ++k)
                (*lengths)[b] += static_cast<std::int64_t>(part_length(k, b));
            shape.template set_lengths<r_dim>("concat", std::move(lengths));
            result_t r(shape);
            std::fill_n(r.data(), r.size(), value{});
            auto whole = r.view();
            const std::ptrdiff_t s = r.template stride<r_dim>();
            std::vector<std::size_t> at(rows, 0);
            std::size_t k = 0;
            auto copy_part = [&]<class A>(std::type_identity<A>, const auto& operand) {
              decltype(auto) src = [&]() -> decltype(auto) {
                if constexpr (requires { operand.data(); }) return (operand);
                else return dimgraph::eval(operand);
              }();
              for (std::size_t b = 0; b < rows; ++b) {
                const std::size_t n = part_length(k, b);
                auto dst_row = detail::entry_view<bt>(whole, b);
                detail::replaced_view<r_dim, A>(dst_row, "concat",
                                                static_cast<std::ptrdiff_t>(at[b]) * s, {n}, {s}) =
                    detail::leading_view<A>(detail::entry_view<bt>(src, b), n);
                at[b] += n;
              }
              ++k;
            };
            (copy_part(std::type_identity<As>{}, ps.operand), ...);
            return r;
          }
        }
        result_t r(shape);
        auto whole = r.view();
        const std::ptrdiff_t s = r.template stride<r_dim>();
        std::ptrdiff_t offset = 0;
        std::size_t i = 0;
        ((detail::replaced_view<r_dim, As>(whole, "concat", offset, {ext[i]}, {s}) = ps.operand,
          offset += static_cast<std::ptrdiff_t>(ext[i++]) * s),
         ...);
        return r;
      }(parts...);
    } else {
      return detail::invalid_expr{};
    }
  }
}

namespace detail {

template <class A, class P, class X>
constexpr structural_check check_pad() {
  if constexpr (!expression<X>) {
    return structural_check::not_memory;
  } else {
    using dims = dims_t<X>;
    if (!list_contains_v<dims, A>) return structural_check::no_such_dim;
    if (!std::is_same_v<P, A> && list_contains_v<dims, P>) return structural_check::dim_present;
    return structural_check::ok;
  }
}

template <class X>
struct pad_value {
  using type = int;  // (after a reported mistake)
};
template <expression X>
struct pad_value<X> {
  using type = value_t<X>;
};

// The part of a padded dim before or after the operand (a private dim: it only names a
// sub-view of the result).
template <class P, std::size_t Size, bool After>
struct pad_part : dim_expr_base {
  static constexpr interval bounds = interval::exactly(Size);
  static constexpr dim_kind kind = kind_v<P>;
  static constexpr std::string_view name = After ? "padding after" : "padding before";
};

}  // namespace detail

// Padding along dim a with `value` (a new tensor):
//   pad<a, before, after>(x, value = 0): [.., a, ..] -> [.., before + a + after, ..]
// The result dim is dg::c<before> + a + dg::c<after> by the algebra, so slicing the
// padding off again, slice<pad_dim_t<a, before, after>, before, -after> (end dg::none
// when after is 0), gives a view with dim a itself. Along a ragged a each row is
// before + its length + after, with value right after the row's data (and in the rest of the
// row). Errors (compile time): x has no dim a; the padded dim is already one of x's dims; a is
// a ragged dim's batch dim. Error
// (run time): the padded extent does not fit a std::size_t, or the result is larger than a
// tensor can address (shape_error).
template <dimension A, std::size_t Before, std::size_t After, class X>
auto pad(X&& x, typename detail::pad_value<std::remove_cvref_t<X>>::type value = {}) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    using a = std::remove_cvref_t<A>;
    using p = pad_dim_t<a, Before, After>;
    constexpr auto check = detail::check_pad<a, p, X>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: pad: the operand is not a tensor or an expression");
    static_assert(check != check_t::no_such_dim, "dimgraph: pad: the tensor has no such dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: pad: the padded dim is already a dim of the tensor");
    // (Padding a ragged dim gives a dim ragged over the same batch dim: each row is padded.)
    constexpr bool keeps = check != check_t::ok || !detail::is_batch_of_lengths<X, a>();
    static_assert(keeps, DIMGRAPH_BATCH_OF_LENGTHS("pad"));
    if constexpr (check == check_t::ok && keeps) {
      using x_t = std::remove_cvref_t<X>;
      using value_type = value_t<x_t>;
      using result_t =
          detail::tensor_of_list_t<value_type, detail::replace_dim_t<dims_t<x_t>, a, p>>;
      const std::size_t n = x.template extent<a>();
      const std::size_t padded = detail::result_extent<p, true>("pad", {Before, n, After}, [&] {
        return std::to_string(Before) + " + " + detail::dim_with_extent<a>(n) + " + " +
               std::to_string(After);
      });
      auto shape = detail::shape_with<result_t, p>("pad", x, padded);
      // A ragged a: each row is before + its length + after, the value also written after each
      // row's valid part, so that a row's padding after it starts right where its data ends.
      constexpr bool ragged = detail::carries_lengths_v<a, dims_t<x_t>> && !std::is_same_v<a, p>;
      [[maybe_unused]] lengths_ref lengths;
      if constexpr (ragged) {
        lengths = detail::lengths_in<a>(x);
        shape.template set_lengths<p>("pad", detail::map_lengths(lengths, [](std::int64_t len) {
                                        return static_cast<std::int64_t>(Before + After) + len;
                                      }));
      }
      result_t r(shape);
      auto whole = r.view();
      const std::ptrdiff_t s = r.template stride<p>();
      if constexpr (Before > 0)
        detail::fill_view(detail::replaced_view<p, detail::pad_part<p, Before, false>>(
                              whole, "pad", 0, {Before}, {s}),
                          value);
      auto middle = detail::replaced_view<p, a>(whole, "pad",
                                                static_cast<std::ptrdiff_t>(Before) * s, {n}, {s});
      if constexpr (ragged) {
        if (lengths) {
          detail::with_position_type(x, dim_list<a>{}, [&]<class I>(std::type_identity<I>) {
            const detail::ragged_mask<I, dims_t<x_t>, a> mask(x);
            middle = mask.apply(x, value);
          });
        } else {
          middle = x;
        }
      } else {
        middle = x;
      }
      if constexpr (After > 0)
        detail::fill_view(
            detail::replaced_view<p, detail::pad_part<p, After, true>>(
                whole, "pad", static_cast<std::ptrdiff_t>(Before + n) * s, {After}, {s}),
            value);
      return r;
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/ops/concat.hpp
// ---- begin dimgraph/ops/structural.hpp
// The structural ops, one family: broadcast_to, outer, rename, split, split_dims, merge_dims,
// slice, concat, pad.

// ---- end dimgraph/ops/structural.hpp
// ---- begin dimgraph/ops/softmax.hpp
// Composite reductions evaluated eagerly: logsumexp, softmax, log_softmax.



namespace dimgraph {

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite; an infinite m is taken as 0 (as PyTorch), so a row holding +inf
// gives +inf and a row of only -inf gives -inf. Integers compute in float. Shape rule: as
// sum. Over no elements (a reduced extent of 0, or a ragged row of length 0) it is
// log(0) = -inf; over a ragged dim or its batch dim, padding is left out.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, detail::expression_or_poisoned X>
auto logsumexp(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, Rs...>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<Rs...>, detail::has_role_t<X>);
    if constexpr (ok) {
      using T = detail::fn::float_of_t<value_t<X>>;
      // (Over a ragged dim, a row of length 0 has no max: its max is taken as -inf, the identity.)
      using max_op =
          std::conditional_t<detail::ragged_over_v<dims_t<X>, dim_list<Rs...>>,
                             detail::fn::extreme_reduce<true, false>, detail::fn::max_reduce>;
      const auto xf = eval(cast<T>(x));
      const bool empty = ((x.template extent<Rs>() == 0) || ...);
      if (empty) return eval(log(sum<Rs...>(exp(xf))));
      const auto m = eval(reduce_expr<max_op, const decltype(xf)&, Rs...>(xf));
      const auto shift = eval(where(equal(abs(m), std::numeric_limits<T>::infinity()), T(0), m));
      return eval(shift + log(sum<Rs...>(exp(xf - shift))));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// exp(x) / sum(exp(x)) over D, with the max subtracted first. Shape rule: x's dims. Over a
// ragged dim D (or D the batch dim of a ragged dim of x) only valid positions count: padding
// gets probability exactly 0, and a row of length 0 is all 0.
template <class D, detail::expression_or_poisoned X>
DIMGRAPH_ALWAYS_INLINE inline auto softmax(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, D>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: softmax: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<D>, detail::has_role_t<X>);
    if constexpr (ok) {
      if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {
        if constexpr (detail::memory_operand<X>) return detail::softmax_ragged<D, false>(x);
        else return detail::softmax_ragged<D, false>(detail::materialize(x));
      } else if constexpr (detail::memory_operand<X>) return detail::softmax_rows<D, false>(x);
      else return detail::softmax_rows<D, false>(detail::materialize(x));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// x - logsumexp(x) over D, row by row as softmax. Shape rule: x's dims. Over a ragged dim,
// as softmax: padding gets -inf (log 0), and a row of length 0 is all -inf.
template <class D, detail::expression_or_poisoned X>
DIMGRAPH_ALWAYS_INLINE inline auto log_softmax(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, D>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: log_softmax: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<D>, detail::has_role_t<X>);
    if constexpr (ok) {
      if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {
        if constexpr (detail::memory_operand<X>) return detail::softmax_ragged<D, true>(x);
        else return detail::softmax_ragged<D, true>(detail::materialize(x));
      } else if constexpr (detail::memory_operand<X>) return detail::softmax_rows<D, true>(x);
      else return detail::softmax_rows<D, true>(detail::materialize(x));
    } else {
      return detail::invalid_expr{};
    }
  }
}

}  // namespace dimgraph
// ---- end dimgraph/ops/softmax.hpp
// ---- begin dimgraph/ops/index.hpp
// The ops of dg::index<D>: gather (embedding lookup) and one_hot, which move data by index, and
// argmax and argmin, which give one.



// gather and one_hot check every index before they allocate or write anything, then loop over the
// indices themselves (a gather is no element-wise assignment); each row of a gather is
// copied by the assignment machinery, or by one block copy when the table's rows are
// contiguous.

namespace dimgraph {
namespace detail {

template <class X>
concept index_expression = expression<X> && is_index_v<value_t<X>>;

// A lazy expression evaluated; a tensor or view passed through.
template <class X>
decltype(auto) as_memory(const X& x) {
  if constexpr (memory_operand<X>) return x;
  else return eval(x);
}

template <class Table, class Idx>
constexpr structural_check check_gather() {
  if constexpr (!expression<Table> || !expression<Idx>) {
    return structural_check::not_memory;
  } else if constexpr (!is_index_v<value_t<Idx>>) {
    return structural_check::not_index;
  } else {
    using v = index_dim_t<value_t<Idx>>;
    if (!list_contains_v<dims_t<Table>, v>) return structural_check::no_such_dim;
    using rest = list_difference_t<dims_t<Table>, dim_list<v>>;
    if (list_intersection_t<dims_t<Idx>, rest>::size != 0) return structural_check::dim_present;
    return structural_check::ok;
  }
}

// Which elements of a row-major tensor x, in order, lie inside the lengths of its ragged dims
// (empty when x has no lengths: every element does). Padding indices are not read.
template <class X>
std::vector<bool> valid_positions(const X& x) {
  std::vector<bool> valid;
  using dims = typename X::dims;
  [[maybe_unused]] const auto ext = x.shape().extents();
  [[maybe_unused]] const auto str = row_major_strides<X::rank>(ext);
  [[maybe_unused]] auto one = [&]<class R>(std::type_identity<R>) {
    if constexpr (carries_lengths_v<R, dims>) {
      const lengths_ref& l = x.shape().template lengths<R>();
      if (!l) return;
      constexpr std::size_t r = list_index_of_v<dims, R>;
      constexpr std::size_t b = list_index_of_v<dims, ragged_batch_t<R>>;
      if (valid.empty()) valid.assign(x.size(), true);
      for (std::size_t i = 0; i < valid.size(); ++i) {
        const std::size_t at_r = (i / static_cast<std::size_t>(str[r])) % ext[r];
        const std::size_t at_b = (i / static_cast<std::size_t>(str[b])) % ext[b];
        if (static_cast<std::int64_t>(at_r) >= (*l)[at_b]) valid[i] = false;
      }
    }
  };
  [&]<class... Ds>(dim_list<Ds...>) { (one(std::type_identity<Ds>{}), ...); }(dims{});
  return valid;
}

// Every index in idx (a tensor) checked against extent n of V: index_error, before any write.
// Indices in padding (valid is not empty and false there) are not checked.
template <class V, class Idx>
void check_indices(const char* op, const Idx& idx, std::size_t n,
                   const std::vector<bool>& valid = {}) {
  const auto* p = idx.data();
  for (std::size_t i = 0, size = idx.size(); i < size; ++i)
    if (valid.empty() || valid[i]) check_class_index<V>(op, p[i].value(), n);
}

// idx as a row-major tensor (a tensor already is one; anything else is evaluated).
template <class Idx>
decltype(auto) row_major_indices(const Idx& idx) {
  if constexpr (is_tensor_v<Idx>) return idx;
  else return eval(idx);
}

}  // namespace detail

// Rows of a table picked by index (embedding lookup; a new tensor):
//   gather(table, idx): [.., v, ..] , [is...] of dg::index<v> -> [is..., the table's other dims]
// Errors (compile time): idx's elements are not dg::index<v>; the table has no dim v;
// idx's dims overlap the table's other dims. Error (run time): an index outside
// [0, extent of v) (index_error naming v, the index and the extent), before any write.
template <class Table, class Idx>
auto gather(const Table& table, const Idx& idx) {
  if constexpr (detail::poisoned<Table> || detail::poisoned<Idx>) {
    return detail::invalid_expr{};
  } else {
    using check_t = detail::structural_check;
    constexpr auto check = detail::check_gather<Table, Idx>();
    static_assert(check != check_t::not_memory,
                  "dimgraph: gather: the table and the indices must be tensors or expressions");
    static_assert(check != check_t::not_index,
                  "dimgraph: gather: the indices' elements must be dg::index<D>");
    static_assert(check != check_t::no_such_dim,
                  "dimgraph: gather: the table has no dim for the indices' class dim");
    static_assert(check != check_t::dim_present,
                  "dimgraph: gather: the indices' dims overlap the table's other dims");
    if constexpr (check == check_t::ok) {
      using v = index_dim_t<value_t<Idx>>;
      decltype(auto) t = detail::as_memory(table);
      decltype(auto) ix = detail::row_major_indices(idx);
      using t_t = std::remove_cvref_t<decltype(t)>;
      using rest = list_difference_t<dims_t<t_t>, dim_list<v>>;
      using result_t = detail::tensor_of_list_t<value_t<t_t>,
                                                detail::gather_dims_t<dims_t<t_t>, v, dims_t<Idx>>>;
      const std::size_t n = t.template extent<v>();
      const std::vector<bool> valid = detail::valid_positions(ix);
      detail::check_indices<v>("gather", ix, n, valid);
      auto shape = [&]<class... Ds>(dim_list<Ds...>) {
        return result_t::shape_type::from_extents({[&] {
                                                    if constexpr (list_contains_v<dims_t<Idx>, Ds>)
                                                      return ix.template extent<Ds>();
                                                    else return t.template extent<Ds>();
                                                  }()...},
                                                  "gather");
      }(typename result_t::dims{});
      if constexpr (result_t::shape_type::ragged_count > 0) shape.take_lengths(ix.shape());
      result_t r(shape);  // (zeros: what padding rows keep)
      const std::size_t rows = ix.size(), block = rows == 0 ? 0 : r.size() / rows;
      const auto* index = ix.data();
      using row_view = detail::view_of_list_t<value_t<t_t>, detail::types_of_t<rest>>;
      const auto row_strides =
          detail::row_major_strides<rest::size>([&]<class... Ds>(dim_list<Ds...>) {
            return std::array<std::size_t, rest::size>{t.template extent<Ds>()...};
          }(rest{}));
      constexpr bool contiguous_rows =
          detail::is_tensor_v<t_t> &&
          std::is_same_v<detail::front_t<detail::types_of_t<dims_t<t_t>>>, v>;
      for (std::size_t i = 0; i < rows && block > 0; ++i) {
        if (!valid.empty() && !valid[i]) continue;
        const auto k = static_cast<std::size_t>(index[i].value());
        if constexpr (contiguous_rows) {
          std::copy_n(t.data() + k * block, block, r.data() + i * block);
        } else {
          const auto src = t[at<v>(k)];
          row_view(r.data() + i * block, src.shape(), row_strides) = src;
        }
      }
      return r;
    } else {
      return detail::invalid_expr{};
    }
  }
}

// Indices as one-hot vectors (a new tensor of T, float by default):
//   one_hot(idx): idx [is...] of dg::index<v> -> [is..., v]
// v's extent is its static size or given: one_hot(idx, dg::extent<V>(n)). Errors
// (compile time): idx's elements are not dg::index<v>; v is not static and no extent is
// given; an extent given for another dim. Errors (run time): an extent outside v's
// interval, or a result larger than a tensor can address (shape_error); an index outside
// [0, extent) (index_error); both before anything is allocated or written.
template <class T = float, class Idx, class... Es>
auto one_hot(const Idx& idx, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<Idx>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool is_idx = detail::index_expression<Idx>;
    static_assert(is_idx, "dimgraph: one_hot: the indices' elements must be dg::index<D>");
    if constexpr (is_idx) {
      using v = index_dim_t<value_t<Idx>>;
      constexpr bool extent_ok = (std::is_same_v<Es, v> && ...) && sizeof...(Es) <= 1;
      constexpr bool known = is_static_v<v> || sizeof...(Es) == 1;
      static_assert(extent_ok,
                    "dimgraph: one_hot: the only extent to give is the class dim's, once");
      static_assert(
          !extent_ok || known,
          "dimgraph: one_hot: the class dim is not static; give its extent: dg::extent<V>(n)");
      constexpr bool fresh = !list_contains_v<dims_t<Idx>, v>;
      static_assert(!(extent_ok && known) || fresh,
                    "dimgraph: one_hot: the indices already have the class dim");
      static_assert(!(extent_ok && known && fresh) || element<T>,
                    "dimgraph: one_hot: the result's element type is not an element type");
      if constexpr (extent_ok && known && fresh && element<T>) {
        const std::size_t n =
            detail::checked_extent<v>("one_hot", detail::given_extent<v>(given...));
        decltype(auto) ix = detail::row_major_indices(idx);
        const std::vector<bool> valid = detail::valid_positions(ix);
        detail::check_indices<v>("one_hot", ix, n, valid);
        using result_t = detail::tensor_of_list_t<T, detail::one_hot_dims_t<dims_t<Idx>, v>>;
        auto shape = [&]<class... Ds>(dim_list<Ds...>) {
          return result_t::shape_type::from_extents({[&] {
                                                      if constexpr (std::is_same_v<Ds, v>) return n;
                                                      else return ix.template extent<Ds>();
                                                    }()...},
                                                    "one_hot");
        }(typename result_t::dims{});
        if constexpr (result_t::shape_type::ragged_count > 0) shape.take_lengths(ix.shape());
        result_t r(shape);
        const auto* index = ix.data();
        for (std::size_t i = 0, rows = ix.size(); i < rows; ++i)
          if (valid.empty() || valid[i])
            r.data()[i * n + static_cast<std::size_t>(index[i].value())] = T(1);
        return r;
      } else {
        return detail::invalid_expr{};
      }
    } else {
      return detail::invalid_expr{};
    }
  }
}

// The first position of the largest (argmax) or smallest (argmin) element along D, as
// dg::index<D>; NaN counts as the most extreme value (the first NaN's position, as PyTorch).
// Over a ragged dim D (or D the batch dim of a ragged dim of x), only valid positions count.
// Shape rule: [x dims] -> [x dims without D].
// Error (run time): D has extent 0, or a ragged row has no valid position (length 0), so
// there is no position (shape_error).
#define DIMGRAPH_ARG_REDUCTION(NAME, MAX)                                                         \
  template <class D, detail::expression_or_poisoned X>                                            \
  auto NAME(X&& x) {                                                                              \
    if constexpr (detail::poisoned<X>) {                                                          \
      return detail::invalid_expr{};                                                              \
    } else {                                                                                      \
      constexpr bool ok = detail::numeric_over<X, D>();                                           \
      DIMGRAPH_REQUIRE(                                                                           \
          ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers", \
          ::dimgraph::asked<D>, detail::has_role_t<X>);                                           \
      if constexpr (ok) {                                                                         \
        if (x.template extent<D>() == 0) detail::throw_empty_reduction<D>(#NAME, x);              \
        if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {                            \
          if constexpr (detail::memory_operand<X>)                                                \
            return detail::arg_extreme_ragged<D, MAX>(x, #NAME);                                  \
          else return detail::arg_extreme_ragged<D, MAX>(detail::materialize(x), #NAME);          \
        } else if constexpr (detail::memory_operand<X>) {                                         \
          return detail::arg_extreme<D, MAX>(x);                                                  \
        } else {                                                                                  \
          return detail::arg_extreme<D, MAX>(detail::materialize(x));                             \
        }                                                                                         \
      } else {                                                                                    \
        return detail::invalid_expr{};                                                            \
      }                                                                                           \
    }                                                                                             \
  }
DIMGRAPH_ARG_REDUCTION(argmax, true)
DIMGRAPH_ARG_REDUCTION(argmin, false)
#undef DIMGRAPH_ARG_REDUCTION

}  // namespace dimgraph
// ---- end dimgraph/ops/index.hpp
// ---- begin dimgraph/ops/pack.hpp
// dg::pack and dg::unpack: a tensor over a ragged dim to and from its packed form (every valid
// position, batch-major, with offsets), the form frameworks exchange sequences in.



namespace dimgraph {

// The flat dim of dg::pack<D>: every valid (batch, D) position of a tensor over D and its batch
// dim, batch-major (row 0's len[0] steps, then row 1's, ...), as PyTorch's NestedTensor and
// the "cu_seqlens" of variable-length attention kernels lay sequences out. Dynamic.
template <class D>
struct packed_dim : dim_expr_base {
  static constexpr interval bounds = interval{0, (bounds_v<ragged_batch_t<D>> * bounds_v<D>).hi};
  using source = D;
  static constexpr dim_kind kind = kind_v<D>;
  static std::string describe() { return "packed(" + dimgraph::describe<D>() + ")"; }
};

// The dim of the offsets of dg::pack<D>: batch + 1 entries (D's batch dim plus the constant 1).
template <class D>
using offsets_dim_t = decltype(ragged_batch_t<D>{} + c<1>);

// A packed tensor: values [.., packed_dim<D>, ..] and offsets [batch + 1], where row b's steps
// are the values at offsets[b], ..., offsets[b + 1] - 1 of the packed dim (offsets[0] = 0, the
// last offset is the packed dim's extent, row b's length is offsets[b + 1] - offsets[b]).
template <class D, class Values>
struct packed {
  using dim = D;
  using values_type = Values;
  using offsets_type = tensor<std::int64_t, offsets_dim_t<D>>;
  Values values;
  offsets_type offsets;
};

namespace detail {

// The dims of pack<D> of [Ds...]: packed_dim<D> where D's batch dim was, D dropped.
template <class D, class L>
struct packed_dims;
template <class D, class... Ds>
struct packed_dims<D, dim_list<Ds...>> {
  template <class X>
  using one = std::conditional_t<std::is_same_v<X, D>, type_list<>,
                                 std::conditional_t<std::is_same_v<X, ragged_batch_t<D>>,
                                                    type_list<packed_dim<D>>, type_list<X>>>;
  using type = dims_of_t<typename concat<type_list<>, one<Ds>...>::type>;
};
// The dims of unpack of [Ds...]: D's batch dim and D, in this order, where packed_dim<D> was.
template <class D, class L>
struct unpacked_dims;
template <class D, class... Ds>
struct unpacked_dims<D, dim_list<Ds...>> {
  template <class X>
  using one = std::conditional_t<std::is_same_v<X, packed_dim<D>>, type_list<ragged_batch_t<D>, D>,
                                 type_list<X>>;
  using type = dims_of_t<typename concat<type_list<>, one<Ds>...>::type>;
};

// Why pack or unpack rejects its operands (one message per mistake, checked in this order).
// (poisoned: an operand is the stand-in for a mistake reported before; nothing more to say.)
enum class pack_check { ok, poisoned, not_expression, not_ragged, no_dims, has_dims, bad_offsets };

template <class D, class X>
constexpr pack_check check_pack() {
  if constexpr (poisoned<X>) return pack_check::poisoned;
  else if constexpr (!expression<X>) return pack_check::not_expression;
  else if constexpr (!is_ragged_v<D>) return pack_check::not_ragged;
  else if constexpr (!list_contains_v<dims_t<X>, D> ||
                     !list_contains_v<dims_t<X>, ragged_batch_t<D>>)
    return pack_check::no_dims;
  else if constexpr (list_contains_v<dims_t<X>, packed_dim<D>>) return pack_check::has_dims;
  else return pack_check::ok;
}

template <class D, class V, class O>
constexpr pack_check check_unpack() {
  if constexpr (any_poisoned<V, O>) {
    return pack_check::poisoned;
  } else if constexpr (!expression<V> || !expression<O>) {
    return pack_check::not_expression;
  } else if constexpr (!is_ragged_v<D>) {
    return pack_check::not_ragged;
  } else if constexpr (!list_contains_v<dims_t<V>, packed_dim<D>>) {
    return pack_check::no_dims;
  } else if constexpr (list_contains_v<dims_t<V>, D> ||
                       list_contains_v<dims_t<V>, ragged_batch_t<D>>) {
    return pack_check::has_dims;
  } else {
    using o = value_t<O>;
    constexpr bool integer = std::is_integral_v<o> && !std::is_same_v<o, bool>;
    if (!integer || !std::is_same_v<dims_t<O>, dim_list<offsets_dim_t<D>>>)
      return pack_check::bad_offsets;
    return pack_check::ok;
  }
}

// Row b's valid part of x (its first n positions of D, without the batch dim) and the n
// positions of the packed dim from `first` on (as D), views of the same dims.
template <class D, class X>
auto row_part(const char* op, X& x, std::size_t b, std::size_t n) {
  auto row = x[dimgraph::at<ragged_batch_t<D>>(b)];
  return replaced_view<D, D>(row, op, 0, {n}, {row.template stride<D>()});
}
template <class D, class V>
auto packed_part(const char* op, V& values, std::size_t first, std::size_t n) {
  const std::ptrdiff_t s = values.template stride<packed_dim<D>>();
  return replaced_view<packed_dim<D>, D>(values, op, static_cast<std::ptrdiff_t>(first) * s, {n},
                                         {s});
}

// The offsets of unpack, checked: first 0, never decreasing, last `flat` (the packed dim's
// extent). Returns the lengths. Error: shape_error naming unpack and the values at fault.
template <class D, class O>
std::vector<std::int64_t> checked_offset_lengths(const std::vector<O>& o, std::size_t flat) {
  using b = ragged_batch_t<D>;
  const std::string dim = "'" + describe<offsets_dim_t<D>>() + "'";
  if (o.empty()) throw shape_error("unpack", "the offsets are empty (dim " + dim + ")");
  if (std::cmp_not_equal(o[0], 0))
    throw shape_error("unpack", "the first offset is " + std::to_string(o[0]) +
                                    ", not 0 (offsets along dim " + dim + ")");
  for (std::size_t k = 1; k < o.size(); ++k)
    if (std::cmp_less(o[k], o[k - 1]))
      throw shape_error("unpack", "the offsets decrease from " + std::to_string(o[k - 1]) + " to " +
                                      std::to_string(o[k]) + " at entry " + std::to_string(k) +
                                      " of dim " + dim + " ('" + describe<b>() + "' " +
                                      std::to_string(k - 1) + " would have a negative length)");
  if (std::cmp_not_equal(o.back(), flat))
    throw shape_error("unpack", "the last offset is " + std::to_string(o.back()) +
                                    ", but the packed values have extent " + std::to_string(flat) +
                                    " along dim '" + describe<packed_dim<D>>() + "'");
  // (Now 0 <= o[k] <= flat, an extent: every value and difference fits a std::int64_t.)
  std::vector<std::int64_t> lens(o.size() - 1);
  for (std::size_t k = 0; k + 1 < o.size(); ++k)
    lens[k] = static_cast<std::int64_t>(o[k + 1]) - static_cast<std::int64_t>(o[k]);
  return lens;
}

}  // namespace detail

// dg::pack<D>(x): the valid positions of the ragged dim D of x, batch-major, and their offsets.
//   [.., batch, .., D, ..] -> packed<D, tensor<T, [.., packed_dim<D>, .., ..]>>
// values has packed_dim<D> where D's batch dim was and no D; its extent is the sum of the
// lengths (x's lengths of D; every row full when it has none). offsets [batch + 1] holds 0,
// len[0], len[0] + len[1], ... . Padding is not copied. A lazy x is evaluated first.
// Errors (compile time): D is not ragged; x lacks D or D's batch dim; x is not an expression.
template <dimension D, class X>
auto pack(const X& x) {
  using d = std::remove_cvref_t<D>;
  constexpr auto check = detail::check_pack<d, X>();
  using check_t = detail::pack_check;
  DIMGRAPH_REQUIRE(check != check_t::not_expression,
                   "dimgraph: pack: the operand must be a tensor, a view or an expression",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  DIMGRAPH_REQUIRE(check != check_t::not_ragged,
                   "dimgraph: pack: the dim is not ragged (declare it dg::dim<\"name\", "
                   "dg::ragged<Batch>>)",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  DIMGRAPH_REQUIRE(check != check_t::no_dims,
                   "dimgraph: pack: the tensor lacks the ragged dim or its batch dim",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  DIMGRAPH_REQUIRE(check != check_t::has_dims, "dimgraph: pack: the tensor is packed already",
                   ::dimgraph::asked<d>, detail::operand_role_t<"x", X>);
  if constexpr (check != check_t::ok) {
    return detail::invalid_expr{};
  } else {
    using b = ragged_batch_t<d>;
    using values_t =
        detail::tensor_of_list_t<value_t<X>, typename detail::packed_dims<d, dims_t<X>>::type>;
    using offsets_t = tensor<std::int64_t, offsets_dim_t<d>>;
    decltype(auto) m = detail::as_memory(x);
    const std::size_t rows = m.template extent<b>(), full = m.template extent<d>();
    const lengths_ref l = detail::lengths_in<d>(m);
    offsets_t offsets(extent<offsets_dim_t<d>>(rows + 1));
    std::int64_t* o = offsets.data();
    o[0] = 0;
    for (std::size_t r = 0; r < rows; ++r)
      o[r + 1] = o[r] + (l ? (*l)[r] : static_cast<std::int64_t>(full));
    values_t values = [&]<class... Ps>(dim_list<Ps...>) {
      auto one = [&]<class P>(std::type_identity<P>) -> std::size_t {
        if constexpr (std::is_same_v<P, packed_dim<d>>) return static_cast<std::size_t>(o[rows]);
        else return m.template extent<P>();
      };
      return values_t(
          values_t::shape_type::from_extents({one(std::type_identity<Ps>{})...}, "pack"));
    }(dims_t<values_t>{});
    for (std::size_t r = 0; r < rows; ++r) {
      const auto n = static_cast<std::size_t>(o[r + 1] - o[r]);
      if (n != 0)
        detail::packed_part<d>("pack", values, static_cast<std::size_t>(o[r]), n) =
            detail::row_part<d>("pack", m, r, n);
    }
    return packed<d, values_t>{std::move(values), std::move(offsets)};
  }
}

// dg::unpack<D>(values, offsets): the padded tensor of packed values, D's lengths restored.
//   [.., packed_dim<D>, ..], offsets [batch + 1] -> tensor<T, [.., batch, D, ..]>
// D's batch dim and D take packed_dim<D>'s place; row b holds the values at offsets[b], ...,
// offsets[b + 1] - 1 and zeros past its length offsets[b + 1] - offsets[b]. D's extent is the
// largest length, or n when given as dg::extent<D>(n). offsets is any integer tensor or view
// over offsets_dim_t<D> (from a framework's cu_seqlens: dg::view<std::int64_t,
// dg::offsets_dim_t<Time>>(ptr, dg::extent<dg::offsets_dim_t<Time>>(batch + 1))).
// dg::unpack(p) unpacks a dg::packed.
// Errors (compile time): D is not ragged; values lacks packed_dim<D> or has D or its batch dim;
// offsets is not an integer tensor over offsets_dim_t<D> alone; an extent for another dim.
// Errors (run time, shape_error naming unpack and the values, before anything is made): the
// first offset is not 0; offsets decrease; the last offset is not the packed dim's extent;
// a given extent below the largest length; a batch or D extent outside its dim's size; more
// elements than a tensor can address.
template <dimension D, class V, class O, class... Es>
auto unpack(const V& values, const O& offsets, extent_arg<Es>... given) {
  using d = std::remove_cvref_t<D>;
  constexpr auto check = detail::check_unpack<d, V, O>();
  using check_t = detail::pack_check;
  DIMGRAPH_REQUIRE(check != check_t::not_expression,
                   "dimgraph: unpack: the values and the offsets must be tensors, views or "
                   "expressions",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::not_ragged,
                   "dimgraph: unpack: the dim is not ragged (declare it dg::dim<\"name\", "
                   "dg::ragged<Batch>>)",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::no_dims,
                   "dimgraph: unpack: the values lack the packed dim dg::packed_dim<D>",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::has_dims,
                   "dimgraph: unpack: the values already have the ragged dim or its batch dim",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  DIMGRAPH_REQUIRE(check != check_t::bad_offsets,
                   "dimgraph: unpack: the offsets must be an integer tensor over "
                   "dg::offsets_dim_t<D> alone",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  constexpr bool extent_ok = (std::is_same_v<Es, d> && ...) && sizeof...(Es) <= 1;
  DIMGRAPH_REQUIRE(extent_ok, "dimgraph: unpack: only the ragged dim's extent may be given",
                   ::dimgraph::asked<d>, detail::operand_role_t<"values", V>,
                   detail::operand_role_t<"offsets", O>);
  if constexpr (check != check_t::ok || !extent_ok) {
    return detail::invalid_expr{};
  } else {
    using b = ragged_batch_t<d>;
    using out_t =
        detail::tensor_of_list_t<value_t<V>, typename detail::unpacked_dims<d, dims_t<V>>::type>;
    decltype(auto) vm = detail::as_memory(values);
    const auto o = detail::as_memory(offsets).to_vector();
    const auto lens = detail::checked_offset_lengths<d>(o, vm.template extent<packed_dim<d>>());
    const std::size_t rows = lens.size();
    std::size_t longest = 0;
    for (std::int64_t n : lens) longest = std::max(longest, static_cast<std::size_t>(n));
    std::size_t ext = longest;
    (
        [&] {
          if (given.value < longest)
            throw shape_error("unpack", "dim '" + describe<d>() + "' is given extent " +
                                            std::to_string(given.value) +
                                            ", below its longest length " +
                                            std::to_string(longest));
          ext = given.value;
        }(),
        ...);
    auto s = [&]<class... Ps>(dim_list<Ps...>) {
      auto one = [&]<class P>(std::type_identity<P>) -> std::size_t {
        if constexpr (std::is_same_v<P, b>) return rows;
        else if constexpr (std::is_same_v<P, d>) return ext;
        else return vm.template extent<P>();
      };
      return out_t::shape_type::from_extents({one(std::type_identity<Ps>{})...}, "unpack");
    }(dims_t<out_t>{});
    s.template set_lengths<d>("unpack", std::make_shared<const std::vector<std::int64_t>>(lens));
    out_t out(s);
    for (std::size_t r = 0; r < rows; ++r) {
      const auto n = static_cast<std::size_t>(lens[r]);
      if (n != 0)
        detail::row_part<d>("unpack", out, r, n) =
            detail::packed_part<d>("unpack", vm, static_cast<std::size_t>(o[r]), n);
    }
    return out;
  }
}
template <class D, class Values, class... Es>
auto unpack(const packed<D, Values>& p, extent_arg<Es>... given) {
  return unpack<D>(p.values, p.offsets, given...);
}

}  // namespace dimgraph
// ---- end dimgraph/ops/pack.hpp

// ---- begin dimgraph/graph/slicing.hpp
// dg::slicing (TensorIterator-1's port map), the walk it gives over a dim, and the dims of
// a scan: the part dim of a slice and the iteration dim of an emitted output.



namespace dimgraph {

// How dg::sliced walks a dim: OpenVINO TensorIterator-1's port map. A structural type, so
// it is a template argument: dg::sliced<Time, dg::slicing{.start = -1, .end = 0, .stride = -1}>.
//  start, end   the first and the last position covered, both INCLUSIVE; a negative one
//               counts from the end (-1 is the last position)
//  stride       the step between iterations; negative walks backwards (from start down to end)
//  part_size    the positions each iteration reads: 1 drops the dim from the slice, more
//               keeps it as part_dim<Dim, part_size>
// See slicing_walk for the exact rule. Errors: stride 0, part_size below 1 (compile time).
struct slicing {
  std::ptrdiff_t start = 0;
  std::ptrdiff_t end = -1;
  std::ptrdiff_t stride = 1;
  std::ptrdiff_t part_size = 1;
  friend constexpr bool operator==(const slicing&, const slicing&) = default;
};

// The walk of a slicing over a dim of extent n: `count` iterations; iteration i reads the
// window [first + i * step, first + i * step + part_size).
struct slice_walk {
  bool valid = false;  // the covered range lies inside the dim
  std::size_t count = 0;
  std::ptrdiff_t first = 0;
  std::ptrdiff_t step = 1;
  std::size_t part_size = 1;
  bool forward = true;
  constexpr friend bool operator==(const slice_walk&, const slice_walk&) = default;

  // Where iteration i starts reading.
  constexpr std::size_t window(std::size_t i) const {
    return static_cast<std::size_t>(first + static_cast<std::ptrdiff_t>(i) * step);
  }
  // The slot of an emitted output that iteration i fills: outputs keep the original order,
  // so a backward walk fills them from the back (slot(i) = count - 1 - i).
  constexpr std::size_t slot(std::size_t i) const { return forward ? i : count - 1 - i; }
};

// The one rule, used at compile time (static dims) and at run time:
//   s = start < 0 ? start + n : start,  e = end < 0 ? end + n : end
//   [lo, hi] = stride > 0 ? [s, e] : [e, s]          (the covered range, inclusive)
//   valid  <=>  0 <= lo <= hi + 1 <= n                (hi + 1 == lo: empty range)
//   L = hi - lo + 1,  k = |stride| (exact for any stride),  P = part_size
//   count  = L < P ? 0 : (L - P) / k + 1
//   window(i) = stride > 0 ? lo + i * k : hi + 1 - P - i * k
// With k == P this is the opset's (|end - start| + 1) / part_size: over a dim of 40 with
// part_size 2 and stride 2, end 39 gives 20 iterations and end 38 gives 19. A smaller stride
// gives overlapping windows, a larger one skips positions.
constexpr slice_walk slicing_walk(slicing s, std::size_t n) {
  slice_walk w;
  if (s.stride == 0 || s.part_size < 1) return w;
  const auto len = static_cast<std::ptrdiff_t>(n);
  const std::ptrdiff_t a = s.start < 0 ? s.start + len : s.start;
  const std::ptrdiff_t b = s.end < 0 ? s.end + len : s.end;
  w.forward = s.stride > 0;
  const std::ptrdiff_t lo = w.forward ? a : b, hi = w.forward ? b : a;
  w.valid = 0 <= lo && lo - 1 <= hi && hi < len;  // (written so that nothing overflows)
  if (!w.valid) return w;
  const auto covered = static_cast<std::size_t>(hi - lo + 1);
  const std::size_t k = step_magnitude(s.stride), p = static_cast<std::size_t>(s.part_size);
  w.part_size = p;
  w.count = covered < p ? 0 : (covered - p) / k + 1;
  w.first = w.forward ? lo : hi + 1 - s.part_size;
  w.step = s.stride;
  return w;
}

// Why a slicing's walk over a dim of extent n is not valid (the rule above, the first and
// the last covered position being lo and hi): a bound outside the dim (lo < 0, hi >= n, or
// lo > n / hi < -1 beyond an empty walk), or start past end in the walk's direction.
enum class slicing_fit { ok, before_first, past_last, reversed };
struct slicing_fit_result {
  slicing_fit fit = slicing_fit::ok;
  bool at_start = true;  // the bound at fault (when outside the dim)
};
constexpr slicing_fit_result check_slicing_fit(slicing s, std::size_t n) {
  const auto len = static_cast<std::ptrdiff_t>(n);
  const std::ptrdiff_t a = s.start < 0 ? s.start + len : s.start;
  const std::ptrdiff_t b = s.end < 0 ? s.end + len : s.end;
  const bool forward = s.stride > 0;
  const std::ptrdiff_t lo = forward ? a : b, hi = forward ? b : a;
  if (lo < 0) return {slicing_fit::before_first, forward};
  if (hi >= len) return {slicing_fit::past_last, !forward};
  if (hi < -1) return {slicing_fit::before_first, !forward};
  if (lo > len) return {slicing_fit::past_last, forward};
  if (lo - 1 > hi) return {slicing_fit::reversed, true};
  return {};
}

// What is wrong with a slicing over a dim of extent n whose walk is not valid:
// "start 3 is after end 1 for a forward slicing (stride 1); ...".
inline std::string slicing_problem(slicing s, std::size_t n) {
  const auto len = static_cast<std::ptrdiff_t>(n);
  auto bound = [&](bool is_start) {
    const std::ptrdiff_t v = is_start ? s.start : s.end;
    std::string text = (is_start ? "start " : "end ") + std::to_string(v);
    if (v < 0) text += " (position " + std::to_string(v + len) + ")";
    return text;
  };
  const slicing_fit_result r = check_slicing_fit(s, n);
  const std::string stride = " (stride " + std::to_string(s.stride) + ")";
  switch (r.fit) {
    case slicing_fit::before_first:
      return bound(r.at_start) + " lies before the first position of the dim";
    case slicing_fit::past_last:
      return bound(r.at_start) + " lies past the last position (" + std::to_string(len - 1) +
             ") of the dim";
    case slicing_fit::reversed:
      if (s.stride > 0)
        return bound(true) + " is after " + bound(false) + " for a forward slicing" + stride +
               "; the end is inclusive, so an empty walk has start = end + 1";
      return bound(true) + " is before " + bound(false) + " for a backward slicing" + stride +
             "; the end is inclusive, so an empty walk has start = end - 1";
    case slicing_fit::ok:
      break;
  }
  return "the slicing fits the dim";
}

// Whether a slicing's parameters make sense whatever the extent (stride != 0, part_size >= 1).
constexpr bool slicing_well_formed(slicing s) {
  return s.stride != 0 && s.part_size >= 1;
}

// The trip count of a slicing over D when it is known at compile time: D is static, or both
// bounds count from the front (the covered length then does not depend on the extent).
template <class D, slicing S>
constexpr bool static_trip_v = is_static_v<D> || (S.start >= 0 && S.end >= 0);
template <class D, slicing S>
constexpr slice_walk static_walk() {
  if constexpr (is_static_v<D>) {
    return slicing_walk(S, bounds_v<D>.lo);
  } else {
    // Any extent above both bounds gives the same walk.
    return slicing_walk(S, static_cast<std::size_t>(S.start > S.end ? S.start : S.end) + 1);
  }
}

// The part dim of a slice with part_size P > 1 along D: static size P, D's kind.
template <class D, std::size_t P>
struct part_dim : dim_expr_base {
  static constexpr interval bounds = interval::exactly(P);
  using source = D;
  static constexpr dim_kind kind = kind_v<D>;
  static std::string describe() {
    return "part" + std::to_string(P) + "(" + dimgraph::describe<D>() + ")";
  }
};

// The iteration dim of an emitted output when the walk does not read every position of D
// once: its extent is the trip count (static when static_trip_v, else [0, hi(D)]); slot j
// holds the iteration whose window is the j-th from the front.
template <class D, slicing S>
struct trip_dim : dim_expr_base {
  static constexpr interval bounds = [] {
    if constexpr (static_trip_v<D, S>) return interval::exactly(static_walk<D, S>().count);
    else return interval{0, bounds_v<D>.hi};
  }();
  using source = D;
  static constexpr dim_kind kind = kind_v<D>;
  static std::string describe() {
    return "trip(" + dimgraph::describe<D>() + ", " + std::to_string(S.start) + ":" +
           std::to_string(S.end) + ":" + std::to_string(S.stride) + ", part " +
           std::to_string(S.part_size) + ")";
  }
};

namespace detail {

// concat_t through a class template (GCC rejects a pack expanded into concat_t directly).
template <class... Lists>
struct joined {
  using type = concat_t<type_list<>, Lists...>;
};

// Whether a walk over D reads every position once, in either direction, one at a time.
template <class D, slicing S>
constexpr bool walks_whole_dim() {
  if (S.part_size != 1 || (S.stride != 1 && S.stride != -1)) return false;
  if constexpr (is_static_v<D>) {
    const slice_walk w = slicing_walk(S, bounds_v<D>.lo);
    return w.valid && w.count == bounds_v<D>.lo;
  } else {
    return S.stride == 1 ? S.start == 0 && S.end == -1 : S.start == -1 && S.end == 0;
  }
}

template <class D, slicing S>
struct iteration_dim {
  using type = std::conditional_t<walks_whole_dim<D, S>(), D, trip_dim<D, S>>;
};

// The dim a slice has where D was: none (part_size 1) or part_dim<D, P>.
template <class D, slicing S, class L>
struct slice_dims;
template <class D, slicing S, class... Ds>
struct slice_dims<D, S, dim_list<Ds...>> {
  template <class X>
  using one = std::conditional_t<
      !std::is_same_v<X, D>, type_list<X>,
      std::conditional_t<S.part_size == 1, type_list<>,
                         type_list<part_dim<D, static_cast<std::size_t>(S.part_size)>>>>;
  using type = dims_of_t<typename joined<one<Ds>...>::type>;
};

// Dims with Iter inserted at position Pos (clamped to the rank).
template <class Iter, std::size_t Pos, class L>
struct stacked_dims {
  using list = types_of_t<L>;
  static constexpr std::size_t at = Pos < list::size ? Pos : list::size;
  using type =
      dims_of_t<concat_t<slice_t<0, at, list>, type_list<Iter>, slice_t<at, list::size, list>>>;
};

}  // namespace detail

// The dim an emitted output of dg::scan<D> over dg::sliced<D, S> inputs is stacked along:
// D itself when the walk reads every position of D once with part_size 1 (forward or
// backward: outputs are in original order either way), else trip_dim<D, S>.
template <class D, slicing S>
using iteration_dim_t = typename detail::iteration_dim<D, S>::type;

// The dims of a slice of [.., D, ..]: [.., ..] for part_size 1, [.., part_dim<D, P>, ..] else.
template <class D, slicing S, class Dims>
using slice_dims_t = typename detail::slice_dims<D, S, Dims>::type;

// The dims of an emitted output: the emitted value's dims with Iter inserted at Pos, the
// position D has in the first sliced input (clamped to the emitted value's rank).
template <class Iter, std::size_t Pos, class Dims>
using stacked_dims_t = typename detail::stacked_dims<Iter, Pos, Dims>::type;

}  // namespace dimgraph
// ---- end dimgraph/graph/slicing.hpp
// ---- begin dimgraph/graph/step.hpp
// dg::sliced, dg::carry, dg::emit, dg::step: the inputs and the body result of dg::scan.


// ---- begin dimgraph/graph/symbol.hpp
// Symbolic values and the nodes of a traced graph: inputs, captured constants, scalars, ops.



namespace dimgraph {

// The I-th input of a traced graph: element type T, dims Ds.
template <std::size_t I, class T, class... Ds>
struct input_node {
  using value_type = T;
  using dims = dim_list<Ds...>;
  static constexpr std::size_t index = I;
};

// A tensor the traced function captured: a constant of the graph. `address` tells two
// captured tensors of the same type apart.
template <class T, class Dims>
struct constant_node {
  using value_type = T;
  using dims = Dims;
  const void* address = nullptr;
};

// A C++ scalar operand (x * 2.0f): a rank-0 constant with its value.
template <class T>
struct scalar_node {
  using value_type = T;
  using dims = dim_list<>;
  T value{};
};

// The name of an op and its compile-time attributes (dims, printed by name).
template <detail::fixed_string Name, class... Attrs>
struct op_tag {
  static constexpr auto name = Name;
};

// Op applied to Children, giving element type T over Dims (the types the op gives on
// tensors: the graph's shape facts are the eager ops' own).
template <class Op, class T, class Dims, class... Children>
struct op_node {
  using value_type = T;
  using dims = Dims;
  using op = Op;
  std::tuple<Children...> children;
  std::string attributes{};  // run-time attributes as text ("start=1, end=-1"), may be empty
};

// A symbolic value: what a traced function sees instead of a tensor. It has the value
// type and dims of the tensor it stands for and no data; every public op on it returns
// the symbol of a new node.
template <class Node>
struct symbol {
  using node_type = Node;
  using value_type = typename Node::value_type;
  using dims = typename Node::dims;
  Node node;

  // x[dg::at<D>(i)]: the slice at position i of D, without D.
  template <class D>
  auto operator[](at_arg<D> a) const;
};

// dg::input<T, Ds...>: declares one input of dg::trace by its element type and dims.
template <class T, class... Ds>
struct input {
  static_assert(element<T>, "dimgraph: input: not an element type");
  using value_type = T;
  using dims = dim_list<Ds...>;
};

namespace detail {

template <class X>
inline constexpr bool is_symbol_v = false;
template <class N>
inline constexpr bool is_symbol_v<symbol<N>> = true;

}  // namespace detail

// A symbolic value (cv and references ignored).
template <class X>
concept symbolic = detail::is_symbol_v<std::remove_cvref_t<X>>;

namespace detail {

// The tensor type a value stands for: a symbol's, or an expression's (its element type over
// its dims); anything else is itself (for the caller to report). (Not tensor_of_list_t: from a
// value's type, which may be no value at all, not from an element type and dims.)
template <class X>
struct tensor_type_of {
  using type = X;
};
template <class X>
  requires(expression<X> || is_symbol_v<X>)
struct tensor_type_of<X> {
  using type = tensor_of_list_t<typename X::value_type, typename X::dims>;
};
template <class X>
using tensor_type_of_t = typename tensor_type_of<std::remove_cvref_t<X>>::type;

// What an op's result type is computed from: a symbol stands in as a tensor of its type,
// anything else as itself.
template <class X>
struct stand_in {
  using type = X&&;
};
template <class N>
struct stand_in<symbol<N>> {
  using type = const tensor_of_list_t<typename N::value_type, typename N::dims>&;
};
template <class X>
using stand_in_t = typename stand_in<std::remove_cvref_t<X>>::type;
// An operand's stand-in, for decltype of the op on tensors (declared only).
template <class X>
stand_in_t<X> stand_in_of(const X&);

// The node an operand becomes: a symbol's own node, a captured constant, or a scalar.
template <class X>
auto node_of(const X& x) {
  if constexpr (is_symbol_v<X>) return x.node;
  else if constexpr (expression<X>) return constant_node<value_t<X>, dims_t<X>>{&x};
  else return scalar_node<X>{x};
}
template <class X>
using node_of_t = decltype(node_of(std::declval<const std::remove_cvref_t<X>&>()));

template <class R>
inline constexpr bool is_tuple_v = false;
template <class... Ts>
inline constexpr bool is_tuple_v<std::tuple<Ts...>> = true;

// The staged values of a scan that hoists (graph/hoist.hpp): symbols whose node holds a value.
enum class stage_hold : unsigned char;
template <class N, class Ctx, stage_hold H, class V>
struct staged;
template <class X>
inline constexpr bool is_staged_v = false;
template <class N, class Ctx, stage_hold H, class V>
inline constexpr bool is_staged_v<symbol<staged<N, Ctx, H, V>>> = true;
template <class Op, class Eager, class... Xs>
auto staged_apply(Eager eager, Xs&&... xs);
template <class X>
auto staged_held_value(const X& x);
template <class S, class X>
auto staged_constant(const S& s, const X& x);

// A tensor x that a traced function captured, as a symbol of the constant node an op would
// make of it (x's address names it), in the run of s: a symbol while tracing, a staged value
// reading x in a scan that hoists. Ops on it are nodes over the constant, as on a symbol (a
// view made of x itself while tracing would be a temporary, listed by its own address).
template <class S, class X>
auto constant_symbol(const S& s, const X& x) {
  if constexpr (is_staged_v<S>) return staged_constant(s, x);
  else return symbol<node_of_t<X>>{node_of(x)};
}

// The symbol of a node of Op over xs whose eager result has type R.
template <class Op, class R, class... Xs>
auto symbol_of(std::string attributes, const Xs&... xs) {
  using node = op_node<Op, value_t<R>, dims_t<R>, node_of_t<Xs>...>;
  return symbol<node>{node{{node_of(xs)...}, std::move(attributes)}};
}

// The outputs of a traced function as a tuple of nodes: one symbol, or a tuple/pair of them.
template <class R>
struct traced_outputs {
  static constexpr bool valid = false;
  static constexpr bool poisoned = std::is_same_v<R, invalid_expr>;
};
template <template <class...> class Tuple, class... Rs>
  requires(std::is_same_v<Tuple<Rs...>, std::tuple<Rs...>> ||
           std::is_same_v<Tuple<Rs...>, std::pair<Rs...>>)
struct traced_outputs<Tuple<Rs...>> {
  static constexpr bool valid = false;
  static constexpr bool poisoned = (std::is_same_v<Rs, invalid_expr> || ...);
};
template <class N>
struct traced_outputs<symbol<N>> {
  static constexpr bool valid = true;
  static constexpr bool poisoned = false;
  using nodes = std::tuple<N>;
  static nodes get(const symbol<N>& s) { return nodes{s.node}; }
};
template <template <class...> class Tuple, class... Ns>
  requires(std::is_same_v<Tuple<symbol<Ns>...>, std::tuple<symbol<Ns>...>> ||
           std::is_same_v<Tuple<symbol<Ns>...>, std::pair<symbol<Ns>...>>)
struct traced_outputs<Tuple<symbol<Ns>...>> {
  static constexpr bool valid = true;
  static constexpr bool poisoned = false;
  using nodes = std::tuple<Ns...>;
  static nodes get(const Tuple<symbol<Ns>...>& t) {
    return std::apply([](const auto&... s) { return nodes{s.node...}; }, t);
  }
};

// Operands of an op traced symbolically: at least one symbol, the others tensors,
// expressions or scalars.
template <class... Xs>
concept symbolic_operands =
    (symbolic<Xs> || ...) && ((symbolic<Xs> || expression<Xs> || scalar<Xs>)&&...);

// The symbol of Op applied to xs, of the type R the public op gives on tensors of the
// operands' types. The op on symbols computes R itself, as decltype of the public op on the
// operands' stand-ins (stand_in_of): shape rules and compile-time errors are the eager op's,
// checked once and reported from the op the user called. `eager` is the public op as a
// callable, which a scan that hoists runs (staged_apply); `attributes` describes the run-time
// arguments it captured.
template <class Op, class R, class Eager, class... Xs>
auto symbolic_apply_with(std::string attributes, Eager eager, Xs&&... xs) {
  if constexpr ((is_staged_v<std::remove_cvref_t<Xs>> || ...)) {
    return staged_apply<Op>(std::move(eager), std::forward<Xs>(xs)...);
  } else if constexpr (poisoned<R>) {
    return invalid_expr{};
  } else if constexpr (is_tuple_v<R>) {
    // An op with several results (split): one node per result, told apart by "part=i".
    return with_indices<std::tuple_size_v<R>>([&]<std::size_t... Is>(index_constant<Is>...) {
      return std::tuple{symbol_of<Op, std::tuple_element_t<Is, R>>(
          attributes + (attributes.empty() ? "" : ", ") + "part=" + std::to_string(Is), xs...)...};
    });
  } else {
    return symbol_of<Op, R>(std::move(attributes), xs...);
  }
}
template <class Op, class R, class Eager, class... Xs>
auto symbolic_apply(Eager eager, Xs&&... xs) {
  return symbolic_apply_with<Op, R>(std::string(), std::move(eager), std::forward<Xs>(xs)...);
}

}  // namespace detail

template <class Node>
template <class D>
auto symbol<Node>::operator[](at_arg<D> a) const {
  using result = decltype(detail::stand_in_of(*this)[a]);
  return detail::symbolic_apply_with<op_tag<"at", D>, result>(
      "index=" + std::to_string(a.value), [a](auto&& y) { return y[a]; }, *this);
}

}  // namespace dimgraph
// ---- end dimgraph/graph/symbol.hpp

namespace dimgraph {

// An input of dg::scan<D> sliced along D by the slicing S. Operand is how it is held: a
// named tensor by reference, a view or a temporary tensor by value.
template <class D, slicing S, class Operand>
struct sliced_input {
  using dim = D;
  static constexpr slicing slicing_value = S;
  using operand_type = std::remove_cvref_t<Operand>;
  Operand operand;
};

namespace detail {

template <class X>
inline constexpr bool is_sliced_v = false;
template <class D, slicing S, class Op>
inline constexpr bool is_sliced_v<sliced_input<D, S, Op>> = true;

// How sliced_input holds x: lvalue tensors by reference, views and rvalue tensors by value,
// lazy expressions evaluated.
template <class X>
using sliced_operand_t =
    std::conditional_t<is_tensor_v<std::remove_cvref_t<X>> && std::is_lvalue_reference_v<X>,
                       const std::remove_cvref_t<X>&,
                       std::conditional_t<memory_operand<X>, std::remove_cvref_t<X>,
                                          decltype(eval(std::declval<X>()))>>;

// Why sliced<D, S>(x) is rejected (one message per mistake).
enum class sliced_check { ok, not_expression, ill_formed, no_such_dim };
template <class D, slicing S, class X>
constexpr sliced_check check_sliced() {
  if constexpr (!expression<X>) return sliced_check::not_expression;
  else if constexpr (!slicing_well_formed(S)) return sliced_check::ill_formed;
  else if constexpr (!list_contains_v<dims_t<X>, D>) return sliced_check::no_such_dim;
  else return sliced_check::ok;
}

}  // namespace detail

namespace detail {
// sliced<D, S>(x) for an operand that is not a reported mistake.
template <class d, slicing S, class X>
auto make_sliced(X&& x) {
  // A symbol (traced) is checked as a tensor of its type and held by value.
  using checked = std::conditional_t<symbolic<X>, stand_in_t<X>, X>;
  constexpr auto check = check_sliced<d, S, checked>();
  using check_t = sliced_check;
  static_assert(check != check_t::not_expression,
                "dimgraph: scan: a sliced input must be a tensor, a view or an expression");
  static_assert(check != check_t::ill_formed,
                "dimgraph: scan: a slicing needs a stride other than 0 and a part_size of at "
                "least 1");
  DIMGRAPH_REQUIRE(check != check_t::no_such_dim,
                   "dimgraph: scan: the sliced input has no such dim", ::dimgraph::asked<d>,
                   detail::operand_role_t<"input", checked>);
  if constexpr (check == check_t::ok && symbolic<X>) {
    return sliced_input<d, S, std::remove_cvref_t<X>>{std::forward<X>(x)};
  } else if constexpr (check == check_t::ok) {
    using operand = sliced_operand_t<X>;
    if constexpr (memory_operand<X>) return sliced_input<d, S, operand>{std::forward<X>(x)};
    else return sliced_input<d, S, operand>{eval(std::forward<X>(x))};
  } else {
    return invalid_expr{};
  }
}
}  // namespace detail

// dg::sliced<D, S>(x): x as an input of dg::scan<D>, sliced along D by S (dg::slicing; the
// default walks D forwards one position at a time). Each iteration gets a view of x:
//   part_size 1: [.., D, ..] -> [.., ..];   part_size P > 1: [.., D, ..] -> [.., part_dim<D, P>,
//   ..]
// A lazy expression is evaluated first. Errors (compile time): x is not a tensor or
// expression; stride 0 or part_size below 1; x has no dim D ("the sliced input has no such dim").
template <dimension D, slicing S = slicing{}, class X>
auto sliced(X&& x) {
  using d = std::remove_cvref_t<D>;
  if constexpr (detail::poisoned<X>) return detail::invalid_expr{};
  else return detail::make_sliced<d, S>(std::forward<X>(x));
}

// The new values of the carried inputs, in the order the carried inputs were passed.
template <class... Xs>
struct carry_values {
  std::tuple<Xs...> values;
};
// The values one iteration emits; each is stacked along the iteration dim.
template <class... Xs>
struct emit_values {
  std::tuple<Xs...> values;
};
// What a scan body returns: dg::step(dg::carry(...), dg::emit(...)).
template <class Carries, class Emits>
struct scan_step {
  Carries carries;
  Emits emits;
};

namespace detail {
// A tuple of the contents of t's elements, handed over (t is dropped next).
template <class... Xs>
std::tuple<Xs...> hand_over_all(std::tuple<Xs...>& t) {
  return with_indices<sizeof...(Xs)>([&]<std::size_t... Is>(index_constant<Is>...) {
    return std::tuple<Xs...>(tensor_internals::hand_over(std::get<Is>(t))...);
  });
}

// What carry and emit hold: a tensor as is, any other expression evaluated at once (inside
// the body, while its arguments and locals are alive).
template <class X>
auto held_value(X&& x) {
  // (A staged value of a scan that hoists: computed, or stored, here too; graph/hoist.hpp.)
  if constexpr (is_staged_v<std::remove_cvref_t<X>>) return staged_held_value(x);
  else if constexpr (expression<X> && !is_tensor_v<std::remove_cvref_t<X>>)
    return eval(std::forward<X>(x));
  else return std::decay_t<X>(std::forward<X>(x));
}
template <class X>
using held_t = decltype(held_value(std::declval<X>()));
// The held values of xs (each computed into a temporary, which its element takes over).
template <class... Xs>
std::tuple<held_t<Xs>...> held_values(Xs&&... xs) {
  return std::tuple<held_t<Xs>...>(
      tensor_internals::hand_over(held_value(std::forward<Xs>(xs)))...);
}
}  // namespace detail

// dg::carry(h2, c2): the carried inputs' next values, in the order the carried inputs were
// passed. Lazy expressions are evaluated here, so the body may take its arguments by value
// and carry expressions over its own locals.
template <class... Xs>
carry_values<detail::held_t<Xs>...> carry(Xs&&... xs) {
  return {detail::held_values(std::forward<Xs>(xs)...)};
}
// dg::emit(y...): the values this iteration contributes to the stacked outputs (evaluated
// here, as for carry).
template <class... Xs>
emit_values<detail::held_t<Xs>...> emit(Xs&&... xs) {
  return {detail::held_values(std::forward<Xs>(xs)...)};
}
// dg::step(carry(...), emit(...)); either may be left out.
template <class... Cs, class... Es>
scan_step<carry_values<Cs...>, emit_values<Es...>> step(carry_values<Cs...> c,
                                                        emit_values<Es...> e) {
  return {{detail::hand_over_all(c.values)}, {detail::hand_over_all(e.values)}};
}
template <class... Cs>
scan_step<carry_values<Cs...>, emit_values<>> step(carry_values<Cs...> c) {
  return {{detail::hand_over_all(c.values)}, {}};
}
template <class... Es>
scan_step<carry_values<>, emit_values<Es...>> step(emit_values<Es...> e) {
  return {{}, {detail::hand_over_all(e.values)}};
}

}  // namespace dimgraph
// ---- end dimgraph/graph/step.hpp
// ---- begin dimgraph/graph/scan_check.hpp
// The compile-time checks of dg::scan: its inputs, and what its body returns.



// Each check names what is wrong in its message and shows the types involved as template
// arguments of the mistake it reports (e.g. operand<"initial", Hidden>, operand<"next", Other>,
// float, float). The scan then stops (one message per mistake).

namespace dimgraph {
namespace detail {

// Why the inputs of scan<D> are rejected.
enum class scan_input_check {
  ok,
  poisoned,
  no_sliced,
  other_dim,
  not_input,
  outside,
  trips_differ,
  ragged_walk
};

template <class First, class Other>
constexpr bool trip_counts_agree() {
  constexpr bool agree = static_walk<typename First::dim, First::slicing_value>().count ==
                         static_walk<typename Other::dim, Other::slicing_value>().count;
  DIMGRAPH_REQUIRE(agree, "dimgraph: scan: sliced inputs iterate a different number of times",
                   ::dimgraph::asked<typename First::dim, typename Other::dim>);
  return agree;
}

template <class Sliced>
constexpr bool slicing_inside_dim() {
  using d = typename Sliced::dim;
  if constexpr (is_static_v<d>) {
    constexpr slicing_fit fit = check_slicing_fit(Sliced::slicing_value, bounds_v<d>.lo).fit;
    DIMGRAPH_REQUIRE(fit != slicing_fit::before_first && fit != slicing_fit::past_last,
                     "dimgraph: scan: the slicing's start or end lies outside the dim",
                     ::dimgraph::asked<d>);
    DIMGRAPH_REQUIRE(fit != slicing_fit::reversed,
                     "dimgraph: scan: the slicing's start is past its end in the direction of its "
                     "stride (the end is inclusive: an empty walk has start = end + 1 going "
                     "forward, end - 1 going backward)",
                     ::dimgraph::asked<d>);
    return fit == slicing_fit::ok;
  } else {
    return true;
  }
}

// The sliced inputs among Xs, in order.
template <class... Xs>
using sliced_inputs_t =
    typename joined<std::conditional_t<is_sliced_v<std::remove_cvref_t<Xs>>,
                                       type_list<std::remove_cvref_t<Xs>>, type_list<>>...>::type;

// Static trip counts of sliced inputs that know theirs, checked against the first such.
template <class... Ss>
constexpr bool static_trips_agree(type_list<Ss...>) {
  using known =
      typename joined<std::conditional_t<static_trip_v<typename Ss::dim, Ss::slicing_value>,
                                         type_list<Ss>, type_list<>>...>::type;
  if constexpr (known::size < 2) {
    return true;
  } else {
    return [&]<class F, class... Rest>(type_list<F, Rest...>) {
      return (trip_counts_agree<F, Rest>() && ...);
    }(known{});
  }
}

// Whether scan<D> over the sliced inputs Sliced (a type_list) runs each batch row for its own
// length: D is ragged and a sliced input has D's batch dim (so it carries D's lengths).
template <class D, class Sliced>
inline constexpr bool ragged_scan_v = false;
template <class D, class... Ss>
inline constexpr bool ragged_scan_v<D, type_list<Ss...>> =
    (carries_lengths_v<D, dims_t<typename Ss::operand_type>> || ...);

// A sliced input of a scan over the ragged dim D: it walks the whole dim one position at a
// time (a row's steps are its first len positions, in either direction), and backwards only
// with D's batch dim (row b's first step is its own last position, len[b] - 1).
template <class D, class Sliced>
constexpr bool ragged_walk_fits() {
  constexpr slicing s = Sliced::slicing_value;
  constexpr bool whole = walks_whole_dim<D, s>();
  DIMGRAPH_REQUIRE(whole,
                   "dimgraph: scan: over a ragged dim, a sliced input walks the whole dim one "
                   "position at a time (forwards: start 0, end -1, stride 1; backwards: start -1, "
                   "end 0, stride -1)",
                   ::dimgraph::asked<D>);
  if constexpr (!whole) {
    return false;
  } else {
    constexpr bool rows =
        s.stride > 0 || list_contains_v<dims_t<typename Sliced::operand_type>, ragged_batch_t<D>>;
    DIMGRAPH_REQUIRE(rows,
                     "dimgraph: scan: over a ragged dim, a sliced input walked backwards needs the "
                     "dim's batch dim (each row starts at its own last step)",
                     ::dimgraph::asked<D, ragged_batch_t<D>>,
                     detail::operand_role_t<"input", typename Sliced::operand_type>);
    return rows;
  }
}
template <class D, class... Ss>
constexpr bool ragged_walks_fit(type_list<Ss...>) {
  if constexpr (!ragged_scan_v<D, type_list<Ss...>>) return true;
  else return (ragged_walk_fits<D, Ss>() && ...);
}

// The inputs of scan<D>(body)(xs...): at least one sliced along D, every other one a tensor
// or an expression (a carry); static slicings inside their dims; static trip counts equal;
// over a ragged dim whose lengths they carry, walks that ragged_walk_fits.
template <class D, class... Xs>
constexpr scan_input_check check_scan_inputs() {
  using sliced = sliced_inputs_t<Xs...>;
  if constexpr ((poisoned<Xs> || ...)) {
    return scan_input_check::poisoned;
  } else if constexpr (sliced::size == 0) {
    static_assert(sliced::size != 0,
                  "dimgraph: scan: give at least one input as dg::sliced<Dim>(x)");
    return scan_input_check::no_sliced;
  } else if constexpr (![]<class... Ss>(type_list<Ss...>) {
                         return (std::is_same_v<typename Ss::dim, D> && ...);
                       }(sliced{})) {
    static_assert(sizeof(D) == 0,
                  "dimgraph: scan: a sliced input is sliced along another dim than the scan's");
    return scan_input_check::other_dim;
  } else if constexpr (!((is_sliced_v<std::remove_cvref_t<Xs>> || expression<Xs>)&&...)) {
    static_assert(sizeof(D) == 0,
                  "dimgraph: scan: an input must be dg::sliced<Dim>(x), a tensor or an expression");
    return scan_input_check::not_input;
  } else if constexpr (![]<class... Ss>(type_list<Ss...>) {
                         return (slicing_inside_dim<Ss>() && ...);
                       }(sliced{})) {
    return scan_input_check::outside;
  } else if constexpr (!static_trips_agree(sliced{})) {
    return scan_input_check::trips_differ;
  } else if constexpr (!ragged_walks_fit<D>(sliced{})) {
    return scan_input_check::ragged_walk;
  } else {
    return scan_input_check::ok;
  }
}

template <class R>
inline constexpr bool is_scan_step_v = false;
template <class... Cs, class... Es>
inline constexpr bool is_scan_step_v<scan_step<carry_values<Cs...>, emit_values<Es...>>> = true;

// A step that carries or emits the stand-in for a mistake made (and reported) in the body.
template <class R>
inline constexpr bool step_poisoned_v = false;
template <class... Cs, class... Es>
inline constexpr bool step_poisoned_v<scan_step<carry_values<Cs...>, emit_values<Es...>>> =
    any_poisoned<Cs..., Es...>;

// A carry's next value keeps the type of its initial value: the same element type and the
// same dims (in any order).
template <class Initial, class Next>
constexpr bool carry_keeps_type() {
  if constexpr (expression<Next> || symbolic<Next>)
    return std::is_same_v<value_t<Initial>, value_t<Next>> &&
           list_same_set_v<dims_t<Initial>, dims_t<Next>>;
  else return false;
}

template <std::size_t Index, class Iter, class Emitted>
constexpr bool emitted_value_fits() {
  if constexpr (!expression<Emitted> && !symbolic<Emitted>) {
    static_assert(sizeof(Emitted) == 0,
                  "dimgraph: scan: an emitted value must be a tensor or an expression");
    return false;
  } else {
    constexpr bool fresh = !list_contains_v<dims_t<tensor_type_of_t<Emitted>>, Iter>;
    DIMGRAPH_REQUIRE(fresh, "dimgraph: scan: an emitted value already has the iteration dim",
                     ::dimgraph::asked<Iter>, detail::operand_role_t<"emitted", Emitted>);
    return fresh;
  }
}

// Over a ragged dim (Batch its batch dim), a carry (Emitted false) or an emitted value
// (Emitted true) has Batch: each row keeps its carry, and gets zeros, after its last step.
template <std::size_t Index, class Batch, class Value, bool Emitted>
constexpr bool ragged_value_has_rows() {
  constexpr bool has = list_contains_v<dims_t<Value>, Batch>;
  DIMGRAPH_REQUIRE(has || Emitted,
                   "dimgraph: scan: over a ragged dim, every carry needs the dim's batch dim (each "
                   "row keeps its carry after its own last step)",
                   ::dimgraph::asked<Batch>, detail::operand_role_t<"carry", Value>);
  DIMGRAPH_REQUIRE(has || !Emitted,
                   "dimgraph: scan: over a ragged dim, every emitted value needs the dim's batch "
                   "dim (each row's outputs past its own last step are zero)",
                   ::dimgraph::asked<Batch>, detail::operand_role_t<"emitted", Value>);
  return has;
}

// What the body returned (R) against the carried inputs' types (a type_list): a scan_step
// with one carry per carried input. (A poisoned result, or a step carrying or emitting a
// poisoned value, was reported in the body: nothing more to say.)
template <class Carried, class R>
constexpr bool check_scan_step() {
  if constexpr ((poisoned<R>)) {
    return false;
  } else if constexpr (!is_scan_step_v<R>) {
    static_assert(is_scan_step_v<R>,
                  "dimgraph: scan: the body must return dg::step(dg::carry(...), dg::emit(...))");
    return false;
  } else if constexpr (std::tuple_size_v<decltype(std::declval<R>().carries.values)> !=
                       Carried::size) {
    static_assert(std::tuple_size_v<decltype(std::declval<R>().carries.values)> == Carried::size,
                  "dimgraph: scan: the body carries a different number of values than there "
                  "are carried inputs");
    return false;
  } else {
    return !step_poisoned_v<R>;
  }
}

// The values of a step R that passed check_scan_step (Is: its carries, Ks: its emitted
// values): each carry of its carried input's type (the first that is not is reported), and
// emitted expressions without the iteration dim Iter. Over a ragged dim (Batch, its batch
// dim, not void): every carry and emitted value has Batch. (Called by the scan's call
// operator itself, so that a mistake here is reported one frame from the scan's call.)
template <class Iter, class Carried, class R, class Batch, std::size_t... Is, std::size_t... Ks>
constexpr bool check_scan_values(std::index_sequence<Is...>, std::index_sequence<Ks...>) {
  using nexts = decltype(std::declval<R>().carries.values);
  using emits = decltype(std::declval<R>().emits.values);
  constexpr std::size_t changed = [] {
    const bool keeps[] = {
        carry_keeps_type<at_t<Is, Carried>, tensor_type_of_t<std::tuple_element_t<Is, nexts>>>()...,
        false};
    std::size_t i = 0;
    while (keeps[i]) ++i;
    return i;
  }();
  if constexpr (changed != Carried::size) {
    using initial = at_t<changed, Carried>;
    using next = tensor_type_of_t<std::tuple_element_t<changed, nexts>>;
    DIMGRAPH_REQUIRE(changed == Carried::size, "dimgraph: scan: a carry changes type",
                     detail::operand_role_t<"initial", initial>,
                     detail::operand_role_t<"next", next>, detail::element_of_t<initial>,
                     detail::element_of_t<next>);
    return false;
  } else if constexpr (!(emitted_value_fits<Ks, Iter, std::tuple_element_t<Ks, emits>>() && ...)) {
    return false;
  } else if constexpr (std::is_void_v<Batch>) {
    return true;
  } else {
    return (ragged_value_has_rows<Is, Batch, at_t<Is, Carried>, false>() && ...) &&
           (ragged_value_has_rows<Ks, Batch, tensor_type_of_t<std::tuple_element_t<Ks, emits>>,
                                  true>() &&
            ...);
  }
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/graph/scan_check.hpp
// ---- begin dimgraph/graph/scan_run.hpp
// The mechanics of one dg::scan: its loop (dg::unroll), the slices it reads, its trip-count
// checks, the types of the body's arguments and result, and its stacked outputs.

#include <optional>

// ---- begin dimgraph/detail/call.hpp
// Whether a callable takes some arguments, and what it returns, without <type_traits>'
// std::is_invocable/std::invoke_result: a mistake inside a user's body or branch is then
// reported through a few frames of our own, not through five of the standard library's.
// (Callables only: a pointer to member is not a body.)


namespace dimgraph::detail {

template <class F, class... Args>
concept callable_with =
    requires(F&& f, Args&&... args) { static_cast<F&&>(f)(static_cast<Args&&>(args)...); };

template <class F, class... Args>
using call_result_t = decltype(std::declval<F>()(std::declval<Args>()...));

}  // namespace dimgraph::detail
// ---- end dimgraph/detail/call.hpp
// ---- begin dimgraph/graph/region.hpp
// Nodes that hold sub-graphs (the branches of if_, the body of scan) and their results.



namespace dimgraph {

// The I-th argument of a sub-graph: element type T, dims Ds.
template <std::size_t I, class T, class... Ds>
struct arg_node {
  using value_type = T;
  using dims = dim_list<Ds...>;
  static constexpr std::size_t index = I;
};

// A traced sub-graph: the nodes it yields (a tuple), under a name ("then", "body", ...);
// Args is the std::tuple of its arg_node types; Hoisted the detail::type_list of the node
// types a scan that hoists computes before its loop (the listing shows them first).
template <class Outs, class Args, class Hoisted = detail::type_list<>>
struct body_graph {
  using outputs = Outs;
  using args = Args;
  using hoisted = Hoisted;
  Outs yields;
  std::string name;
  std::string yield_text;  // how the yielded values are grouped, e.g. "carry 2, emit 1"
};

// Op with sub-graphs Bodies over operands Children; its results are Results, a std::tuple
// of tensor types, each reached through a result_node.
template <class Op, class Results, class Bodies, class... Children>
struct region_node {
  using op = Op;
  using results = Results;
  std::tuple<Children...> children;
  Bodies bodies;
  std::string attributes{};
};

// The K-th result of a region node.
template <std::size_t K, class Region>
struct result_node {
  using value_type = value_t<std::tuple_element_t<K, typename Region::results>>;
  using dims = dims_t<std::tuple_element_t<K, typename Region::results>>;
  static constexpr std::size_t index = K;
  Region region;
};

namespace detail {

// poisoned_tuple_t<N>: N stand-ins for a reported mistake, what an op with several results
// (if_, scan) gives after one, so that `auto [a, b] = ...` binds each name to the stand-in
// without a second message.
template <class Is>
struct poisoned_tuple;
template <std::size_t... Is>
struct poisoned_tuple<std::index_sequence<Is...>> {
  template <std::size_t>
  using stand_in = invalid_expr;
  using type = std::tuple<stand_in<Is>...>;
};
template <std::size_t N>
using poisoned_tuple_t = typename poisoned_tuple<std::make_index_sequence<N>>::type;

// std::tuple<Ts...> of a type_list<Ts...>.
template <class L>
struct tuple_of;
template <class... Ts>
struct tuple_of<type_list<Ts...>> {
  using type = std::tuple<Ts...>;
};

template <class Arg, std::size_t I>
struct arg_symbol;
template <class T, class... Ds, std::size_t I>
struct arg_symbol<tensor<T, Ds...>, I> {
  using type = symbol<arg_node<I, T, Ds...>>;
};

// fn called on const lvalue symbols of arguments of the tensor types Args (as the eager
// code calls it on const tensors, so `const auto&` and `auto&` parameters both bind).
template <class... Args, class Fn>
auto call_on_args(const Fn& fn) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    const std::tuple<typename arg_symbol<Args, Is>::type...> args{};
    return std::apply(fn, args);
  }(std::index_sequence_for<Args...>{});
}
// The arg_node types of a sub-graph over arguments of the tensor types Args (declared only:
// for decltype).
template <class... Args, std::size_t... Is>
std::tuple<typename arg_symbol<Args, Is>::type::node_type...> arg_nodes_of(
    std::index_sequence<Is...>);
template <class... Args>
using arg_nodes_t = decltype(arg_nodes_of<Args...>(std::index_sequence_for<Args...>{}));

template <class Fn, class... Args>
inline constexpr bool invocable_on_args_v = []<std::size_t... Is>(std::index_sequence<Is...>) {
  return dimgraph::detail::callable_with<const Fn&, const typename arg_symbol<Args, Is>::type&...>;
}(std::index_sequence_for<Args...>{});
template <class Fn, class... Args>
using args_result_t = decltype(call_on_args<Args...>(std::declval<const Fn&>()));

// fn traced on arguments of the tensor types Args: its outputs as a tuple of nodes (fn
// returns one symbol or a tuple/pair of them; see traced_outputs).
template <class... Args, class Fn>
auto trace_body(const Fn& fn, std::string name) {
  using outs = traced_outputs<std::remove_cvref_t<args_result_t<Fn, Args...>>>;
  static_assert(outs::valid || outs::poisoned,
                "dimgraph: trace: a branch or body must return values computed from its "
                "arguments, or a std::tuple or std::pair of them");
  if constexpr (outs::valid) {
    auto nodes = outs::get(call_on_args<Args...>(fn));
    return body_graph<typename outs::nodes, arg_nodes_t<Args...>>{
        std::move(nodes), std::move(name), {}};
  } else {
    return invalid_expr{};
  }
}

// The symbols of a region node's results: one symbol when Tuple is false and there is one
// result, else a std::tuple of them.
template <bool Tuple, class Region>
auto region_results(const Region& r) {
  constexpr std::size_t n = std::tuple_size_v<typename Region::results>;
  if constexpr (n == 1 && !Tuple) {
    return symbol<result_node<0, Region>>{{r}};
  } else {
    return with_indices<n>([&]<std::size_t... Ks>(index_constant<Ks>...) {
      return std::tuple{symbol<result_node<Ks, Region>>{{r}}...};
    });
  }
}

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/graph/region.hpp

namespace dimgraph {

// dg::unroll<K>: run the body K times per pass of the scan loop (the rest one at a time).
template <std::size_t K>
struct unroll {
  static_assert(K >= 1, "dimgraph: scan: unroll<K> needs K of at least 1");
  static constexpr std::size_t factor = K;
};
// dg::unroll_all: no loop at all; needs a trip count known at compile time.
struct unroll_all {};

namespace detail {

// Runs the loop body once per iteration: i = 0, 1, ..., n - 1 (n static with unroll_all).
template <class Unroll, std::size_t StaticCount, class F>
void scan_loop(std::size_t n, F&& once) {
  if constexpr (std::is_same_v<Unroll, unroll_all>) {
    for_each_index<StaticCount>([&]<std::size_t I>(index_constant<I>) { once(I); });
  } else {
    constexpr std::size_t k = Unroll::factor;
    std::size_t i = 0;
    if constexpr (k > 1)
      for (; i + k <= n; i += k)
        for_each_index<k>([&]<std::size_t U>(index_constant<U>) { once(i + U); });
    for (; i < n; ++i) once(i);
  }
}

// The view iteration i of the walk w gives of a sliced input (elements const).
template <class Sliced>
auto slice_at(const Sliced& in, const slice_walk& w, std::size_t i) {
  using d = typename Sliced::dim;
  constexpr slicing s = Sliced::slicing_value;
  using x_t = typename Sliced::operand_type;
  using result = view_of_list_t<const value_t<x_t>, types_of_t<slice_dims_t<d, s, dims_t<x_t>>>>;
  constexpr std::size_t k = list_index_of_v<dims_t<x_t>, d>;
  const auto& x = in.operand;
  const std::ptrdiff_t stride = x.strides()[k];
  const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(w.window(i)) * stride;
  if constexpr (s.part_size == 1) return result(spliced_view<k, 1>(x, "scan", offset, {}, {}));
  else
    return result(spliced_view<k, 1, part_dim<d, static_cast<std::size_t>(s.part_size)>>(
        x, "scan", offset, {w.part_size}, {stride}));
}

// The walk of each sliced input, checked: inside its dim, and the same trip count for all.
// Errors (run time, before any work): shape_error saying what is wrong ("sliced input 0
// along dim 'time' of extent 5: start 3 is after end 1 for a forward slicing ...").
template <class... Ss>
std::array<slice_walk, sizeof...(Ss)> scan_walks(const Ss&... in) {
  std::array<slice_walk, sizeof...(Ss)> walks{};
  std::size_t i = 0;
  auto one = [&]<class S>(const S& x) {
    using d = typename S::dim;
    constexpr slicing s = S::slicing_value;
    const std::size_t n = x.operand.template extent<d>();
    const slice_walk w = slicing_walk(s, n);
    if (!w.valid)
      throw shape_error("scan", "sliced input " + std::to_string(i) + " along dim '" +
                                    describe<d>() + "' of extent " + std::to_string(n) + ": " +
                                    slicing_problem(s, n));
    walks[i++] = w;
  };
  (one(in), ...);
  for (std::size_t k = 1; k < walks.size(); ++k)
    if (walks[k].count != walks[0].count)
      throw shape_error("scan",
                        "sliced inputs iterate a different number of times: sliced input "
                        "0 gives " +
                            std::to_string(walks[0].count) + " iterations, sliced input " +
                            std::to_string(k) + " gives " + std::to_string(walks[k].count));
  return walks;
}

// A stacked output of n along Iter; every other non-static dim X gets
// extent_of(std::type_identity<X>{}) (its static dims their size). Its elements are left
// uninitialised: the scan writes every slot along Iter. Zeroed: zeros, for a ragged scan, which
// leaves the padding past each row's length as it finds it.
template <class Out, class Iter, bool Zeroed = false, class ExtentOf>
Out stacked_output(std::size_t n, const ExtentOf& extent_of) {
  return [&]<class... Ds>(dim_list<Ds...>) {
    auto one = [&]<class X>(std::type_identity<X>) -> std::size_t {
      if constexpr (std::is_same_v<X, Iter>) return n;
      else if constexpr (is_static_v<X>) return bounds_v<X>.lo;
      else return extent_of(std::type_identity<X>{});
    };
    const auto shape = Out::shape_type::from_extents({one(std::type_identity<Ds>{})...}, "scan");
    if constexpr (Zeroed) return Out(shape);
    else return tensor_internals::for_overwrite<Out>(shape);
  }(dims_t<Out>{});
}

// The extent of dim X for a scan that never ran its body: X's extent in the first of the
// values (the sliced inputs' operands, then the initial carries) that has X, else X's
// smallest extent (X then only comes from what the body would have computed, e.g. a tensor
// it captures; the output is empty along the iteration dim either way).
template <class X, class... Vs>
std::size_t input_extent(const Vs&... vs) {
  std::size_t extent = bounds_v<X>.lo;
  bool found = false;
  [[maybe_unused]] auto one = [&]<class V>(const V& v) {
    if constexpr (list_contains_v<dims_t<V>, X>)
      if (!found) {
        extent = v.template extent<X>();
        found = true;
      }
  };
  (one(vs), ...);
  return extent;
}

// f() run as iteration i of a scan: a dg::error it throws gets "scan: at iteration i: " after
// its "dimgraph: " and is rethrown (keeping its class; see detail::in_call).
template <class F>
decltype(auto) at_iteration(std::size_t i, F&& f) {
  return in_call(
      "scan", [i] { return "at iteration " + std::to_string(i); }, std::forward<F>(f));
}

// The error of check_emitted (out of line: the check stays small enough to inline).
template <class X>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_emitted_extent(std::size_t k, std::size_t i,
                                                                    std::size_t got,
                                                                    std::size_t want) {
  throw shape_error("scan", "at iteration " + std::to_string(i) + ": emitted value " +
                                std::to_string(k) + " has extent " + std::to_string(got) +
                                " along dim '" + describe<X>() + "', but iteration 0 emitted " +
                                "extent " + std::to_string(want) +
                                " (every iteration must emit the same extents)");
}

// The value emitted as output k at iteration i has the extents of the stacked output out
// (made from iteration 0's value) along each of its non-static dims. Error: shape_error
// naming scan, the iteration, the output, the dim and both extents.
template <class Out, class E>
void check_emitted(const Out& out, const E& e, std::size_t k, std::size_t i) {
  [&]<class... Ds>(dim_list<Ds...>) {
    [[maybe_unused]] auto one = [&]<class X>(std::type_identity<X>) {
      if constexpr (!is_static_v<X>) {
        const std::size_t want = out.template extent<X>(), got = e.template extent<X>();
        if (got != want) throw_emitted_extent<X>(k, i, got, want);
      }
    };
    (one(std::type_identity<Ds>{}), ...);
  }(dims_t<E>{});
}

// The type of the body's argument for an input X: its slice or its carry.
template <class X>
struct scan_arg_type {
  using type = tensor_type_of_t<X>;
};
template <class X>
  requires is_sliced_v<X>
struct scan_arg_type<X> {
  using type = decltype(slice_at(std::declval<const X&>(), slice_walk{}, 0));
};

// What the body returns on (const Args&...), or invalid_expr when it cannot be called so.
template <bool Invocable, class Body, class... Args>
struct body_result {
  using type = invalid_expr;
};
template <class Body, class... Args>
struct body_result<true, Body, Args...> {
  using type = dimgraph::detail::call_result_t<const Body&, const Args&...>;
};

// The values a body's result R emits, a std::tuple (none when R is not a dg::step: the checks
// say so).
template <class R>
struct emitted_of {
  using type = std::tuple<>;
};
template <class Cs, class... Es>
struct emitted_of<scan_step<Cs, emit_values<Es...>>> {
  using type = std::tuple<Es...>;
};

// The body called on its arguments (the types Args): eagerly on const references to them,
// traced on symbols of their tensor types.
template <bool Traced, class Body, class Args, class Is>
struct body_call;
template <class Body, class... Args, std::size_t... Is>
struct body_call<false, Body, type_list<Args...>, std::index_sequence<Is...>> {
  static constexpr bool invocable = requires(const Body& b, const Args&... a) { b(a...); };
  using result = typename body_result<invocable, Body, Args...>::type;
};
template <class Body, class... Args, std::size_t... Is>
struct body_call<true, Body, type_list<Args...>, std::index_sequence<Is...>> {
  template <class A, std::size_t I>
  using symbol_t = typename arg_symbol<tensor_type_of_t<A>, I>::type;
  static constexpr bool invocable =
      requires(const Body& b, const symbol_t<Args, Is>&... a) { b(a...); };
  using result = typename body_result<invocable, Body, symbol_t<Args, Is>...>::type;
};

// The facts of one scan<D>(body) over inputs of the types Xs (checked by the caller; a
// symbol stands in as a tensor of its type). Traced: the body is called on symbols of its
// arguments' types (so that values it captures from the traced function combine with them).
template <class D, class Body, bool Traced, class... Xs>
struct scan_run {
  static constexpr std::size_t input_count = sizeof...(Xs);
  static constexpr std::array<bool, input_count> is_sliced{is_sliced_v<Xs>...};
  // Position of input k among the sliced or among the carried inputs.
  static constexpr std::array<std::size_t, input_count> group_index = [] {
    std::array<std::size_t, input_count> r{};
    std::size_t s = 0, c = 0;
    for (std::size_t k = 0; k < input_count; ++k) r[k] = is_sliced[k] ? s++ : c++;
    return r;
  }();
  using sliced = sliced_inputs_t<Xs...>;
  using carried = typename joined<
      std::conditional_t<is_sliced_v<Xs>, type_list<>, type_list<tensor_type_of_t<Xs>>>...>::type;
  // The inputs' positions: the sliced ones, then the carried ones.
  static constexpr std::array<std::size_t, input_count> positions = [] {
    std::array<std::size_t, input_count> r{};
    std::size_t j = 0;
    for (bool want : {true, false})
      for (std::size_t k = 0; k < input_count; ++k)
        if (is_sliced[k] == want) r[j++] = k;
    return r;
  }();
  using first = front_t<sliced>;
  using iter = iteration_dim_t<D, first::slicing_value>;
  // Each batch row runs for its own length (see ragged_scan_v); ragged_batch is then D's
  // batch dim, else void.
  static constexpr bool ragged = ragged_scan_v<D, sliced>;
  using ragged_batch = std::conditional_t<ragged, ragged_batch_t<D>, void>;
  static constexpr std::size_t position = list_index_of_v<dims_t<typename first::operand_type>, D>;
  template <class X>
  using arg_of = typename scan_arg_type<X>::type;
  using args = type_list<arg_of<Xs>...>;
  using call = body_call<Traced, Body, args, std::index_sequence_for<Xs...>>;
  // Every sliced input walks D alike, one position at a time (hoisting needs it).
  static constexpr bool same_plain_walks = []<class... Ss>(type_list<Ss...>) {
    return ((Ss::slicing_value == first::slicing_value) && ...) &&
           first::slicing_value.part_size == 1;
  }(sliced{});
  static constexpr bool invocable = call::invocable;
  using result = typename call::result;
  using emitted = typename emitted_of<result>::type;
  template <std::size_t K>
  using output_t = tensor_of_list_t<
      value_t<tensor_type_of_t<std::tuple_element_t<K, emitted>>>,
      stacked_dims_t<iter, position, dims_t<tensor_type_of_t<std::tuple_element_t<K, emitted>>>>>;
};

// The argument of input K: its slice or its carry (both alive until the step is consumed).
template <std::size_t K, class Run, class Slices, class State>
decltype(auto) scan_arg(const Slices& slices, const State& state) {
  if constexpr (Run::is_sliced[K]) return (std::get<Run::group_index[K]>(slices));
  else return (std::get<Run::group_index[K]>(state));
}

// The stacked outputs of a run, each made at the first iteration.
template <class Run, class Is>
struct optional_outputs;
template <class Run, std::size_t... Ks>
struct optional_outputs<Run, std::index_sequence<Ks...>> {
  using type = std::tuple<std::optional<typename Run::template output_t<Ks>>...>;
};

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/graph/scan_run.hpp
// ---- begin dimgraph/graph/scan_trace.hpp
// What a traced scan needs: its stand-in inputs, its body traced as a sub-graph, its attributes.



namespace dimgraph::detail {

// An input of a traced scan: a symbol, or a symbol given as dg::sliced.
template <class X>
inline constexpr bool traced_scan_input_v = symbolic<X>;
template <class D, slicing S, class N>
inline constexpr bool traced_scan_input_v<sliced_input<D, S, symbol<N>>> = true;

// What a scan input is checked as: a symbol stands in as a tensor of its type.
template <class X>
struct scan_stand_in {
  using type = X;
};
template <class N>
struct scan_stand_in<symbol<N>> {
  using type = tensor_type_of_t<symbol<N>>;
};
template <class D, slicing S, class N>
struct scan_stand_in<sliced_input<D, S, symbol<N>>> {
  using type = sliced_input<D, S, tensor_type_of_t<symbol<N>>>;
};
template <class X>
using scan_stand_in_t = typename scan_stand_in<std::remove_cvref_t<X>>::type;

// Whether a step R carries or emits a symbol.
template <class R>
inline constexpr bool yields_symbols_v = false;
template <class... Cs, class... Es>
inline constexpr bool yields_symbols_v<scan_step<carry_values<Cs...>, emit_values<Es...>>> =
    (symbolic<Cs> || ...) || (symbolic<Es> || ...);

// A scan over inputs of the types Xs is traced when an input is a symbol, or the body, called
// eagerly, yields one (it captured a value of the traced function). (A concept: its parts are
// checked in order, only as far as needed, and the body is called first where the scan is
// called, so a mistake inside it is reported through the scan's one frame.)
template <class D, class Body, class... Xs>
concept traced_scan =
    (traced_scan_input_v<std::remove_cvref_t<Xs>> || ...) ||
    (callable_with<const Body&, const typename scan_arg_type<scan_stand_in_t<Xs>>::type&...> &&
     yields_symbols_v<typename scan_run<D, Body, false, scan_stand_in_t<Xs>...>::result>);

// The node an input of a traced scan contributes: its operand's.
template <class X>
auto scan_input_node(const X& x) {
  if constexpr (is_sliced_v<X>) return node_of(x.operand);
  else return node_of(x);
}

// The body traced on arguments of the tensor types Args: the next carries' nodes, then the
// emitted values' nodes.
template <class Hoisted, class... Args, class Body>
auto trace_scan_body(const Body& body) {
  const auto r = call_on_args<Args...>(body);
  auto nodes = [&]<class... Cs, class... Es>(const carry_values<Cs...>& c,
                                             const emit_values<Es...>& e) {
    return std::apply(
        [&](const auto&... cs) {
          return std::apply(
              [&](const auto&... es) {
                return std::tuple{node_of(cs)..., node_of(es)...};
              },
              e.values);
        },
        c.values);
  }(r.carries, r.emits);
  return body_graph<decltype(nodes), arg_nodes_t<Args...>, Hoisted>{
      std::move(nodes), "body",
      "carry " + std::to_string(std::tuple_size_v<decltype(r.carries.values)>) + ", emit " +
          std::to_string(std::tuple_size_v<decltype(r.emits.values)>)};
}

// The results of a traced scan: the stacked outputs, then the carries (declared only: for
// decltype).
template <class Run, std::size_t... Ks, class... Cs>
std::tuple<typename Run::template output_t<Ks>..., Cs...> scan_results(std::index_sequence<Ks...>,
                                                                       type_list<Cs...>);

// How a traced scan reads its inputs, for the listing: "sliced 0 [start=0, end=-1, stride=1,
// part_size=1], carried 1, 2" (and ", unroll=K" or ", unroll=all"; ", ragged over batch" when
// RaggedBatch, the batch dim of a ragged scan, is not void).
template <class Unroll, class RaggedBatch, class... Xs>
std::string scan_attributes() {
  std::string sliced, carried;
  std::size_t k = 0;
  auto one = [&]<class X>(std::type_identity<X>) {
    if constexpr (is_sliced_v<X>) {
      constexpr slicing s = X::slicing_value;
      sliced += (sliced.empty() ? "sliced " : ", sliced ") + std::to_string(k) +
                " [start=" + std::to_string(s.start) + ", end=" + std::to_string(s.end) +
                ", stride=" + std::to_string(s.stride) +
                ", part_size=" + std::to_string(s.part_size) + "]";
    } else {
      carried += (carried.empty() ? "carried " : ", ") + std::to_string(k);
    }
    ++k;
  };
  (one(std::type_identity<Xs>{}), ...);
  std::string out = sliced + (carried.empty() ? "" : ", " + carried);
  if constexpr (std::is_same_v<Unroll, unroll_all>) out += ", unroll=all";
  else if constexpr (Unroll::factor > 1) out += ", unroll=" + std::to_string(Unroll::factor);
  if constexpr (!std::is_void_v<RaggedBatch>) out += ", ragged over " + describe<RaggedBatch>();
  return out;
}

}  // namespace dimgraph::detail
// ---- end dimgraph/graph/scan_trace.hpp
// ---- begin dimgraph/graph/scan_fn.hpp
// scan_fn: a scan over a dim with its body, run eagerly on tensors or traced on symbols.


// ---- begin dimgraph/graph/hoist.hpp
// Loop-invariant hoisting for dg::scan: the plan of one scan call from its body traced on
// symbols, and the staged arguments of its two passes (graph/hoist_plan.hpp, graph/staged.hpp).


// ---- begin dimgraph/graph/hoist_plan.hpp
// Loop-invariant hoisting for dg::scan, the analysis: which nodes of the body run once for all
// iterations, decided from the body's graph type.


// ---- begin dimgraph/graph/trace.hpp
// dg::trace: a C++ function traced on symbolic inputs into a graph whose type is the graph.


// ---- begin dimgraph/graph/ops.hpp
// The public ops on symbolic values: each records a node whose type is what the op gives on
// tensors, so a traced function checks and types exactly as it does when run eagerly. (The op
// table's element-wise ops take symbols themselves: only their node is made here.)



// Each op's result type is decltype of the public op on its operands' stand-ins, in the op
// itself (see symbolic_apply_with); its eager form, which a scan that hoists runs, is the same
// call in a lambda. (The eager form forwards its operands: run on values, as a scan that
// hoists does, the expression it returns holds rvalues by value.)
#define DIMGRAPH_FWD(x) static_cast<decltype(x)&&>(x)

namespace dimgraph {

namespace detail {

// The op table's ops (expr/op_table.hpp) on symbols: the op checks its operands as tensors of
// the symbols' types and records one node, op_tag<op name>, of the type it gives on such
// tensors (decltype of its expression on the stand-ins). Its eager form, which a scan that
// hoists runs, is the same expression on the operands' values.
template <class N>
inline constexpr bool is_deferred_v<symbol<N>> = true;
template <class N>
struct deferred_elementwise<symbol<N>> {
  template <class F, class... Xs>
  static auto make(Xs&&... xs) {
    using result = decltype(make_elementwise<F>(stand_in_of(xs)...));
    return symbolic_apply<op_tag<F::label>, result>(
        [](auto&&... ys) { return make_elementwise<F>(DIMGRAPH_FWD(ys)...); },
        std::forward<Xs>(xs)...);
  }
};

}  // namespace detail

// where(c, a, b) with a symbolic operand.
template <class C, class A, class B>
  requires detail::symbolic_operands<C, A, B>
auto where(C&& c, A&& a, B&& b) {
  using result =
      decltype(where(detail::stand_in_of(c), detail::stand_in_of(a), detail::stand_in_of(b)));
  return detail::symbolic_apply<op_tag<"where">, result>(
      [](auto&& x, auto&& y, auto&& z) {
        return where(DIMGRAPH_FWD(x), DIMGRAPH_FWD(y), DIMGRAPH_FWD(z));
      },
      std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
}

// cast<T>(x).
template <class T, symbolic X>
auto cast(const X& x) {
  using result = decltype(cast<T>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"cast", T>, result>(
      [](auto&& y) { return cast<T>(DIMGRAPH_FWD(y)); }, x);
}

// Reductions and the softmax family over named dims: the dims are the node's attributes.
#define DIMGRAPH_SYMBOLIC_OVER(NAME, PARAMS, ARGS)                \
  template <PARAMS, symbolic X>                                   \
  auto NAME(const X& x) {                                         \
    using result = decltype(NAME<ARGS>(detail::stand_in_of(x)));  \
    return detail::symbolic_apply<op_tag<#NAME, ARGS>, result>(   \
        [](auto&& y) { return NAME<ARGS>(DIMGRAPH_FWD(y)); }, x); \
  }
#define DIMGRAPH_PACK class... Rs
#define DIMGRAPH_ONE class D
DIMGRAPH_SYMBOLIC_OVER(sum, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(prod, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(mean, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(max, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(min, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(any, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(all, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(logsumexp, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(softmax, DIMGRAPH_ONE, D)
DIMGRAPH_SYMBOLIC_OVER(log_softmax, DIMGRAPH_ONE, D)
DIMGRAPH_SYMBOLIC_OVER(argmax, DIMGRAPH_ONE, D)
DIMGRAPH_SYMBOLIC_OVER(argmin, DIMGRAPH_ONE, D)
#undef DIMGRAPH_PACK
#undef DIMGRAPH_ONE
#undef DIMGRAPH_SYMBOLIC_OVER

// dot<Ks...>(a, b) with a symbolic operand.
template <class... Ks, class A, class B>
  requires detail::symbolic_operands<A, B> && (!scalar<A>) && (!scalar<B>)
auto dot(A&& a, B&& b) {
  using result = decltype(dot<Ks...>(detail::stand_in_of(a), detail::stand_in_of(b)));
  return detail::symbolic_apply<op_tag<"dot", Ks...>, result>(
      [](auto&& x, auto&& y) { return dot<Ks...>(DIMGRAPH_FWD(x), DIMGRAPH_FWD(y)); },
      std::forward<A>(a), std::forward<B>(b));
}

// Structural ops. The views (rename, split, split_dims, slice, permute) and the copies
// (merge_dims, concat, pad, gather, one_hot) alike become one node each.
template <dimension Old, dimension New, symbolic X>
auto rename(X&& x) {
  using result = decltype(rename<Old, New>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"rename", Old, New>, result>(
      [](auto&& y) { return rename<Old, New>(DIMGRAPH_FWD(y)); }, x);
}
template <class... Ps, symbolic X>
auto permute(X&& x) {
  using result = decltype(permute<Ps...>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"permute", Ps...>, result>(
      [](auto&& y) { return permute<Ps...>(DIMGRAPH_FWD(y)); }, x);
}
template <dimension A, dimension B, symbolic X>
auto merge_dims(X&& x) {
  using result = decltype(merge_dims<A, B>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"merge_dims", A, B>, result>(
      [](auto&& y) { return merge_dims<A, B>(DIMGRAPH_FWD(y)); }, x);
}
// (By symbol<N> rather than a constrained X: constraints on the Parts pack never subsume the
// eager overload's, so only a more specialised parameter type wins overload resolution.)
template <dimension... Parts, class N, class... Es>
auto split(const symbol<N>& x, extent_arg<Es>... e) {
  using result = decltype(split<Parts...>(detail::stand_in_of(x), e...));
  return detail::symbolic_apply<op_tag<"split", Parts...>, result>(
      [e...](auto&& y) { return split<Parts...>(DIMGRAPH_FWD(y), e...); }, x);
}
template <dimension... Parts, class N, class... Es>
auto split(symbol<N>&& x, extent_arg<Es>... e) {
  return split<Parts...>(static_cast<const symbol<N>&>(x), e...);
}
template <dimension A, dimension B, symbolic X, class... Es>
auto split_dims(X&& x, extent_arg<Es>... e) {
  using result = decltype(split_dims<A, B>(detail::stand_in_of(x), e...));
  return detail::symbolic_apply<op_tag<"split_dims", A, B>, result>(
      [e...](auto&& y) { return split_dims<A, B>(DIMGRAPH_FWD(y), e...); }, x);
}

namespace detail {
inline std::string slice_bound_text(slice_index i) {
  return i.is_none ? std::string("none") : std::to_string(i.value);
}
inline std::string slice_text(slice_index start, slice_index end, std::ptrdiff_t stride) {
  return "start=" + slice_bound_text(start) + ", end=" + slice_bound_text(end) +
         ", stride=" + std::to_string(stride);
}
}  // namespace detail

template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Stride = 1,
          symbolic X>
auto slice(X&& x) {
  using result = decltype(slice<A, Start, End, Stride>(detail::stand_in_of(x)));
  return detail::symbolic_apply_with<op_tag<"slice", A>, result>(
      detail::slice_text(Start, End, Stride),
      [](auto&& y) { return slice<A, Start, End, Stride>(DIMGRAPH_FWD(y)); }, x);
}
template <dimension A, symbolic X>
auto slice(X&& x, slice_index start, slice_index end, std::ptrdiff_t stride = 1) {
  using result = decltype(slice<A>(detail::stand_in_of(x), start, end, stride));
  return detail::symbolic_apply_with<op_tag<"slice", A>, result>(
      detail::slice_text(start, end, stride),
      [=](auto&& y) { return slice<A>(DIMGRAPH_FWD(y), start, end, stride); }, x);
}
namespace detail {
template <class N>
struct pad_value<symbol<N>> {
  using type = typename N::value_type;
};
}  // namespace detail
template <dimension A, std::size_t Before, std::size_t After, symbolic X>
auto pad(X&& x, typename detail::pad_value<std::remove_cvref_t<X>>::type value = {}) {
  using result = decltype(pad<A, Before, After>(detail::stand_in_of(x), value));
  return detail::symbolic_apply_with<op_tag<"pad", A>, result>(
      "before=" + std::to_string(Before) + ", after=" + std::to_string(After) +
          ", value=" + detail::element_text(value),
      [value](auto&& y) { return pad<A, Before, After>(DIMGRAPH_FWD(y), value); }, x);
}
template <class... As, class... Xs>
  requires(sizeof...(Xs) > 0 && (symbolic<Xs> || ...))
auto concat(along_arg<As, Xs>... parts) {
  using result = decltype(concat(along<As>(detail::stand_in_of(parts.operand))...));
  return detail::symbolic_apply<op_tag<"concat", As...>, result>(
      [](auto&&... ys) { return concat(along<As>(DIMGRAPH_FWD(ys))...); }, parts.operand...);
}
template <class Table, class Idx>
  requires detail::symbolic_operands<Table, Idx>
auto gather(const Table& table, const Idx& idx) {
  using result = decltype(gather(detail::stand_in_of(table), detail::stand_in_of(idx)));
  return detail::symbolic_apply<op_tag<"gather">, result>(
      [](auto&& t, auto&& i) { return gather(DIMGRAPH_FWD(t), DIMGRAPH_FWD(i)); }, table, idx);
}
template <class T = float, symbolic Idx, class... Es>
auto one_hot(const Idx& idx, extent_arg<Es>... e) {
  using result = decltype(one_hot<T>(detail::stand_in_of(idx), e...));
  return detail::symbolic_apply<op_tag<"one_hot", T>, result>(
      [e...](auto&& i) { return one_hot<T>(DIMGRAPH_FWD(i), e...); }, idx);
}

// eval(x) of a symbol is the symbol: a traced function may materialise where it likes.
template <symbolic X>
X eval(const X& x) {
  return x;
}

}  // namespace dimgraph
#undef DIMGRAPH_FWD
// ---- end dimgraph/graph/ops.hpp

namespace dimgraph {

namespace detail {

// L with N appended unless it is there already.
template <class L, class N>
struct append_unique;
template <class... Ds, class N>
struct append_unique<type_list<Ds...>, N> {
  using type =
      std::conditional_t<(std::is_same_v<Ds, N> || ...), type_list<Ds...>, type_list<Ds..., N>>;
};

// Every node type reachable from Ns, each once, operands before the nodes that use them.
template <class Acc, class... Ns>
struct topo;
template <class Acc>
struct topo<Acc> {
  using type = Acc;
};
template <class Acc, class N, class R, class... Rest>
struct topo<Acc, N, R, Rest...> {
  using type = typename topo<typename topo<Acc, N>::type, R, Rest...>::type;
};
template <class... Done, class N>
struct topo<type_list<Done...>, N> {
  using type = typename append_unique<type_list<Done...>, N>::type;
};
template <class... Done, class Op, class T, class Dims, class... Cs>
struct topo<type_list<Done...>, op_node<Op, T, Dims, Cs...>> {
  using type = typename append_unique<typename topo<type_list<Done...>, Cs...>::type,
                                      op_node<Op, T, Dims, Cs...>>::type;
};
template <class... Done, class Op, class Results, class Bodies, class... Cs>
struct topo<type_list<Done...>, region_node<Op, Results, Bodies, Cs...>> {
  using type = typename append_unique<typename topo<type_list<Done...>, Cs...>::type,
                                      region_node<Op, Results, Bodies, Cs...>>::type;
};
template <class... Done, std::size_t K, class Region>
struct topo<type_list<Done...>, result_node<K, Region>> {
  using type = typename append_unique<typename topo<type_list<Done...>, Region>::type,
                                      result_node<K, Region>>::type;
};

template <class Input, std::size_t I>
struct input_symbol;
template <class T, class... Ds, std::size_t I>
struct input_symbol<input<T, Ds...>, I> {
  using type = symbol<input_node<I, T, Ds...>>;
};

// A run-time argument fits an input when it is an expression of the same element type over
// the same set of dims.
template <class Arg, class Input>
inline constexpr bool fits_input_v =
    expression<Arg> && std::is_same_v<value_t<Arg>, typename Input::value_type> &&
    list_same_set_v<dims_t<Arg>, typename Input::dims>;

}  // namespace detail

// A traced graph. Its type is the graph:
//   inputs      std::tuple of the tensor types it takes,
//   outputs     std::tuple of the tensor types it returns (output_t<I>: one of them),
//   nodes       detail::type_list of its node types, each once, inputs first, in an order
//               where a node follows its operands (scalars and constants of one type share
//               a node type: the listing tells them apart).
// g(args...) runs the traced function on tensors (the compiled, fused kernels; the
// arguments must match the inputs' element types and dim sets) and returns its output(s)
// as tensors. `operator<<` prints the listing; dg::to_dot writes Graphviz.
template <class Fn, class Inputs, class OutputNodes>
class graph;

template <class Fn, class... Inputs, class... Outs>
class graph<Fn, std::tuple<Inputs...>, std::tuple<Outs...>> {
 public:
  using inputs =
      std::tuple<detail::tensor_of_list_t<typename Inputs::value_type, typename Inputs::dims>...>;
  using outputs =
      std::tuple<detail::tensor_of_list_t<typename Outs::value_type, typename Outs::dims>...>;
  template <std::size_t I>
  using output_t = std::tuple_element_t<I, outputs>;
  using input_nodes = std::tuple<Inputs...>;
  using output_nodes = std::tuple<Outs...>;
  using nodes = typename detail::topo<detail::type_list<Inputs...>, Outs...>::type;
  static constexpr std::size_t input_count = sizeof...(Inputs);
  static constexpr std::size_t output_count = sizeof...(Outs);

  graph(Fn fn, output_nodes outs) : fn_(std::move(fn)), outs_(std::move(outs)) {}

  // Runs the function on tensors; one output is returned as a tensor, several as a tuple.
  template <class... Args>
  auto operator()(const Args&... args) const {
    constexpr bool count_ok = sizeof...(Args) == sizeof...(Inputs);
    static_assert(count_ok, "dimgraph: graph: wrong number of arguments");
    if constexpr (count_ok) {
      constexpr bool fit = (detail::fits_input_v<Args, Inputs> && ...);
      DIMGRAPH_REQUIRE(
          fit, "dimgraph: graph: an argument's element type or dims differ from its input's",
          detail::operand_role_t<"argument", Args>..., detail::operand_role_t<"input", Inputs>...);
      if constexpr (fit) return materialize_outputs(fn_(args...));
      else return detail::invalid_expr{};
    } else {
      return detail::invalid_expr{};
    }
  }

  const output_nodes& output_node_values() const { return outs_; }

 private:
  template <class R>
  static auto materialize_outputs(R&& r) {
    if constexpr (sizeof...(Outs) == 1) {
      return output_t<0>(std::forward<R>(r));
    } else {
      return std::apply(
          [](auto&&... xs) {
            return outputs(detail::tensor_of_list_t<typename Outs::value_type, typename Outs::dims>(
                std::forward<decltype(xs)>(xs))...);
          },
          std::forward<R>(r));
    }
  }

  Fn fn_;
  output_nodes outs_;
};

// trace(fn, dg::input<T, Ds...>{}...): calls fn once on symbols of the inputs and records
// what it computes. fn must be generic (auto parameters; take them as `const auto&` so that
// the same fn, run on tensors, returns expressions over the caller's tensors) and return one
// value or a std::tuple/std::pair of values. Tensors it captures become constants; dg::if_
// and dg::scan inside it become nodes holding their branches or body as sub-graphs. As for
// any lazy expression, one over a tensor local to fn must be dg::eval'd before fn returns
// it (dg::eval of a symbol is the symbol, so the traced graph is unchanged).
template <class Fn, class... Inputs>
auto trace(Fn fn, Inputs...) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    using result = decltype(fn(typename detail::input_symbol<Inputs, Is>::type{}...));
    using outs = detail::traced_outputs<std::remove_cvref_t<result>>;
    // (A mistake inside fn was reported where it happened: no second message.)
    static_assert(outs::valid || outs::poisoned,
                  "dimgraph: trace: the function must return a value computed from its inputs, "
                  "or a std::tuple or std::pair of them");
    if constexpr (outs::valid) {
      auto nodes = outs::get(fn(typename detail::input_symbol<Inputs, Is>::type{}...));
      return graph<Fn, std::tuple<typename detail::input_symbol<Inputs, Is>::type::node_type...>,
                   typename outs::nodes>(std::move(fn), std::move(nodes));
    } else {
      return detail::invalid_expr{};
    }
  }(std::index_sequence_for<Inputs...>{});
}

}  // namespace dimgraph
// ---- end dimgraph/graph/trace.hpp

namespace dimgraph {

// Scan options: dg::scan<D, dg::hoist>(body) computes the nodes of the body that do not
// depend on a carry once, for every iteration, before the loop; dg::scan<D, dg::no_hoist>
// keeps the naive schedule. (DIMGRAPH_CONFIG_SCAN_HOIST sets the default.)
struct hoist {};
struct no_hoist {};

namespace detail {

// What a node of the body is, for the schedule:
//   carried    it depends on a carry: computed in the loop
//   varying    it depends on a slice and on no carry: computable for all iterations at once, as
//              the same ops over the whole sliced input (the scanned dim D becomes a batch dim)
//   invariant  it depends on neither (captured tensors and scalars only): computable once
//   blocked    it depends on no carry, but one of its ops cannot take D as an extra batch dim
//              (or a captured operand has D): computed in the loop
enum class stage : unsigned char { carried, varying, invariant, blocked };

// The ops whose eager form is the same op over any extra dim, as a batch dim: element-wise
// ops (those of the op table, expr/op_table.hpp, and where and cast), contractions over named
// dims, reductions and the softmax family over named dims, and the views that name the dim
// they act on. (Each forwards its operands, so the expression it returns holds rvalues by
// value.)
constexpr bool batchable_op(std::string_view name) {
  constexpr std::string_view others[] = {
      "where",     "cast",    "dot",         "sum",    "prod",   "mean",   "any",        "all",
      "logsumexp", "softmax", "log_softmax", "argmax", "argmin", "rename", "split_dims", "at"};
  for (std::string_view n : fn::table_op_names)
    if (n == name) return true;
  for (std::string_view n : others)
    if (n == name) return true;
  return false;
}

// Every dim of A is in B.
template <class A, class B>
inline constexpr bool dims_within_v =
    []<class... As>(dim_list<As...>) { return (list_contains_v<B, As> && ...); }(A{});

template <class L, class D>
using with_dim_t = std::conditional_t<list_contains_v<L, D>, L, list_concat_t<L, dim_list<D>>>;

// The facts of one scan: its dim D and which arguments of the body are carries.
template <class D, std::size_t... Carried>
struct scan_facts {
  using dim = D;
  static constexpr bool carried(std::size_t i) { return ((i == Carried) || ...); }
};

// stage_of<Facts, N>: N's stage; worth: N contains a contraction (hoisting pays);
// foreign: N contains a node the staged run does not know (a nested scan or if_).
template <class Facts, class N>
struct node_stage {
  static constexpr stage value = stage::blocked;
  static constexpr bool worth = false;
  static constexpr bool foreign = true;
};
template <class Facts, std::size_t I, class T, class... Ds>
struct node_stage<Facts, arg_node<I, T, Ds...>> {
  static constexpr stage value = Facts::carried(I) ? stage::carried : stage::varying;
  static constexpr bool worth = false;
  static constexpr bool foreign = false;
};
template <class Facts, class T, class Dims>
struct node_stage<Facts, constant_node<T, Dims>> {
  static constexpr stage value = stage::invariant;
  static constexpr bool worth = false;
  static constexpr bool foreign = false;
};
template <class Facts, class T>
struct node_stage<Facts, scalar_node<T>> {
  static constexpr stage value = stage::invariant;
  static constexpr bool worth = false;
  static constexpr bool foreign = false;
};

// An op over children that depend on no carry and take D: can it take D as a batch dim? Its
// per-iteration dims and its operands' must not have D, and for an element-wise op of several
// operands one operand's dims with D added where it varies must hold all the others' (the
// broadcast rule, now with D).
template <class Facts, class Op, class Dims, class... Cs>
constexpr bool batchable() {
  using d = typename Facts::dim;
  if constexpr (!batchable_op(Op::name.view())) {
    return false;
  } else if constexpr (list_contains_v<Dims, d> || (list_contains_v<typename Cs::dims, d> || ...)) {
    return false;
  } else if constexpr (sizeof...(Cs) < 2 || Op::name.view() == std::string_view("dot")) {
    return true;
  } else {
    using hoisted =
        type_list<std::conditional_t<node_stage<Facts, Cs>::value == stage::varying,
                                     with_dim_t<typename Cs::dims, d>, typename Cs::dims>...>;
    // (Some operand's dims, D included, hold every operand's.)
    return []<class... Hs>(type_list<Hs...>) {
      auto holds_all = []<class Big>(std::type_identity<Big>) {
        return (dims_within_v<Hs, Big> && ...);
      };
      return (holds_all(std::type_identity<Hs>{}) || ...);
    }(hoisted{});
  }
}

template <class Facts, class Op, class T, class Dims, class... Cs>
struct node_stage<Facts, op_node<Op, T, Dims, Cs...>> {
  static constexpr bool foreign = (node_stage<Facts, Cs>::foreign || ...);
  static constexpr stage value = [] {
    if constexpr (((node_stage<Facts, Cs>::value == stage::carried) || ...)) {
      return stage::carried;
    } else if constexpr (((node_stage<Facts, Cs>::value == stage::blocked) || ...) ||
                         !batchable<Facts, Op, Dims, Cs...>()) {
      return stage::blocked;
    } else if constexpr (((node_stage<Facts, Cs>::value == stage::varying) || ...)) {
      return stage::varying;
    } else {
      return stage::invariant;
    }
  }();
  static constexpr bool worth =
      (value == stage::varying || value == stage::invariant) &&
      (Op::name.view() == std::string_view("dot") || (node_stage<Facts, Cs>::worth || ...));
};

template <class Facts, class N>
inline constexpr stage stage_v = node_stage<Facts, N>::value;

// A node computed once before the loop where a carried node (or the step) takes it.
template <class Facts, class N>
inline constexpr bool hoisted_v = node_stage<Facts, N>::worth;

template <class Facts, class Acc, class N>
struct add_frontier {
  using type = std::conditional_t<hoisted_v<Facts, N>, typename append_unique<Acc, N>::type, Acc>;
};

// The frontier of the graph whose nodes (topologically ordered) are Nodes and whose
// outputs are Outs: each hoisted node a carried node or the step takes, once.
template <class Facts, class Acc, class Nodes>
struct frontier_of;
template <class Facts, class Acc>
struct frontier_of<Facts, Acc, type_list<>> {
  using type = Acc;
};
template <class Facts, class Acc, class N, class... Rest>
struct frontier_of<Facts, Acc, type_list<N, Rest...>> {
  using type = typename frontier_of<Facts, Acc, type_list<Rest...>>::type;
};
template <class Facts, class Acc, class Op, class T, class Dims, class... Cs, class... Rest>
struct frontier_of<Facts, Acc, type_list<op_node<Op, T, Dims, Cs...>, Rest...>> {
  template <class A, class C>
  using step = typename add_frontier<Facts, A, C>::type;
  template <class A, class... Xs>
  struct fold {
    using type = A;
  };
  template <class A, class X, class... Xs>
  struct fold<A, X, Xs...> {
    using type = typename fold<step<A, X>, Xs...>::type;
  };
  using here = std::conditional_t<stage_v<Facts, op_node<Op, T, Dims, Cs...>> == stage::carried,
                                  typename fold<Acc, Cs...>::type, Acc>;
  using type = typename frontier_of<Facts, here, type_list<Rest...>>::type;
};

// The plan of a body whose traced step yields the nodes Outs... (carries, then emitted).
template <class Facts, class... Outs>
struct hoist_plan {
  using nodes = typename topo<type_list<>, Outs...>::type;
  static constexpr bool foreign = (node_stage<Facts, Outs>::foreign || ...);
  template <class A, class... Os>
  struct with_outputs {
    using type = A;
  };
  template <class A, class O, class... Os>
  struct with_outputs<A, O, Os...> {
    using type = typename with_outputs<typename add_frontier<Facts, A, O>::type, Os...>::type;
  };
  using inner = typename frontier_of<Facts, type_list<>, nodes>::type;
  using frontier = typename with_outputs<inner, Outs...>::type;
  static constexpr bool useful = !foreign && frontier::size > 0;
};

}  // namespace detail
}  // namespace dimgraph
// ---- end dimgraph/graph/hoist_plan.hpp
// ---- begin dimgraph/graph/staged.hpp
// Loop-invariant hoisting for dg::scan, the run: staged values, on which the body computes each
// node or looks it up (in the pass before the loop, and in the loop).


// ---- begin dimgraph/graph/stage_arena.hpp
// The memory of a hoisting scan's run: the tensors its body materialises (stage_arena), and
// the thread's kept store and arena that the next run of the same scan takes again
// (stage_lease).



namespace dimgraph::detail {

template <class T>
inline constexpr char stage_type_tag = 0;

// Tensors made while the body runs (materialised nodes), kept until the step is consumed (or,
// for the hoisted values, until the loop ends). The k-th tensor an iteration materialises
// reuses the k-th of the iteration before when it has the same type (every iteration runs the
// same ops): no allocation per step. (Assigning to a slot of other extents reallocates it.)
struct stage_arena {
  std::vector<std::shared_ptr<const void>> kept;
  std::vector<std::shared_ptr<void>> slots;
  std::vector<const char*> slot_types;
  std::vector<std::size_t> slot_bytes;
  std::size_t next = 0;

  template <class T>
  const T& keep(T&& t) {
    auto p = std::make_shared<const std::remove_cvref_t<T>>(std::forward<T>(t));
    const auto& r = *p;
    kept.push_back(std::move(p));
    return r;
  }
  // e evaluated into a tensor (made in place: a static tensor's elements are inline, never a
  // temporary on the stack), as a view.
  template <class E>
  auto materialise(const E& e) {
    using t = decltype(eval(e));
    constexpr std::size_t element = sizeof(typename t::value_type);
    const std::size_t k = next++;
    if (k < slots.size() && slot_types[k] == &stage_type_tag<t>) {
      t& reused = *static_cast<t*>(slots[k].get());
      reused = e;
      slot_bytes[k] = reused.size() * element;
      return std::as_const(reused).view();
    }
    auto p = std::make_shared<t>(e);
    auto v = std::as_const(*p).view();
    const std::size_t bytes = p->size() * element;
    if (k < slots.size()) {
      slots[k] = std::move(p);
      slot_types[k] = &stage_type_tag<t>;
      slot_bytes[k] = bytes;
    } else {
      slots.push_back(std::move(p));
      slot_types.push_back(&stage_type_tag<t>);
      slot_bytes.push_back(bytes);
    }
    return v;
  }
  // The next iteration (or run): its tensors take the slots again.
  void reset() {
    kept.clear();
    next = 0;
  }
  // The bytes of the elements the slots hold.
  std::size_t bytes() const {
    std::size_t total = 0;
    for (const std::size_t b : slot_bytes) total += b;
    return total;
  }
  // Frees every slot.
  void release() {
    reset();
    slots.clear();
    slot_types.clear();
    slot_bytes.clear();
  }
};

// A store and arena per thread and store type, with whether a run has them now.
template <class Store>
struct kept_stage {
  Store store;
  stage_arena arena;
  bool busy = false;
};
template <class Store>
kept_stage<Store>& thread_kept_stage() {
  static thread_local kept_stage<Store> kept;
  return kept;
}

// The store and arena of one hoisting run (Store: renew() before a run, finish() after it,
// bytes() and release()). They are the thread's kept ones, which the last run of the same scan
// left: its tensors and packed weights are reused (no allocation, no page faults per call), up to
// DIMGRAPH_CONFIG_SCAN_KEEP_BYTES held after the run. A run that starts while another of the
// same scan is active on the thread (a body that runs its own scan) takes new ones.
template <class Store>
class stage_lease {
 public:
  stage_lease() {
    // (With nothing kept, no thread's kept pair is made at all.)
    if constexpr (DIMGRAPH_CONFIG_SCAN_KEEP_BYTES > 0) {
      kept_stage<Store>& kept = thread_kept_stage<Store>();
      if (!kept.busy) {
        kept.busy = true;
        kept_ = &kept;
        store_ = &kept.store;
        arena_ = &kept.arena;
      }
    }
    if (kept_ == nullptr) {
      own_ = std::make_unique<kept_stage<Store>>();
      store_ = &own_->store;
      arena_ = &own_->arena;
    }
    store_->renew();
    arena_->reset();
  }
  ~stage_lease() {
    if (kept_ == nullptr) return;
    store_->finish();
    arena_->reset();
    if (store_->bytes() + arena_->bytes() > std::size_t{DIMGRAPH_CONFIG_SCAN_KEEP_BYTES}) {
      store_->release();
      arena_->release();
    }
    kept_->busy = false;
  }
  stage_lease(const stage_lease&) = delete;
  stage_lease& operator=(const stage_lease&) = delete;

  Store& store() { return *store_; }
  stage_arena& arena() { return *arena_; }

 private:
  kept_stage<Store>* kept_ = nullptr;
  std::unique_ptr<kept_stage<Store>> own_;
  Store* store_ = nullptr;
  stage_arena* arena_ = nullptr;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/graph/stage_arena.hpp

namespace dimgraph {
namespace detail {

// How a staged value holds its node: computed (value), not computed yet (a thunk), or not
// computed in this pass (the hoisting pass skips carried and blocked nodes).
enum class stage_hold : unsigned char { ready, deferred, absent };

struct no_value {};

// The node N of a staged run Ctx, held as H, with value V. A symbol's node: every public op
// on symbols takes it, and symbolic_apply_with sends it to staged_apply.
template <class N, class Ctx, stage_hold H, class V>
struct staged {
  using value_type = typename N::value_type;
  using dims = typename N::dims;
  using node = N;
  using context = Ctx;
  static constexpr stage_hold holding = H;
  V value;
  Ctx* ctx;
};

// An op not computed yet: its eager form and its operands (staged values or what they read).
template <class Eager, class... Ops>
struct thunk {
  Eager eager;
  std::tuple<Ops...> operands;
};

// A captured tensor an op reads (by address: it outlives the scan call).
template <class T>
struct tensor_ref {
  const T* p;
};

template <class X>
struct plain_node {
  using type = node_of_t<X>;
};
template <class N, class Ctx, stage_hold H, class V>
struct plain_node<symbol<staged<N, Ctx, H, V>>> {
  using type = N;
};
// The node type an operand stands for in the body's graph.
template <class X>
using plain_node_t = typename plain_node<std::remove_cvref_t<X>>::type;

// The hoisted values of one scan call and the per-iteration state of the staged run.
template <class Facts, class Frontier>
struct stage_store;
template <class Facts, class... Fs>
struct stage_store<Facts, type_list<Fs...>> {
  using d = typename Facts::dim;
  // A hoisted node's value, a view: over D first when it varies, then its own dims.
  template <class N>
  using stored_t = std::conditional_t<
      stage_v<Facts, N> == stage::varying,
      view_of_list_t<const typename N::value_type,
                     types_of_t<list_concat_t<dim_list<d>, typename N::dims>>>,
      view_of_list_t<const typename N::value_type, types_of_t<typename N::dims>>>;
  std::tuple<std::vector<stored_t<Fs>>...> values;
  std::array<std::size_t, sizeof...(Fs)> taken{};
  stage_arena tensors;   // what the views read, when a hoisted value was not memory already
  weight_cache weights;  // the loop's constant weights, packed once

  // A new run: no values, tensors to reuse, weights to pack again (see stage_lease).
  void renew() {
    finish();
    weights.renew();
  }
  // The end of a run: what it referred to is dropped; the tensors and packs stay.
  void finish() {
    std::apply([](auto&... v) { (v.clear(), ...); }, values);
    taken = {};
    tensors.reset();
  }
  std::size_t bytes() const { return tensors.bytes() + weights.bytes(); }
  void release() {
    renew();
    tensors.release();
    weights = weight_cache{};
  }
  template <class N>
  static constexpr std::size_t index = [] {
    std::size_t i = 0, found = 0;
    ((std::is_same_v<N, Fs> ? found = i++ : i++), ...);
    return found;
  }();
};

// One staged run: Hoisting (the pass before the loop) or the loop; Facts and the plan's
// frontier; position is the iteration's position along D.
template <bool Hoisting, class Facts, class Frontier>
struct stage_context {
  static constexpr bool hoisting = Hoisting;
  using facts = Facts;
  using frontier = Frontier;
  using store_type = stage_store<Facts, Frontier>;
  store_type* store;
  stage_arena* arena;
  std::size_t position = 0;
};

template <class Ctx, class N>
inline constexpr bool in_frontier_v = contains_v<N, typename Ctx::frontier>;

// A value that outlives the op that made it: tensors go to the arena (and are read by view);
// views and lazy expressions are held by value.
template <class Ctx, class V>
auto settle(Ctx* ctx, V&& v) {
  if constexpr (is_tensor_v<std::remove_cvref_t<V>>)
    return ctx->arena->keep(std::forward<V>(v)).view();
  else return std::remove_cvref_t<V>(std::forward<V>(v));
}

template <class N, class Ctx, stage_hold H, class V>
symbol<staged<N, Ctx, H, std::remove_cvref_t<V>>> make_staged(Ctx* ctx, V&& v) {
  return {{std::forward<V>(v), ctx}};
}
template <class N, class Ctx>
symbol<staged<N, Ctx, stage_hold::absent, no_value>> absent_staged(Ctx* ctx) {
  return {{no_value{}, ctx}};
}

// What a thunk keeps of an operand: a staged value as is, a captured tensor by address (an
// rvalue tensor in the arena), anything else (views, expressions, scalars) by value.
template <class Ctx, class X>
auto keep_operand(Ctx* ctx, X&& x) {
  using x_t = std::remove_cvref_t<X>;
  if constexpr (is_staged_v<x_t>) return x_t(x);
  else if constexpr (is_tensor_v<x_t> && std::is_lvalue_reference_v<X>) return tensor_ref<x_t>{&x};
  else if constexpr (is_tensor_v<x_t>) return tensor_ref<x_t>{&ctx->arena->keep(std::move(x))};
  else return x_t(std::forward<X>(x));
}

template <class Ctx, class K>
decltype(auto) force(Ctx* ctx, const K& k);

// The value of a kept operand, computed if it is a thunk: a prvalue, or a captured tensor by
// reference (the op's node then holds it by reference).
template <class Ctx, class K>
decltype(auto) operand_value(Ctx* ctx, const K& k) {
  if constexpr (is_staged_v<K>) {
    if constexpr (K::node_type::holding == stage_hold::ready)
      return std::remove_cvref_t<decltype(k.node.value)>(k.node.value);
    else return force(ctx, k.node.value);
  } else if constexpr (requires { k.p; }) {
    return static_cast<const std::remove_cvref_t<decltype(*k.p)>&>(*k.p);
  } else {
    return K(k);
  }
}

template <class Ctx, class K>
decltype(auto) force(Ctx* ctx, const K& k) {
  return settle(ctx, std::apply(
                         [&](const auto&... ops) -> decltype(auto) {
                           return k.eager(operand_value(ctx, ops)...);
                         },
                         k.operands));
}

// The hoisting pass: a carried op (or the step) takes the staged value x; if x's node is on
// the frontier, its value over all iterations is stored.
template <class Ctx, class X>
void store_if_hoisted(Ctx* ctx, const X& x) {
  if constexpr (is_staged_v<X>) {
    using n = typename X::node_type::node;
    if constexpr (in_frontier_v<Ctx, n> && X::node_type::holding != stage_hold::absent) {
      using store_t = typename Ctx::store_type;
      using out_t = typename store_t::template stored_t<n>;
      auto& vec = std::get<store_t::template index<n>>(ctx->store->values);
      auto v = operand_value(ctx, x);
      // A view is kept as it is (its tensor is in the arena, alive until the loop ends), in the
      // stored order of dims; anything else is evaluated once into a tensor.
      const auto reordered = [&](const auto& view) {
        return [&]<class... Ds>(dim_list<Ds...>) {
          return out_t(dimgraph::permute<Ds...>(view));
        }(typename out_t::dims{});
      };
      if constexpr (is_view_v<decltype(v)>) vec.push_back(reordered(v));
      else vec.push_back(reordered(ctx->store->tensors.materialise(v)));
    }
  }
}

[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_hoist_mismatch(std::size_t k,
                                                                           std::size_t have) {
  throw error("scan",
              "hoisting: the body took hoisted value " + std::to_string(k) +
                  " of a kind, but the "
                  "pass before the loop made " +
                  std::to_string(have) +
                  " (the body must compute the same ops every iteration; use dg::no_hoist)");
}

// The loop: the value a carried op (or the step) reads for the staged value x: its hoisted
// value at this iteration's position when its node is on the frontier, else its own value.
template <class Ctx, class X>
decltype(auto) loop_operand(Ctx* ctx, X&& x) {
  using x_t = std::remove_cvref_t<X>;
  if constexpr (is_staged_v<x_t>) {
    using n = typename x_t::node_type::node;
    if constexpr (in_frontier_v<Ctx, n>) {
      using store_t = typename Ctx::store_type;
      constexpr std::size_t idx = store_t::template index<n>;
      auto& vec = std::get<idx>(ctx->store->values);
      const std::size_t k = ctx->store->taken[idx]++;
      if (k >= vec.size()) throw_hoist_mismatch(k, vec.size());
      const auto& t = vec[k];
      if constexpr (stage_v<typename Ctx::facts, n> == stage::varying)
        return t[dimgraph::at<typename Ctx::facts::dim>(ctx->position)];
      else return t.view();
    } else {
      return operand_value(ctx, x);
    }
  } else if constexpr (is_tensor_v<x_t> && std::is_lvalue_reference_v<X>) {
    return static_cast<const x_t&>(x);
  } else if constexpr (is_tensor_v<x_t>) {
    return ctx->arena->keep(std::move(x)).view();
  } else {
    return x_t(std::forward<X>(x));
  }
}

// The context of the first staged operand.
template <class... Xs>
struct first_staged;
template <class X, class... Xs>
struct first_staged<X, Xs...> {
  using type = typename first_staged<Xs...>::type;
};
template <class N, class Ctx, stage_hold H, class V, class... Xs>
struct first_staged<symbol<staged<N, Ctx, H, V>>, Xs...> {
  using type = Ctx;
};
template <class... Xs>
auto* context_of(const Xs&... xs) {
  using ctx_t = typename first_staged<std::remove_cvref_t<Xs>...>::type;
  ctx_t* found = nullptr;
  [[maybe_unused]] auto one = [&]<class X>(const X& x) {
    if constexpr (is_staged_v<X>)
      if (!found) found = x.node.ctx;
  };
  (one(xs), ...);
  return found;
}

// Op over xs, at least one of them staged: the node's type is the one the traced graph has;
// in the loop a carried node is computed (reading hoisted nodes where it takes them) and a
// node that depends on no carry waits as a thunk (the frontier's are never computed there);
// in the pass before the loop, carried nodes are skipped and the frontier's values stored.
template <class Op, class Eager, class... Xs>
auto staged_apply(Eager eager, Xs&&... xs) {
  using result = decltype(eager(std::declval<stand_in_t<Xs>>()...));
  auto* ctx = context_of(xs...);
  using ctx_t = std::remove_pointer_t<decltype(ctx)>;
  using facts = typename ctx_t::facts;
  if constexpr (poisoned<result>) {
    return invalid_expr{};
  } else if constexpr (is_tuple_v<result>) {
    // Several results (split): computed at once in the loop, skipped before it.
    return with_indices<std::tuple_size_v<result>>([&]<std::size_t... Is>(index_constant<Is>...) {
      using parts =
          std::tuple<op_node<Op, value_t<std::tuple_element_t<Is, result>>,
                             dims_t<std::tuple_element_t<Is, result>>, plain_node_t<Xs>...>...>;
      if constexpr (ctx_t::hoisting) {
        (store_if_hoisted(ctx, xs), ...);
        return std::tuple{absent_staged<std::tuple_element_t<Is, parts>>(ctx)...};
      } else {
        auto values = std::tuple<decltype(loop_operand(ctx, std::forward<Xs>(xs)))...>{
            loop_operand(ctx, std::forward<Xs>(xs))...};
        auto r = std::apply(eager, std::move(values));
        return std::tuple{make_staged<std::tuple_element_t<Is, parts>, ctx_t, stage_hold::ready>(
            ctx, settle(ctx, std::get<Is>(std::move(r))))...};
      }
    });
  } else {
    using n = op_node<Op, value_t<result>, dims_t<result>, plain_node_t<Xs>...>;
    constexpr stage s = stage_v<facts, n>;
    if constexpr (s == stage::varying || s == stage::invariant) {
      using t = thunk<Eager, decltype(keep_operand(ctx, std::forward<Xs>(xs)))...>;
      return make_staged<n, ctx_t, stage_hold::deferred>(
          ctx, t{std::move(eager), {keep_operand(ctx, std::forward<Xs>(xs))...}});
    } else if constexpr (ctx_t::hoisting) {
      if constexpr (s == stage::carried) (store_if_hoisted(ctx, xs), ...);
      return absent_staged<n>(ctx);
    } else {
      // (Braced: the operands are read left to right, as the pass before the loop stored them.)
      auto values = std::tuple<decltype(loop_operand(ctx, std::forward<Xs>(xs)))...>{
          loop_operand(ctx, std::forward<Xs>(xs))...};
      if constexpr (Op::name.view() == "dot") {
        // A tensor a carried product takes that is not staged is a constant of the loop: its
        // product is run over a copy packed once (eval/matmul.hpp, weight_cache).
        with_indices<sizeof...(Xs)>([&]<std::size_t... Is>(index_constant<Is>...) {
          const auto constant = [&]<class X>(std::type_identity<X>, const auto& v) {
            if constexpr (!is_staged_v<std::remove_cvref_t<X>> &&
                          memory_operand<std::remove_cvref_t<decltype(v)>>) {
              const auto [lo, hi] = memory_span(v);
              ctx->store->weights.add_constant(lo, hi);
            }
          };
          (constant(std::type_identity<Xs>{}, std::get<Is>(values)), ...);
        });
      }
      if constexpr (batchable_op(Op::name.view())) {
        return make_staged<n, ctx_t, stage_hold::ready>(
            ctx, settle(ctx, std::apply(eager, std::move(values))));
      } else {
        // An op whose eager form may not forward its operands: evaluated while they live.
        return make_staged<n, ctx_t, stage_hold::ready>(
            ctx, ctx->arena->materialise(std::apply(eager, std::move(values))));
      }
    }
  }
}

// A captured tensor as a staged value that reads it (see constant_symbol): ready in every pass.
template <class S, class X>
auto staged_constant(const S& s, const X& x) {
  using ctx_t = typename S::node_type::context;
  if constexpr (is_view_v<X>)
    return make_staged<node_of_t<X>, ctx_t, stage_hold::ready>(s.node.ctx, x);
  else return make_staged<node_of_t<X>, ctx_t, stage_hold::ready>(s.node.ctx, x.view());
}

// dg::eval of a staged value: in the loop, a carried value is materialised (it is read more
// than once) and a thunk stays one that materialises when forced; before the loop, a value
// over all iterations is materialised now.
template <class N, class Ctx, stage_hold H, class V>
auto eval_staged(const symbol<staged<N, Ctx, H, V>>& x) {
  Ctx* ctx = x.node.ctx;
  if constexpr (H == stage_hold::absent) {
    return x;
  } else if constexpr (H == stage_hold::ready) {
    if constexpr (is_view_v<V>) return x;
    else return make_staged<N, Ctx, stage_hold::ready>(ctx, ctx->arena->materialise(x.node.value));
  } else if constexpr (Ctx::hoisting) {
    return make_staged<N, Ctx, stage_hold::ready>(
        ctx, ctx->arena->materialise(force(ctx, x.node.value)));
  } else {
    auto materialise = [](auto&& v) { return eval(std::forward<decltype(v)>(v)); };
    using t = thunk<decltype(materialise), symbol<staged<N, Ctx, H, V>>>;
    return make_staged<N, Ctx, stage_hold::deferred>(ctx, t{materialise, {x}});
  }
}

// What dg::carry and dg::emit hold of a staged value, made while the body runs (its locals,
// which thunks may read, are alive): in the loop, its value (looked up when hoisted), a lazy
// one evaluated; before the loop, nothing (a hoisted one is stored).
template <class X>
auto staged_held_value(const X& x) {
  using ctx_t = typename X::node_type::context;
  ctx_t* ctx = x.node.ctx;
  if constexpr (ctx_t::hoisting) {
    store_if_hoisted(ctx, x);
    return no_value{};
  } else {
    return held_value(loop_operand(ctx, x));
  }
}

}  // namespace detail

template <class N, class Ctx, detail::stage_hold H, class V>
auto eval(const symbol<detail::staged<N, Ctx, H, V>>& x) {
  return detail::eval_staged(x);
}

}  // namespace dimgraph
// ---- end dimgraph/graph/staged.hpp

namespace dimgraph::detail {

// The hoisting of the eager scan Run over D of Body: its plan from the body traced on symbols,
// and the staged arguments of its two passes.
template <class D, class Body, class Run, class Is = std::make_index_sequence<Run::input_count>>
struct scan_hoisting;
template <class D, class Body, class Run, std::size_t... Ks>
struct scan_hoisting<D, Body, Run, std::index_sequence<Ks...>> {
  // (A sliced input's index is replaced by one no argument has.)
  template <std::size_t K>
  static constexpr std::size_t carried_index = Run::is_sliced[K] ? Run::input_count : K;
  using facts = scan_facts<D, carried_index<Ks>...>;
  using traced = body_call<true, Body, typename Run::args, std::index_sequence<Ks...>>;
  template <class R>
  struct plan_of {
    static constexpr bool valid = false;
    using frontier = type_list<>;
  };
  template <class... Cs, class... Es>
    requires((symbolic<Cs> && ...) && (symbolic<Es> && ...))
  struct plan_of<scan_step<carry_values<Cs...>, emit_values<Es...>>> {
    using plan = hoist_plan<facts, typename Cs::node_type..., typename Es::node_type...>;
    static constexpr bool valid = plan::useful;
    using frontier = typename plan::frontier;
  };
  using plan = plan_of<typename traced::result>;
  static constexpr bool enabled = traced::invocable && plan::valid && Run::same_plain_walks;
  using frontier = typename plan::frontier;
  using hoist_context = stage_context<true, facts, frontier>;
  using loop_context = stage_context<false, facts, frontier>;
  using store_type = typename hoist_context::store_type;

  template <std::size_t K>
  using node_t =
      typename arg_symbol<tensor_type_of_t<at_t<K, typename Run::args>>, K>::type::node_type;

  template <class X>
  static auto const_view_of(const X& x) {
    if constexpr (is_tensor_v<X>) return x.view();
    else return x;
  }

  // Before the loop: a sliced input is its whole operand; a carry is not there.
  template <std::size_t K, class Inputs>
  static auto hoist_arg(hoist_context* ctx, const Inputs& in) {
    if constexpr (Run::is_sliced[K])
      return make_staged<node_t<K>, hoist_context, stage_hold::ready>(
          ctx, const_view_of(std::get<K>(in).operand));
    else return absent_staged<node_t<K>>(ctx);
  }
  // In the loop: the slice, or a view of the carry.
  template <std::size_t K, class Slices, class State>
  static auto loop_arg(loop_context* ctx, const Slices& slices, const State& state) {
    if constexpr (Run::is_sliced[K])
      return make_staged<node_t<K>, loop_context, stage_hold::ready>(
          ctx, std::get<Run::group_index[K]>(slices));
    else
      return make_staged<node_t<K>, loop_context, stage_hold::ready>(
          ctx, const_view_of(std::get<Run::group_index[K]>(state)));
  }
};

// The nodes a scan over D of Body, run as Run, computes before its loop (none unless Hoist).
template <class D, class Body, bool Hoist, class Run>
struct hoisted_nodes_of {
  using type = type_list<>;
};
template <class D, class Body, class Run>
  requires(!Run::ragged && scan_hoisting<D, Body, Run>::enabled)
struct hoisted_nodes_of<D, Body, true, Run> {
  using type = typename scan_hoisting<D, Body, Run>::frontier;
};

}  // namespace dimgraph::detail
// ---- end dimgraph/graph/hoist.hpp
// ---- begin dimgraph/graph/scan_ragged.hpp
// dg::scan over a ragged dim: every batch row runs for its own length (see dg::scan).



// How: the body runs on the whole batch at once, max(len) times. At iteration i, row b is
// active while i < len[b]. Once a row has finished, each slice with the batch dim is copied
// with zeros in the finished rows (the body never reads padding), each carry becomes
// where(active, next, carry) and each emitted value where(active, value, 0); while every row is
// active, the slices are views and the values are taken as they are. A backward walk first
// copies its input with each row's valid part reversed (row b's step i reads position
// len[b] - 1 - i) and walks that copy forwards; when the first sliced input walks backwards,
// the stacked outputs are reversed back the same way, so every value lands at its own position.

namespace dimgraph::detail {

// The lengths of D the sliced inputs carry, merged (null: every row is full). Error:
// shape_error when two sliced inputs carry different lengths.
template <class D, class... Ss>
lengths_ref scan_lengths(const Ss&... in) {
  lengths_ref l;
  [[maybe_unused]] auto one = [&]<class S>(const S& s) {
    if constexpr (carries_lengths_v<D, dims_t<typename S::operand_type>>)
      merge_lengths<D>("scan", l, lengths_in<D>(s.operand));
  };
  (one(in), ...);
  return l;
}

// x (input or value k, `what` saying which) has one row per length along D's batch dim, when
// it has that dim. Error: shape_error naming scan, x and both counts.
template <class D, class X>
void check_scan_rows(const X& x, std::size_t rows, const char* what, std::size_t k) {
  using b = ragged_batch_t<D>;
  if constexpr (list_contains_v<dims_t<X>, b>) {
    const std::size_t got = x.template extent<b>();
    if (got != rows)
      throw shape_error("scan", std::string(what) + " " + std::to_string(k) + " has extent " +
                                    std::to_string(got) + " along dim '" + describe<b>() +
                                    "', but dim '" + describe<D>() + "' has " +
                                    std::to_string(rows) + " lengths");
  }
}

// A copy of x (which has D and its batch dim) with each row's valid part reversed along D:
// out[b, t] = x[b, len[b] - 1 - t] for t < len[b], 0 past it.
template <class D, class X>
tensor_of_list_t<value_t<X>, dims_t<X>> reversed_rows(const X& x,
                                                      const std::vector<std::int64_t>& lens) {
  using b = ragged_batch_t<D>;
  tensor_of_list_t<value_t<X>, dims_t<X>> out(x.shape());
  for (std::size_t r = 0; r < lens.size(); ++r) {
    const auto n = static_cast<std::size_t>(lens[r]);
    if (n == 0) continue;
    auto from = x[dimgraph::at<b>(r)];
    auto to = out[dimgraph::at<b>(r)];
    const std::ptrdiff_t s = from.template stride<D>();
    replaced_view<D, D>(to, "scan", 0, {n}, {to.template stride<D>()}) =
        replaced_view<D, D>(from, "scan", static_cast<std::ptrdiff_t>(n - 1) * s, {n}, {-s});
  }
  return out;
}

// A sliced input as a ragged scan walks it, always forwards: a view of its operand, or (a
// backward walk) its reversed_rows.
template <class S>
auto ragged_source(const S& in, const std::vector<std::int64_t>& lens) {
  using x_t = typename S::operand_type;
  if constexpr (S::slicing_value.stride < 0)
    return reversed_rows<typename S::dim>(in.operand, lens);
  else
    return view_of_list_t<const value_t<x_t>, types_of_t<dims_t<x_t>>>(
        in.operand.data(), in.operand.shape(), in.operand.strides());
}

// Position i of a source along D: a view, or, once a row has finished (full is false) and the
// slice has D's batch dim, the view with zeros in the inactive rows, copied into buf.
template <class D, class Slice, class Source, class Buffer, class Mask>
Slice ragged_slice(const Source& src, Buffer& buf, const Mask& active, std::size_t i, bool full) {
  Slice v(src[dimgraph::at<D>(i)]);
  if constexpr (list_contains_v<dims_t<Slice>, ragged_batch_t<D>>) {
    if (!full) {
      auto masked = where(active, v, value_t<Slice>{});
      if (buf) *buf = masked;
      else buf.emplace(masked);
      return Slice(std::as_const(*buf).view());
    }
  }
  return v;
}

// scan<D> run on the inputs `in` (Run's facts; D's extent n) with the lengths lens (not null)
// over D's batch dim, as described at the top. Returns what the plain scan returns, the
// stacked outputs carrying lens along D. Errors (shape_error, before the first iteration): a
// sliced input or a carry whose batch extent is not the number of lengths; at iteration 0,
// an emitted value whose batch extent is not; those of the body (as for any scan).
template <class D, class Unroll, class Run, class Body, class Inputs>
auto run_ragged_scan(const Body& body, const Inputs& in, const lengths_ref& lens_ref,
                     std::size_t n) {
  using b = ragged_batch_t<D>;
  using iter = typename Run::iter;
  constexpr std::size_t slice_count = Run::sliced::size;
  constexpr std::size_t carry_count = Run::carried::size;
  constexpr std::size_t emit_count = std::tuple_size_v<typename Run::emitted>;
  constexpr auto pos = Run::positions;
  using state_t = typename tuple_of<typename Run::carried>::type;
  using outputs_t = typename optional_outputs<Run, std::make_index_sequence<emit_count>>::type;
  const std::vector<std::int64_t>& lens = *lens_ref;
  const std::size_t rows = lens.size();

  for_each_index<slice_count>([&]<std::size_t S>(index_constant<S>) {
    check_scan_rows<D>(std::get<pos[S]>(in).operand, rows, "sliced input", S);
  });
  state_t state = with_indices<carry_count>([&]<std::size_t... Cs>(index_constant<Cs>...) {
    return state_t(std::get<pos[slice_count + Cs]>(in)...);
  });
  for_each_index<carry_count>([&]<std::size_t C>(index_constant<C>) {
    check_scan_rows<D>(std::get<C>(state), rows, "carry", C);
  });

  std::size_t shortest = n, longest = 0;
  for (std::int64_t l : lens) {
    shortest = std::min(shortest, static_cast<std::size_t>(l));
    longest = std::max(longest, static_cast<std::size_t>(l));
  }
  auto sources = with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
    return std::tuple{ragged_source(std::get<pos[Ss]>(in), lens)...};
  });
  auto buffers = with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
    return std::tuple<std::optional<
        tensor_type_of_t<typename Run::template arg_of<at_t<Ss, typename Run::sliced>>>>...>{};
  });
  tensor<bool, b> active(extent<b>(rows));
  outputs_t outs;

  auto once = [&](std::size_t i) {
    const bool full = i < shortest;
    if (!full)
      for (std::size_t r = 0; r < rows; ++r)
        active.data()[r] = i < static_cast<std::size_t>(lens[r]);
    const auto slices = with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
      return std::tuple{
          ragged_slice<D, typename Run::template arg_of<at_t<Ss, typename Run::sliced>>>(
              std::get<Ss>(sources), std::get<Ss>(buffers), active, i, full)...};
    });
    auto r = at_iteration(i, [&] {
      return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        return body(scan_arg<Ks, Run>(slices, state)...);
      }(std::make_index_sequence<Run::input_count>{});
    });
    for_each_index<emit_count>([&]<std::size_t K>(index_constant<K>) {
      auto& out = std::get<K>(outs);
      const auto& e = std::get<K>(r.emits.values);
      if (!out) {
        check_scan_rows<D>(e, rows, "emitted value", K);
        out.emplace(stacked_output<typename Run::template output_t<K>, iter, true>(
            n, [&]<class X>(std::type_identity<X>) { return e.template extent<X>(); }));
      } else {
        check_emitted(*out, e, K, i);
      }
      if (full) (*out)[dimgraph::at<iter>(i)] = e;
      else (*out)[dimgraph::at<iter>(i)] = where(active, e, value_t<decltype(e)>{});
    });
    // Every next carry is computed (from the old ones) before any is replaced.
    if (full) {
      state = with_indices<carry_count>([&]<std::size_t... Cs>(index_constant<Cs>...) {
        return state_t(std::move(std::get<Cs>(r.carries.values))...);
      });
    } else {
      for_each_index<carry_count>([&]<std::size_t C>(index_constant<C>) {
        std::get<C>(state) = where(active, std::get<C>(r.carries.values), std::get<C>(state));
      });
    }
  };
  scan_loop<Unroll, 0>(longest, once);

  return with_indices<emit_count>([&]<std::size_t... Ks>(index_constant<Ks>...) {
    [[maybe_unused]] auto finish = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      using out_t = typename Run::template output_t<K>;
      auto& out = std::get<K>(outs);
      // No iteration: the extents of the other dims come from the inputs (see dg::scan).
      if (!out)
        out.emplace(stacked_output<out_t, iter, true>(n, [&]<class X>(std::type_identity<X>) {
          return with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
            return std::apply(
                [&](const auto&... carries) {
                  return input_extent<X>(std::get<pos[Ss]>(in).operand..., carries...);
                },
                state);
          });
        }));
      out_t result = [&] {
        if constexpr (Run::first::slicing_value.stride < 0) return reversed_rows<iter>(*out, lens);
        else return std::move(*out);
      }();
      auto s = result.shape();
      s.template set_lengths<iter>("scan", lens_ref);
      tensor_internals::take_lengths(result, s);
      return result;
    };
    return std::tuple_cat(std::tuple{finish(std::integral_constant<std::size_t, Ks>{})...},
                          std::move(state));
  });
}

}  // namespace dimgraph::detail
// ---- end dimgraph/graph/scan_ragged.hpp

namespace dimgraph {

// A scan over D: call it on the inputs. See dg::scan. Hoist: compute the nodes of the body that
// depend on no carry before the loop (dg::hoist).
template <class D, class Unroll, class Body, bool Hoist = false>
class scan_fn {
 public:
  explicit scan_fn(Body body) : body_(std::move(body)) {}

  // The nodes of the body's graph a call on inputs of the types Xs computes once, before the
  // loop (a detail::type_list of node types; empty when the scan does not hoist them).
  template <class... Xs>
  using hoisted_nodes = typename detail::hoisted_nodes_of<
      D, Body, Hoist, detail::scan_run<D, Body, false, detail::scan_stand_in_t<Xs>...>>::type;

  template <class... Xs>
  auto operator()(Xs&&... xs) const {
    using check_t = detail::scan_input_check;
    constexpr auto check = detail::check_scan_inputs<D, detail::scan_stand_in_t<Xs>...>();
    if constexpr (check == check_t::poisoned || check == check_t::no_sliced ||
                  check == check_t::other_dim || check == check_t::not_input) {
      return poisoned_from_body(std::make_index_sequence<sizeof...(Xs)>{});
    } else {
      constexpr bool traced = detail::traced_scan<D, Body, Xs...>;
      using run = detail::scan_run<D, Body, traced, detail::scan_stand_in_t<Xs>...>;
      if constexpr (check != check_t::ok) return poisoned_results<run>();
      else if constexpr (!valid<run>()) return poisoned_results<run>();
      else if constexpr (!detail::check_scan_values<typename run::iter, typename run::carried,
                                                    typename run::result,
                                                    typename run::ragged_batch>(
                             std::make_index_sequence<run::carried::size>{},
                             std::make_index_sequence<std::tuple_size_v<typename run::emitted>>{}))
        return poisoned_results<run>();
      else if constexpr (traced) return trace<run, std::remove_cvref_t<Xs>...>(xs...);
      else return execute<run>(std::forward_as_tuple(xs...));
    }
  }

 private:
  // The compile-time checks of a run up to the form of the step its body returns (inputs
  // checked already; the step's values are checked by the caller), each reported once.
  template <class Run>
  static constexpr bool valid() {
    constexpr slicing s = Run::first::slicing_value;
    constexpr bool unroll_ok = !std::is_same_v<Unroll, unroll_all> || static_trip_v<D, s>;
    static_assert(unroll_ok,
                  "dimgraph: scan: unroll_all needs a trip count known at compile "
                  "time (a static dim, or start and end both from the front)");
    if constexpr (!unroll_ok) {
      return false;
    } else if constexpr (!Run::invocable) {
      static_assert(Run::invocable,
                    "dimgraph: scan: the body cannot be called with the slices "
                    "and carries, in the order of the inputs");
      return false;
    } else {
      return detail::check_scan_step<typename Run::carried, typename Run::result>();
    }
  }

  // An input rejected (and reported): the body, called on one stand-in per input where it
  // can be, says how many results there would be, so that `auto [ys, h] = ...` says nothing
  // more; else one stand-in.
  template <std::size_t... Is>
  static auto poisoned_from_body(std::index_sequence<Is...>) {
    using stand_in = detail::invalid_expr;
    if constexpr (dimgraph::detail::callable_with<const Body&,
                                                  decltype((void(Is), stand_in{}))...>) {
      using r = dimgraph::detail::call_result_t<const Body&, decltype((void(Is), stand_in{}))...>;
      if constexpr (detail::is_scan_step_v<r>) {
        return []<class... Cs, class... Es>(
                   std::type_identity<scan_step<carry_values<Cs...>, emit_values<Es...>>>) {
          return detail::poisoned_tuple_t<sizeof...(Es) + sizeof...(Cs)>{};
        }(std::type_identity<r>{});
      } else {
        return stand_in{};
      }
    } else {
      return stand_in{};
    }
  }

  // What a run with a reported mistake gives: one stand-in per result (the stacked outputs,
  // then the carries) when the body said how many values it emits, so that
  // `auto [ys, h] = ...` says nothing more; else one.
  template <class Run>
  static auto poisoned_results() {
    if constexpr (Run::invocable && detail::is_scan_step_v<typename Run::result>)
      return detail::poisoned_tuple_t<std::tuple_size_v<typename Run::emitted> +
                                      Run::carried::size>{};
    else return detail::invalid_expr{};
  }

  template <class Run, class Inputs>
  auto execute(const Inputs& in) const;

  // Traced: one "scan" node over the inputs' nodes, its body traced on arguments of the
  // slices' and carries' tensor types; its results are the stacked outputs, then the
  // carries' last values (always a std::tuple, as eagerly).
  template <class Run, class... Xs>
  auto trace(const Xs&... xs) const {
    using emitted = typename Run::emitted;
    auto body = detail::trace_scan_body<
        typename detail::hoisted_nodes_of<D, Body, Hoist, Run>::type,
        detail::tensor_type_of_t<typename Run::template arg_of<detail::scan_stand_in_t<Xs>>>...>(
        body_);
    using results = decltype(detail::scan_results<Run>(
        std::make_index_sequence<std::tuple_size_v<emitted>>{}, typename Run::carried{}));
    using region = region_node<op_tag<"scan", D>, results, std::tuple<decltype(body)>,
                               decltype(detail::scan_input_node(xs))...>;
    return detail::region_results<true>(
        region{{detail::scan_input_node(xs)...},
               {std::move(body)},
               detail::scan_attributes<Unroll, typename Run::ragged_batch, Xs...>()});
  }

  Body body_;
};

template <class D, class Unroll, class Body, bool Hoist>
template <class Run, class Inputs>
auto scan_fn<D, Unroll, Body, Hoist>::execute(const Inputs& in) const {
  using iter = typename Run::iter;
  constexpr std::size_t slice_count = Run::sliced::size;
  constexpr std::size_t carry_count = Run::carried::size;
  constexpr std::size_t emit_count = std::tuple_size_v<typename Run::emitted>;
  constexpr auto pos = Run::positions;
  using state_t = typename detail::tuple_of<typename Run::carried>::type;
  using outputs_t =
      typename detail::optional_outputs<Run, std::make_index_sequence<emit_count>>::type;

  const auto walks =
      detail::with_indices<slice_count>([&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
        return detail::scan_walks(std::get<pos[Ss]>(in)...);
      });
  const std::size_t n = walks[0].count;
  if constexpr (Run::ragged) {
    const lengths_ref lens =
        detail::with_indices<slice_count>([&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
          return detail::scan_lengths<D>(std::get<pos[Ss]>(in)...);
        });
    if (lens) return detail::run_ragged_scan<D, Unroll, Run>(body_, in, lens, n);
  }
  state_t state =
      detail::with_indices<carry_count>([&]<std::size_t... Cs>(detail::index_constant<Cs>...) {
        return state_t(std::get<pos[slice_count + Cs]>(in)...);
      });
  outputs_t outs;

  // The step r of iteration i: its emitted values into the outputs, its carries into the state.
  auto consume = [&](std::size_t i, auto& r) {
    const std::size_t slot = walks[0].slot(i);
    // (Inlined: the check of the emitted extents would make GCC call it out of line.)
    detail::for_each_index<emit_count>(
        [&]<std::size_t K>(detail::index_constant<K>) DIMGRAPH_ALWAYS_INLINE {
          auto& out = std::get<K>(outs);
          const auto& e = std::get<K>(r.emits.values);
          if (!out) {
            // (Uninitialised: iteration i writes slot(i), and the slots are 0 .. n - 1.)
            auto fresh = detail::stacked_output<typename Run::template output_t<K>, iter>(
                n, [&]<class X>(std::type_identity<X>) { return e.template extent<X>(); });
            out.emplace(detail::tensor_internals::hand_over(fresh));
          } else {
            detail::check_emitted(*out, e, K, i);
          }
          (*out)[at<iter>(slot)] = e;
        });
    // Every next carry is computed (from the old ones) before any is replaced. Values of the
    // state's own types are their own tensors: each replaces its carry (no refill of what it
    // leaves, which r drops); others are converted into a new state first.
    detail::with_indices<carry_count>([&]<std::size_t... Cs>(detail::index_constant<Cs>...) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(r.carries.values)>, state_t>)
        (detail::tensor_internals::replace(std::get<Cs>(state), std::get<Cs>(r.carries.values)),
         ...);
      else state = state_t(std::move(std::get<Cs>(r.carries.values))...);
    });
  };
  auto slices_at = [&](std::size_t i) {
    return detail::with_indices<slice_count>([&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
      return std::tuple{detail::slice_at(std::get<pos[Ss]>(in), walks[Ss], i)...};
    });
  };
  auto once = [&](std::size_t i) {
    const auto slices = slices_at(i);
    auto r = detail::at_iteration(i, [&] {
      return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        return body_(detail::scan_arg<Ks, Run>(slices, state)...);
      }(std::make_index_sequence<Run::input_count>{});
    });
    consume(i, r);
  };
  constexpr slicing s = Run::first::slicing_value;
  bool done = false;
  if constexpr (Hoist && !Run::ragged) {
    using hoisting = detail::scan_hoisting<D, Body, Run>;
    if constexpr (hoisting::enabled) {
      // Hoisted when every sliced input walks the same positions of D.
      bool same_walks = n > 0;
      const std::size_t extent0 = std::get<pos[0]>(in).operand.template extent<D>();
      detail::for_each_index<slice_count>([&]<std::size_t S>(detail::index_constant<S>) {
        same_walks = same_walks && std::get<pos[S]>(in).operand.template extent<D>() == extent0;
      });
      if (same_walks) {
        detail::stage_lease<typename hoisting::store_type> lease;
        auto& store = lease.store();
        auto& arena = lease.arena();
        // The pass before the loop: the body on the whole sliced inputs.
        {
          // (Its tensors live as long as the store: the hoisted views read them.)
          typename hoisting::hoist_context ctx{&store, &store.tensors, 0};
          // (What it returns holds nothing: dg::carry and dg::emit stored what they took.)
          [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
            static_cast<void>(body_(hoisting::template hoist_arg<Ks>(&ctx, in)...));
          }(std::make_index_sequence<Run::input_count>{});
        }
        auto staged_once = [&](std::size_t i) {
          const auto slices = slices_at(i);
          typename hoisting::loop_context ctx{&store, &arena, walks[0].window(i)};
          store.taken = {};
          // (dg::carry and dg::emit computed the step's values: it holds tensors and views.)
          auto r = detail::at_iteration(i, [&] {
            return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
              return body_(hoisting::template loop_arg<Ks>(&ctx, slices, state)...);
            }(std::make_index_sequence<Run::input_count>{});
          });
          consume(i, r);
          arena.reset();
        };
        store.weights.expect_uses(n);
        const detail::weight_cache_scope packing(store.weights);
        detail::scan_loop<Unroll, (static_trip_v<D, s> ? static_walk<D, s>().count : 0)>(
            n, staged_once);
        done = true;
      }
    }
  }
  if (!done)
    detail::scan_loop<Unroll, (static_trip_v<D, s> ? static_walk<D, s>().count : 0)>(n, once);

  // No iteration: the extents of the other dims come from the inputs (see dg::scan).
  detail::for_each_index<emit_count>([&]<std::size_t K>(detail::index_constant<K>) {
    auto& out = std::get<K>(outs);
    if (out) return;
    auto no_rows = detail::stacked_output<typename Run::template output_t<K>, iter>(
        n, [&]<class X>(std::type_identity<X>) {
          return detail::with_indices<slice_count>(
              [&]<std::size_t... Ss>(detail::index_constant<Ss>...) {
                return std::apply(
                    [&](const auto&... carries) {
                      return detail::input_extent<X>(std::get<pos[Ss]>(in).operand..., carries...);
                    },
                    state);
              });
        });
    out.emplace(detail::tensor_internals::hand_over(no_rows));
  });
  // The outputs, then the last carries (both dropped here: handed over, not moved).
  return [&]<std::size_t... Ks, std::size_t... Cs>(std::index_sequence<Ks...>,
                                                   std::index_sequence<Cs...>) {
    using result_t =
        std::tuple<typename Run::template output_t<Ks>..., std::tuple_element_t<Cs, state_t>...>;
    return result_t(detail::tensor_internals::hand_over(*std::get<Ks>(outs))...,
                    detail::tensor_internals::hand_over(std::get<Cs>(state))...);
  }(std::make_index_sequence<emit_count>{}, std::make_index_sequence<carry_count>{});
}

}  // namespace dimgraph
// ---- end dimgraph/graph/scan_fn.hpp
// ---- begin dimgraph/graph/scan.hpp
// dg::scan<D>(body)(inputs...): OpenVINO TensorIterator-1, run eagerly on tensors and
// recorded as a "scan" node with its body as a sub-graph when traced.



namespace dimgraph {

// dg::scan<D>(body)(inputs...) is TensorIterator-1 over the dim D.
//  inputs   dg::sliced<D, S>(x) is sliced along D (see dg::slicing for the walk); any other
//           tensor or expression is a carry, its initial value the input; tensors the body
//           captures are invariant (read whole every iteration).
//  body     called once per iteration with (slices and carries...) in the order the inputs
//           were passed (const views of the slices, const references to the carries). It
//           returns dg::step(dg::carry(next carries...), dg::emit(values...)); a next carry
//           has its input's element type and dim set (any order: it is evaluated into the
//           input's order).
//  result   a std::tuple: the stacked emitted outputs, then the carries' last values
//           (auto [ys, h, c] = ...). Emitted value k of dims [E...] gives an output of dims
//           stacked_dims_t<iteration_dim_t<D, S>, p, [E...]>: the iteration dim is inserted at
//           p, the position of D in the first sliced input (clamped to the rank); it is D
//           itself when the walk reads every position of D once (else trip_dim<D, S>), S
//           being the first sliced input's slicing. Outputs are in original order: iteration i
//           fills slot slice_walk::slot(i), so a backward walk (start -1, end 0, stride -1) gives
//           S[N-1] ... S[0] for its N iterations S[0] ... S[N-1]. Its other extents are those
//           of iteration 0's value.
//  no iteration  the body is not called; the carries are the inputs, and each stacked
//           output has extent 0 along the iteration dim and, along every other dim, the
//           extent the body's value would have had: static dims their size, a non-static
//           dim the extent it has in the first input that has it (the sliced inputs,
//           whole, then the carries, in the order passed), so [Batch, Time, Hidden] over a
//           batch of 32 is [32, 0, Hidden], as the shape inference of OpenVINO's body or
//           JAX's lax.scan gives. A dim no input has (it comes from a tensor the body
//           captures, or an op in it) is not known without running the body: it gets its
//           smallest extent (0 for a dynamic dim).
//  Options  dg::unroll<K> (default 1), or dg::unroll_all for a trip count known at compile time;
//           dg::hoist: the body is traced once on symbols and each node that depends on no carry
//           and holds a contraction (graph/hoist.hpp) is computed before the loop for every
//           iteration at once (the same ops over the whole sliced input, D a batch dim), then
//           read back by position: equal results, one GEMM instead of a GEMV per step. Needs a
//           traceable body (dg ops on its arguments and captured tensors); used when every
//           sliced input walks D alike one position at a time, not for ragged scans.
//           dg::no_hoist: the naive schedule (the default unless DIMGRAPH_CONFIG_SCAN_HOIST).
// Traced (an input is a symbol of dg::trace, or the body yields one): one "scan<D>" node over
// the inputs, with the slicings, carries and unroll as attributes, holding the body traced on
// arguments of the slices' and carries' tensor types as a sub-graph; the result is a
// std::tuple of symbols of the types above. The checks are the same.
// Ragged  when D is ragged (dg::ragged<Batch>) and the sliced inputs carry its lengths (they
//          have Batch), each row b runs for its own length len[b], as PyTorch's packed
//          sequences: iteration i is active for row b while i < len[b]. A forward walk reads
//          position i; a backward walk (start -1, end 0, stride -1) reads len[b] - 1 - i, so it
//          starts at the row's own last step. A carry stops changing after the row's last step
//          (its final value is the row's state at its own end); emitted outputs are zero past
//          the row's length and carry the lengths along D; a finished row's slices read as
//          zeros (the body never sees padding). The body still runs on the whole batch,
//          max(len) times; no row runs when every length is 0. Needs (compile time): every
//          sliced input walks the whole of D one position at a time, a backward one has Batch,
//          every carry and emitted value has Batch. Errors (run time): sliced inputs with
//          different lengths; a sliced input, carry or emitted value whose Batch extent is not
//          the number of lengths (shape_error). Without lengths (null: every row full) the
//          scan is the plain one. Traced, the scan node says ", ragged over batch"; the graph
//          runs the same way.
// Errors (compile time): see graph/scan_check.hpp (no sliced input, a sliced input without D,
// static trip counts that differ, a carry that changes type, ...). Errors (run time, before
// the first iteration): a slicing outside its dim or past its end, trip counts that differ
// (shape_error). Errors (run time, during iteration i): an emitted value whose extents differ
// from the first iteration's (shape_error "dimgraph: scan: at iteration i: emitted value k
// ..."); any dg::error the body throws keeps its class and gets the scan and the iteration
// before the op that threw it: "dimgraph: scan: at iteration i: add: ...", or with a layer
// between, "dimgraph: scan: at iteration i: nn::lstm_cell: add: ..." (dg::error::add_context).
// After a mistake in the body (reported where it was made) or one of these, the result is the
// stand-in of a reported mistake, one per result when the body's step says how many, which
// later ops and structured bindings take silently.
namespace detail {
template <class O>
inline constexpr bool is_unroll_option_v = std::is_same_v<O, unroll_all> || requires { O::factor; };
// The unroll option among Options (unroll<1> without one).
template <class... Options>
struct unroll_option {
  using type = unroll<1>;
};
template <class O, class... Options>
struct unroll_option<O, Options...> {
  using type =
      std::conditional_t<is_unroll_option_v<O>, O, typename unroll_option<Options...>::type>;
};
template <class... Options>
inline constexpr bool hoist_option_v =
    (std::is_same_v<Options, hoist> || ...) ||
    (DIMGRAPH_CONFIG_SCAN_HOIST && !(std::is_same_v<Options, no_hoist> || ...));
}  // namespace detail

template <dimension D, class... Options, class Body>
auto scan(Body body) {
  static_assert(((detail::is_unroll_option_v<Options> || std::is_same_v<Options, hoist> ||
                  std::is_same_v<Options, no_hoist>)&&...),
                "dimgraph: scan: an option must be dg::unroll<K>, dg::unroll_all, dg::hoist or "
                "dg::no_hoist");
  static_assert(
      !((std::is_same_v<Options, hoist> || ...) && (std::is_same_v<Options, no_hoist> || ...)),
      "dimgraph: scan: dg::hoist and dg::no_hoist both given");
  return scan_fn<std::remove_cvref_t<D>, typename detail::unroll_option<Options...>::type, Body,
                 detail::hoist_option_v<Options...>>(std::move(body));
}

}  // namespace dimgraph
// ---- end dimgraph/graph/scan.hpp
// ---- begin dimgraph/graph/if_branches.hpp
// The branches of dg::if_: their outputs, the check that they match, and whether one may dangle.



namespace dimgraph::detail {

// The outputs of a branch as a type_list: one value, or the elements of a tuple or pair.
template <class R>
struct branch_outputs {
  static constexpr bool several = false;
  using list = type_list<R>;
};
template <class... Rs>
struct branch_outputs<std::tuple<Rs...>> {
  static constexpr bool several = true;
  using list = type_list<Rs...>;
};
template <class A, class B>
struct branch_outputs<std::pair<A, B>> {
  static constexpr bool several = true;
  using list = type_list<A, B>;
};
template <class R>
using branch_outputs_t = typename branch_outputs<std::remove_cvref_t<R>>::list;

// Why what the branches return does not match (checked in this order; output by output, the
// first output that does not match is the one reported).
enum class branches_check { ok, poisoned, output_counts, not_tensor, element_types, dims };

// Output k of both branches (its tensor types, or what a branch returned that is not an
// expression or symbol).
template <class Then, class Else>
constexpr branches_check check_output() {
  using check = branches_check;
  if constexpr (!expression<Then> || !expression<Else>) return check::not_tensor;
  else if constexpr (!std::is_same_v<value_t<Then>, value_t<Else>>) return check::element_types;
  else if constexpr (!list_same_set_v<dims_t<Then>, dims_t<Else>>) return check::dims;
  else return check::ok;
}

// The first output at which the branches' outputs (type_lists of one length) do not match, or
// their number.
template <class... Ts, class... Es>
constexpr std::size_t first_mismatch(type_list<Ts...>, type_list<Es...>) {
  const bool match[] = {
      (check_output<tensor_type_of_t<Ts>, tensor_type_of_t<Es>>() == branches_check::ok)..., false};
  std::size_t k = 0;
  while (match[k]) ++k;
  return k;
}

// Whether a branch's outputs (a type_list) hold the stand-in for a mistake made in it.
template <class... Rs>
constexpr bool outputs_poisoned(type_list<Rs...>) {
  return any_poisoned<Rs...>;
}

// What the branches return (ThenR, ElseR) matches: as many outputs, output k of both
// expressions of the same element type and dim set. (A poisoned output was reported where it
// was made.)
template <class ThenR, class ElseR>
constexpr branches_check check_branches() {
  using ts = branch_outputs_t<ThenR>;
  using es = branch_outputs_t<ElseR>;
  if constexpr (outputs_poisoned(ts{}) || outputs_poisoned(es{})) {
    return branches_check::poisoned;
  } else if constexpr (ts::size != es::size) {
    return branches_check::output_counts;
  } else {
    constexpr std::size_t k = first_mismatch(ts{}, es{});
    if constexpr (k == ts::size) return branches_check::ok;
    else return check_output<tensor_type_of_t<at_t<k, ts>>, tensor_type_of_t<at_t<k, es>>>();
  }
}

// The report of check_branches, called where if_ is called (a check that holds instantiates
// nothing): the error line shows the output's dims in both branches (and its element types).
template <branches_check Check, class ThenR, class ElseR>
void report_branches() {
  using check = branches_check;
  using ts = branch_outputs_t<ThenR>;
  using es = branch_outputs_t<ElseR>;
  if constexpr (Check == check::output_counts) {
    static_assert(ts::size == es::size,
                  "dimgraph: if_: branches return different numbers of outputs");
  } else if constexpr (Check == check::not_tensor || Check == check::element_types ||
                       Check == check::dims) {
    constexpr std::size_t k = first_mismatch(ts{}, es{});
    using then_t = tensor_type_of_t<at_t<k, ts>>;
    using else_t = tensor_type_of_t<at_t<k, es>>;
    using then_role = detail::operand_role_t<"then", then_t>;
    using else_role = detail::operand_role_t<"else", else_t>;
    if constexpr (Check == check::not_tensor)
      static_assert(sizeof(then_t) == 0,
                    "dimgraph: if_: a branch must return tensors or expressions (or a std::tuple "
                    "or std::pair of them)");
    DIMGRAPH_REQUIRE(Check != check::element_types,
                     "dimgraph: if_: branches return different element types", then_role, else_role,
                     value_t<then_t>, value_t<else_t>);
    DIMGRAPH_REQUIRE(Check != check::dims, "dimgraph: if_: branches return different dims",
                     then_role, else_role);
  }
}

// What if_ gives after a reported mistake in or about its branches: one stand-in per output
// (as many as the first branch that returns a tuple or pair has), so that
// `auto [a, b] = dg::if_(...)(...)` says nothing more.
template <class ThenR, class ElseR>
auto poisoned_outputs() {
  using then_outputs = branch_outputs<std::remove_cvref_t<ThenR>>;
  using else_outputs = branch_outputs<std::remove_cvref_t<ElseR>>;
  if constexpr (then_outputs::several) return poisoned_tuple_t<then_outputs::list::size>{};
  else if constexpr (else_outputs::several) return poisoned_tuple_t<else_outputs::list::size>{};
  else return invalid_expr{};
}

// A branch's result as tensors of the types Outs (a type_list): one tensor, or a std::tuple.
template <class Outs, class R>
DIMGRAPH_ALWAYS_INLINE inline auto materialize_branch(R&& r) {
  return [&]<class... Os>(type_list<Os...>) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (!branch_outputs<std::remove_cvref_t<R>>::several) {
      return front_t<Outs>(std::forward<R>(r));
    } else {
      return std::apply([](auto&&... e) { return std::tuple<Os...>(Os(std::move(e))...); },
                        std::forward<R>(r));
    }
  }(Outs{});
}

template <class L>
struct tensors_of_outputs;
template <class... Rs>
struct tensors_of_outputs<type_list<Rs...>> {
  using type = type_list<tensor_type_of_t<Rs>...>;
};
// The tensor types of a branch's outputs (a type_list).
template <class L>
using tensors_of_outputs_t = typename tensors_of_outputs<L>::type;

// The parameter types of a callable, where they can be known without calling it: a function
// (pointer), a class with one call operator, or a class whose call operator is a template
// with one parameter per argument (a generic lambda such as [](auto p, const auto& q)),
// instantiated for the argument types Xs as a call deduces them (const Xs& lvalues give
// `auto` parameters the type Xs).
template <class... Ps>
struct parameter_types {
  static constexpr bool known = true;
  using list = type_list<Ps...>;
};
struct unknown_parameters {
  static constexpr bool known = false;
  using list = type_list<>;
};
template <class F>
struct signature_parameters : unknown_parameters {};
template <class R, class... Ps>
struct signature_parameters<R (*)(Ps...)> : parameter_types<Ps...> {};
template <class R, class... Ps>
struct signature_parameters<R (*)(Ps...) noexcept> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...)> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...) const> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...) noexcept> : parameter_types<Ps...> {};
template <class R, class C, class... Ps>
struct signature_parameters<R (C::*)(Ps...) const noexcept> : parameter_types<Ps...> {};

template <class Fn, class... Xs>
struct call_parameters : unknown_parameters {};
template <class Fn, class... Xs>
  requires std::is_pointer_v<Fn> || std::is_function_v<Fn>
struct call_parameters<Fn, Xs...> : signature_parameters<std::decay_t<Fn>> {};
template <class Fn, class... Xs>
  requires requires { &Fn::operator(); }
struct call_parameters<Fn, Xs...> : signature_parameters<decltype(&Fn::operator())> {};
template <class Fn, class... Xs>
  requires requires { &Fn::template operator()<Xs...>; }
struct call_parameters<Fn, Xs...>
    : signature_parameters<decltype(&Fn::template operator()<Xs...>)> {};

// What a branch result may refer to: a lazy expression, to any object it was made from (it
// holds lvalues by reference); a view, to the elements of a tensor. A tensor refers to
// nothing.
template <class R>
inline constexpr bool result_is_lazy_v = expression<R> && !memory_operand<R>;
template <class R>
inline constexpr bool result_is_view_v = is_view_v<std::remove_cvref_t<R>>;

// Whether the outputs Rs (a type_list) may refer to a parameter of the types Ps (a type_list)
// taken by value, which dies when the branch returns: a lazy output and any by-value
// parameter, or a view output and a tensor taken by value.
template <class Rs, class Ps>
struct dangling_outputs;
template <class... Rs, class... Ps>
struct dangling_outputs<type_list<Rs...>, type_list<Ps...>> {
  static constexpr bool by_value = (!std::is_reference_v<Ps> || ...);
  static constexpr bool tensor_by_value =
      ((!std::is_reference_v<Ps> && is_tensor_v<std::remove_cv_t<Ps>>) || ...);
  static constexpr bool value = (by_value && (result_is_lazy_v<Rs> || ...)) ||
                                (tensor_by_value && (result_is_view_v<Rs> || ...));
};

// A branch Fn called on const Xs&... returns R, which may dangle: it takes an input by value
// and returns a lazy expression or view that may refer to that copy.
template <class Fn, class R, class... Xs>
constexpr bool branch_may_dangle() {
  using params = call_parameters<Fn, Xs...>;
  if constexpr (!params::known) return false;
  else return dangling_outputs<branch_outputs_t<R>, typename params::list>::value;
}

// The check at the entry of if_ (one message per mistake).
template <class Fn, class R, class... Xs>
constexpr bool branch_keeps_inputs() {
  constexpr bool dangles = branch_may_dangle<Fn, R, Xs...>();
  DIMGRAPH_REQUIRE(!dangles,
                   "dimgraph: if_: a branch takes an input by value and returns a lazy expression "
                   "or a view that may refer to that copy, which dies when the branch returns; "
                   "take the inputs as const auto& (or return dg::eval(...))",
                   Fn, detail::operand_role_t<"returns", R>);
  return !dangles;
}

}  // namespace dimgraph::detail
// ---- end dimgraph/graph/if_branches.hpp
// ---- begin dimgraph/graph/if.hpp
// dg::if_(cond, then_fn, else_fn)(inputs...): OpenVINO If-8, run eagerly on tensors and
// recorded as an "if" node with its two branches as sub-graphs when traced.



namespace dimgraph {
namespace detail {

// A compile-time condition: std::bool_constant<B> (std::true_type, std::false_type) or the
// constant dims dg::c<true> and dg::c<false> (which are dg::c<1> and dg::c<0>).
template <class C>
struct static_condition {
  static constexpr bool is_constant = false;
};
template <bool B>
struct static_condition<std::integral_constant<bool, B>> {
  static constexpr bool is_constant = true;
  static constexpr bool value = B;
};
template <std::size_t K>
  requires(K <= 1)
struct static_condition<const_dim<K>> {
  static constexpr bool is_constant = true;
  static constexpr bool value = K == 1;
};

// The run-time condition: a bool, or the one element of a boolean tensor (shape_error when
// it has another number of elements).
template <class C>
bool condition_value(const C& c) {
  if constexpr (std::is_same_v<C, bool>) {
    return c;
  } else {
    const auto t = eval(c);
    if (t.size() != 1)
      throw shape_error("if_",
                        "the condition must have one element, it has " + std::to_string(t.size()));
    return t.data()[0];
  }
}

template <class C>
constexpr bool run_time_condition() {
  if constexpr (expression<C>) return std::is_same_v<value_t<C>, bool>;
  else return std::is_same_v<C, bool>;
}

// A branch result holds a symbol: the branch used a value of the traced function.
template <class R>
inline constexpr bool has_symbol_v = symbolic<R>;
template <class... Rs>
inline constexpr bool has_symbol_v<std::tuple<Rs...>> = (symbolic<Rs> || ...);
template <class A, class B>
inline constexpr bool has_symbol_v<std::pair<A, B>> = symbolic<A> || symbolic<B>;

// if_ is traced when its condition or an input is a symbol, or a branch returns one.
template <class Cond, class Then, class... Xs>
constexpr bool traced_if() {
  if constexpr (symbolic<Cond> || (symbolic<Xs> || ...)) return true;
  else if constexpr (!dimgraph::detail::callable_with<const Then&, const Xs&...>) return false;
  else
    return has_symbol_v<
        std::remove_cvref_t<dimgraph::detail::call_result_t<const Then&, const Xs&...>>>;
}

}  // namespace detail

// The two branches of dg::if_ with their condition (a bool, or std::bool_constant<B> when it
// is known at compile time). Call it on the inputs.
template <class Cond, class Then, class Else>
class if_fn {
 public:
  if_fn(Cond cond, Then then_fn, Else else_fn)
      : cond_(cond), then_(std::move(then_fn)), else_(std::move(else_fn)) {}

  template <class... Xs>
  DIMGRAPH_ALWAYS_INLINE auto operator()(const Xs&... xs) const {
    if constexpr (detail::any_poisoned<Xs...>) {
      // (A mistake reported before: the branches are not called, so their outputs are unknown.)
      return detail::invalid_expr{};
    } else if constexpr (detail::poisoned<Cond>) {
      return poisoned_call<Xs...>();
    } else if constexpr (detail::static_condition<Cond>::is_constant) {
      // Only the chosen branch is instantiated.
      if constexpr (detail::static_condition<Cond>::value) return run(then_, "then branch", xs...);
      else return run(else_, "else branch", xs...);
    } else if constexpr (detail::traced_if<Cond, Then, Xs...>()) {
      // Traced: the branches are checked as eagerly, on what they return traced on arguments
      // of the inputs' types.
      constexpr bool operands = ((symbolic<Xs> || expression<Xs>)&&...);
      static_assert(operands,
                    "dimgraph: if_: a traced input must be a symbol, a tensor or an "
                    "expression");
      constexpr bool callable =
          operands && detail::invocable_on_args_v<Then, detail::tensor_type_of_t<Xs>...> &&
          detail::invocable_on_args_v<Else, detail::tensor_type_of_t<Xs>...>;
      static_assert(!operands || callable,
                    "dimgraph: if_: a branch cannot be called with the inputs");
      if constexpr (!callable) {
        return detail::invalid_expr{};
      } else {
        using then_r = detail::args_result_t<Then, detail::tensor_type_of_t<Xs>...>;
        using else_r = detail::args_result_t<Else, detail::tensor_type_of_t<Xs>...>;
        constexpr detail::branches_check check = detail::check_branches<then_r, else_r>();
        detail::report_branches<check, then_r, else_r>();
        if constexpr (check != detail::branches_check::ok)
          return detail::poisoned_outputs<then_r, else_r>();
        else return traced<then_r, else_r>(xs...);
      }
    } else {
      constexpr bool callable = dimgraph::detail::callable_with<const Then&, const Xs&...> &&
                                dimgraph::detail::callable_with<const Else&, const Xs&...>;
      static_assert(callable, "dimgraph: if_: a branch cannot be called with the inputs");
      if constexpr (!callable) {
        return detail::invalid_expr{};
      } else {
        using then_r = dimgraph::detail::call_result_t<const Then&, const Xs&...>;
        using else_r = dimgraph::detail::call_result_t<const Else&, const Xs&...>;
        constexpr detail::branches_check check = detail::check_branches<then_r, else_r>();
        detail::report_branches<check, then_r, else_r>();
        if constexpr (check != detail::branches_check::ok) {
          return detail::poisoned_outputs<then_r, else_r>();
        } else if constexpr (!detail::branch_keeps_inputs<Then, then_r, Xs...>() ||
                             !detail::branch_keeps_inputs<Else, else_r, Xs...>()) {
          return detail::poisoned_outputs<then_r, else_r>();
        } else {
          using outs = detail::tensors_of_outputs_t<detail::branch_outputs_t<then_r>>;
          if (cond_)
            return detail::in_call("if_", "then branch",
                                   [&] { return detail::materialize_branch<outs>(then_(xs...)); });
          return detail::in_call("if_", "else branch",
                                 [&] { return detail::materialize_branch<outs>(else_(xs...)); });
        }
      }
    }
  }

 private:
  // Traced, the branches checked (they return ThenR and ElseR): one "if" node over the
  // condition and the inputs, holding both branches traced on arguments of the inputs' types;
  // its results are the then-branch's output types.
  template <class ThenR, class ElseR, class... Xs>
  auto traced(const Xs&... xs) const {
    auto then_body = detail::trace_body<detail::tensor_type_of_t<Xs>...>(then_, "then");
    auto else_body = detail::trace_body<detail::tensor_type_of_t<Xs>...>(else_, "else");
    if constexpr (detail::poisoned<decltype(then_body)> || detail::poisoned<decltype(else_body)>) {
      return detail::poisoned_outputs<ThenR, ElseR>();
    } else {
      using results = typename detail::tuple_of<
          detail::tensors_of_outputs_t<detail::branch_outputs_t<ThenR>>>::type;
      using region =
          region_node<op_tag<"if">, results, std::tuple<decltype(then_body), decltype(else_body)>,
                      detail::node_of_t<Cond>, detail::node_of_t<Xs>...>;
      return detail::region_results<detail::branch_outputs<ThenR>::several>(
          region{{detail::node_of(cond_), detail::node_of(xs)...},
                 {std::move(then_body), std::move(else_body)}});
    }
  }

  // The branch fn (which: "then branch" or "else branch") of a compile-time condition.
  template <class Fn, class... Xs>
  static auto run(const Fn& fn, const char* which, const Xs&... xs) {
    using r = dimgraph::detail::call_result_t<const Fn&, const Xs&...>;
    if constexpr ((symbolic<Xs> || ...) || detail::has_symbol_v<std::remove_cvref_t<r>>) {
      return fn(xs...);  // traced: the chosen branch's nodes go into the graph as they are
    } else if constexpr (detail::outputs_poisoned(detail::branch_outputs_t<r>{})) {
      return detail::poisoned_outputs<r, r>();
    } else if constexpr (!detail::branch_keeps_inputs<Fn, r, Xs...>()) {
      return detail::poisoned_outputs<r, r>();
    } else {
      using outs = detail::tensors_of_outputs_t<detail::branch_outputs_t<r>>;
      return detail::in_call("if_", which,
                             [&] { return detail::materialize_branch<outs>(fn(xs...)); });
    }
  }

  // A condition that was a reported mistake: as many stand-ins as a branch has outputs, where
  // it can be called on the inputs.
  template <class... Xs>
  static auto poisoned_call() {
    if constexpr (dimgraph::detail::callable_with<const Then&, const Xs&...>) {
      using then_r = dimgraph::detail::call_result_t<const Then&, const Xs&...>;
      return detail::poisoned_outputs<then_r, then_r>();
    } else if constexpr (dimgraph::detail::callable_with<const Else&, const Xs&...>) {
      using else_r = dimgraph::detail::call_result_t<const Else&, const Xs&...>;
      return detail::poisoned_outputs<else_r, else_r>();
    } else {
      return detail::invalid_expr{};
    }
  }

  [[no_unique_address]] Cond cond_;
  Then then_;
  Else else_;
};

// dg::if_(cond, then_fn, else_fn)(inputs...) is If-8: calls then_fn(inputs...) when cond
// holds, else else_fn(inputs...); only the chosen branch runs. Take the inputs as
// `const auto&`: a branch's result is evaluated after it returns, so a lazy expression over
// an input it took by value would refer to a dead copy (a compile error, see below).
//  cond     a bool; a boolean tensor or expression with one element (of any dims); or a
//           compile-time constant: std::true_type / std::false_type (std::bool_constant<B>) or
//           dg::c<true> / dg::c<false>, in which case only the chosen branch is instantiated.
//  branches each returns one value or a std::tuple / std::pair of values; with a run-time
//           cond both must return as many outputs, output k of the same element type and the
//           same dim set (order may differ).
//  result   the chosen branch's outputs evaluated into tensors: one tensor, or a std::tuple of
//           them when the branch returns a tuple or pair. With a run-time cond their dims are
//           in the then-branch's order (the else-branch's values are permuted into it); with a
//           compile-time cond they are the chosen branch's own.
// Traced (the cond, an input or a branch's result is a symbol of dg::trace): with a run-time
// cond, one "if" node over the cond and the inputs, holding both branches traced on arguments
// of the inputs' types as sub-graphs ("then", "else"); its results are symbols (one, or a
// std::tuple as above). With a compile-time cond, the chosen branch's nodes themselves. A
// traced cond must be a bool whose dims can all have extent 1.
// Errors (compile time): a cond of another type; branches that differ in the number of
// outputs, an output's element type or its dims (the first output that differs: the error
// line names its dims in both branches, and its element types; the instantiation context both
// branches' result types); a branch that takes an input by value and returns a lazy
// expression, or a view of a tensor it took by value (see branch_may_dangle). Errors (run
// time): a tensor cond without exactly one element (shape_error); a dg::error thrown in a
// branch keeps its class and gets the branch before the op that threw it: "dimgraph: if_: then
// branch: add: ..." ("else branch"; see dg::error::add_context). After a mistake in a branch
// or the cond (reported where it was made) or one of these, the result is the stand-in of a
// reported mistake, one per output, which later ops and structured bindings take silently.
template <class Cond, class Then, class Else>
auto if_(const Cond& cond, Then then_fn, Else else_fn) {
  using c = std::remove_cvref_t<Cond>;
  if constexpr (detail::static_condition<c>::is_constant) {
    return if_fn<std::bool_constant<detail::static_condition<c>::value>, Then, Else>(
        {}, std::move(then_fn), std::move(else_fn));
  } else if constexpr (detail::poisoned<c>) {
    // (A cond computed with a reported mistake, or rejected below: calling the result on the
    // inputs says nothing more.)
    return if_fn<detail::invalid_expr, Then, Else>({}, std::move(then_fn), std::move(else_fn));
  } else if constexpr (symbolic<c>) {
    // Traced: the condition is a symbol (a graph input or a value computed from one).
    constexpr bool is_bool = std::is_same_v<typename c::value_type, bool>;
    constexpr bool one = []<class... Ds>(dim_list<Ds...>) {
      return (bounds_v<Ds>.contains(1) && ...);
    }(typename c::dims{});
    static_assert(is_bool, "dimgraph: if_: a traced condition must be a bool value");
    DIMGRAPH_REQUIRE(!is_bool || one,
                     "dimgraph: if_: the condition must have one element (a dim of it cannot have "
                     "extent 1)",
                     detail::operand_role_t<"condition", c>);
    if constexpr (is_bool && one)
      return if_fn<c, Then, Else>(cond, std::move(then_fn), std::move(else_fn));
    else return if_(detail::invalid_expr{}, std::move(then_fn), std::move(else_fn));
  } else if constexpr (detail::run_time_condition<c>()) {
    return if_fn<bool, Then, Else>(detail::condition_value(cond), std::move(then_fn),
                                   std::move(else_fn));
  } else {
    static_assert(sizeof(c) == 0,
                  "dimgraph: if_: the condition must be a bool, a one-element bool tensor, "
                  "std::true_type / std::false_type, or dg::c<true> / dg::c<false>");
    return if_(detail::invalid_expr{}, std::move(then_fn), std::move(else_fn));
  }
}

}  // namespace dimgraph
// ---- end dimgraph/graph/if.hpp

// ---- begin dimgraph/graph/print.hpp
// A traced graph as text: an IR-like listing (operator<<) and Graphviz dot (dg::to_dot).



namespace dimgraph {
namespace detail {

// A dim as the graph knows it: "feature=512" (static), "beam[1, 8]" (interval), "time[0, inf]"
// (dynamic: any extent), "len[4, inf]" (bounded below only).
template <class D>
std::string symbolic_dim_text() {
  if constexpr (is_static_v<D>) return describe<D>() + "=" + std::to_string(bounds_v<D>.lo);
  else return describe<D>() + to_string(bounds_v<D>);
}
template <class T, class... Ds>
std::string node_type_text(dim_list<Ds...>) {
  std::string out = element_name<T>() + " [";
  [[maybe_unused]] const char* sep = "";
  ((out += sep, out += symbolic_dim_text<Ds>(), sep = ", "), ...);
  return out + "]";
}
template <class N>
std::string node_type_text() {
  return node_type_text<typename N::value_type>(typename N::dims{});
}

template <detail::fixed_string Name, class... Attrs>
std::string op_label(std::type_identity<op_tag<Name, Attrs...>>) {
  std::string out(Name.view());
  if constexpr (sizeof...(Attrs) > 0) {
    const char* sep = "<";
    auto attr = [&]<class A>(std::type_identity<A>) {
      out += sep;
      if constexpr (dimension<A>) out += describe<A>();
      else out += element_name<A>();
      sep = ", ";
    };
    (attr(std::type_identity<Attrs>{}), ...);
    out += ">";
  }
  return out;
}

// One line per distinct value: values are numbered in the order they are first completed,
// so operands come before the ops that use them and a value used twice appears once. The
// sub-graphs of a region node (if_, scan) follow it, indented, each ending in a yield line.
struct graph_listing {
  static constexpr std::size_t no_id = static_cast<std::size_t>(-1);
  struct entry {
    std::size_t depth = 0;            // nesting in sub-graphs
    std::size_t id = no_id;           // no_id: a label or yield line
    std::string op;                   // "input 0", "add", "sum<time>", "then:", "yield"
    std::vector<std::size_t> inputs;  // ids of the operands
    std::string attributes;           // run-time attributes: "start=1, end=-1, stride=1"
    std::string type;                 // "float32 [batch[?], feature=512]"
  };
  std::vector<entry> entries;
  // A value's identity (in its scope) -> its id, sorted by identity. (A sorted vector, not a
  // std::map: <map> costs every translation unit that includes the library.)
  std::vector<std::pair<std::string, std::size_t>> ids;
  auto id_position(const std::string& key) {
    return std::lower_bound(ids.begin(), ids.end(), key,
                            [](const auto& a, const std::string& k) { return a.first < k; });
  }
  const std::size_t* find_id(const std::string& key) {
    const auto at = id_position(key);
    return at != ids.end() && at->first == key ? &at->second : nullptr;
  }
  std::size_t next_id = 0;
  std::size_t depth = 0;
  std::string scope;  // "" outside sub-graphs, "r5.0/" in the first sub-graph of %5

  // The id of the value `key` (scope + rest), added as e when it is new. A value of an
  // enclosing graph that a sub-graph uses (a capture) keeps its id there: with `inherit`, the
  // key is looked up in the enclosing scopes first.
  std::size_t add(std::string key, entry e, bool inherit = true) {
    if (inherit && !scope.empty() && key.starts_with(scope)) {
      const std::string rest = key.substr(scope.size());
      // Scopes are "r5.0/r9.0/": each enclosing one is a prefix ending in '/', then "".
      for (std::size_t close = scope.size() - 1;;) {
        const std::size_t slash = close == 0 ? std::string::npos : scope.rfind('/', close - 1);
        const std::size_t length = slash == std::string::npos ? 0 : slash + 1;
        if (const std::size_t* found = find_id(scope.substr(0, length) + rest)) return *found;
        if (length == 0) break;
        close = slash;
      }
    }
    const auto at = id_position(key);
    if (at != ids.end() && at->first == key) return at->second;
    const std::size_t id = next_id++;
    ids.emplace(at, std::move(key), id);
    e.depth = depth;
    e.id = id;
    entries.push_back(std::move(e));
    return id;
  }
  void line(std::string op, std::vector<std::size_t> inputs = {}, std::string attributes = {}) {
    entries.push_back({depth, no_id, std::move(op), std::move(inputs), std::move(attributes), {}});
  }
  std::string key_of(const std::string& label, const std::vector<std::size_t>& in,
                     const std::string& rest) const {
    std::string key = scope + label + "(";
    for (std::size_t i : in) key += std::to_string(i) + ",";
    return key + ")" + rest;
  }

  template <std::size_t I, class T, class... Ds>
  std::size_t visit(const input_node<I, T, Ds...>&) {
    using N = input_node<I, T, Ds...>;
    return add("input " + std::to_string(I),
               {0, no_id, "input " + std::to_string(I), {}, {}, node_type_text<N>()});
  }
  template <std::size_t I, class T, class... Ds>
  std::size_t visit(const arg_node<I, T, Ds...>&) {
    using N = arg_node<I, T, Ds...>;
    return add(scope + "arg " + std::to_string(I),
               {0, no_id, "arg " + std::to_string(I), {}, {}, node_type_text<N>()}, false);
  }
  template <class T, class Dims>
  std::size_t visit(const constant_node<T, Dims>& n) {
    using N = constant_node<T, Dims>;
    std::string key = "constant@" + std::to_string(reinterpret_cast<std::uintptr_t>(n.address)) +
                      node_type_text<N>();
    return add(std::move(key), {0, no_id, "constant", {}, {}, node_type_text<N>()});
  }
  template <class T>
  std::size_t visit(const scalar_node<T>& n) {
    std::string text = element_text(n.value);
    return add("scalar " + text + element_name<T>(),
               {0, no_id, "scalar " + text, {}, {}, node_type_text<scalar_node<T>>()});
  }
  template <class Op, class T, class Dims, class... Cs>
  std::size_t visit(const op_node<Op, T, Dims, Cs...>& n) {
    using N = op_node<Op, T, Dims, Cs...>;
    std::vector<std::size_t> in = std::apply(
        [&](const auto&... c) { return std::vector<std::size_t>{visit(c)...}; }, n.children);
    std::string label = op_label(std::type_identity<Op>{});
    std::string key = key_of(label, in, n.attributes + node_type_text<N>());
    return add(std::move(key),
               {0, no_id, std::move(label), std::move(in), n.attributes, node_type_text<N>()});
  }
  template <class Op, class Results, class Bodies, class... Cs>
  std::size_t visit(const region_node<Op, Results, Bodies, Cs...>& n) {
    std::vector<std::size_t> in = std::apply(
        [&](const auto&... c) { return std::vector<std::size_t>{visit(c)...}; }, n.children);
    std::string label = op_label(std::type_identity<Op>{});
    std::string type = results_text(std::type_identity<Results>{});
    std::string key = key_of(label, in, n.attributes + type + type_key<Bodies>());
    const std::size_t before = next_id;
    const std::size_t id =
        add(std::move(key), {0, no_id, std::move(label), std::move(in), n.attributes, type});
    if (id == before) {  // first time: list the sub-graphs under it
      std::string outer = scope;
      std::size_t k = 0;
      ++depth;
      std::apply(
          [&](const auto&... body) {
            ((scope = outer + "r" + std::to_string(id) + "." + std::to_string(k++) + "/",
              line(body.name + ":"), visit_body(body)),
             ...);
          },
          n.bodies);
      --depth;
      scope = outer;
    }
    return id;
  }
  template <std::size_t K, class Region>
  std::size_t visit(const result_node<K, Region>& n) {
    const std::size_t region = visit(n.region);
    using N = result_node<K, Region>;
    return add(key_of("result " + std::to_string(K), {region}, {}),
               {0, no_id, "result " + std::to_string(K), {region}, {}, node_type_text<N>()});
  }

  // The nodes of Hoisted under n (n itself when it is one), each where it is first met.
  template <class Hoisted, class N>
  void visit_hoisted(const N& n) {
    if constexpr (contains_v<N, Hoisted>) {
      visit(n);
    } else if constexpr (
        requires { n.children; } && !requires { n.bodies; }) {
      std::apply([&](const auto&... c) { (visit_hoisted<Hoisted>(c), ...); }, n.children);
    }
  }

  // A sub-graph: its arguments first, in order (as a graph's inputs), then the nodes a scan
  // that hoists computes before its loop, then what it yields.
  template <class Outs, class... Args, class Hoisted>
  void visit_body(const body_graph<Outs, std::tuple<Args...>, Hoisted>& body) {
    ++depth;
    (visit(Args{}), ...);
    if constexpr (Hoisted::size > 0) {
      line("before the loop:");
      std::apply([&](const auto&... y) { (visit_hoisted<Hoisted>(y), ...); }, body.yields);
      line("every iteration:");
    }
    std::vector<std::size_t> out = std::apply(
        [&](const auto&... y) { return std::vector<std::size_t>{visit(y)...}; }, body.yields);
    line("yield", std::move(out), body.yield_text);
    --depth;
  }

  // Tells sub-graphs of different types apart without RTTI.
  template <class T>
  static std::string type_key() {
    static const char tag = 0;
    return "@" + std::to_string(reinterpret_cast<std::uintptr_t>(&tag));
  }

  template <class... Ts>
  static std::string results_text(std::type_identity<std::tuple<Ts...>>) {
    std::string out = "(";
    [[maybe_unused]] const char* sep = "";
    ((out += sep, out += node_type_text<typename Ts::value_type>(typename Ts::dims{}), sep = ", "),
     ...);
    return out + ")";
  }
};

template <class G>
graph_listing list_graph(const G& g) {
  graph_listing l;
  // Inputs first, numbered by position, even when an output does not use them.
  [&]<class... Ins>(std::type_identity<std::tuple<Ins...>>) {
    (l.visit(Ins{}), ...);
  }(std::type_identity<typename G::input_nodes>{});
  std::apply([&](const auto&... out) { (l.visit(out), ...); }, g.output_node_values());
  return l;
}

}  // namespace detail

// The listing: one line per node, "%id = op<dims>(%operands) {attributes} : type [dims]", then
// "return %ids". A dim prints with its size ("feature=512") or its interval ("beam[1, 8]",
// "time[0, inf]").
template <class Fn, class Ins, class Outs>
std::ostream& operator<<(std::ostream& os, const graph<Fn, Ins, Outs>& g) {
  auto l = detail::list_graph(g);
  for (const auto& e : l.entries) {
    os << std::string(2 * e.depth, ' ');
    if (e.id != detail::graph_listing::no_id) os << '%' << e.id << " = ";
    os << e.op;
    if (!e.inputs.empty()) {
      const bool call = e.id != detail::graph_listing::no_id;
      os << (call ? "(" : " ");
      for (std::size_t k = 0; k < e.inputs.size(); ++k) os << (k ? ", %" : "%") << e.inputs[k];
      if (call) os << ')';
    }
    if (!e.attributes.empty()) os << " {" << e.attributes << '}';
    if (!e.type.empty()) os << " : " << e.type;
    os << '\n';
  }
  os << "return";
  std::apply(
      [&](const auto&... out) {
        const char* sep = " ";
        auto print = [&](std::size_t id) {
          os << sep << '%' << id;
          sep = ", ";
        };
        (print(l.visit(out)), ...);  // visited already: this finds each output's id
      },
      g.output_node_values());
  return os << '\n';
}

// Graphviz: one box per value labelled with its op and type, an edge per operand; the values
// a sub-graph yields have a dashed edge to the node that holds it.
template <class Fn, class Ins, class Outs>
std::string to_dot(const graph<Fn, Ins, Outs>& g) {
  const auto l = detail::list_graph(g);
  std::string out = "digraph dimgraph {\n  node [shape=box, fontname=\"monospace\"];\n";
  std::vector<std::size_t> holder;  // the region node of each open sub-graph depth
  for (const auto& e : l.entries) {
    if (e.id == detail::graph_listing::no_id) {
      if (e.op == "yield")
        for (std::size_t in : e.inputs)
          out += "  n" + std::to_string(in) + " -> n" + std::to_string(holder[e.depth - 2]) +
                 " [style=dashed];\n";
      continue;
    }
    holder.resize(e.depth + 1);
    holder[e.depth] = e.id;
    out += "  n" + std::to_string(e.id) + " [label=\"%" + std::to_string(e.id) + " " + e.op +
           (e.attributes.empty() ? "" : " {" + e.attributes + "}") + "\\n" + e.type + "\"];\n";
    for (std::size_t in : e.inputs)
      out += "  n" + std::to_string(in) + " -> n" + std::to_string(e.id) + ";\n";
  }
  return out + "}\n";
}

}  // namespace dimgraph
// ---- end dimgraph/graph/print.hpp

// ---- begin dimgraph/nn/cell_dims.hpp
// What the nn layers share: their operands, and the dims and gates of a recurrent cell's step.



namespace dimgraph::nn {

// An operand of an nn layer: a tensor, a view, a lazy expression, or a symbol of a traced
// graph (so that the same layer runs eagerly and traces). The stand-in for a mistake reported
// before is taken too, and passed on without a second message (see dimgraph::detail::poisoned).
template <class X>
concept layer_operand = expression<X> || symbolic<X> || dimgraph::detail::poisoned<X>;

namespace detail {

// The dims of an operand (for symbols too, unlike dims_t).
template <class X>
using dims_of_t = typename std::remove_cvref_t<X>::dims;

// The element type of an operand.
template <class X>
using value_of_t = typename std::remove_cvref_t<X>::value_type;

// An operand that is read more than once: a tensor, view or symbol as it is, a lazy
// expression evaluated once (a const reference, or the tensor it gives).
template <class X>
decltype(auto) read_once(const X& x) {
  if constexpr (symbolic<X> || requires { x.data(); }) return (x);
  else return dimgraph::eval(x);
}

// The first dim of a dim list (void for an empty one).
template <class L>
struct first_dim {
  using type = void;
};
template <class D, class... Ds>
struct first_dim<dim_list<D, Ds...>> {
  using type = D;
};
template <class L>
using first_dim_t = typename first_dim<L>::type;

// Whether x has exactly the dims Ds... (in any order).
template <class X, class... Ds>
inline constexpr bool has_dims_v = list_same_set_v<dims_of_t<X>, dim_list<Ds...>>;

// The dims of one step of a recurrent cell, from x [batch..., input] and h [batch...,
// hidden]: the batch dims are the ones x and h share (any number, also none), the input
// dim is x's only other dim, the hidden dim h's only other dim.
template <class X, class H>
struct cell_dims {
  using x_only = list_difference_t<dims_of_t<X>, dims_of_t<H>>;
  using h_only = list_difference_t<dims_of_t<H>, dims_of_t<X>>;
  static constexpr bool one_input = x_only::size == 1;
  static constexpr bool one_hidden = h_only::size == 1;
  using input = first_dim_t<x_only>;   // (void unless one_input)
  using hidden = first_dim_t<h_only>;  // (void unless one_hidden)
};

// K copies of the hidden dim one after the other: the gate dim c<K> * hidden (void while
// the hidden dim is not known).
template <std::size_t K, class Hidden>
struct gate_dim {
  using type = void;
};
template <std::size_t K, dimension Hidden>
struct gate_dim<K, Hidden> {
  using type = decltype(c<K> * Hidden{});
};
template <std::size_t K, class Hidden>
using gate_dim_t = typename gate_dim<K, Hidden>::type;

// Gate I of a gate tensor g [.., c<K> * hidden, ..]: the dim algebra splits c<K> * hidden
// into c<K> and hidden (split_dims, a view), and gate I is position I along c<K> (a view
// [.., hidden, ..]; no index arithmetic). Works on tensors, views and symbols alike.
template <std::size_t K, class Hidden, std::size_t I, class G>
auto gate(const G& g) {
  return dimgraph::split_dims<const_dim<K>, Hidden>(g)[dimgraph::at<const_dim<K>>(I)];
}

// The pre-activation of gate I: the sum of gate I of every source (products and biases).
template <std::size_t K, class Hidden, std::size_t I, class... Sources>
auto gate_sum(const Sources&... sources) {
  return (... + gate<K, Hidden, I>(sources));
}

// The same over a tuple of sources.
template <std::size_t K, class Hidden, std::size_t I, class Tuple>
auto gate_sum_of(const Tuple& sources) {
  return std::apply([](const auto&... s) { return gate_sum<K, Hidden, I>(s...); }, sources);
}

// acc plus gate I of every source, added onto acc one after the other. (With acc or the
// first source the one that depends on the recurrent state, a scan that hoists the other
// sources reads them in the loop's pass: no partial sum of them is a node of its own.)
// (acc is taken by value and moved into the sum, which holds it: it is a lazy temporary.)
template <std::size_t K, class Hidden, std::size_t I, class Acc, class Tuple>
auto gate_sum_onto(Acc acc, const Tuple& sources) {
  return std::apply(
      [&](const auto&... s) { return (std::move(acc) + ... + gate<K, Hidden, I>(s)); }, sources);
}

// The gate sources of a product and its bias: the two, split separately and summed in the
// fused pass (a bias that is a lazy expression is evaluated first: views are made of it).
// While tracing, a captured bias is the symbol of its constant (a view made of the tensor
// itself would be a temporary, and a graph lists a captured tensor by its address), so that a
// scan that hoists the product reads the bias in the loop's pass, with no sum stored for every
// step; a lazy one is added to the product as one node.
template <class P, class B>
auto with_bias(const P& product, const B& bias) {
  if constexpr (symbolic<P> && symbolic<B>) return std::tuple<const P&, const B&>{product, bias};
  else if constexpr (symbolic<P> && dimgraph::detail::memory_operand<B>)
    return std::tuple{product, dimgraph::detail::constant_symbol(product, bias)};
  else if constexpr (symbolic<P> || symbolic<B>) return std::tuple{dimgraph::eval(product + bias)};
  else if constexpr (requires { bias.data(); })
    return std::tuple<const P&, const B&>{product, bias};
  else return std::tuple<const P&, decltype(dimgraph::eval(bias))>{product, dimgraph::eval(bias)};
}

// Why a recurrent cell rejects its operands (checked in this order: one message per mistake).
enum class cell_check { ok, input_dim, hidden_dim, state_dims, w_dims, r_dims, b_dims, b2_dims };

// The checks every cell shares: x, h and c (the LSTM's cell state; h again for the GRU).
template <class X, class H, class C>
constexpr cell_check check_state() {
  using d = cell_dims<X, H>;
  if (!d::one_input) return cell_check::input_dim;
  if (!d::one_hidden) return cell_check::hidden_dim;
  if (!list_same_set_v<dims_of_t<C>, dims_of_t<H>>) return cell_check::state_dims;
  return cell_check::ok;
}

}  // namespace detail
}  // namespace dimgraph::nn
// ---- end dimgraph/nn/cell_dims.hpp
// ---- begin dimgraph/nn/parameter_struct.hpp
// dg::nn layers' weights given as one struct: a Boost.Hana struct whose tensors are the operands.


#include <boost/hana/accessors.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/unpack.hpp>


namespace dimgraph::nn {

// A layer's weights as one argument: a Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT or
// BOOST_HANA_ADAPT_STRUCT, as for dg::parameters) whose members that are layer operands
// (tensors, views, symbols) are the layer's weight operands in declaration order. Members of
// other types (sizes, flags, nested structs) are skipped. The same struct is a model for
// dg::parameters and dg::io::load, so weights load straight into what the layer takes.
template <class P>
concept parameter_struct = boost::hana::Struct<P>::value && !layer_operand<P>;

namespace detail {

template <class X>
auto operand_ref(const X& x) {
  if constexpr (layer_operand<X>) {
    return std::tuple<const X&>(x);
  } else {
    return std::tuple<>{};
  }
}

// References to the operand members of p, in declaration order (a std::tuple of const refs).
template <class P>
auto operand_members(const P& p) {
  return boost::hana::unpack(boost::hana::accessors<P>(), [&](auto... member) {
    return std::tuple_cat(operand_ref(boost::hana::second(member)(p))...);
  });
}

// How many operand members P has.
template <class P>
inline constexpr std::size_t operand_member_count_v =
    std::tuple_size_v<decltype(operand_members(std::declval<const P&>()))>;

// layer(args..., the operand members of p...).
template <class P, class Layer, class... Args>
auto call_with_members(const P& p, const Layer& layer, const Args&... args) {
  return std::apply([&](const auto&... w) { return layer(args..., w...); }, operand_members(p));
}

// The name of a member (a hana::string) as a NUL-terminated array.
template <class Name>
struct member_name;
template <char... Cs>
struct member_name<boost::hana::string<Cs...>> {
  static constexpr char value[] = {Cs..., '\0'};
};

// A member as the role of an operand in a mistake: operand<"w", Gate, Input> for a member w
// [Gate, Input]; nothing for a member that is not an operand.
template <class Name, class T>
struct member_role {
  using type = dimgraph::detail::type_list<>;
};
template <class Name, layer_operand T>
  requires requires { typename T::dims; }
struct member_role<Name, T> {
  using type = dimgraph::detail::type_list<
      typename dimgraph::detail::named_operand<member_name<Name>::value, dims_of_t<T>>::type>;
};

// The roles of P's operand members, in declaration order (a type_list of operand<..>): what a
// mistake about the number of a struct's members shows of them.
template <class P>
using member_roles_t = decltype(boost::hana::unpack(boost::hana::accessors<P>(), [](auto... m) {
  return dimgraph::detail::concat_t<typename member_role<
      std::remove_cvref_t<decltype(boost::hana::first(m))>,
      std::remove_cvref_t<decltype(boost::hana::second(m)(std::declval<const P&>()))>>::type...>{};
}));

}  // namespace detail
}  // namespace dimgraph::nn
// ---- end dimgraph/nn/parameter_struct.hpp
// ---- begin dimgraph/nn/linear.hpp
// dg::nn::linear: x times a weight matrix over the one dim they share, plus an optional bias.



namespace dimgraph::nn {
namespace detail {

// Why linear rejects its operands (checked in this order: one message per mistake).
enum class linear_check { ok, w_rank, no_shared_dim, ambiguous, b_dims };

template <class X, class W>
using linear_shared_t = list_intersection_t<dims_of_t<X>, dims_of_t<W>>;

template <class X, class W, class... B>
constexpr linear_check check_linear() {
  using shared = linear_shared_t<X, W>;
  if (dims_of_t<W>::size != 2) return linear_check::w_rank;
  if (shared::size == 0) return linear_check::no_shared_dim;
  if (shared::size > 1) return linear_check::ambiguous;
  if constexpr (sizeof...(B) == 1) {
    using out = first_dim_t<list_difference_t<dims_of_t<W>, shared>>;
    if (!(has_dims_v<B, out> && ...)) return linear_check::b_dims;
  }
  return linear_check::ok;
}

// (B: b's type, or void without it. A check that holds instantiates nothing.)
template <linear_check Check, class X, class W, class B = void>
void report_linear() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using w = dimgraph::detail::operand_role_t<"W", W>;
  DIMGRAPH_REQUIRE(Check != linear_check::w_rank,
                   "dimgraph: linear: W must have exactly two dims [out, in]", x, w);
  DIMGRAPH_REQUIRE(Check != linear_check::no_shared_dim,
                   "dimgraph: linear: x and W share no dim, so there is no feature dim to contract",
                   x, w);
  DIMGRAPH_REQUIRE(Check != linear_check::ambiguous,
                   "dimgraph: linear: x and W share more than one dim, so the feature dim is "
                   "ambiguous; contract it by name with dg::dot<Feature>(x, W)",
                   x, w);
  DIMGRAPH_REQUIRE(Check != linear_check::b_dims,
                   "dimgraph: linear: b must have exactly one dim, W's output dim", x, w,
                   dimgraph::detail::operand_role_t<"b", B>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class... Members>
void report_linear_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1 || sizeof...(Members) == 2,
                   "dimgraph: linear: a parameter struct must hold W, or W and b (its tensor "
                   "members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}

}  // namespace detail

// linear(x, W) = sum over the feature dim of x * W, where W is [out, in] (in any order)
// and the feature dim is the one dim x and W share:
//   linear([.., in, ..], [out, in]) -> [x's other dims in x's order, out]
// Evaluated now (a tensor; a symbol when traced). Errors (compile time): W does not have
// exactly two dims; x and W share no dim, or more than one (ambiguous). Error (run time):
// the feature dim's extents differ (shape_error "dimgraph: nn::linear: dot: ...").
template <layer_operand X, layer_operand W>
auto linear(const X& x, const W& w) {
  if constexpr (dimgraph::detail::any_poisoned<X, W>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::linear_check check = detail::check_linear<X, W>();
    detail::report_linear<check, X, W>();
    if constexpr (check == detail::linear_check::ok) {
      using feature = detail::first_dim_t<detail::linear_shared_t<X, W>>;
      return dimgraph::detail::in_call(
          "nn::linear", [&] { return dimgraph::eval(dimgraph::dot<feature>(x, w)); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// linear(x, W, b) = linear(x, W) + b, with b [out] broadcast over x's other dims (one
// element-wise pass over the product). Errors: as linear(x, W); b's dims are
// not exactly W's output dim (compile time); b's extent is not W's output extent (run time,
// shape_error "dimgraph: nn::linear: add: ...").
template <layer_operand X, layer_operand W, layer_operand B>
auto linear(const X& x, const W& w, const B& b) {
  if constexpr (dimgraph::detail::any_poisoned<X, W, B>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::linear_check check = detail::check_linear<X, W, B>();
    detail::report_linear<check, X, W, B>();
    if constexpr (check == detail::linear_check::ok) {
      using feature = detail::first_dim_t<detail::linear_shared_t<X, W>>;
      return dimgraph::detail::in_call(
          "nn::linear", [&] { return dimgraph::eval(dimgraph::dot<feature>(x, w) + b); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// linear(x, p) with the weights as one struct (see parameter_struct): p's operand members are
// (W) or (W, b) in declaration order; then as above. Error (compile time): p has not one or
// two operand members.
template <layer_operand X, parameter_struct P>
auto linear(const X& x, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_linear_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 1 || n == 2) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::linear(a...); }, x);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/linear.hpp
// ---- begin dimgraph/nn/lstm_cell.hpp
// dg::nn::lstm_cell: one LSTM step (gates i, f, g, o as in PyTorch), separate or fused weights.



namespace dimgraph::nn {

// What lstm_cell returns: the new hidden state h and cell state c. An aggregate, so
// `auto [h, c] = dg::nn::lstm_cell(...)` works as well as `s.h` and `s.c`.
template <class H, class C = H>
struct lstm_state {
  H h;
  C c;
};

namespace detail {

// The LSTM's gate dim for hidden dim H: c<4> * H, the gates i, f, g, o one after the other.
template <class H>
using lstm_gate_t = gate_dim_t<4, H>;

// The separate-weights checks: W [4H, I], R [4H, H], b [4H].
template <class X, class H, class C, class W, class R, class B>
constexpr cell_check check_lstm() {
  if constexpr (constexpr auto s = check_state<X, H, C>(); s != cell_check::ok) {
    return s;
  } else {
    using d = cell_dims<X, H>;
    using gate = lstm_gate_t<typename d::hidden>;
    if (!has_dims_v<W, gate, typename d::input>) return cell_check::w_dims;
    if (!has_dims_v<R, gate, typename d::hidden>) return cell_check::r_dims;
    if (!has_dims_v<B, gate>) return cell_check::b_dims;
    return cell_check::ok;
  }
}

// The checks with PyTorch's two biases: as above, and b_hh [4H] too.
template <class X, class H, class C, class W, class R, class BI, class BH>
constexpr cell_check check_lstm_two_biases() {
  constexpr cell_check s = check_lstm<X, H, C, W, R, BI>();
  if constexpr (s == cell_check::ok) {
    if (!has_dims_v<BH, lstm_gate_t<typename cell_dims<X, H>::hidden>>) return cell_check::b2_dims;
  }
  return s;
}

// The fused-weights checks: W [4H, I + H], b [4H].
template <class X, class H, class C, class W, class B>
constexpr cell_check check_fused_lstm() {
  if constexpr (constexpr auto s = check_state<X, H, C>(); s != cell_check::ok) {
    return s;
  } else {
    using d = cell_dims<X, H>;
    using gate = lstm_gate_t<typename d::hidden>;
    using both = decltype(typename d::input{} + typename d::hidden{});
    if (!has_dims_v<W, gate, both>) return cell_check::w_dims;
    if (!has_dims_v<B, gate>) return cell_check::b_dims;
    return cell_check::ok;
  }
}

// (B2: b_hh's type, or void without it. A check that holds instantiates nothing.)
template <cell_check Check, bool Fused, class X, class H, class C, class W, class R, class B,
          class B2 = void>
void report_lstm() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using h = dimgraph::detail::operand_role_t<"h", H>;
  using w = dimgraph::detail::operand_role_t<"W", W>;
  DIMGRAPH_REQUIRE(Check != cell_check::input_dim,
                   "dimgraph: lstm_cell: x must have exactly one dim that h lacks (the input dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::hidden_dim,
                   "dimgraph: lstm_cell: h must have exactly one dim that x lacks (the hidden dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::state_dims,
                   "dimgraph: lstm_cell: c must have the same dims as h", h,
                   dimgraph::detail::operand_role_t<"c", C>);
  DIMGRAPH_REQUIRE(Fused || Check != cell_check::w_dims,
                   "dimgraph: lstm_cell: W must have the dims [c<4> * hidden, input]", x, h, w);
  DIMGRAPH_REQUIRE(!Fused || Check != cell_check::w_dims,
                   "dimgraph: lstm_cell: the fused W must have the dims [c<4> * hidden, input + "
                   "hidden]",
                   x, h, w);
  DIMGRAPH_REQUIRE(Check != cell_check::r_dims,
                   "dimgraph: lstm_cell: R must have the dims [c<4> * hidden, hidden]", h,
                   dimgraph::detail::operand_role_t<"R", R>);
  DIMGRAPH_REQUIRE(Check != cell_check::b_dims,
                   "dimgraph: lstm_cell: b (b_ih) must have the one dim c<4> * hidden", h,
                   dimgraph::detail::operand_role_t<"b", B>);
  DIMGRAPH_REQUIRE(Check != cell_check::b2_dims,
                   "dimgraph: lstm_cell: b_hh must have the one dim c<4> * hidden", h,
                   dimgraph::detail::operand_role_t<"b_hh", B2>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class H, class... Members>
void report_lstm_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) >= 2 && sizeof...(Members) <= 4,
                   "dimgraph: lstm_cell: a parameter struct must hold W, R and b; W, R, b_ih and "
                   "b_hh; or the fused W and b (its tensor members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>,
                   dimgraph::detail::operand_role_t<"h", H>, Members...);
}

// The update from the gate pre-activations, each the sum of its part of every source (a
// tuple of [batch..., 4H] products and [4H] biases): c' = f * c + i * g and
// h' = o * tanh(c'), two fused element-wise passes over views of the sources.
template <class Hidden, class C, class Sources>
auto lstm_update(const C& c, const Sources& sources) {
  auto c_new = dimgraph::eval(c * dimgraph::sigmoid(gate_sum_of<4, Hidden, 1>(sources)) +
                              dimgraph::sigmoid(gate_sum_of<4, Hidden, 0>(sources)) *
                                  dimgraph::tanh(gate_sum_of<4, Hidden, 2>(sources)));
  auto h_new =
      dimgraph::eval(dimgraph::tanh(c_new) * dimgraph::sigmoid(gate_sum_of<4, Hidden, 3>(sources)));
  return lstm_state<decltype(h_new), decltype(c_new)>{std::move(h_new), std::move(c_new)};
}

// The step with separate weights: x . W and h . R, each evaluated once, and the biases (b_ih;
// PyTorch's second bias b_hh when given) as the sources of the update, h's first (see
// gate_sum_onto).
template <class X, class H, class C, class W, class R, class BI, class... BH>
auto lstm_separate(const X& x, const H& h, const C& c, const W& w, const R& r, const BI& b_ih,
                   const BH&... b_hh) {
  using d = cell_dims<X, H>;
  const auto from_x = dimgraph::eval(dimgraph::dot<typename d::input>(x, w));
  const auto from_h = dimgraph::eval(dimgraph::dot<typename d::hidden>(h, r));
  if constexpr (sizeof...(BH) == 0)
    return lstm_update<typename d::hidden>(
        c, std::tuple_cat(std::forward_as_tuple(from_h), with_bias(from_x, b_ih)));
  else
    return lstm_update<typename d::hidden>(
        c, std::tuple_cat(with_bias(from_h, b_hh...), with_bias(from_x, b_ih)));
}

// The step with fused weights W [4H, I + H] (see the lstm_cell that takes them): W's input and
// hidden columns as two views, so x . W_x depends on no carry (a scan that hoists computes it
// once for every step); else one product of concat(x, h).
template <class X, class H, class C, class W, class B>
auto lstm_fused(const X& x, const H& h, const C& c, const W& w, const B& b) {
  using d = cell_dims<X, H>;
  using input = typename d::input;
  using hidden = typename d::hidden;
  using both = decltype(input{} + hidden{});
  constexpr bool memory_w = symbolic<W> || dimgraph::detail::memory_operand<W>;
  if constexpr (memory_w && (is_static_v<input> || is_static_v<hidden>)) {
    const auto [w_x, w_h] = dimgraph::split<input, hidden>(w);
    return lstm_separate(x, h, c, w_x, w_h, b);
  } else if constexpr (memory_w && requires { x.template extent<input>(); }) {
    const auto [w_x, w_h] =
        dimgraph::split<input, hidden>(w, dimgraph::extent<input>(x.template extent<input>()));
    return lstm_separate(x, h, c, w_x, w_h, b);
  } else {
    const auto gates = dimgraph::eval(dimgraph::dot<both>(
        dimgraph::concat(dimgraph::along<input>(x), dimgraph::along<hidden>(h)), w));
    return lstm_update<hidden>(c, with_bias(gates, b));
  }
}

}  // namespace detail

// One LSTM step with separate weights, as PyTorch's LSTMCell (with one bias):
//   gates = x . W + h . R + b          W [4H, I], R [4H, H], b [4H]; gate dim c<4> * hidden
//   i, f, g, o = the four hidden-dim parts of gates, in this order
//   c' = sigmoid(f) * c + sigmoid(i) * tanh(g),  h' = sigmoid(o) * tanh(c')
// x is [batch..., input] and h, c are [batch..., hidden]: the batch dims are those x and h
// share (none for one unbatched step), input is x's other dim and hidden h's. Returns
// lstm_state{h', c'}, both tensors with c's dims in c's order (symbols when traced). Work:
// one product per weight matrix, two fused element-wise passes over views of the gates.
// Errors (compile time): x or h has not exactly one dim of its own; c's dims are not h's;
// W, R or b do not have the dims above. Errors (run time): extents that disagree
// (shape_error from the op that meets them, dot, split_dims, add or mul, after the layer's
// name: "dimgraph: nn::lstm_cell: add: ...").
template <layer_operand X, layer_operand H, layer_operand C, layer_operand W, layer_operand R,
          layer_operand B>
auto lstm_cell(const X& x, const H& h, const C& c, const W& w, const R& r, const B& b) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, C, W, R, B>) {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  } else {
    constexpr detail::cell_check check = detail::check_lstm<X, H, C, W, R, B>();
    detail::report_lstm<check, false, X, H, C, W, R, B>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call("nn::lstm_cell",
                                       [&] { return detail::lstm_separate(x, h, c, w, r, b); });
    } else {
      return lstm_state<dimgraph::detail::invalid_expr>{};
    }
  }
}

// One LSTM step with PyTorch's two biases, as its LSTMCell and LSTM (weight_ih, weight_hh,
// bias_ih, bias_hh): gates = x . W + h . R + b_ih + b_hh, then as above (the biases are two
// more sources of the fused gate pass; nothing is added beforehand). Errors: as above, with
// b_ih and b_hh both [c<4> * hidden].
template <layer_operand X, layer_operand H, layer_operand C, layer_operand W, layer_operand R,
          layer_operand BI, layer_operand BH>
auto lstm_cell(const X& x, const H& h, const C& c, const W& w, const R& r, const BI& b_ih,
               const BH& b_hh) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, C, W, R, BI, BH>) {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  } else {
    constexpr detail::cell_check check = detail::check_lstm_two_biases<X, H, C, W, R, BI, BH>();
    detail::report_lstm<check, false, X, H, C, W, R, BI, BH>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call(
          "nn::lstm_cell", [&] { return detail::lstm_separate(x, h, c, w, r, b_ih, b_hh); });
    } else {
      return lstm_state<dimgraph::detail::invalid_expr>{};
    }
  }
}

// One LSTM step with fused weights, as in the OpenVINO opset's LSTMCell example:
//   gates = concat(x, h) . W + b       W [4H, I + H] (input columns first), b [4H]
// then as above. W is split into its input and hidden columns (views: the dim algebra splits
// input + hidden), so the gates are x . W_x + h . W_h + b with no copy of concat(x, h); for a W
// that is a lazy expression, or input and hidden both dynamic with no extent to read from x,
// x and h are concatenated and the gates are one product.
// Errors: as above, with W [c<4> * hidden, input + hidden].
template <layer_operand X, layer_operand H, layer_operand C, layer_operand W, layer_operand B>
auto lstm_cell(const X& x, const H& h, const C& c, const W& w, const B& b) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, C, W, B>) {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  } else {
    constexpr detail::cell_check check = detail::check_fused_lstm<X, H, C, W, B>();
    detail::report_lstm<check, true, X, H, C, W, void, B>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call("nn::lstm_cell",
                                       [&] { return detail::lstm_fused(x, h, c, w, b); });
    } else {
      return lstm_state<dimgraph::detail::invalid_expr>{};
    }
  }
}

// lstm_cell(x, h, c, p) with the weights as one struct (see parameter_struct): p's operand
// members, in declaration order, are (W, R, b), (W, R, b_ih, b_hh) as PyTorch's state dict
// has them, or the fused (W, b); then as the overload with those operands. Error (compile
// time): p has not two, three or four operand members.
template <layer_operand X, layer_operand H, layer_operand C, parameter_struct P>
auto lstm_cell(const X& x, const H& h, const C& c, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_lstm_members<X, H>(detail::member_roles_t<P>{});
  if constexpr (n >= 2 && n <= 4) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::lstm_cell(a...); }, x, h, c);
  } else {
    return lstm_state<dimgraph::detail::invalid_expr>{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/lstm_cell.hpp
// ---- begin dimgraph/nn/gru_cell.hpp
// dg::nn::gru_cell: one step of a GRU (gates r, z, n as in PyTorch's GRUCell).



namespace dimgraph::nn {
namespace detail {

// The GRU's gate dim for hidden dim H: c<3> * H, the gates r, z, n one after the other.
template <class H>
using gru_gate_t = gate_dim_t<3, H>;

// W [3H, I], R [3H, H], b_ih [3H], b_hh [3H].
template <class X, class H, class W, class R, class BI, class BH>
constexpr cell_check check_gru() {
  if constexpr (constexpr auto s = check_state<X, H, H>(); s != cell_check::ok) {
    return s;
  } else {
    using d = cell_dims<X, H>;
    using gate = gru_gate_t<typename d::hidden>;
    if (!has_dims_v<W, gate, typename d::input>) return cell_check::w_dims;
    if (!has_dims_v<R, gate, typename d::hidden>) return cell_check::r_dims;
    if (!has_dims_v<BI, gate>) return cell_check::b_dims;
    if (!has_dims_v<BH, gate>) return cell_check::b2_dims;
    return cell_check::ok;
  }
}

template <cell_check Check, class X, class H, class W, class R, class BI, class BH>
void report_gru() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using h = dimgraph::detail::operand_role_t<"h", H>;
  DIMGRAPH_REQUIRE(Check != cell_check::input_dim,
                   "dimgraph: gru_cell: x must have exactly one dim that h lacks (the input dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::hidden_dim,
                   "dimgraph: gru_cell: h must have exactly one dim that x lacks (the hidden dim)",
                   x, h);
  DIMGRAPH_REQUIRE(Check != cell_check::w_dims,
                   "dimgraph: gru_cell: W must have the dims [c<3> * hidden, input]", x, h,
                   dimgraph::detail::operand_role_t<"W", W>);
  DIMGRAPH_REQUIRE(Check != cell_check::r_dims,
                   "dimgraph: gru_cell: R must have the dims [c<3> * hidden, hidden]", h,
                   dimgraph::detail::operand_role_t<"R", R>);
  DIMGRAPH_REQUIRE(Check != cell_check::b_dims,
                   "dimgraph: gru_cell: b_ih must have the one dim c<3> * hidden", h,
                   dimgraph::detail::operand_role_t<"b_ih", BI>);
  DIMGRAPH_REQUIRE(Check != cell_check::b2_dims,
                   "dimgraph: gru_cell: b_hh must have the one dim c<3> * hidden", h,
                   dimgraph::detail::operand_role_t<"b_hh", BH>);
}

// The step on checked operands: both products, then one fused pass over views of the gates.
template <class X, class H, class W, class R, class BI, class BH>
auto gru_step(const X& x, const H& h, const W& w, const R& r, const BI& b_ih, const BH& b_hh) {
  using d = cell_dims<X, H>;
  using input = typename d::input;
  using hidden = typename d::hidden;
  const auto from_x = dimgraph::eval(dimgraph::dot<input>(x, w));
  const auto from_h = dimgraph::eval(dimgraph::dot<hidden>(h, r));
  const auto xs = with_bias(from_x, b_ih);
  const auto hs = with_bias(from_h, b_hh);
  const auto all = std::tuple_cat(hs, xs);  // (h's first: see gate_sum_onto)
  const auto reset = dimgraph::sigmoid(gate_sum_of<3, hidden, 0>(all));
  const auto update = dimgraph::sigmoid(gate_sum_of<3, hidden, 1>(all));
  const auto candidate =
      dimgraph::tanh(gate_sum_onto<3, hidden, 2>(reset * gate_sum_of<3, hidden, 2>(hs), xs));
  return dimgraph::eval(h + (1.0f - update) * (candidate - h));
}

}  // namespace detail

// One GRU step, as PyTorch's GRUCell:
//   W [3H, I], R [3H, H], b_ih [3H], b_hh [3H]; gate dim c<3> * hidden, parts r, z, n
//   r = sigmoid(W_r x + b_ir + R_r h + b_hr),  z = sigmoid(W_z x + b_iz + R_z h + b_hz)
//   n = tanh(W_n x + b_in + r * (R_n h + b_hn)),  h' = (1 - z) * n + z * h
// x is [batch..., input] and h [batch..., hidden] (the batch dims are those they share,
// possibly none). Returns h' as a tensor with h's dims in h's order (a symbol when traced).
// Work: one product per weight matrix, then one fused pass over views of the gates that
// computes every gate once (h' is evaluated as h + (1 - z) * (n - h)).
// Errors (compile time): x or h has not exactly one dim of its own; W, R, b_ih or b_hh do
// not have the dims above. Errors (run time): extents that disagree (shape_error from the
// op that meets them, dot, split_dims, add or mul, after the layer's name: "dimgraph:
// nn::gru_cell: add: ...").
template <layer_operand X, layer_operand H, layer_operand W, layer_operand R, layer_operand BI,
          layer_operand BH>
auto gru_cell(const X& x, const H& h, const W& w, const R& r, const BI& b_ih, const BH& b_hh) {
  if constexpr (dimgraph::detail::any_poisoned<X, H, W, R, BI, BH>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::cell_check check = detail::check_gru<X, H, W, R, BI, BH>();
    detail::report_gru<check, X, H, W, R, BI, BH>();
    if constexpr (check == detail::cell_check::ok) {
      return dimgraph::detail::in_call("nn::gru_cell",
                                       [&] { return detail::gru_step(x, h, w, r, b_ih, b_hh); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// gru_cell(x, h, p) with the weights as one struct (see parameter_struct): p's operand
// members are (W, R, b_ih, b_hh) in declaration order, PyTorch's weight_ih, weight_hh,
// bias_ih and bias_hh; then as above. Error (compile time): p has not four operand members.
template <layer_operand X, layer_operand H, parameter_struct P>
auto gru_cell(const X& x, const H& h, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  static_assert(n == 4,
                "dimgraph: gru_cell: a parameter struct must hold W, R, b_ih and b_hh (its "
                "tensor members, in declaration order)");
  if constexpr (n == 4) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::gru_cell(a...); }, x, h);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/gru_cell.hpp
// ---- begin dimgraph/nn/embedding.hpp
// dg::nn::embedding: the rows of a table picked by a tensor of dg::index<Vocab> (token ids).



namespace dimgraph::nn {
namespace detail {

// Why embedding rejects its operands (checked in this order: one message per mistake).
enum class embedding_check { ok, not_index, table_rank, no_vocab_dim, idx_has_embed_dim };

template <class Idx, class Table>
constexpr embedding_check check_embedding() {
  if constexpr (!is_index_v<value_of_t<Idx>>) {
    return embedding_check::not_index;
  } else {
    using vocab = index_dim_t<value_of_t<Idx>>;
    if (dims_of_t<Table>::size != 2) return embedding_check::table_rank;
    if (!list_contains_v<dims_of_t<Table>, vocab>) return embedding_check::no_vocab_dim;
    using embed = list_difference_t<dims_of_t<Table>, dim_list<vocab>>;
    if (list_intersection_t<dims_of_t<Idx>, embed>::size != 0)
      return embedding_check::idx_has_embed_dim;
    return embedding_check::ok;
  }
}

template <embedding_check Check, class Idx, class Table>
void report_embedding() {
  using idx = dimgraph::detail::operand_role_t<"idx", Idx>;
  using table = dimgraph::detail::operand_role_t<"table", Table>;
  DIMGRAPH_REQUIRE(Check != embedding_check::not_index,
                   "dimgraph: nn::embedding: the indices must be a tensor of dg::index<Vocab> "
                   "(token ids that carry their vocabulary dim), not of floats or plain integers",
                   idx, value_of_t<Idx>, table);
  DIMGRAPH_REQUIRE(Check != embedding_check::table_rank,
                   "dimgraph: nn::embedding: the table must have exactly two dims [vocab, embed]",
                   value_of_t<Idx>, table);
  DIMGRAPH_REQUIRE(Check != embedding_check::no_vocab_dim,
                   "dimgraph: nn::embedding: the table has no dim for the indices' vocabulary dim",
                   value_of_t<Idx>, table);
  DIMGRAPH_REQUIRE(Check != embedding_check::idx_has_embed_dim,
                   "dimgraph: nn::embedding: the indices already have the table's embedding dim",
                   idx, table);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class Idx, class... Members>
void report_embedding_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1,
                   "dimgraph: nn::embedding: a parameter struct must hold the table (its one "
                   "tensor member)",
                   dimgraph::detail::operand_role_t<"idx", Idx>, Members...);
}

}  // namespace detail

// embedding(idx, table): row idx[..] of table for every index, as torch.nn.Embedding with
// table its weight [num_embeddings, embedding_dim] = [vocab, embed] (either dim order):
//   embedding([is...] of dg::index<vocab>, [vocab, embed]) -> [is..., embed]
// Evaluated now (a tensor; a symbol when traced). Errors (compile time): idx's elements are not
// dg::index<D>; the table has not two dims, or none of them is the indices' vocabulary dim;
// idx has the embedding dim. Error (run time): an index outside [0, extent of vocab)
// (index_error from gather naming the dim, the index and the extent, after the layer's name:
// "dimgraph: nn::embedding: gather: index 7 ..."), before anything is written.
template <layer_operand Idx, layer_operand Table>
auto embedding(const Idx& idx, const Table& table) {
  if constexpr (dimgraph::detail::any_poisoned<Idx, Table>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::embedding_check check = detail::check_embedding<Idx, Table>();
    detail::report_embedding<check, Idx, Table>();
    if constexpr (check == detail::embedding_check::ok) {
      return dimgraph::detail::in_call("nn::embedding",
                                       [&] { return dimgraph::gather(table, idx); });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// embedding(idx, p) with the table as one struct (see parameter_struct): p's one operand
// member is the table (torch.nn.Embedding's weight). Error (compile time): p has not one
// operand member.
template <layer_operand Idx, parameter_struct P>
auto embedding(const Idx& idx, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_embedding_members<Idx>(detail::member_roles_t<P>{});
  if constexpr (n == 1) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::embedding(a...); }, idx);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/embedding.hpp
// ---- begin dimgraph/nn/norm.hpp
// dg::nn::layer_norm and dg::nn::rms_norm: normalisation over named dims, as torch.nn's.



namespace dimgraph::nn {
namespace detail {

using dimgraph::detail::type_list;
using dimgraph::detail::types_of_t;

// The dims a norm normalizes over: Dims... when named, else the weight's (W void: no weight).
template <class W, class... Dims>
struct normalized {
  using type = type_list<Dims...>;
};
template <class W>
  requires(!std::is_void_v<W>)
struct normalized<W> {
  using type = types_of_t<dims_of_t<W>>;
};
template <class W, class... Dims>
using normalized_t = typename normalized<W, Dims...>::type;

template <class D, class... Ds>
inline constexpr std::size_t count_v = (std::size_t{std::is_same_v<D, Ds>} + ... + 0);

// Why a norm rejects its operands (checked in this order: one message per mistake).
enum class norm_check { ok, no_dims, not_floating, repeated_dim, x_lacks_dim, w_dims, b_dims };

// W and B are void when not given.
template <class X, class W, class B, class... Dims>
constexpr norm_check check_norm(type_list<Dims...>) {
  if constexpr (sizeof...(Dims) == 0) {
    return norm_check::no_dims;
  } else if constexpr (!std::is_floating_point_v<value_of_t<X>>) {
    return norm_check::not_floating;
  } else if constexpr (!((count_v<Dims, Dims...> == 1) && ...)) {
    return norm_check::repeated_dim;  // (before a dim_list of them is formed)
  } else {
    if (!(list_contains_v<dims_of_t<X>, Dims> && ...)) return norm_check::x_lacks_dim;
    if constexpr (!std::is_void_v<W>)
      if (!list_same_set_v<dims_of_t<W>, dim_list<Dims...>>) return norm_check::w_dims;
    if constexpr (!std::is_void_v<B>)
      if (!list_same_set_v<dims_of_t<B>, dim_list<Dims...>>) return norm_check::b_dims;
    return norm_check::ok;
  }
}
template <class X, class W, class B, class... Dims>
inline constexpr norm_check norm_check_v = check_norm<X, W, B>(normalized_t<W, Dims...>{});

// (W and B: the weight's and the bias's types, or void without them; Dims: the dims named in
// the call. A check that holds instantiates nothing.)
template <norm_check Check, bool Rms, class X, class W, class B, class... Dims>
void report_norm() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using normalized = dimgraph::detail::as_role_t<::dimgraph::asked, normalized_t<W, Dims...>>;
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::no_dims,
                   "dimgraph: nn::layer_norm: name the normalized dims (layer_norm<Dims...>(x)) or "
                   "give a weight, whose dims they then are",
                   x);
  DIMGRAPH_REQUIRE(
      !Rms || Check != norm_check::no_dims,
      "dimgraph: nn::rms_norm: name the normalized dims (rms_norm<Dims...>(x)) or give "
      "a weight, whose dims they then are",
      x);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::not_floating,
                   "dimgraph: nn::layer_norm: x must have a floating-point element type", x,
                   value_of_t<X>);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::not_floating,
                   "dimgraph: nn::rms_norm: x must have a floating-point element type", x,
                   value_of_t<X>);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::repeated_dim,
                   "dimgraph: nn::layer_norm: a normalized dim is named twice", normalized);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::repeated_dim,
                   "dimgraph: nn::rms_norm: a normalized dim is named twice", normalized);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::x_lacks_dim,
                   "dimgraph: nn::layer_norm: x has not every normalized dim", normalized, x);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::x_lacks_dim,
                   "dimgraph: nn::rms_norm: x has not every normalized dim", normalized, x);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::w_dims,
                   "dimgraph: nn::layer_norm: the weight must have exactly the normalized dims",
                   normalized, dimgraph::detail::operand_role_t<"weight", W>);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::w_dims,
                   "dimgraph: nn::rms_norm: the weight must have exactly the normalized dims",
                   normalized, dimgraph::detail::operand_role_t<"weight", W>);
  DIMGRAPH_REQUIRE(Check != norm_check::b_dims,
                   "dimgraph: nn::layer_norm: the bias must have exactly the normalized dims",
                   normalized, dimgraph::detail::operand_role_t<"bias", B>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class... Members>
void report_layer_norm_members(type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1 || sizeof...(Members) == 2,
                   "dimgraph: nn::layer_norm: a parameter struct must hold the weight, or the "
                   "weight and the bias (its tensor members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}
template <class X, class... Members>
void report_rms_norm_members(type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1,
                   "dimgraph: nn::rms_norm: a parameter struct must hold the weight (its one "
                   "tensor member)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}

// finish((x - mean) / sqrt(biased variance + eps)) over Dims, finish given the lazy normalized
// x (it applies the weight and bias and evaluates): the mean first, then the variance as the
// mean of the centred squares (no E[x^2] - E[x]^2 cancellation), 1 / sqrt once per row, then
// one element-wise pass.
template <class... Dims, class X, class Finish>
auto layer_norm_of(type_list<Dims...>, const X& x_in, double eps, const Finish& finish) {
  using T = value_of_t<X>;
  decltype(auto) x = read_once(x_in);
  const auto mean = dimgraph::eval(dimgraph::mean<Dims...>(x));
  const auto centred = x - mean;
  const auto var = dimgraph::eval(dimgraph::mean<Dims...>(centred * centred));
  const auto inv_std = dimgraph::eval(dimgraph::rsqrt(var + static_cast<T>(eps)));
  return finish(centred * inv_std);
}

// finish(x / sqrt(mean(x^2) + eps)) over Dims; eps defaults to the machine epsilon of x's
// element type (torch.nn.RMSNorm with eps=None).
template <class... Dims, class X, class Finish>
auto rms_norm_of(type_list<Dims...>, const X& x_in, std::optional<double> eps,
                 const Finish& finish) {
  using T = value_of_t<X>;
  decltype(auto) x = read_once(x_in);
  const T e = eps ? static_cast<T>(*eps) : std::numeric_limits<T>::epsilon();
  const auto mean_square = dimgraph::eval(dimgraph::mean<Dims...>(x * x));
  const auto inv_rms = dimgraph::eval(dimgraph::rsqrt(mean_square + e));
  return finish(x * inv_rms);
}

// Evaluates the normalized x.
inline constexpr auto plain = [](const auto& y) { return dimgraph::eval(y); };

}  // namespace detail

// layer_norm<Dims...>(x, [weight, [bias,]] eps = 1e-5): torch.nn.LayerNorm over the dims Dims
// (its normalized_shape; here named, in any position of x, not only the trailing ones):
//   y = (x - mean) / sqrt(var + eps) * weight + bias,  mean and biased var over Dims per row
//   layer_norm<Dims...>([.., Dims.., ..], [Dims...], [Dims...]) -> x's dims in x's order
// weight and bias are torch's weight and bias (shape normalized_shape, any dim order): none
// (elementwise_affine=False), the weight alone (bias=False), or both. With a weight the dims
// may be left out: layer_norm(x, w, b) normalizes over w's dims. The variance is the mean of
// the centred squares (two passes over x, no cancellation). IEEE: a row holding an infinity
// or a NaN gives NaN throughout (inf - inf), as torch; a constant row gives the bias.
// Evaluated now (a tensor; a symbol when traced). Errors (compile time): no normalized dim;
// x's element type not floating-point; a dim named twice; x lacks a normalized dim; the
// weight's or bias's dims not exactly the normalized dims. Errors (run time): extents that
// disagree (shape_error from the op that meets them, after the layer's name: "dimgraph:
// nn::layer_norm: mul: ...").
template <dimension... Dims, layer_operand X>
auto layer_norm(const X& x, double eps = 1e-5) {
  if constexpr (dimgraph::detail::any_poisoned<X>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, void, void, Dims...>;
    detail::report_norm<check, false, X, void, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::layer_norm", [&] {
        return detail::layer_norm_of(detail::normalized_t<void, Dims...>{}, x, eps, detail::plain);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}
template <dimension... Dims, layer_operand X, layer_operand W>
auto layer_norm(const X& x, const W& weight, double eps = 1e-5) {
  if constexpr (dimgraph::detail::any_poisoned<X, W>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, W, void, Dims...>;
    detail::report_norm<check, false, X, W, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::layer_norm", [&] {
        return detail::layer_norm_of(detail::normalized_t<W, Dims...>{}, x, eps,
                                     [&](const auto& y) { return dimgraph::eval(y * weight); });
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}
template <dimension... Dims, layer_operand X, layer_operand W, layer_operand B>
auto layer_norm(const X& x, const W& weight, const B& bias, double eps = 1e-5) {
  if constexpr (dimgraph::detail::any_poisoned<X, W, B>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, W, B, Dims...>;
    detail::report_norm<check, false, X, W, B, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::layer_norm", [&] {
        return detail::layer_norm_of(
            detail::normalized_t<W, Dims...>{}, x, eps,
            [&](const auto& y) { return dimgraph::eval(y * weight + bias); });
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// layer_norm<Dims...>(x, p, eps = 1e-5) with the weights as one struct (see parameter_struct):
// p's operand members are (weight) or (weight, bias) in declaration order, as torch.nn.LayerNorm's
// state dict. Error (compile time): p has not one or two operand members.
template <dimension... Dims, layer_operand X, parameter_struct P>
auto layer_norm(const X& x, const P& p, double eps = 1e-5) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_layer_norm_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 1 || n == 2) {
    return std::apply([&](const auto&... a) { return nn::layer_norm<Dims...>(x, a..., eps); },
                      detail::operand_members(p));
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

// rms_norm<Dims...>(x, [weight,] eps = nullopt): torch.nn.RMSNorm over the dims Dims:
//   y = x / sqrt(mean(x^2) + eps) * weight,  mean over Dims per row
//   rms_norm<Dims...>([.., Dims.., ..], [Dims...]) -> x's dims in x's order
// weight is torch's weight (shape normalized_shape; left out: elementwise_affine=False); with
// it the dims may be left out (rms_norm(x, w)). eps left out (std::nullopt) is what torch
// uses for eps=None: the machine epsilon of x's element type (2^-23 for float).
// Evaluated now (a tensor; a symbol when traced). Errors: as layer_norm.
template <dimension... Dims, layer_operand X>
auto rms_norm(const X& x, std::optional<double> eps = std::nullopt) {
  if constexpr (dimgraph::detail::any_poisoned<X>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, void, void, Dims...>;
    detail::report_norm<check, true, X, void, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::rms_norm", [&] {
        return detail::rms_norm_of(detail::normalized_t<void, Dims...>{}, x, eps, detail::plain);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}
template <dimension... Dims, layer_operand X, layer_operand W>
auto rms_norm(const X& x, const W& weight, std::optional<double> eps = std::nullopt) {
  if constexpr (dimgraph::detail::any_poisoned<X, W>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, W, void, Dims...>;
    detail::report_norm<check, true, X, W, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::rms_norm", [&] {
        return detail::rms_norm_of(detail::normalized_t<W, Dims...>{}, x, eps,
                                   [&](const auto& y) { return dimgraph::eval(y * weight); });
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// rms_norm<Dims...>(x, p, eps = nullopt) with the weight as one struct (see parameter_struct):
// p's one operand member is the weight. Error (compile time): p has not one operand member.
template <dimension... Dims, layer_operand X, parameter_struct P>
auto rms_norm(const X& x, const P& p, std::optional<double> eps = std::nullopt) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_rms_norm_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 1) {
    return nn::rms_norm<Dims...>(x, std::get<0>(detail::operand_members(p)), eps);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/norm.hpp
// ---- begin dimgraph/nn/activation.hpp
// dg::nn::gelu (exact and tanh forms, as torch's) and the activations nn layers choose from.



namespace dimgraph::nn {

// torch.nn.functional.gelu's `approximate`: 'none' (the erf form) or 'tanh'.
enum class gelu_approximate { none, tanh };

// The activation between the two products of nn::feed_forward.
enum class activation { relu, gelu, gelu_tanh };

namespace detail {

// gelu of x as a lazy expression over x (which must outlive it):
//   none:  x / 2 (1 + erf(x / sqrt 2))                           dg::gelu
//   tanh:  x / 2 (1 + tanh(u)),  u = sqrt(2 / pi) (x + 0.044715 x^3)
// The tanh form is computed as x sigmoid(2u), the same function without the cancellation
// of 1 + tanh(u) for negative u. At -inf the exact form gives its limit -0 (dg::gelu), the
// tanh form NaN (-inf * 0, as torch's formula x / 2 (1 + tanh(u)) gives).
template <gelu_approximate A, class X>
auto gelu_expr(const X& x) {
  using T = value_of_t<X>;
  if constexpr (A == gelu_approximate::none) {
    return dimgraph::gelu(x);
  } else {
    constexpr T two_k = static_cast<T>(2 * 0.79788456080286535588);  // 2 sqrt(2 / pi)
    constexpr T c = static_cast<T>(0.044715);
    return x * dimgraph::sigmoid((x + c * (x * x * x)) * two_k);
  }
}

// The activation A of x as a lazy expression over x.
template <activation A, class X>
auto activate(const X& x) {
  if constexpr (A == activation::relu) return dimgraph::relu(x);
  else if constexpr (A == activation::gelu) return gelu_expr<gelu_approximate::none>(x);
  else return gelu_expr<gelu_approximate::tanh>(x);
}

}  // namespace detail

// gelu<A>(x): torch.nn.functional.gelu(x, approximate=A) element by element, A none (the exact
// erf form, the default; the same as dg::gelu) or tanh. Shape rule: x's dims. Evaluated now
// (a tensor; a symbol when traced); dg::gelu is the lazy exact form, which fuses into what
// follows. Error (compile time): x's element type is not floating-point.
template <gelu_approximate A = gelu_approximate::none, layer_operand X>
auto gelu(const X& x) {
  if constexpr (dimgraph::detail::poisoned<X>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr bool floating = std::is_floating_point_v<detail::value_of_t<X>>;
    static_assert(floating, "dimgraph: nn::gelu: x must have a floating-point element type");
    if constexpr (floating) return dimgraph::eval(detail::gelu_expr<A>(x));
    else return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/activation.hpp
// ---- begin dimgraph/nn/feed_forward.hpp
// dg::nn::feed_forward: linear, activation, linear (a transformer's position-wise block).



namespace dimgraph::nn {
namespace detail {

// Why feed_forward rejects its operands (checked in this order: one message per mistake).
enum class ff_check {
  ok,
  w1_rank,
  w1_no_shared_dim,
  w1_ambiguous,
  b1_dims,
  w2_rank,
  w2_no_hidden_dim,
  w2_ambiguous,
  b2_dims
};

// The dims of a feed-forward block over x [.., model, ..]: model is the one dim x and W1
// share, hidden W1's other dim, out W2's dim other than hidden (void until known).
template <class X, class W1, class W2>
struct ff_dims {
  using model = first_dim_t<list_intersection_t<dims_of_t<X>, dims_of_t<W1>>>;
  using hidden = first_dim_t<list_difference_t<dims_of_t<W1>, dims_of_t<X>>>;
  using h_dims = list_difference_t<dims_of_t<X>, dims_of_t<W1>>;  // h: these, then hidden
};

// Whether the bias B (void: none) has exactly the dims of the list L.
template <class B, class L>
constexpr bool bias_fits() {
  if constexpr (std::is_void_v<B>) return true;
  else return list_same_set_v<dims_of_t<B>, L>;
}

// B1 and B2 are void when there are no biases.
template <class X, class W1, class B1, class W2, class B2>
constexpr ff_check check_feed_forward() {
  using d = ff_dims<X, W1, W2>;
  if constexpr (dims_of_t<W1>::size != 2) {
    return ff_check::w1_rank;
  } else if constexpr (list_intersection_t<dims_of_t<X>, dims_of_t<W1>>::size == 0) {
    return ff_check::w1_no_shared_dim;
  } else if constexpr (list_intersection_t<dims_of_t<X>, dims_of_t<W1>>::size > 1) {
    return ff_check::w1_ambiguous;
  } else if constexpr (!bias_fits<B1, dim_list<typename d::hidden>>()) {
    return ff_check::b1_dims;
  } else if constexpr (dims_of_t<W2>::size != 2) {
    return ff_check::w2_rank;
  } else if constexpr (!list_contains_v<dims_of_t<W2>, typename d::hidden>) {
    return ff_check::w2_no_hidden_dim;
  } else if constexpr (list_intersection_t<typename d::h_dims, dims_of_t<W2>>::size != 0) {
    return ff_check::w2_ambiguous;
  } else if constexpr (!bias_fits<
                           B2, list_difference_t<dims_of_t<W2>, dim_list<typename d::hidden>>>()) {
    return ff_check::b2_dims;
  } else {
    return ff_check::ok;
  }
}

// (B1 and B2: the biases' types, or void without them. A check that holds instantiates
// nothing.)
template <ff_check Check, class X, class W1, class B1, class W2, class B2>
void report_feed_forward() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using w1 = dimgraph::detail::operand_role_t<"W1", W1>;
  using w2 = dimgraph::detail::operand_role_t<"W2", W2>;
  DIMGRAPH_REQUIRE(Check != ff_check::w1_rank,
                   "dimgraph: nn::feed_forward: W1 must have exactly two dims [hidden, model]", x,
                   w1);
  DIMGRAPH_REQUIRE(Check != ff_check::w1_no_shared_dim,
                   "dimgraph: nn::feed_forward: x and W1 share no dim, so there is no model dim to "
                   "contract",
                   x, w1);
  DIMGRAPH_REQUIRE(Check != ff_check::w1_ambiguous,
                   "dimgraph: nn::feed_forward: x and W1 share more than one dim, so the model "
                   "dim is ambiguous",
                   x, w1);
  DIMGRAPH_REQUIRE(Check != ff_check::b1_dims,
                   "dimgraph: nn::feed_forward: b1 must have exactly one dim, W1's hidden dim", x,
                   w1, dimgraph::detail::operand_role_t<"b1", B1>);
  DIMGRAPH_REQUIRE(Check != ff_check::w2_rank,
                   "dimgraph: nn::feed_forward: W2 must have exactly two dims [out, hidden]", x, w1,
                   w2);
  DIMGRAPH_REQUIRE(Check != ff_check::w2_no_hidden_dim,
                   "dimgraph: nn::feed_forward: W2 lacks W1's hidden dim (W2 is [out, hidden])", x,
                   w1, w2);
  DIMGRAPH_REQUIRE(Check != ff_check::w2_ambiguous,
                   "dimgraph: nn::feed_forward: W2's output dim is one of x's other dims", x, w1,
                   w2);
  DIMGRAPH_REQUIRE(Check != ff_check::b2_dims,
                   "dimgraph: nn::feed_forward: b2 must have exactly one dim, W2's output dim", w1,
                   w2, dimgraph::detail::operand_role_t<"b2", B2>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class... Members>
void report_feed_forward_members(dimgraph::detail::type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 2 || sizeof...(Members) == 4,
                   "dimgraph: nn::feed_forward: a parameter struct must hold W1, b1, W2 and b2, or "
                   "W1 and W2 (its tensor members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}

}  // namespace detail

// feed_forward<A>(x, W1, b1, W2, b2) = linear(A(linear(x, W1, b1)), W2, b2), two
// torch.nn.Linear with the activation A between them (activation::relu, the default as in
// torch.nn.TransformerEncoderLayer; activation::gelu, activation::gelu_tanh):
//   W1 [hidden, model], b1 [hidden], W2 [out, hidden], b2 [out]  (out is usually model again)
//   feed_forward([.., model, ..]) -> [x's other dims in x's order, out]
// model is the one dim x and W1 share, hidden W1's other dim. Work: the first product with its
// bias, one pass for the activation, the second product with its bias. Evaluated now (a
// tensor; a symbol when traced). Errors (compile time): a weight has not two dims; x and W1
// share no dim or more than one; W2 lacks the hidden dim, or its output dim is one of x's
// other dims; a bias whose dims are not its weight's output dim. Error (run time): extents
// that disagree (shape_error "dimgraph: nn::feed_forward: nn::linear: dot: ...").
template <activation A = activation::relu, layer_operand X, layer_operand W1, layer_operand B1,
          layer_operand W2, layer_operand B2>
auto feed_forward(const X& x, const W1& w1, const B1& b1, const W2& w2, const B2& b2) {
  if constexpr (dimgraph::detail::any_poisoned<X, W1, B1, W2, B2>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::ff_check check = detail::check_feed_forward<X, W1, B1, W2, B2>();
    detail::report_feed_forward<check, X, W1, B1, W2, B2>();
    if constexpr (check == detail::ff_check::ok) {
      return dimgraph::detail::in_call("nn::feed_forward", [&] {
        const auto h = dimgraph::eval(detail::activate<A>(nn::linear(x, w1, b1)));
        return nn::linear(h, w2, b2);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// feed_forward<A>(x, W1, W2): as above without biases (torch.nn.Linear with bias=False).
template <activation A = activation::relu, layer_operand X, layer_operand W1, layer_operand W2>
auto feed_forward(const X& x, const W1& w1, const W2& w2) {
  if constexpr (dimgraph::detail::any_poisoned<X, W1, W2>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::ff_check check = detail::check_feed_forward<X, W1, void, W2, void>();
    detail::report_feed_forward<check, X, W1, void, W2, void>();
    if constexpr (check == detail::ff_check::ok) {
      return dimgraph::detail::in_call("nn::feed_forward", [&] {
        const auto h = dimgraph::eval(detail::activate<A>(nn::linear(x, w1)));
        return nn::linear(h, w2);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// feed_forward<A>(x, p) with the weights as one struct (see parameter_struct): p's operand
// members are (W1, b1, W2, b2) or (W1, W2) in declaration order, the two torch.nn.Linear's
// weight and bias. Error (compile time): p has not two or four operand members.
template <activation A = activation::relu, layer_operand X, parameter_struct P>
auto feed_forward(const X& x, const P& p) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_feed_forward_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 2 || n == 4) {
    return detail::call_with_members(
        p, [](const auto&... a) { return nn::feed_forward<A>(a...); }, x);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/feed_forward.hpp
// ---- begin dimgraph/nn/attention_params.hpp
// The parameters of dg::nn::multi_head_attention (its options, weight structs and key dim)
// and the checks on its operands, one reason per mistake.


#include <boost/hana/define_struct.hpp>


namespace dimgraph::nn {

// The key positions of self-attention: the query's time dim Time, renamed so that a query
// position and a key position are two dims ([.., time, key(time)] holds the scores). Same size
// as Time; printed "key(time)".
template <dimension Time>
struct key_dim : dim_expr_base {
  static constexpr interval bounds = bounds_v<Time>;
  static constexpr dim_kind kind = kind_v<Time>;
  static std::string describe() { return "key(" + dimgraph::describe<Time>() + ")"; }
};

}  // namespace dimgraph::nn

// The key dim of a ragged time dim is ragged over the same batch dim: renaming the keys keeps
// their lengths, and the softmax over the keys gives padding keys weight 0 (the key-length mask).
template <class Time>
  requires dimgraph::is_ragged_v<Time>
struct dimgraph::detail::ragged_batch_of<dimgraph::nn::key_dim<Time>> {
  using type = dimgraph::ragged_batch_t<Time>;
};

namespace dimgraph::nn {

// The key dim of attention from the query's time dim QTime and the key's time dim KTime:
// key_dim<QTime> when they are the same dim (self-attention), else KTime itself.
template <dimension QTime, dimension KTime = QTime>
using key_dim_t = std::conditional_t<same_dim_v<QTime, KTime>, key_dim<std::remove_cvref_t<QTime>>,
                                     std::remove_cvref_t<KTime>>;

// The options of nn::multi_head_attention. They change the computation, so they are a template
// argument (nn::multi_head_attention<Heads, Time, nn::attention_options{.causal = true}>): a
// traced attention records exactly the attention that runs. (Run-time values, the mask, are
// arguments.)
//   causal: query position i attends to key positions j <= i only (torch's is_causal; with
//           query and key of different lengths the mask is aligned at the top left, as
//           torch.ones(L, S).tril() in torch.nn.functional.scaled_dot_product_attention).
struct attention_options {
  bool causal = false;
};

// The weight and bias of a torch.nn.Linear [out, in] and [out] (a Hana struct: "weight", "bias").
template <class T, dimension Out, dimension In>
struct linear_parameters {
  using weight_type = tensor<T, Out, In>;
  using bias_type = tensor<T, Out>;
  BOOST_HANA_DEFINE_STRUCT(linear_parameters, (weight_type, weight), (bias_type, bias));
};

// torch.nn.MultiheadAttention's state dict when query, key and value have the embed dim
// (kdim = vdim = embed_dim): in_proj_weight [3 * inner, model], in_proj_bias [3 * inner] (the
// query's, key's and value's projections one after the other, dg::c<3> * Inner) and out_proj
// (weight [model, inner], bias [model]). torch's embed_dim E is both Model's and Inner's size:
// here they are two dims (the model dim the block reads and writes, the dim the heads split).
template <class T, dimension Model, dimension Inner>
struct attention_parameters {
  using in_dim = decltype(c<3> * Inner{});
  using in_weight_type = tensor<T, in_dim, Model>;
  using in_bias_type = tensor<T, in_dim>;
  using out_type = linear_parameters<T, Model, Inner>;
  BOOST_HANA_DEFINE_STRUCT(attention_parameters, (in_weight_type, in_proj_weight),
                           (in_bias_type, in_proj_bias), (out_type, out_proj));
};

namespace detail {

// No attention mask given.
struct no_mask {};

// Why multi_head_attention rejects its operands (checked in this order: one message per
// mistake).
enum class attention_check {
  ok,
  no_time_dim,
  heads_in_query,
  in_proj_rank,
  in_proj_model_dim,
  in_proj_not_three,
  in_bias_dims,
  q_proj_dims,
  k_proj_dims,
  v_proj_dims,
  key_dims,
  value_dims,
  heads_divide,
  out_proj_dims,
  out_bias_dims,
  traced_head_size,
  mask_type,
  mask_dims
};

template <class X>
inline constexpr std::size_t rank_v = dims_of_t<X>::size;

// Whether B's size can divide A's exactly (static sizes: it does; else some extents do).
template <class A, class B>
constexpr bool divides() {
  return !exact_div(bounds_v<A>, bounds_v<B>).is_empty();
}

// The other dim of a two-dim weight W: the one that is not D (void unless W has exactly D and
// one other dim).
template <class W, class D>
using other_dim_t =
    std::conditional_t<rank_v<W> == 2 && list_contains_v<dims_of_t<W>, D>,
                       first_dim_t<list_difference_t<dims_of_t<W>, dim_list<D>>>, void>;

// The dims of attention from the query Q [batch.., time, model], the projections Wq [inner,
// model], Wk [inner, kmodel], Wv [inner, vmodel] and the key K [batch.., ktime, kmodel]
// (valid once check_attention_projections passed).
template <class Heads, class Time, class Q, class Wq, class Wk, class Wv, class K>
struct attention_dims {
  using model = first_dim_t<list_intersection_t<dims_of_t<Q>, dims_of_t<Wq>>>;
  using inner = first_dim_t<list_difference_t<dims_of_t<Wq>, dims_of_t<Q>>>;
  using kmodel = other_dim_t<Wk, inner>;
  using vmodel = other_dim_t<Wv, inner>;
  using batch = list_difference_t<dims_of_t<Q>, dim_list<Time, model>>;
  using k_rest = list_difference_t<dims_of_t<K>, list_concat_t<batch, dim_list<kmodel>>>;
  using ktime = first_dim_t<k_rest>;
};

// The head dim of the projections' inner dim over Heads (formed only once the heads divide it,
// so that heads that do not divide get the one message of check_attention).
template <class Heads, class Inner>
using head_dim_t = decltype(div_left(Heads{}, Inner{}));

// Whether the bias B has exactly the dim D.
template <class B, class D>
inline constexpr bool bias_of_v = list_same_set_v<dims_of_t<B>, dim_list<D>>;

// The checks on everything but the packed in-projection (see check_packed).
template <class Heads, class Time, class Q, class K, class V, class Wq, class Wk, class Wv,
          class Bq, class Bk, class Bv, class Wo, class Bo, class M>
constexpr attention_check check_attention() {
  using check = attention_check;
  using qd = dims_of_t<Q>;
  if constexpr (!list_contains_v<qd, Time>) {
    return check::no_time_dim;
  } else if constexpr (list_contains_v<qd, Heads>) {
    return check::heads_in_query;
  } else if constexpr (rank_v<Wq> != 2 || list_intersection_t<qd, dims_of_t<Wq>>::size != 1 ||
                       list_contains_v<dims_of_t<Wq>, Time>) {
    return check::q_proj_dims;
  } else {
    using d = attention_dims<Heads, Time, Q, Wq, Wk, Wv, K>;
    using batch = typename d::batch;
    using kd = dims_of_t<K>;
    using vd = dims_of_t<V>;
    if constexpr (std::is_void_v<typename d::kmodel> || !list_contains_v<kd, typename d::kmodel>) {
      return check::k_proj_dims;
    } else if constexpr (std::is_void_v<typename d::vmodel> ||
                         !list_contains_v<vd, typename d::vmodel>) {
      return check::v_proj_dims;
    } else if constexpr (!list_is_subset_v<batch, kd> || d::k_rest::size != 1 ||
                         list_contains_v<kd, Heads>) {
      return check::key_dims;
    } else if constexpr (!list_same_set_v<vd, list_concat_t<batch, dim_list<typename d::ktime,
                                                                            typename d::vmodel>>>) {
      return check::value_dims;
    } else if constexpr (!divides<typename d::inner, Heads>() || (list_contains_v<batch, Heads>)) {
      return check::heads_divide;
    } else if constexpr (!bias_of_v<Bq, typename d::inner> || !bias_of_v<Bk, typename d::inner> ||
                         !bias_of_v<Bv, typename d::inner>) {
      return check::in_bias_dims;
    } else if constexpr (std::is_void_v<other_dim_t<Wo, typename d::inner>> ||
                         list_contains_v<list_concat_t<batch, dim_list<Time>>,
                                         other_dim_t<Wo, typename d::inner>>) {
      return check::out_proj_dims;
    } else if constexpr (!bias_of_v<Bo, other_dim_t<Wo, typename d::inner>>) {
      return check::out_bias_dims;
    } else if constexpr ((symbolic<Q> || symbolic<K> || symbolic<V> || symbolic<Wq> ||
                          symbolic<Wk> || symbolic<Wv> || symbolic<Bq> || symbolic<Bk> ||
                          symbolic<Bv>)&&!is_static_v<head_dim_t<Heads, typename d::inner>>) {
      return check::traced_head_size;
    } else if constexpr (std::is_same_v<M, no_mask>) {
      return check::ok;
    } else if constexpr (!std::is_same_v<value_of_t<M>, bool> &&
                         !std::is_floating_point_v<value_of_t<M>>) {
      return check::mask_type;
    } else if constexpr (!list_is_subset_v<
                             dims_of_t<M>,
                             list_concat_t<batch, dim_list<Heads, Time,
                                                           key_dim_t<Time, typename d::ktime>>>>) {
      return check::mask_dims;
    } else {
      return check::ok;
    }
  }
}

// The checks of a packed in-projection W [c<3> * inner, model] with its bias B [c<3> * inner].
template <class Q, class W, class B>
constexpr attention_check check_packed() {
  using check = attention_check;
  if constexpr (rank_v<W> != 2) {
    return check::in_proj_rank;
  } else if constexpr (list_intersection_t<dims_of_t<Q>, dims_of_t<W>>::size != 1) {
    return check::in_proj_model_dim;
  } else {
    using whole = first_dim_t<list_difference_t<dims_of_t<W>, dims_of_t<Q>>>;
    if constexpr (!divides<whole, const_dim<3>>()) return check::in_proj_not_three;
    else if constexpr (!bias_of_v<B, whole>) return check::in_bias_dims;
    else return check::ok;
  }
}

// The report of a check: Packed, W and B are in_proj_weight and in_proj_bias (Wk and Wv: W
// again); else W is q_proj_weight, Wk and Wv k_proj_weight and v_proj_weight, B in_proj_bias.
// (M: the mask's type, or no_mask. A check that holds instantiates nothing.)
template <attention_check Check, bool Packed, class Heads, class Time, class Q, class K, class V,
          class W, class Wk, class Wv, class B, class Wo, class Bo, class M>
void report_attention() {
  using check = attention_check;
  using query = dimgraph::detail::operand_role_t<"query", Q>;
  using key = dimgraph::detail::operand_role_t<"key", K>;
  using value = dimgraph::detail::operand_role_t<"value", V>;
  using w = std::conditional_t<Packed, dimgraph::detail::operand_role_t<"in_proj_weight", W>,
                               dimgraph::detail::operand_role_t<"q_proj_weight", W>>;
  using wk = std::conditional_t<Packed, w, dimgraph::detail::operand_role_t<"k_proj_weight", Wk>>;
  using wv = std::conditional_t<Packed, w, dimgraph::detail::operand_role_t<"v_proj_weight", Wv>>;
  using wo = dimgraph::detail::operand_role_t<"out_proj_weight", Wo>;
  DIMGRAPH_REQUIRE(Check != check::no_time_dim,
                   "dimgraph: nn::multi_head_attention: the query has no dim Time (the template "
                   "argument naming the query's positions)",
                   ::dimgraph::asked<Time>, query);
  DIMGRAPH_REQUIRE(Check != check::heads_in_query,
                   "dimgraph: nn::multi_head_attention: the query already has the heads dim",
                   ::dimgraph::asked<Heads>, query);
  DIMGRAPH_REQUIRE(Check != check::in_proj_rank,
                   "dimgraph: nn::multi_head_attention: in_proj_weight must have exactly two dims "
                   "[3 * inner, model]",
                   query, w);
  DIMGRAPH_REQUIRE(Check != check::in_proj_model_dim,
                   "dimgraph: nn::multi_head_attention: in_proj_weight must share exactly one dim "
                   "(the model dim) with the query",
                   query, w);
  DIMGRAPH_REQUIRE(Check != check::in_proj_not_three,
                   "dimgraph: nn::multi_head_attention: in_proj_weight's output dim is not three "
                   "projections (write it dg::c<3> * Inner)",
                   query, w);
  DIMGRAPH_REQUIRE(Check != check::in_bias_dims,
                   "dimgraph: nn::multi_head_attention: in_proj_bias must have exactly the "
                   "in-projection's output dim [3 * inner]",
                   w, dimgraph::detail::operand_role_t<"in_proj_bias", B>);
  DIMGRAPH_REQUIRE(Check != check::q_proj_dims,
                   "dimgraph: nn::multi_head_attention: the query projection must be [inner, "
                   "model], sharing exactly one dim (model) with the query",
                   ::dimgraph::asked<Time>, query, w);
  DIMGRAPH_REQUIRE(Check != check::k_proj_dims,
                   "dimgraph: nn::multi_head_attention: the key projection must be [inner, kmodel] "
                   "with the query projection's inner dim and a dim of the key",
                   key, w, wk);
  DIMGRAPH_REQUIRE(Check != check::v_proj_dims,
                   "dimgraph: nn::multi_head_attention: the value projection must be [inner, "
                   "vmodel] with the query projection's inner dim and a dim of the value",
                   value, w, wv);
  DIMGRAPH_REQUIRE(Check != check::key_dims,
                   "dimgraph: nn::multi_head_attention: the key must have the query's batch dims, "
                   "one time dim and its model dim, nothing else",
                   ::dimgraph::asked<Heads, Time>, query, key, wk);
  DIMGRAPH_REQUIRE(Check != check::value_dims,
                   "dimgraph: nn::multi_head_attention: the value must have the key's batch and "
                   "time dims and its model dim, nothing else",
                   key, value, wv);
  DIMGRAPH_REQUIRE(Check != check::heads_divide,
                   "dimgraph: nn::multi_head_attention: the number of heads does not divide the "
                   "projections' inner dim",
                   ::dimgraph::asked<Heads>, query, w);
  DIMGRAPH_REQUIRE(Check != check::out_proj_dims,
                   "dimgraph: nn::multi_head_attention: out_proj's weight must be [out, inner] "
                   "with the projections' inner dim, out not a dim of the query's batch or time",
                   ::dimgraph::asked<Time>, query, w, wo);
  DIMGRAPH_REQUIRE(Check != check::out_bias_dims,
                   "dimgraph: nn::multi_head_attention: out_proj's bias must have exactly the "
                   "output dim of out_proj's weight",
                   wo, dimgraph::detail::operand_role_t<"out_proj_bias", Bo>);
  DIMGRAPH_REQUIRE(Check != check::traced_head_size,
                   "dimgraph: nn::multi_head_attention: traced, the head size (the projections' "
                   "inner dim over the heads) must be static: the scale 1 / sqrt(head size) is a "
                   "constant of the graph (give the inner dim and the heads static sizes)",
                   ::dimgraph::asked<Heads>, w);
  DIMGRAPH_REQUIRE(Check != check::mask_type,
                   "dimgraph: nn::multi_head_attention: the attention mask must be of bool (true: "
                   "masked out) or of floating point (added to the scores)",
                   dimgraph::detail::operand_role_t<"mask", M>, value_of_t<M>);
  DIMGRAPH_REQUIRE(Check != check::mask_dims,
                   "dimgraph: nn::multi_head_attention: the attention mask may have only the dims "
                   "batch.., heads, time and the key dim (nn::key_dim_t<Time, KeyTime>)",
                   ::dimgraph::asked<Heads, Time>, query, key,
                   dimgraph::detail::operand_role_t<"mask", M>);
}

// A parameter struct of torch.nn.MultiheadAttention: packed (in_proj_weight, in_proj_bias,
// out_proj.weight, out_proj.bias) or separate (q_proj_weight, k_proj_weight, v_proj_weight,
// in_proj_bias, out_proj.weight, out_proj.bias).
template <class P>
concept packed_attention_struct = requires(const P& p) {
  p.in_proj_weight;
  p.in_proj_bias;
  p.out_proj.weight;
  p.out_proj.bias;
};
template <class P>
concept separate_attention_struct = requires(const P& p) {
  p.q_proj_weight;
  p.k_proj_weight;
  p.v_proj_weight;
  p.in_proj_bias;
  p.out_proj.weight;
  p.out_proj.bias;
};

// Weights given as one struct.
template <class P>
concept attention_struct = packed_attention_struct<P> || separate_attention_struct<P>;

}  // namespace detail

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/attention_params.hpp
// ---- begin dimgraph/nn/attention.hpp
// dg::nn::multi_head_attention: scaled dot-product attention over heads, as
// torch.nn.MultiheadAttention.



namespace dimgraph::nn {

namespace detail {

// x with its time dim KTime renamed to the key dim (a view; x itself when they differ).
template <class Time, class KTime, class X>
decltype(auto) as_keys(X&& x) {
  if constexpr (same_dim_v<Time, KTime>) return dimgraph::rename<KTime, key_dim_t<Time, KTime>>(x);
  else return std::forward<X>(x);
}

// allowed[time, key] = key <= time over the extents of the scores' Time and Key: the causal
// mask. For a symbol it is the graph node causal_mask<Time, Key>(scores), bool [Time, Key],
// whose extents are the scores' when the graph runs (its eager value is this function's).
template <class Time, class Key, class S>
auto causal_allowed(const S& scores) {
  if constexpr (symbolic<S>) {
    using result = decltype(causal_allowed<Time, Key>(dimgraph::detail::stand_in_of(scores)));
    return dimgraph::detail::symbolic_apply<op_tag<"causal_mask", Time, Key>, result>(
        [](const auto& s) { return causal_allowed<Time, Key>(s); }, scores);
  } else {
    const std::size_t n_query = scores.template extent<Time>();
    const auto qi = dimgraph::iota<std::int64_t, Time>(extent<Time>(n_query));
    const auto kj = dimgraph::iota<std::int64_t, Key>(extent<Key>(scores.template extent<Key>()));
    return dimgraph::eval(
        dimgraph::less_equal(dimgraph::broadcast_to<Time, Key>(kj, extent<Time>(n_query)), qi));
  }
}

// The scores with the user's mask applied (lazily): bool true masks out, floats are added.
template <class S, class M>
auto with_mask(const S& scores, const M& mask) {
  using T = value_of_t<S>;
  if constexpr (std::is_same_v<M, no_mask>) return (scores);
  else if constexpr (std::is_same_v<value_of_t<M>, bool>)
    return dimgraph::where(mask, -std::numeric_limits<T>::infinity(), scores);
  else return scores + mask;
}

// The attention itself, on checked operands: projections, heads, scores, masks, softmax over
// the key dim, the weighted sum of the values, the heads merged, the output projection.
template <class Heads, class Time, attention_options O, bool NeedWeights, class Q, class K, class V,
          class Wq, class Wk, class Wv, class Bq, class Bk, class Bv, class Wo, class Bo, class M>
auto attend(const Q& query, const K& key, const V& value, const Wq& wq, const Wk& wk, const Wv& wv,
            const Bq& bq, const Bk& bk, const Bv& bv, const Wo& wo, const Bo& bo, const M& mask) {
  using d = attention_dims<Heads, Time, Q, Wq, Wk, Wv, K>;
  using inner = typename d::inner;
  using head = head_dim_t<Heads, inner>;
  using ktime = typename d::ktime;
  using kdim = key_dim_t<Time, ktime>;
  using T = value_of_t<Q>;
  constexpr T inf = std::numeric_limits<T>::infinity();

  const auto qp = dimgraph::eval(dimgraph::dot<typename d::model>(query, wq) + bq);
  const auto kp = dimgraph::eval(dimgraph::dot<typename d::kmodel>(key, wk) + bk);
  const auto vp = dimgraph::eval(dimgraph::dot<typename d::vmodel>(value, wv) + bv);
  const auto qh = dimgraph::split_dims<Heads, head>(qp);
  const auto kh = dimgraph::split_dims<Heads, head>(as_keys<Time, ktime>(kp));
  const auto vh = dimgraph::split_dims<Heads, head>(as_keys<Time, ktime>(vp));
  // 1 / sqrt(head size): a constant of a traced graph (whose head size check_attention
  // requires static), else from the extent.
  const std::size_t head_size = [&] {
    if constexpr (is_static_v<head>) return bounds_v<head>.lo;
    else return qh.template extent<head>();
  }();
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(head_size)));
  auto scores = dimgraph::eval(dimgraph::dot<head>(qh, kh) * scale);
  const auto attn = [&] {
    if constexpr (!O.causal) {
      return dimgraph::softmax<kdim>(with_mask(scores, mask));
    } else if constexpr (symbolic<decltype(scores)>) {
      const auto causal = dimgraph::where(causal_allowed<Time, kdim>(scores), scores, -inf);
      return dimgraph::softmax<kdim>(with_mask(causal, mask));
    } else {
      // The same where, written over the scores in place (eval of a symbol is the symbol: in
      // a graph that is the node above): one more pass, one softmax kernel for both masks.
      scores = dimgraph::where(causal_allowed<Time, kdim>(scores), scores, -inf);
      return dimgraph::softmax<kdim>(with_mask(scores, mask));
    }
  }();
  const auto context = dimgraph::eval(dimgraph::dot<kdim>(attn, vh));
  const auto merged = dimgraph::merge_dims<Heads, head>(context);
  auto out = dimgraph::eval(dimgraph::dot<inner>(merged, wo) + bo);
  if constexpr (NeedWeights)
    return std::pair{std::move(out), dimgraph::eval(dimgraph::mean<Heads>(attn))};
  else return out;
}

// The layer the user called, which its run-time errors name first.
template <bool NeedWeights>
inline constexpr const char* attention_name =
    NeedWeights ? "nn::multi_head_attention_with_weights" : "nn::multi_head_attention";

// What attention gives after a mistake (reported where it was made, or by its checks): the
// stand-in, or a pair of them for multi_head_attention_with_weights, so that
// `auto [out, weights] = ...` says nothing more.
template <bool NeedWeights>
auto poisoned_attention() {
  using invalid = dimgraph::detail::invalid_expr;
  if constexpr (NeedWeights) return std::pair<invalid, invalid>{};
  else return invalid{};
}

// Packed in-projection weights as the three projections (views; symbols when traced).
template <class Q, class W, class B>
struct packed_projection {
  using whole = first_dim_t<list_difference_t<dims_of_t<W>, dims_of_t<Q>>>;
  using inner = decltype(div_left(c<3>, whole{}));
  template <std::size_t I, class X>
  static auto part(const X& x) {
    return dimgraph::split_dims<const_dim<3>, inner>(x)[dimgraph::at<const_dim<3>>(I)];
  }
};

// The checks of multi_head_attention on the packed weights W, B (in_proj_weight,
// in_proj_bias): check_packed, then check_attention on their thirds. Made, and reported
// (report_attention), where the layer is called. (After a mistake reported before: ok, and
// attend_packed gives the stand-in.)
template <class Heads, class Time, class Q, class K, class V, class W, class B, class Wo, class Bo,
          class M>
constexpr attention_check check_packed_attention() {
  if constexpr (dimgraph::detail::any_poisoned<Q, K, V, W, B, Wo, Bo, M>) {
    return attention_check::ok;
  } else if constexpr (constexpr attention_check packed = check_packed<Q, W, B>();
                       packed != attention_check::ok) {
    return packed;
  } else {
    using p = packed_projection<Q, W, B>;
    using P = std::remove_cvref_t<decltype(p::template part<0>(std::declval<const W&>()))>;
    using PB = std::remove_cvref_t<decltype(p::template part<0>(std::declval<const B&>()))>;
    return check_attention<Heads, Time, Q, K, V, P, P, P, PB, PB, PB, Wo, Bo, M>();
  }
}

// multi_head_attention on the packed weights (in_proj_weight, in_proj_bias), checked
// (check_packed_attention gave Check).
template <class Heads, class Time, attention_options O, bool NeedWeights, attention_check Check,
          class Q, class K, class V, class W, class B, class Wo, class Bo, class M>
auto attend_packed(const Q& query, const K& key, const V& value, const W& w_in, const B& b_in,
                   const Wo& wo, const Bo& bo, const M& mask) {
  if constexpr (Check != attention_check::ok ||
                dimgraph::detail::any_poisoned<Q, K, V, W, B, Wo, Bo, M>) {
    return poisoned_attention<NeedWeights>();
  } else {
    return dimgraph::detail::in_call(attention_name<NeedWeights>, [&] {
      using p = packed_projection<Q, W, B>;
      const auto wq = p::template part<0>(w_in);
      const auto wk = p::template part<1>(w_in);
      const auto wv = p::template part<2>(w_in);
      const auto bq = p::template part<0>(b_in);
      const auto bk = p::template part<1>(b_in);
      const auto bv = p::template part<2>(b_in);
      return attend<Heads, Time, O, NeedWeights>(query, key, value, wq, wk, wv, bq, bk, bv, wo, bo,
                                                 mask);
    });
  }
}

// The packed bias B [c<3> * inner] of separate projections, Wq [inner, model] (checked first).
template <class Q, class Wq, class B>
constexpr attention_check check_separate_bias() {
  using check = attention_check;
  using inner = first_dim_t<list_difference_t<dims_of_t<Wq>, dims_of_t<Q>>>;
  if constexpr (rank_v<Wq> != 2 || list_intersection_t<dims_of_t<Q>, dims_of_t<Wq>>::size != 1)
    return check::q_proj_dims;
  else if constexpr (!bias_of_v<B, decltype(c<3> * inner{})>) return check::in_bias_dims;
  else return check::ok;
}

// The checks of multi_head_attention on separate projections Wq, Wk, Wv with the packed bias B
// (check_separate_bias, then check_attention on the bias's thirds), as check_packed_attention.
template <class Heads, class Time, class Q, class K, class V, class Wq, class Wk, class Wv, class B,
          class Wo, class Bo, class M>
constexpr attention_check check_separate_attention() {
  if constexpr (dimgraph::detail::any_poisoned<Q, K, V, Wq, Wk, Wv, B, Wo, Bo, M>) {
    return attention_check::ok;
  } else if constexpr (constexpr attention_check bias = check_separate_bias<Q, Wq, B>();
                       bias != attention_check::ok) {
    return bias;
  } else {
    using PB = std::remove_cvref_t<decltype(packed_projection<Q, B, B>::template part<0>(
        std::declval<const B&>()))>;
    return check_attention<Heads, Time, Q, K, V, Wq, Wk, Wv, PB, PB, PB, Wo, Bo, M>();
  }
}

// multi_head_attention on separate projections (q_proj_weight, k_proj_weight, v_proj_weight)
// and the packed bias, checked (check_separate_attention gave Check).
template <class Heads, class Time, attention_options O, bool NeedWeights, attention_check Check,
          class Q, class K, class V, class Wq, class Wk, class Wv, class B, class Wo, class Bo,
          class M>
auto attend_separate(const Q& query, const K& key, const V& value, const Wq& wq, const Wk& wk,
                     const Wv& wv, const B& b_in, const Wo& wo, const Bo& bo, const M& mask) {
  if constexpr (Check != attention_check::ok ||
                dimgraph::detail::any_poisoned<Q, K, V, Wq, Wk, Wv, B, Wo, Bo, M>) {
    return poisoned_attention<NeedWeights>();
  } else {
    return dimgraph::detail::in_call(attention_name<NeedWeights>, [&] {
      using p = packed_projection<Q, B, B>;
      const auto bq = p::template part<0>(b_in);
      const auto bk = p::template part<1>(b_in);
      const auto bv = p::template part<2>(b_in);
      return attend<Heads, Time, O, NeedWeights>(query, key, value, wq, wk, wv, bq, bk, bv, wo, bo,
                                                 mask);
    });
  }
}

// multi_head_attention with the weights as one struct P: checked and reported here, then run
// on its packed or separate weights.
template <class Heads, class Time, attention_options O, bool NeedWeights, class Q, class K, class V,
          class P, class M>
auto attend_struct(const Q& query, const K& key, const V& value, const P& p, const M& mask) {
  using wo = std::remove_cvref_t<decltype(p.out_proj.weight)>;
  using bo = std::remove_cvref_t<decltype(p.out_proj.bias)>;
  using b = std::remove_cvref_t<decltype(p.in_proj_bias)>;
  if constexpr (packed_attention_struct<P>) {
    using w = std::remove_cvref_t<decltype(p.in_proj_weight)>;
    constexpr attention_check check =
        check_packed_attention<Heads, Time, Q, K, V, w, b, wo, bo, M>();
    report_attention<check, true, Heads, Time, Q, K, V, w, w, w, b, wo, bo, M>();
    return attend_packed<Heads, Time, O, NeedWeights, check>(query, key, value, p.in_proj_weight,
                                                             p.in_proj_bias, p.out_proj.weight,
                                                             p.out_proj.bias, mask);
  } else {
    using wq = std::remove_cvref_t<decltype(p.q_proj_weight)>;
    using wk = std::remove_cvref_t<decltype(p.k_proj_weight)>;
    using wv = std::remove_cvref_t<decltype(p.v_proj_weight)>;
    constexpr attention_check check =
        check_separate_attention<Heads, Time, Q, K, V, wq, wk, wv, b, wo, bo, M>();
    report_attention<check, false, Heads, Time, Q, K, V, wq, wk, wv, b, wo, bo, M>();
    return attend_separate<Heads, Time, O, NeedWeights, check>(
        query, key, value, p.q_proj_weight, p.k_proj_weight, p.v_proj_weight, p.in_proj_bias,
        p.out_proj.weight, p.out_proj.bias, mask);
  }
}

}  // namespace detail

// multi_head_attention<Heads, Time, O = {}>(query, key, value, in_proj_weight, in_proj_bias,
//                                           out_proj_weight, out_proj_bias, [mask]):
// torch.nn.MultiheadAttention's forward (batch_first is moot: dims are named; dropout none):
//   q = query . Wq + bq,  k = key . Wk + bk,  v = value . Wv + bv      (Wq, Wk, Wv: the
//   thirds of in_proj_weight [c<3> * inner, model], bq, bk, bv of in_proj_bias [c<3> * inner])
//   per head h (inner = Heads * head, heads major, as torch's view(.., heads, head)):
//   a = softmax over key of (q_h . k_h / sqrt(size(head)) + mask),  o_h = a . v_h
//   out = concat_h(o_h) . out_proj_weight [out, inner] + out_proj_bias [out]
// Shape rule (Time: the query's positions, KTime: the key's, Time again for self-attention):
//   query [batch.., Time, model], key [batch.., KTime, model], value [batch.., KTime, model]
//   -> [query's dims in its order with model replaced by out (last)]
// key and value may have a time dim of their own (cross-attention over another sequence); when
// it is Time (self-attention), the key positions become nn::key_dim<Time> inside, so scores
// are [batch.., Heads, Time, key_dim_t<Time, KTime>]. The head dim is div_left(Heads, inner).
// mask (torch's attn_mask, a run-time argument) has a subset of the dims batch.., Heads, Time,
// key_dim_t<Time, KTime>: of bool, true masks a key position out; floating point, added to the
// scores. O = nn::attention_options{.causal = true} masks out keys after the query position
// (a template argument: it changes the computation; see attention_options). A row with every
// key masked out gives NaN, as torch. Evaluated now (a tensor; a symbol when traced: the graph
// is this computation, the causal mask a node causal_mask<Time, key>(scores) only when
// O.causal, the scale a constant).
// Errors (compile time): the query lacks Time or has Heads; in_proj_weight not [c<3> * inner,
// model] sharing model with the query, or a bias not of its weight's output dim; key or value
// not [batch.., KTime, model]; Heads not dividing inner; out_proj_weight not [out, inner]; traced
// with a head size that is not static (the scale would not be a constant: a traced attention
// needs static Heads and inner sizes); a mask not of bool or floating point, or with other dims.
// Errors (run time): extents that disagree (shape_error from the op that meets them, after the
// layer's name: "dimgraph: nn::multi_head_attention: dot: ...").
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo>
auto multi_head_attention(const Q& query, const K& key, const V& value, const W& in_proj_weight,
                          const B& in_proj_bias, const Wo& out_proj_weight,
                          const Bo& out_proj_bias) {
  using no_mask = detail::no_mask;
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, no_mask>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, no_mask>();
  return detail::attend_packed<Heads, Time, O, false, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo, layer_operand M>
auto multi_head_attention(const Q& query, const K& key, const V& value, const W& in_proj_weight,
                          const B& in_proj_bias, const Wo& out_proj_weight, const Bo& out_proj_bias,
                          const M& mask) {
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, M>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, M>();
  return detail::attend_packed<Heads, Time, O, false, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, mask);
}

// multi_head_attention<Heads, Time, O = {}>(query, key, value, p, [mask]) with the weights as
// one struct named as torch's state dict: p.in_proj_weight, p.in_proj_bias, p.out_proj.weight,
// p.out_proj.bias (nn::attention_parameters), or, for key and value of other sizes than the
// query (torch's kdim, vdim), p.q_proj_weight [inner, model], p.k_proj_weight [inner, kmodel],
// p.v_proj_weight [inner, vmodel], p.in_proj_bias, p.out_proj.weight, p.out_proj.bias.
// Otherwise as above.
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P>
auto multi_head_attention(const Q& query, const K& key, const V& value, const P& p) {
  return detail::attend_struct<Heads, Time, O, false>(query, key, value, p, detail::no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P,
          layer_operand M>
auto multi_head_attention(const Q& query, const K& key, const V& value, const P& p, const M& mask) {
  return detail::attend_struct<Heads, Time, O, false>(query, key, value, p, mask);
}

// multi_head_attention_with_weights<Heads, Time, O = {}>(...): the same arguments as
// multi_head_attention; returns std::pair{output, weights}, weights the attention
// probabilities averaged over the heads, [batch.., Time, key_dim_t<Time, KTime>] (torch's
// need_weights=True, average_attn_weights=True).
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value,
                                       const W& in_proj_weight, const B& in_proj_bias,
                                       const Wo& out_proj_weight, const Bo& out_proj_bias) {
  using no_mask = detail::no_mask;
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, no_mask>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, no_mask>();
  return detail::attend_packed<Heads, Time, O, true, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, layer_operand W, layer_operand B,
          layer_operand Wo, layer_operand Bo, layer_operand M>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value,
                                       const W& in_proj_weight, const B& in_proj_bias,
                                       const Wo& out_proj_weight, const Bo& out_proj_bias,
                                       const M& mask) {
  constexpr detail::attention_check check =
      detail::check_packed_attention<Heads, Time, Q, K, V, W, B, Wo, Bo, M>();
  detail::report_attention<check, true, Heads, Time, Q, K, V, W, W, W, B, Wo, Bo, M>();
  return detail::attend_packed<Heads, Time, O, true, check>(
      query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias, mask);
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value, const P& p) {
  return detail::attend_struct<Heads, Time, O, true>(query, key, value, p, detail::no_mask{});
}
template <dimension Heads, dimension Time, attention_options O = attention_options{},
          layer_operand Q, layer_operand K, layer_operand V, detail::attention_struct P,
          layer_operand M>
auto multi_head_attention_with_weights(const Q& query, const K& key, const V& value, const P& p,
                                       const M& mask) {
  return detail::attend_struct<Heads, Time, O, true>(query, key, value, p, mask);
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/attention.hpp
// ---- begin dimgraph/nn/encoder.hpp
// dg::nn::transformer_encoder_layer: self-attention and a feed-forward block, as torch's.




namespace dimgraph::nn {

// The options of nn::transformer_encoder_layer (torch's constructor and forward arguments that
// change the computation; dropout is not applied: inference). They are a template argument
// (nn::transformer_encoder_layer<Heads, Time, nn::encoder_options{.norm_first = true}>), so a
// traced layer records exactly the layer that runs; layer_norm_eps, a value, is an argument.
//   activation: of the feed-forward block, activation::relu (torch's default) or gelu
//   norm_first: false: post-norm (torch's default), true: pre-norm
//   causal:     the self-attention's causal mask (torch's is_causal)
struct encoder_options {
  nn::activation activation = nn::activation::relu;
  bool norm_first = false;
  bool causal = false;
};

// The weight and bias of a torch.nn.LayerNorm over Dim (a Hana struct: "weight", "bias").
template <class T, dimension Dim>
struct norm_parameters {
  using tensor_type = tensor<T, Dim>;
  BOOST_HANA_DEFINE_STRUCT(norm_parameters, (tensor_type, weight), (tensor_type, bias));
};

// torch.nn.TransformerEncoderLayer's state dict as a Hana struct, so dg::io::load reads a torch
// checkpoint's names: self_attn.in_proj_weight [3 * inner, model], self_attn.in_proj_bias,
// self_attn.out_proj.weight [model, inner], self_attn.out_proj.bias, linear1.weight [hidden,
// model], linear1.bias, linear2.weight [model, hidden], linear2.bias, norm1.weight [model],
// norm1.bias, norm2.weight, norm2.bias. torch's d_model is the size of Model and Inner,
// dim_feedforward Hidden's.
template <class T, dimension Model, dimension Inner, dimension Hidden>
struct encoder_layer_parameters {
  using attention_type = attention_parameters<T, Model, Inner>;
  using linear1_type = linear_parameters<T, Hidden, Model>;
  using linear2_type = linear_parameters<T, Model, Hidden>;
  using norm_type = norm_parameters<T, Model>;
  BOOST_HANA_DEFINE_STRUCT(encoder_layer_parameters, (attention_type, self_attn),
                           (linear1_type, linear1), (linear2_type, linear2), (norm_type, norm1),
                           (norm_type, norm2));
};

namespace detail {

// A struct with torch.nn.TransformerEncoderLayer's member names (see encoder_layer_parameters).
template <class P>
concept encoder_layer_struct = requires(const P& p) {
  p.self_attn;
  p.linear1.weight;
  p.linear1.bias;
  p.linear2.weight;
  p.linear2.bias;
  p.norm1.weight;
  p.norm1.bias;
  p.norm2.weight;
  p.norm2.bias;
};

template <class Heads, class Time, encoder_options O, class X, class P, class M>
auto encode(const X& x, const P& p, const M& mask, double eps) {
  constexpr attention_options attention{.causal = O.causal};
  const auto attend_to = [&](const auto& y) {
    return attend_struct<Heads, Time, attention, false>(y, y, y, p.self_attn, mask);
  };
  const auto feed = [&](const auto& y) {
    return nn::feed_forward<O.activation>(y, p.linear1.weight, p.linear1.bias, p.linear2.weight,
                                          p.linear2.bias);
  };
  const auto norm1 = [&](const auto& y) {
    return nn::layer_norm(y, p.norm1.weight, p.norm1.bias, eps);
  };
  const auto norm2 = [&](const auto& y) {
    return nn::layer_norm(y, p.norm2.weight, p.norm2.bias, eps);
  };
  // (Checked one block after the other: one message per mistake. The attention is called here
  // itself, not through attend_to, so that its mistakes are reported through one frame fewer.)
  if constexpr (dimgraph::detail::any_poisoned<X, M>) {
    return dimgraph::detail::invalid_expr{};
  } else if constexpr (dimgraph::detail::poisoned<
                           decltype(attend_struct<Heads, Time, attention, false>(
                               x, x, x, p.self_attn, mask))>) {
    return dimgraph::detail::invalid_expr{};
  } else if constexpr (dimgraph::detail::poisoned<decltype(feed(x))> ||
                       dimgraph::detail::poisoned<decltype(norm1(x))> ||
                       dimgraph::detail::poisoned<decltype(norm2(x))>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    return dimgraph::detail::in_call("nn::transformer_encoder_layer", [&] {
      if constexpr (O.norm_first) {
        // (x + .. keeps x's dims and order: the result is a tensor of x's type, or its symbol.)
        const auto h = dimgraph::eval(x + attend_to(norm1(x)));
        return dimgraph::eval(h + feed(norm2(h)));
      } else {
        const auto h = norm1(dimgraph::eval(x + attend_to(x)));
        return norm2(dimgraph::eval(h + feed(h)));
      }
    });
  }
}

}  // namespace detail

// transformer_encoder_layer<Heads, Time, O = {}>(x, p, [mask,] layer_norm_eps = 1e-5):
// torch.nn.TransformerEncoderLayer's forward (dropout none) over x [batch.., Time, model]:
//   post-norm (default):   h = norm1(x + sa(x)),   y = norm2(h + ff(h))
//   pre-norm (norm_first): h = x + sa(norm1(x)),   y = h + ff(norm2(h))
// O = nn::encoder_options{.activation, .norm_first, .causal} (a template argument: it changes
// the computation). sa: nn::multi_head_attention<Heads, Time, {.causal = O.causal}>(x, x, x,
// p.self_attn, mask); ff: nn::feed_forward<O.activation>(linear1, linear2), relu (torch's
// default) or gelu; norm1, norm2: nn::layer_norm with layer_norm_eps. p has torch's state-dict
// names (see encoder_layer_parameters); mask as multi_head_attention's (torch's src_mask).
//   transformer_encoder_layer([batch.., Time, model]) -> x's dims and order
// Evaluated now (a tensor; a symbol when traced: the graph is the form O chooses). Errors:
// those of multi_head_attention (a traced layer needs a static head size), feed_forward and
// layer_norm; at run time after this layer's name ("dimgraph: nn::transformer_encoder_layer:
// nn::layer_norm: mul: ...").
template <dimension Heads, dimension Time, encoder_options O = encoder_options{}, layer_operand X,
          detail::encoder_layer_struct P>
auto transformer_encoder_layer(const X& x, const P& p, double layer_norm_eps = 1e-5) {
  return detail::encode<Heads, Time, O>(x, p, detail::no_mask{}, layer_norm_eps);
}
template <dimension Heads, dimension Time, encoder_options O = encoder_options{}, layer_operand X,
          detail::encoder_layer_struct P, layer_operand M>
auto transformer_encoder_layer(const X& x, const P& p, const M& mask,
                               double layer_norm_eps = 1e-5) {
  return detail::encode<Heads, Time, O>(x, p, mask, layer_norm_eps);
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/encoder.hpp
// ---- begin dimgraph/nn/conv1d.hpp
// dg::nn::conv1d: a 1-d convolution over a named time dim with stride, padding and dilation.



namespace dimgraph::nn {

// torch.nn.Conv1d's stride, padding (zeros on both sides) and dilation, known at compile time
// (a template argument: nn::conv1d<Time, Kernel, nn::conv_options{.stride = 2}>). As with
// nn::attention_options and nn::encoder_options, options that change the computation are a
// template argument, so a traced conv1d records exactly the computation that runs.
struct conv_options {
  std::size_t stride = 1;
  std::size_t padding = 0;
  std::size_t dilation = 1;
};

namespace detail {

// The slice of the padded time dim that tap Tap of a kernel of K taps reads: positions
// Tap d, Tap d + s, ... up to (K - 1 - Tap) d before the end. (Plain values and a struct: GCC 12
// fails on the options' members inside an alias template.)
template <class Time, std::size_t K, conv_options O, std::size_t Tap>
struct conv_tap_slice {
  static constexpr std::size_t before = O.padding;
  static constexpr std::size_t cut = (K - 1 - Tap) * O.dilation;
  static constexpr std::ptrdiff_t start = static_cast<std::ptrdiff_t>(Tap * O.dilation);
  static constexpr slice_index end =
      cut == 0 ? slice_index(none) : slice_index(-static_cast<std::ptrdiff_t>(cut));
  static constexpr std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(O.stride);
  using padded = pad_dim_t<Time, before, before>;
  using type = slice_dim_t<padded, start, end, stride>;
};

}  // namespace detail

// The output time dim of nn::conv1d over Time with a kernel of K taps: the positions of the
// first tap, by the slice and window algebra
//   ceildiv((c<p> + time + c<p>) - c<d (K - 1)>, c<s>)
// of extent floor((L + 2 p - d (K - 1) - 1) / s) + 1 (for a static Time a static dim of that
// size; stride 1, no padding, K = 1 give Time itself).
template <dimension Time, std::size_t K, conv_options O = conv_options{}>
using conv1d_dim_t = typename detail::conv_tap_slice<std::remove_cvref_t<Time>, K, O, 0>::type;

namespace detail {

// Why conv1d rejects its operands (checked in this order: one message per mistake).
enum class conv_check {
  ok,
  zero_option,
  no_time_dim,
  kernel_not_static,
  w_dims,
  no_in_dim,
  out_in_x,
  b_dims
};

template <class Time, class Kernel, conv_options O, class X, class W, class B>
constexpr conv_check check_conv1d() {
  using check = conv_check;
  using wd = dims_of_t<W>;
  if constexpr (O.stride == 0 || O.dilation == 0) {
    return check::zero_option;
  } else if constexpr (!list_contains_v<dims_of_t<X>, Time>) {
    return check::no_time_dim;
  } else if constexpr (!is_static_v<Kernel> || bounds_v<Kernel>.lo == 0) {
    return check::kernel_not_static;
  } else if constexpr (wd::size != 3 || !list_contains_v<wd, Kernel>) {
    return check::w_dims;
  } else if constexpr (list_intersection_t<dims_of_t<X>, wd>::size != 1 ||
                       list_contains_v<wd, Time>) {
    return check::no_in_dim;
  } else {
    using in = first_dim_t<list_intersection_t<dims_of_t<X>, wd>>;
    using out = first_dim_t<list_difference_t<wd, dim_list<in, Kernel>>>;
    if constexpr (list_contains_v<dims_of_t<X>, out>) {
      return check::out_in_x;
    } else if constexpr (!std::is_void_v<B>) {
      if (!list_same_set_v<dims_of_t<B>, dim_list<out>>) return check::b_dims;
    }
    return check::ok;
  }
}

// (B: the bias's type, or void without it. A check that holds instantiates nothing.)
template <conv_check Check, class Time, class Kernel, class X, class W, class B>
void report_conv1d() {
  using check = conv_check;
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using w = dimgraph::detail::operand_role_t<"weight", W>;
  DIMGRAPH_REQUIRE(Check != check::zero_option,
                   "dimgraph: nn::conv1d: the stride and the dilation must be at least 1",
                   ::dimgraph::asked<Time, Kernel>);
  DIMGRAPH_REQUIRE(Check != check::no_time_dim,
                   "dimgraph: nn::conv1d: x has no dim Time (the template argument naming the dim "
                   "convolved over)",
                   ::dimgraph::asked<Time>, x);
  DIMGRAPH_REQUIRE(Check != check::kernel_not_static,
                   "dimgraph: nn::conv1d: the kernel dim must have a static size of at least 1",
                   ::dimgraph::asked<Kernel>);
  DIMGRAPH_REQUIRE(Check != check::w_dims,
                   "dimgraph: nn::conv1d: the weight must have exactly three dims [out, in, "
                   "kernel], one of them the kernel dim",
                   ::dimgraph::asked<Kernel>, x, w);
  DIMGRAPH_REQUIRE(Check != check::no_in_dim,
                   "dimgraph: nn::conv1d: x and the weight must share exactly one dim (the input "
                   "channels), not the time dim",
                   ::dimgraph::asked<Time>, x, w);
  DIMGRAPH_REQUIRE(Check != check::out_in_x,
                   "dimgraph: nn::conv1d: the weight's output channel dim is already a dim of x", x,
                   w);
  DIMGRAPH_REQUIRE(Check != check::b_dims,
                   "dimgraph: nn::conv1d: the bias must have exactly the weight's output channel "
                   "dim",
                   w, dimgraph::detail::operand_role_t<"bias", B>);
}

// The padded x: a copy with O.padding zeros on both sides of Time (x itself without padding).
template <class Time, conv_options O, class X>
decltype(auto) conv_padded(const X& x) {
  if constexpr (O.padding == 0) return read_once(x);
  else return dimgraph::pad<Time, O.padding, O.padding>(x);
}

// Tap k's contribution: x_padded[.., k d + s i, ..] . w[.., k] over the input channels, with
// the slice's time dim renamed to the output time dim.
template <class Time, class Kernel, conv_options O, std::size_t Tap, class In, class P, class W>
auto conv_tap(const P& padded, const W& w) {
  constexpr std::size_t k = static_size_v<Kernel>;
  using out_time = conv1d_dim_t<Time, k, O>;
  using taps = conv_tap_slice<Time, k, O, Tap>;
  using tap = typename taps::type;
  auto slice = [&] {
    return dimgraph::slice<typename taps::padded, taps::start, taps::end, taps::stride>(padded);
  };
  // (The views are handed over by value: the product must not refer to these locals.)
  if constexpr (std::is_same_v<tap, out_time>)
    return dimgraph::dot<In>(slice(), w[dimgraph::at<Kernel>(Tap)]);
  else
    return dimgraph::dot<In>(dimgraph::rename<tap, out_time>(slice()),
                             w[dimgraph::at<Kernel>(Tap)]);
}

template <class Time, class Kernel, conv_options O, class X, class W, class... B>
auto convolve(const X& x, const W& w, const B&... b) {
  constexpr std::size_t k = static_size_v<Kernel>;
  using in = first_dim_t<list_intersection_t<dims_of_t<X>, dims_of_t<W>>>;
  if constexpr (!symbolic<X>) {
    // torch's "Kernel size can't be greater than actual input size", before anything is made.
    const std::size_t padded = x.template extent<Time>() + 2 * O.padding;
    if (padded < O.dilation * (k - 1) + 1)
      throw shape_error("nn::conv1d", "the padded extent " + std::to_string(padded) + " of dim '" +
                                          describe<Time>() +
                                          "' is shorter than the dilated kernel (" +
                                          std::to_string(O.dilation * (k - 1) + 1) + ")");
  }
  return dimgraph::detail::in_call("nn::conv1d", [&] {
    decltype(auto) padded = conv_padded<Time, O>(x);
    decltype(auto) weights = read_once(w);
    // One product per tap (each evaluated by the element-wise pass that reads it), summed in
    // one pass with the bias.
    return dimgraph::detail::with_indices<k>(
        [&]<std::size_t... Taps>(dimgraph::detail::index_constant<Taps>...) {
          const auto taps = (... + conv_tap<Time, Kernel, O, Taps, in>(padded, weights));
          return dimgraph::eval((taps + ... + b));
        });
  });
}

}  // namespace detail

// conv1d<Time, Kernel, O>(x, weight, [bias]): torch.nn.Conv1d (groups 1, zero padding) over the
// dim Time, weight [out, in, kernel] (torch's layout; any dim order), bias [out]:
//   y[.., t', o] = sum over in, k of x_padded[.., t' s + k d, in] w[o, in, k] + b[o]
//   conv1d<Time, Kernel, O>([.., Time, .., in, ..]) -> [x's other dims in x's order with Time
//   replaced by conv1d_dim_t<Time, size(Kernel), O>, out (last)]
// with O = conv_options{.stride = s, .padding = p, .dilation = d} and out length
// floor((L + 2 p - d (size(Kernel) - 1) - 1) / s) + 1. Over a ragged Time the output time dim
// is ragged too, each row's length that of its own L (0 when not positive), and no valid output
// reads a row's padding. in is the one dim x and the weight share. Work: the padding (a copy when p
// > 0), one product per tap over strided views of x (no im2col copy), one pass summing them with
// the bias. Evaluated now (a tensor; a symbol when traced). Errors (compile time): stride or
// dilation 0; x lacks Time; Kernel not static; the weight not [out, in, Kernel] sharing exactly one
// dim with x; out a dim of x; the bias not [out]. Errors (run time): the padded length shorter than
// the dilated kernel, extents that disagree (shape_error; from an op, after the layer's name:
// "dimgraph: nn::conv1d: dot: ...").
template <dimension Time, dimension Kernel, conv_options O = conv_options{}, layer_operand X,
          layer_operand W>
auto conv1d(const X& x, const W& weight) {
  using time = std::remove_cvref_t<Time>;
  using kernel = std::remove_cvref_t<Kernel>;
  if constexpr (dimgraph::detail::any_poisoned<X, W>) return dimgraph::detail::invalid_expr{};
  else {
    constexpr detail::conv_check check = detail::check_conv1d<time, kernel, O, X, W, void>();
    detail::report_conv1d<check, time, kernel, X, W, void>();
    if constexpr (check == detail::conv_check::ok)
      return detail::convolve<time, kernel, O>(x, weight);
    else return dimgraph::detail::invalid_expr{};
  }
}
template <dimension Time, dimension Kernel, conv_options O = conv_options{}, layer_operand X,
          layer_operand W, layer_operand B>
auto conv1d(const X& x, const W& weight, const B& bias) {
  using time = std::remove_cvref_t<Time>;
  using kernel = std::remove_cvref_t<Kernel>;
  if constexpr (dimgraph::detail::any_poisoned<X, W, B>) return dimgraph::detail::invalid_expr{};
  else {
    constexpr detail::conv_check check = detail::check_conv1d<time, kernel, O, X, W, B>();
    detail::report_conv1d<check, time, kernel, X, W, B>();
    if constexpr (check == detail::conv_check::ok)
      return detail::convolve<time, kernel, O>(x, weight, bias);
    else return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
// ---- end dimgraph/nn/conv1d.hpp

// ---- begin dimgraph/model/parameters.hpp
// dg::parameters, dg::parameter_count: the tensors of a model written as a Boost.Hana struct.


#include <boost/hana/for_each.hpp>


namespace dimgraph {
namespace detail {

template <class X>
inline constexpr bool is_owning_tensor_v = false;
template <class T, class... Ds>
inline constexpr bool is_owning_tensor_v<tensor<T, Ds...>> = true;

template <class X>
inline constexpr bool is_std_array_v = false;
template <class X, std::size_t N>
inline constexpr bool is_std_array_v<std::array<X, N>> = true;

// The type of member `Accessor` of struct M.
template <class M, class Accessor>
using member_t = std::remove_cvref_t<decltype(boost::hana::second(std::declval<Accessor>())(
    std::declval<M&>()))>;

// The tensor types of a model part X in visiting order (a detail::type_list): a tensor is
// itself; a std::array repeats its element's list; a Hana struct concatenates its members'
// lists in declaration order; anything else (a size, a flag) has none.
template <class X>
struct model_tensors;
template <class X>
using model_tensors_t = typename model_tensors<X>::type;

template <class X, class = std::make_index_sequence<0>>
struct repeat_list {};
template <class L, std::size_t... I>
struct repeat_list<L, std::index_sequence<I...>> {
  template <std::size_t>
  using same = L;
  using type = concat_t<same<I>...>;
};

template <class X>
struct model_tensors {
  static auto get() {
    if constexpr (is_owning_tensor_v<X>) {
      return type_list<X>{};
    } else if constexpr (is_std_array_v<X>) {
      using elem = typename X::value_type;
      return typename repeat_list<model_tensors_t<elem>,
                                  std::make_index_sequence<std::tuple_size_v<X>>>::type{};
    } else if constexpr (boost::hana::Struct<X>::value) {
      return boost::hana::unpack(boost::hana::accessors<X>(), [](auto... member) {
        return concat_t<model_tensors_t<member_t<X, decltype(member)>>...>{};
      });
    } else {
      return type_list<>{};
    }
  }
  using type = decltype(get());
};

template <class List>
struct as_tuple;
template <class... Ts>
struct as_tuple<type_list<Ts...>> {
  using type = std::tuple<Ts...>;
};

// Calls f(path, tensor) for every tensor in x, path being x's own dotted path.
template <class X, class F>
void visit_parameters(X& x, std::string& path, F& f) {
  using plain = std::remove_const_t<X>;
  const std::size_t kept = path.size();
  const auto descend = [&](const char* name, auto& part) {
    if (!path.empty()) path += '.';
    path += name;
    visit_parameters(part, path, f);
    path.resize(kept);
  };
  if constexpr (is_owning_tensor_v<plain>) {
    f(std::as_const(path), x);
  } else if constexpr (is_std_array_v<plain>) {
    for (std::size_t i = 0; i < x.size(); ++i) descend(std::to_string(i).c_str(), x[i]);
  } else if constexpr (boost::hana::Struct<plain>::value) {
    boost::hana::for_each(boost::hana::accessors<plain>(), [&](auto member) {
      descend(boost::hana::to<const char*>(boost::hana::first(member)),
              boost::hana::second(member)(x));
    });
  }
}

}  // namespace detail

// A model: a dg::tensor, a std::array of models, or a struct of models made a Boost.Hana
// struct (BOOST_HANA_DEFINE_STRUCT in the struct, or BOOST_HANA_ADAPT_STRUCT after it; the
// user includes <boost/hana/define_struct.hpp> or <boost/hana/adapt_struct.hpp>). Members of
// other types (sizes, flags) are not parameters and are skipped.
template <class M>
concept model =
    detail::is_owning_tensor_v<M> || detail::is_std_array_v<M> || boost::hana::Struct<M>::value;

// The number of tensors in model M, at compile time.
template <model M>
inline constexpr std::size_t tensor_count_v = detail::model_tensors_t<M>::size;

// The types of the tensors in model M in visiting order, as a std::tuple type (at compile time).
template <model M>
using parameter_types_t = typename detail::as_tuple<detail::model_tensors_t<M>>::type;

// Calls f(name, tensor) for every tensor of the model once, in declaration order (depth
// first; std::array elements in index order), name being its dotted path from the model:
// "encoder.layers.0.attention.w_q" (a model that is itself a tensor has the name ""). The
// tensor is passed as the model is (const or not). Error: M is not a model (compile time).
template <class M, class F>
void parameters(M& m, F&& f) {
  DIMGRAPH_REQUIRE(model<std::remove_const_t<M>>,
                   "dimgraph: parameters: the model must be a dg::tensor, a std::array of models "
                   "or a Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT / BOOST_HANA_ADAPT_STRUCT)",
                   detail::operand_role_t<"model", std::remove_const_t<M>>, std::remove_const_t<M>);
  if constexpr (model<std::remove_const_t<M>>) {
    std::string path;
    detail::visit_parameters(m, path, f);
  }
}

// The number of elements in all the tensors of the model (its run-time extents).
template <class M>
std::size_t parameter_count(const M& m) {
  DIMGRAPH_REQUIRE(model<M>,
                   "dimgraph: parameter_count: the model must be a dg::tensor, a std::array of "
                   "models or a Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT / "
                   "BOOST_HANA_ADAPT_STRUCT)",
                   detail::operand_role_t<"model", M>, M);
  std::size_t n = 0;
  if constexpr (model<M>) parameters(m, [&](const std::string&, const auto& t) { n += t.size(); });
  return n;
}

}  // namespace dimgraph
// ---- end dimgraph/model/parameters.hpp

// The internal macros that several headers share, defined where they are first needed (the
// single header, made from this one, must not leak them).
#undef DIMGRAPH_BATCH_OF_LENGTHS
// ---- end dimgraph.hpp
