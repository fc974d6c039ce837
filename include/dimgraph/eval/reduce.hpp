// Evaluation of reductions: one pass over the input (fused with its element-wise ops).
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/store.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/expr/reduce.hpp"

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

// Rows of a vertical float sum are added in float, up to this many into one staging row,
// before the staging row is added into the double accumulators (see accumulate).
inline constexpr std::size_t stage_rows = 16;

// Lanes [P * H, P * H + H) of v (lanes of elements E), converted to To. (To may be wider
// than v's lanes: a vector of v's lane count would then be wider than a register, so it is
// taken in parts.)
template <class To, class E, std::size_t H, std::size_t P, class V>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<To, H> widened_part(V v) {
  fn::lanes_t<E, H> part;
  std::memcpy(&part, reinterpret_cast<const unsigned char*>(&v) + P * sizeof(part), sizeof(part));
  return fn::as<To, E>(part);
}

// acc[i * s] += double(stage[i]) for i < n, in vectors of L floats taken in parts of H lanes;
// and stage[i] = 0 (ready for the next block).
template <std::size_t L, std::size_t H>
DIMGRAPH_ALWAYS_INLINE inline void flush_stage(double* acc, std::ptrdiff_t s, float* stage,
                                               std::size_t n) {
  std::size_t i = 0;
  if (s == 1)
    for (; i + L <= n; i += L) {
      const auto v = load_lanes<L>(stage + i);
      [&]<std::size_t... P>(std::index_sequence<P...>) DIMGRAPH_ALWAYS_INLINE {
        (store_lanes<H>(acc + i + P * H,
                        load_lanes<H>(acc + i + P * H) + widened_part<double, float, H, P>(v)),
         ...);
      }(std::make_index_sequence<L / H>{});
      store_lanes<L>(stage + i, simd::splat<float, L>(0.0f));
    }
  for (; i < n; ++i) {
    acc[static_cast<std::ptrdiff_t>(i) * s] += static_cast<double>(stage[i]);
    stage[i] = 0.0f;
  }
}

// acc (row-major over the result's dims) combined with Op over every element of x. The loop
// nest runs over x's dims; acc steps with stride 0 along the reduced dims. A row along which
// acc does not step (the inner dim is reduced) folds into L lane accumulators and then into
// one element; otherwise each acc element takes the matching input element (a vertical
// reduction, as vectorised as an element-wise op).
//
// Float sums accumulate in double, so that long sums stay exact or nearly (2^25 ones sum to
// 2^25). Adding each element in double would double a vertical reduction's memory traffic,
// so there each block of up to stage_rows rows of a group (below) is summed in float into a
// staging row first, which is then added into acc in double: each element of acc is a double
// sum of float sums of at most stage_rows terms.
template <class Op, class Acc, class X, class AccTensor>
DIMGRAPH_ALWAYS_INLINE DIMGRAPH_FLATTEN inline void accumulate(AccTensor& acc, const X& x) {
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
  constexpr auto parts = std::make_index_sequence<L / H>{};

  const auto ext = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::size_t, R>{x.template extent<Ds>()...};
  }(std::type_identity<xdims>{});
  table_t table(ext, {acc.data(), layout_strides<xdims, typename AccTensor::dims>(ext)}, false);
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
          Acc* o = acc.data() + first[0];
          // Staged: the staging row of this group (zero between blocks).
          [[maybe_unused]] float* stage = nullptr;
          [[maybe_unused]] std::unique_ptr<float[]> stage_heap;
          [[maybe_unused]] std::size_t in_block = 0;
          constexpr std::size_t stage_stack = staged ? 2048 : 1;
          [[maybe_unused]] alignas(64) float stage_buffer[stage_stack];
          if constexpr (staged) {
            if (!across) {
              if (n > stage_stack) {
                stage_heap = std::make_unique<float[]>(n);  // zeroed
                stage = stage_heap.get();
              } else {
                stage = stage_buffer;
                std::fill_n(stage, n, 0.0f);
              }
            }
          }
          auto group = rows;
          group.extent[run] = n;
          for_each_row<1, false>(group, [&](const offsets& at, std::size_t) DIMGRAPH_ALWAYS_INLINE {
            offsets off = first;
            for (std::size_t op = 0; op < table_t::slots; ++op) off[op] += at[op];
            const row_t r(bases, off, step);
            // Along a row where acc does not step, L lane accumulators, folded into o at the
            // end (a piece of m < L elements adds its first m lanes after them); otherwise
            // each element of o (or of the staging row) takes the matching input element.
            std::array<fn::lanes_t<Acc, H>, L / H> lanes;
            lanes.fill(
                simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>())));
            std::size_t rest_from = 0, rest_count = 0;
            fn::lanes_t<E, L> last{};
            for_each_piece<L>(
                r, n, 0, leaf_step.data(), table.leaf_bytes.data(),
                [&](const row_t& c, std::size_t at, std::size_t i,
                    std::size_t m) DIMGRAPH_ALWAYS_INLINE {
                  const auto v = k.template packet<L>(c, at);
                  if (m != L) [[unlikely]] {
                    last = v;
                    rest_from = i;
                    rest_count = m;
                  } else if (across) {
                    [&]<std::size_t... P>(std::index_sequence<P...>) DIMGRAPH_ALWAYS_INLINE {
                      ((lanes[P] = Op::combine(lanes[P], widened_part<Acc, E, H, P>(v))), ...);
                    }(parts);
                  } else if constexpr (staged) {
                    store_lanes<L>(stage + i, load_lanes<L>(stage + i) + v);
                  } else {
                    [&]<std::size_t... P>(std::index_sequence<P...>) DIMGRAPH_ALWAYS_INLINE {
                      (store_lanes<H>(o + i + P * H, Op::combine(load_lanes<H>(o + i + P * H),
                                                                 widened_part<Acc, E, H, P>(v))),
                       ...);
                    }(parts);
                  }
                });
            // Lane l of the last piece, as one lane of Acc.
            const auto tail = [&](std::size_t l) DIMGRAPH_ALWAYS_INLINE {
              return fn::as<Acc, E>(simd::splat<simd::lane_t<E>, 1>(last[l]));
            };
            if (across) {
              auto sum = load_lanes<1>(o);
              for (std::size_t l = 0; l < L; ++l)
                sum = Op::combine(sum, simd::splat<simd::lane_t<Acc>, 1>(lanes[l / H][l % H]));
              for (std::size_t l = 0; l < rest_count; ++l) sum = Op::combine(sum, tail(l));
              store_lanes<1>(o, sum);
            } else if constexpr (staged) {
              for (std::size_t l = 0; l < rest_count; ++l) stage[rest_from + l] += last[l];
              if (++in_block == stage_rows) {
                flush_stage<L, H>(o, step[0], stage, n);
                in_block = 0;
              }
            } else {
              for (std::size_t l = 0; l < rest_count; ++l) {
                Acc* p = o + rest_from + l;
                store_lanes<1>(p, Op::combine(load_lanes<1>(p), tail(l)));
              }
            }
          });
          if constexpr (staged)
            if (in_block != 0) flush_stage<L, H>(o, step[0], stage, n);
        },
        per_group, !across);
  };
  if (table.unit_inner(plan, false)) run_groups(std::true_type{});
  else if constexpr (kernel::views > 0) run_groups(std::false_type{});
}

}  // namespace dimgraph::detail
