// Composite reductions: logsumexp, softmax, log_softmax, argmax, argmin (evaluated eagerly).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/compound.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/ops.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph {
namespace detail {
template <class X, class... Rs>
constexpr bool numeric_over() {
  return (list_contains_v<dims_t<X>, Rs> && ...) && !is_index_v<value_t<X>> &&
         !std::is_same_v<value_t<X>, bool>;
}

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

// fold(acc, lanes) over a row of n elements: L-lane vectors, then single lanes, then the
// vector's lanes folded into the single-lane result.
template <std::size_t L, class T, class Load, class Fold>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, 1> fold_row(std::size_t n, T identity,
                                                         const Load& load, const Fold& fold) {
  auto acc = simd::splat<T, L>(identity);
  std::size_t i = 0;
  for (; i + L <= n; i += L) acc = fold(acc, load.template operator()<L>(i));
  auto one = simd::splat<T, 1>(identity);
  for (std::size_t l = 0; l < L; ++l) one = fold(one, simd::splat<T, 1>(acc[l]));
  for (; i < n; ++i) one = fold(one, load.template operator()<1>(i));
  return one;
}

// Softmax (or, with Log, log-softmax) of one row of n elements (x steps by xs, o by os; by 1
// when Unit): the max, exp(x - max) and its sum, then the scaling (or x - max - log(sum)).
// As in PyTorch, a row holding +inf or only -inf gives NaN, and NaN propagates.
template <bool Log, bool Unit, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row(T* o, std::ptrdiff_t os, const V* x,
                                               std::ptrdiff_t xs, std::size_t n) {
  constexpr std::size_t L = simd::lanes_for(sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V));
  const auto in = [&]<std::size_t M>(std::size_t i)
                      DIMGRAPH_ALWAYS_INLINE { return row_lanes<M, Unit, T>(x, xs, i); };
  const auto largest = [](auto a, auto b)
                           DIMGRAPH_ALWAYS_INLINE { return fn::max_reduce::combine(a, b); };
  const T m = fold_row<L>(n, fn::max_reduce::identity<T>(), in, largest)[0];
  const auto shifted_exp = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    const auto d = in.template operator()<M>(i) - m;
    const auto e = simd::exp(d);
    put_row_lanes<M, Unit>(o, os, i, Log ? d : e);
    return e;
  };
  const auto add = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return a + b; };
  const T sum = fold_row<L>(n, T(0), shifted_exp, add)[0];
  const auto out = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (Unit) return load_lanes<M>(o + i);
    else return load_lanes<M>(o + static_cast<std::ptrdiff_t>(i) * os, os);
  };
  if constexpr (Log) {
    const T log_sum = simd::log(simd::splat<T, 1>(sum))[0];
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) - log_sum);
    for (; i < n; ++i) put_row_lanes<1, Unit>(o, os, i, out.template operator()<1>(i) - log_sum);
  } else {
    const T scale = T(1) / sum;
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) * scale);
    for (; i < n; ++i) put_row_lanes<1, Unit>(o, os, i, out.template operator()<1>(i) * scale);
  }
}

// A new tensor with x's dims and element type T whose elements the caller writes.
template <class T, class X>
auto uninitialized_like(const X& x) {
  return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return tensor_internals::for_overwrite<tensor<T, Ds...>>(x.shape());
  }(std::type_identity<typename X::dims>{});
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
  for_each_position(x[dimgraph::at<D>(0)], out[dimgraph::at<D>(0)], n,
                    [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                      if (xs == 1 && os == 1) softmax_row<Log, true>(o, 1, xr, 1, n);
                      else softmax_row<Log, false>(o, os, xr, xs, n);
                    });
  return out;
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
  // Whether b (at a later position) replaces a.
  const auto better = [](auto b, auto a) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (std::is_floating_point_v<T>) return (Max ? a < b : b < a) | ((b != b) & (a == a));
    else return Max ? a < b : b < a;
  };
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

