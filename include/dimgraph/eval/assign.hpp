// Assignment of an expression to a tensor or view: checks, plan, and the fused loop.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/eval/cursor.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/reduce.hpp"

// The overlap check has already run when an inner loop starts, so its iterations are independent.
// GCC is told so (ivdep drops its run-time alias checks). Clang is not: its "vectorize" hints turn
// every loop it cannot vectorise (a call to a scalar libm function, a gather) into a
// -Wpass-failed warning, and it vectorises the loops that matter on its own behind a cheap
// run-time alias check.
#if defined(__GNUC__) && !defined(__clang__)
#define DIMGRAPH_LOOP_INDEPENDENT _Pragma("GCC ivdep")
#else
#define DIMGRAPH_LOOP_INDEPENDENT
#endif

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
  static_assert(dims_ok, "dimgraph: assign: the expression's dims are not the destination's dims");
  constexpr bool narrowing = dims_ok && is_narrowing_v<value_t<E>, typename Dst::value_type>;
  static_assert(!narrowing,
                "dimgraph: assign: the expression's element type would narrow to the "
                "destination's; use dg::cast<T>");
  return dims_ok && !narrowing;
}

// The expression's extents in the destination's dim order.
template <class... Ds, class E>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::size_t, sizeof...(Ds)> extents_in_order(
    dim_list<Ds...>*, const E& e) {
  return {e.template extent<Ds>()...};
}

// b, hidden from the optimiser: a branch on it cannot be threaded, so the cold code behind
// it stays in one place (GCC moves it to <function>.cold instead of copying the call into the
// hot path).
DIMGRAPH_ALWAYS_INLINE inline bool opaque(bool b) {
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+r"(b));
#endif
  return b;
}

// Every leaf whose memory overlaps the output must be the output itself, element for
// element (in-place element-wise work); anything else is a partial overlap.
template <std::size_t R, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void check_overlap(const leaf_info<R>& out,
                                                 const std::array<leaf_info<R>, N>& leaves) {
  if (out.lo == out.hi) return;
  // The first offending operand (0: none), then one call site for the cold throw.
  std::size_t bad = 0;
  for (std::size_t i = N; i-- > 1;) {
    const auto& l = leaves[i];
    if (l.lo == l.hi || l.hi <= out.lo || out.hi <= l.lo) continue;
    if (l.data == out.data && l.strides == out.strides) continue;
    bad = i;
  }
  if (opaque(bad != 0)) [[unlikely]]
    throw_partial_overlap(bad);
}

