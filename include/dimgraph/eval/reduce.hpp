// Evaluation of reductions: one pass over the input, accumulating into the output.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "dimgraph/eval/cursor.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph::detail {

template <class E>
inline constexpr bool is_reduce_v = false;
template <class Op, class X, class... Rs>
inline constexpr bool is_reduce_v<reduce_expr<Op, X, Rs...>> = true;

// The loop nest runs over the input's dims; the output steps with stride 0 along the
// reduced dims. Per row: when the output does not step (the reduced dim is the inner
// one) the row is folded into one accumulator; otherwise each output element takes
// the matching input element (a vertical reduction, vectorised like an element-wise op).
template <class Op, bool AssumeUnit, class Acc, class Cursor, std::size_t R, std::size_t N>
void run_reduce(Acc* out, const Cursor& c, const loop_plan<R, N>& p) {
  if constexpr (R == 0) {
    std::array<std::ptrdiff_t, N> zero{};
    *out = Op::combine(*out, c.template row<AssumeUnit>(zero, zero).load(0));
  } else {
    if (p.depth == 0) return;
    const std::size_t n = p.inner_extent();
    std::array<std::ptrdiff_t, N> inner{};
    for (std::size_t op = 0; op < N; ++op) inner[op] = p.inner_stride(op);
    const std::ptrdiff_t os = inner[0];
    std::array<std::ptrdiff_t, N> off{};
    std::array<std::size_t, R> idx{};
    for (;;) {
      Acc* o = out + off[0];
      const auto row = c.template row<AssumeUnit>(off, inner);
      if (os == 0) {
        Acc a = *o;
        for (std::size_t i = 0; i < n; ++i) a = Op::combine(a, row.load(i));
        *o = a;
      } else if (AssumeUnit) {
        for (std::size_t i = 0; i < n; ++i) o[i] = Op::combine(o[i], row.load(i));
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          Acc& slot = o[static_cast<std::ptrdiff_t>(i) * os];
          slot = Op::combine(slot, row.load(i));
        }
      }
      std::size_t k = p.depth - 1;
      for (;;) {
        if (k == 0) return;
        --k;
        for (std::size_t op = 0; op < N; ++op) off[op] += p.stride[op][k];
        if (++idx[k] < p.extent[k]) break;
        for (std::size_t op = 0; op < N; ++op)
          off[op] -= p.stride[op][k] * static_cast<std::ptrdiff_t>(p.extent[k]);
        idx[k] = 0;
      }
    }
  }
}

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

// dst = reduction e (dst's extents already match e's). The output may not overlap the
// input at all (overlap_error), and max or min may not reduce over no elements
// (shape_error); both checked before the first write.
template <class Dst, class Op, class X, class... Rs>
void reduce_into(Dst& dst, const reduce_expr<Op, X, Rs...>& e) {
  using xdims = dims_t<X>;
  using acc = typename std::remove_const_t<Dst>::value_type;
  constexpr std::size_t R = xdims::size;
  constexpr std::size_t N = leaf_count_v<X> + 1;
  const auto& x = e.source();
  if constexpr (Op::empty_is_error)
    if (e.count() == 0) throw_empty_reduction<Rs...>(Op::name, x);

  std::array<leaf_info<R>, N> infos{};
  const auto cursor = build_cursor<xdims, 1>(x, infos);
  leaf_info<R>& out = infos[0];
  out.data = dst.data();
  out.strides = strides_along<xdims>(dst);  // 0 along the reduced dims
  std::tie(out.lo, out.hi) = memory_span(dst);
  for (std::size_t i = 1; i < N; ++i)
    if (out.lo != out.hi && infos[i].lo != infos[i].hi && infos[i].lo < out.hi &&
        out.lo < infos[i].hi)
      throw_partial_overlap(i);

  const auto ext = [&]<class... Ds>(dim_list<Ds...>*) {
    return std::array<std::size_t, R>{x.template extent<Ds>()...};
  }(static_cast<xdims*>(nullptr));
  std::array<std::array<std::ptrdiff_t, R>, N> strides{};
  for (std::size_t op = 0; op < N; ++op) strides[op] = infos[op].strides;
  const auto plan = make_loop_plan<R>(ext, strides);

  // Start from the identity, then fold the input in.
  for_each_element(dst, [](acc& v) { v = Op::template identity<acc>(); });
  bool unit = plan.depth > 0;
  for (std::size_t op = 1; op < N && unit; ++op)
    unit = plan.inner_stride(op) == 0 || plan.inner_stride(op) == 1;
  if (unit && (plan.depth == 0 || plan.inner_stride(0) == 0 || plan.inner_stride(0) == 1))
    run_reduce<Op, true>(dst.data(), cursor, plan);
  else run_reduce<Op, false>(dst.data(), cursor, plan);

  if constexpr (std::is_same_v<Op, fn::mean_reduce>) {
    const acc count = static_cast<acc>(e.count());
    for_each_element(dst, [count](acc& v) { v = v / count; });
  }
}

}  // namespace dimgraph::detail
