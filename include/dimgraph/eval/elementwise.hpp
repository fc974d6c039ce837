// Element-wise evaluation into a tensor or a view: the leaf table, the overlap checks, the plan
// and the fused SIMD loop.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/eval/dispatch.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/store.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/expr/evaluator.hpp"

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