template <class D, bool Max, class X>
DIMGRAPH_ALWAYS_INLINE inline auto arg_extreme(const X& x) {
  using V = typename X::value_type;
  const auto first = x[dimgraph::at<D>(0)];
  auto out = uninitialized_like<index<D>>(first);
  const std::size_t n = x.template extent<D>();
  if (out.size() == 0) return out;
  const std::ptrdiff_t xs = x.template stride<D>();
  for_each_position(first, out.view(), n, [&](const V* xr, index<D>* o) DIMGRAPH_ALWAYS_INLINE {
    *o = index<D>(xs == 1 ? arg_extreme_row<Max, true>(xr, 1, n)
                          : arg_extreme_row<Max, false>(xr, xs, n));
  });
  return out;
}
}  // namespace detail

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite; an infinite m is taken as 0 (as PyTorch), so a row holding +inf
// gives +inf and a row of only -inf gives -inf. Integers compute in float. Shape rule: as
// sum. Over no elements (a reduced extent of 0) it is log(0) = -inf.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, expression X>
auto logsumexp(X&& x) {
  constexpr bool ok = detail::numeric_over<X, Rs...>();
  static_assert(ok,
                "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    using T = detail::fn::float_of_t<value_t<X>>;
    const auto xf = eval(cast<T>(x));
    const bool empty = ((x.template extent<Rs>() == 0) || ...);
    if (empty) return eval(log(sum<Rs...>(exp(xf))));
    const auto m = eval(max<Rs...>(xf));
    const auto shift = eval(where(equal(abs(m), std::numeric_limits<T>::infinity()), T(0), m));
    return eval(shift + log(sum<Rs...>(exp(xf - shift))));
  } else {
    return detail::invalid_expr{};
  }
}

// exp(x) / sum(exp(x)) over D, with the max subtracted first. Shape rule: x's dims.
template <class D, expression X>
DIMGRAPH_ALWAYS_INLINE inline auto softmax(X&& x) {
  constexpr bool ok = detail::numeric_over<X, D>();
  static_assert(ok,
                "dimgraph: softmax: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    if constexpr (detail::is_leaf_v<X>) return detail::softmax_rows<D, false>(x);
    else return detail::softmax_rows<D, false>(detail::materialize(x));
  } else {
    return detail::invalid_expr{};
  }
}

// x - logsumexp(x) over D, row by row as softmax. Shape rule: x's dims.
template <class D, expression X>
DIMGRAPH_ALWAYS_INLINE inline auto log_softmax(X&& x) {
  constexpr bool ok = detail::numeric_over<X, D>();
  static_assert(
      ok, "dimgraph: log_softmax: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    if constexpr (detail::is_leaf_v<X>) return detail::softmax_rows<D, true>(x);
    else return detail::softmax_rows<D, true>(detail::materialize(x));
  } else {
    return detail::invalid_expr{};
  }
}

// The first position of the largest (argmax) or smallest (argmin) element along D, as
// dg::index<D>; NaN counts as the most extreme value (the first NaN's position, as PyTorch).
// Shape rule: [x dims] -> [x dims without D].
// Error (run time): D has extent 0, so there is no position (shape_error).
#define DIMGRAPH_ARG_REDUCTION(NAME, MAX)                                                        \
  template <class D, expression X>                                                               \
  auto NAME(X&& x) {                                                                             \
    constexpr bool ok = detail::numeric_over<X, D>();                                            \
    static_assert(                                                                               \
        ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers"); \
    if constexpr (ok) {                                                                          \
      if (x.template extent<D>() == 0) detail::throw_empty_reduction<D>(#NAME, x);               \
      if constexpr (detail::is_leaf_v<X>) return detail::arg_extreme<D, MAX>(x);                 \
      else return detail::arg_extreme<D, MAX>(detail::materialize(x));                           \
    } else {                                                                                     \
      return detail::invalid_expr{};                                                             \
    }                                                                                            \
  }
DIMGRAPH_ARG_REDUCTION(argmax, true)
DIMGRAPH_ARG_REDUCTION(argmin, false)
#undef DIMGRAPH_ARG_REDUCTION

}  // namespace dimgraph
