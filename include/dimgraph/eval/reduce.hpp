// Evaluation of reductions: one pass over the input (fused with its element-wise ops).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
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
  using kernel = typename ev::kernel;
  using xdims = dims_t<X>;
  using E = typename kernel::value_type;
  using table_t =
      leaf_table<xdims, typename ev::layouts, kernel::leaves, kernel::views, ev::has_temporaries>;
  using inner = back_t<types_of_t<xdims>>;
  constexpr std::size_t R = xdims::size;
  constexpr std::size_t L = simd::lanes_for(std::max(ev::lane_bytes, sizeof(simd::lane_t<Acc>)));

  const auto ext = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::size_t, R>{x.template extent<Ds>()...};
  }(std::type_identity<xdims>{});
  table_t table(ext, {acc.data(), layout_strides<xdims, typename AccTensor::dims>(ext)}, false);
  const kernel k = ev::template build<0, 0>(x, table);
  const auto plan = make_loop_plan<R>(ext, table.strides);
  std::array<std::ptrdiff_t, table_t::slots> step{};
  if (plan.depth > 0)
    for (std::size_t op = 0; op < table_t::slots; ++op) step[op] = plan.inner_stride(op);

  const auto run = [&]<bool Unit>(std::bool_constant<Unit>) {
    for_each_row<1, false>(plan, [&](const std::array<std::ptrdiff_t, table_t::slots>& off,
                                     std::size_t n) DIMGRAPH_ALWAYS_INLINE {
      const row<table_t, inner, Unit> r(table, off, step);
      Acc* o = acc.data() + off[0];
      const auto at = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
        return fn::as<Acc, E>(k.template packet<0, 0, M>(r, i));
      };
      std::size_t i = 0;
      if (step[0] == 0) {
        auto lanes = simd::splat<simd::lane_t<Acc>, L>(fn::lane_of(Op::template identity<Acc>()));
        for (; i + L <= n; i += L) lanes = Op::combine(lanes, at.template operator()<L>(i));
        auto one = load_lanes<1>(o);
        for (std::size_t l = 0; l < L; ++l)
          one = Op::combine(one, simd::splat<simd::lane_t<Acc>, 1>(lanes[l]));
        for (; i < n; ++i) one = Op::combine(one, at.template operator()<1>(i));
        store_lanes<1>(o, one);
      } else {
        for (; i + L <= n; i += L)
          store_lanes<L>(o + i, Op::combine(load_lanes<L>(o + i), at.template operator()<L>(i)));
        for (; i < n; ++i)
          store_lanes<1>(o + i, Op::combine(load_lanes<1>(o + i), at.template operator()<1>(i)));
      }
    });
  };
  if (table.unit_inner(plan, false)) run(std::true_type{});
  else if constexpr (kernel::views > 0) run(std::false_type{});
}

}  // namespace dimgraph::detail