template <class Out, stride_kind OutKind, bool AssumeUnit, class Cursor, std::size_t R,
          std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void run_plan(Out* out, const Cursor& c, const loop_plan<R, N>& p) {
  if constexpr (R == 0) {
    std::array<std::ptrdiff_t, N> zero{};
    *out = static_cast<Out>(c.template row<AssumeUnit>(zero, zero).load(0));
  } else {
    if (p.depth == 0) return;
    const std::size_t n = p.inner_extent();
    std::array<std::ptrdiff_t, N> inner{};
    for (std::size_t op = 0; op < N; ++op) inner[op] = p.inner_stride(op);
    const auto run_row = [&](const std::array<std::ptrdiff_t, N>& off) DIMGRAPH_ALWAYS_INLINE {
      Out* o = out + off[0];
      const auto row = c.template row<AssumeUnit>(off, inner);
      // The overlap check has ruled out every overlap but exact aliasing, which carries
      // no dependence between iterations: the loop is safe to vectorise as it stands.
      if constexpr (OutKind == stride_kind::unit || AssumeUnit) {
        DIMGRAPH_LOOP_INDEPENDENT
        for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<Out>(row.load(i));
      } else {
        const std::ptrdiff_t os = inner[0];
        DIMGRAPH_LOOP_INDEPENDENT
        for (std::size_t i = 0; i < n; ++i)
          o[static_cast<std::ptrdiff_t>(i) * os] = static_cast<Out>(row.load(i));
      }
    };
    std::array<std::ptrdiff_t, N> off{};
    if (p.depth == 1) {
      run_row(off);
      return;
    }
    // The level around the inner loop is a plain counted loop (rows one stride apart);
    // an odometer steps the levels outside it.
    const std::size_t middle = p.depth - 2;
    const std::size_t rows = p.extent[middle];
    std::array<std::ptrdiff_t, N> step{};
    for (std::size_t op = 0; op < N; ++op) step[op] = p.stride[op][middle];
    std::array<std::size_t, R> idx{};
    for (;;) {
      std::array<std::ptrdiff_t, N> at = off;
      for (std::size_t r = 0; r < rows; ++r) {
        run_row(at);
        for (std::size_t op = 0; op < N; ++op) at[op] += step[op];
      }
      std::size_t k = middle;
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

template <class Dst, class E>
struct assignment {
  using out_dims = typename Dst::dims;
  using out_value = typename Dst::value_type;
  static constexpr std::size_t R = out_dims::size;
  static constexpr std::size_t N = leaf_count_v<E> + 1;

  std::array<leaf_info<R>, N> infos{};
  loop_plan<R, N> plan{};

  template <class Cursor>
  DIMGRAPH_ALWAYS_INLINE void run(out_value* out, const Cursor& c) const {
    constexpr stride_kind out_kind = is_tensor_v<Dst> ? stride_kind::unit : stride_kind::dynamic;
    bool all_unit = plan.depth > 0;
    for (std::size_t op = 0; op < N && all_unit; ++op) {
      const std::ptrdiff_t s = plan.inner_stride(op);
      all_unit = s == 1 || s == 0;
    }
    // Leaves of kind zero have stride 0 and kind unit stride 1; so all_unit means
    // every dynamic-kind operand (and the output) steps by 1 here.
    if (all_unit) run_plan<out_value, out_kind, true>(out, c, plan);
    else run_plan<out_value, out_kind, false>(out, c, plan);
  }
};

// Plans dst = e and checks it (extents, overlap); returns the cursor and the plan.
template <class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline auto prepare(const Dst& dst, const E& e,
                                           assignment<std::remove_const_t<Dst>, E>& a) {
  constexpr std::size_t R = assignment<Dst, E>::R;
  auto cursor = build_cursor<typename Dst::dims, 1>(e, a.infos);
  leaf_info<R>& out = a.infos[0];
  out.data = dst.data();
  out.strides = dst.strides();
  std::tie(out.lo, out.hi) = memory_span(dst);
  std::array<std::array<std::ptrdiff_t, R>, assignment<Dst, E>::N> strides{};
  for (std::size_t op = 0; op < strides.size(); ++op) strides[op] = a.infos[op].strides;
  a.plan = make_loop_plan<R>(dst.shape().extents(), strides);
  return cursor;
}

// (Cold and out of line: the message is built only when it is thrown.)
template <class... Ds, std::size_t R>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_extent_mismatch(
    dim_list<Ds...>*, const std::array<std::size_t, R>& have,
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
    const auto want = extents_in_order(static_cast<typename Dst::dims*>(nullptr), e);
    const auto have = dst.shape().extents();
    if (want != have) throw_extent_mismatch(static_cast<typename Dst::dims*>(nullptr), have, want);
  }
}

// The layout of out = e when every stride and extent is static: strides, leaf sizes
// in bytes, and the loop plan, all constants.
template <class Dst, class E>
struct static_assignment {
  static constexpr std::size_t R = Dst::rank;
  static constexpr std::size_t N = leaf_count_v<E> + 1;
  struct layout {
    std::array<std::array<std::ptrdiff_t, R>, N> strides{};
    std::array<std::size_t, N> bytes{};
    loop_plan<R, N> plan{};
  };
  static constexpr layout value = [] {
    layout l;
    static_strides<typename Dst::dims, 0, Dst>(l.strides, l.bytes);
    static_strides<typename Dst::dims, 1, E>(l.strides, l.bytes);
    constexpr auto ext = typename Dst::shape_type{}.extents();
    l.plan = make_loop_plan<R>(ext, l.strides);
    return l;
  }();
  static constexpr bool all_unit = [] {
    if (value.plan.depth == 0) return true;
    for (std::size_t op = 0; op < N; ++op)
      if (value.plan.inner_stride(op) != 0 && value.plan.inner_stride(op) != 1) return false;
    return true;
  }();

  template <bool CheckOverlap>
  DIMGRAPH_ALWAYS_INLINE static void run(typename Dst::value_type* out, const E& e) {
    std::array<leaf_info<R>, N> infos{};
    const auto cursor = build_cursor<typename Dst::dims, 1, true>(e, infos);
    // Without CheckOverlap (a fresh destination) no check is emitted at all: even a dead
    // throwing branch would make callers reload their registers around the kernel.
    if constexpr (CheckOverlap) {
      const char* o = reinterpret_cast<const char*>(out);
      std::size_t bad = 0;  // the first offending operand (0: none)
      for (std::size_t i = N; i-- > 1;) {
        const char* p = static_cast<const char*>(infos[i].data);
        if (p + value.bytes[i] <= o || o + value.bytes[0] <= p) continue;
        if (p == o && value.strides[i] == value.strides[0]) continue;
        bad = i;
      }
      if (opaque(bad != 0)) [[unlikely]]
        throw_partial_overlap(bad);
    }
    run_plan<typename Dst::value_type, stride_kind::unit, all_unit>(out, cursor, value.plan);
  }
};

// dst = e. A freshly constructed dst cannot overlap anything (CheckOverlap = false).
template <bool CheckOverlap = true, class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void assign_into(Dst& dst, const E& e) {
  using dst_t = std::remove_const_t<Dst>;
  if constexpr (is_reduce_v<E>) {
    reduce_into(dst, e);
  } else if constexpr (static_layout<dst_t>::value && static_layout<E>::value) {
    static_assignment<dst_t, E>::template run<CheckOverlap>(dst.data(), e);
  } else {
    assignment<dst_t, E> a;
    auto cursor = prepare(dst, e, a);
    if constexpr (CheckOverlap) check_overlap(a.infos[0], a.infos);
    a.run(dst.data(), cursor);
  }
}

// out = e where out's extents change: e is evaluated into new memory first (e may read
// out), which then replaces out's. Cold and out of line: allocating dominates it anyway,
// and it keeps the allocation out of the kernel of a steady-state assignment.
template <class Dst, class E>
[[gnu::cold]] DIMGRAPH_NOINLINE void assign_resized(Dst& out, const E& e,
                                                    const typename Dst::shape_type& s) {
  Dst fresh(s);
  assign_into<false>(fresh, e);
  out = std::move(fresh);
}

}  // namespace detail

// out = e for a view: every extent must match (shape_error), no operand may partially
// overlap out (overlap_error); both checked before the first write.
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(const tensor_view<T, Ds...>& out, E&& e) {
  if constexpr (detail::check_assign<tensor_view<T, Ds...>, std::remove_cvref_t<E>>()) {
    detail::check_extents(out, e);
    detail::assign_into(out, e);
  }
}

// out = e for an owning tensor: takes the expression's extents (re-allocating when
// they change, into new memory first, so an expression reading out stays valid).
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(tensor<T, Ds...>& out, E&& e) {
  using dst = tensor<T, Ds...>;
  if constexpr (detail::check_assign<dst, std::remove_cvref_t<E>>()) {
    if constexpr (dst::is_static) {
      detail::assign_into(out, e);
    } else {
      auto s = dst::shape_type::from_extents(
          detail::extents_in_order(static_cast<typename dst::dims*>(nullptr), e), "assign");
      if (detail::opaque(s == out.shape())) [[likely]]
        detail::assign_into(out, e);
      else detail::assign_resized(out, e, s);
    }
  }
}
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(tensor<T, Ds...>& out, E&& e,
                                                     detail::construct_tag) {
  using dst = tensor<T, Ds...>;
  if constexpr (detail::check_assign<dst, std::remove_cvref_t<E>>()) {
    // (The elements are uninitialised: assign_into writes every one.)
    if constexpr (!dst::is_static)
      detail::tensor_internals::reshape_for_overwrite(
          out,
          dst::shape_type::from_extents(
              detail::extents_in_order(static_cast<typename dst::dims*>(nullptr), e), "assign"));
    detail::assign_into<false>(out, e);
  }
}

namespace detail {
// A node that is not element-wise (a reduction), evaluated into a tensor of its own
// when it is the operand of an element-wise op.
template <class E>
auto materialize(const E& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<value_t<E>, Ds...>(e);
  }(static_cast<dims_t<E>*>(nullptr));
}
}  // namespace detail

// After a reported mistake: nothing more to say.
template <class Dst, detail::poisoned E>
void assign_expression(Dst&, E&&, detail::construct_tag = {}) {}
template <detail::poisoned E>
detail::invalid_expr eval(E&&) {
  return {};
}

// A new tensor holding the value of e (dims in e's order).
template <expression E>
auto eval(E&& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<value_t<E>, Ds...>(std::forward<E>(e));
  }(static_cast<dims_t<E>*>(nullptr));
}

// The loop plan of dst = e, as text (for tests and debugging).
template <class Dst, expression E>
std::string describe_plan(const Dst& dst, const E& e) {
  detail::assignment<Dst, std::remove_cvref_t<E>> a;
  (void)detail::prepare(dst, e, a);
  return to_string(a.plan);
}

}  // namespace dimgraph

#undef DIMGRAPH_LOOP_INDEPENDENT
