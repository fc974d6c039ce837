// Evaluation of reductions: one pass over the input (fused with its element-wise ops), and the
// write-back of the result.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/elementwise.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/reduce_down.hpp"
#include "dimgraph/eval/reduce_rows.hpp"
#include "dimgraph/eval/store.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/expr/elementwise.hpp"
#include "dimgraph/expr/reduce.hpp"
#include "dimgraph/tensor/storage.hpp"

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
// in registers (reduce_block: the input is read once, acc once per block); an acc row of
// row_major_bytes or more whose rows follow each other is instead reduced row by row, as one
// stream (reduce_stream).
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

// This thread's float row of n partial sums, zeroed.
inline float* zeroed_partial_row(std::size_t n) {
  float* partial = thread_scratch<float, partial_row_scratch>(n);
  std::fill_n(partial, n, 0.0f);
  return partial;
}

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
          // Vertical into a long row (see row_major_bytes), the rows one after another in
          // every operand: row by row, as one stream (reduce_stream). A float sum goes through
          // the float row of partial sums, added into o every partial_blocks * block_rows rows.
          if constexpr (Unit && kernel::instructions <= periodic_up_to)
            if (n * sizeof(std::conditional_t<staged, float, Acc>) >= row_major_bytes &&
                step[0] == 1 && rows_follow_each_other<table_t::slots>(group, step, n)) {
              const row_t r(bases, first, step);
              if constexpr (staged) {
                float* partial = zeroed_partial_row(n);
                constexpr std::size_t chunk = partial_blocks * block_rows;
                for (std::size_t j = 0; j < per_group; j += chunk) {
                  reduce_stream<Op, float, L, L>(k, r, j, std::min(chunk, per_group - j), n,
                                                 partial);
                  add_partial_row(o, 1, partial, n);
                }
              } else {
                reduce_stream<Op, Acc, L, H>(k, r, 0, per_group, n, o);
              }
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
            partial = zeroed_partial_row(n);
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
