// Evaluation of reductions: one pass over the input (fused with its element-wise ops).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
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

// acc (row-major over the result's dims) combined with Op over every element of x. The loop
// nest runs over x's dims; acc steps with stride 0 along the reduced dims. A row along which
// acc does not step (the inner dim is reduced) folds into L lane accumulators and then into
// one element; otherwise each acc element takes the matching input element (a vertical
// reduction, as vectorised as an element-wise op).
template <class Op, class Acc, class X, class AccTensor>
DIMGRAPH_ALWAYS_INLINE DIMGRAPH_FLATTEN inline void accumulate(AccTensor& acc, const X& x) {
  using ev = evaluator_of<X>;
  using kernel = program_kernel<typename ev::program>;
  using xdims = dims_t<X>;
  using E = typename kernel::value_type;
  using table_t = table_for<xdims, X>;
  using inner = back_t<types_of_t<xdims>>;
  constexpr std::size_t R = xdims::size;
  constexpr std::size_t L = simd::lanes_for(std::max(ev::lane_bytes, sizeof(simd::lane_t<Acc>)));

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

  const auto run = [&]<bool Unit>(std::bool_constant<Unit>) {
    using row_t = row<table_t, inner, Unit>;
    for_each_row<1, false>(plan, [&](const std::array<std::ptrdiff_t, table_t::slots>& off,
                                     std::size_t n) DIMGRAPH_ALWAYS_INLINE {
      const row_t r(bases, off, step);
      Acc* o = acc.data() + off[0];
      // Along a row where acc does not step, L lane accumulators, folded into o at the end
      // (a piece of m < L elements adds its first m lanes after them); otherwise each
      // element of o takes the matching input element.
      const bool across = step[0] == 0;
      auto lanes = simd::splat<simd::lane_t<Acc>, L>(fn::lane_of(Op::template identity<Acc>()));
      auto rest = load_lanes<1>(o);
      std::size_t rest_from = 0, rest_count = 0;
      fn::lanes_t<Acc, L> last{};
      for_each_piece<L>(r, n, 0, leaf_step.data(), table.leaf_bytes.data(),
                        [&](const row_t& c, std::size_t at, std::size_t i, std::size_t m)
                            DIMGRAPH_ALWAYS_INLINE {
                              const auto v = fn::as<Acc, E>(k.template packet<L>(c, at));
                              if (m != L) [[unlikely]] {
                                last = v;
                                rest_from = i;
                                rest_count = m;
                              } else if (across) {
                                lanes = Op::combine(lanes, v);
                              } else {
                                store_lanes<L>(o + i, Op::combine(load_lanes<L>(o + i), v));
                              }
                            });
      if (across) {
        for (std::size_t l = 0; l < L; ++l)
          rest = Op::combine(rest, simd::splat<simd::lane_t<Acc>, 1>(lanes[l]));
        for (std::size_t l = 0; l < rest_count; ++l)
          rest = Op::combine(rest, simd::splat<simd::lane_t<Acc>, 1>(last[l]));
        store_lanes<1>(o, rest);
      } else {
        for (std::size_t l = 0; l < rest_count; ++l) {
          Acc* p = o + rest_from + l;
          store_lanes<1>(p,
                         Op::combine(load_lanes<1>(p), simd::splat<simd::lane_t<Acc>, 1>(last[l])));
        }
      }
    });
  };
  if (table.unit_inner(plan, false)) run(std::true_type{});
  else if constexpr (kernel::views > 0) run(std::false_type{});
}

}  // namespace dimgraph::detail
