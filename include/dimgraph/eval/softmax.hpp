// Composite reductions: logsumexp, softmax, log_softmax, argmax, argmin (evaluated eagerly).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/compound.hpp"
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
// extents, any strides): the pointers to the two elements there.
template <class A, class B, class F>
void for_each_position(const A& a, const B& b, F f) {
  constexpr std::size_t rank = A::rank;
  if constexpr (rank == 0) {
    f(a.data(), b.data());
  } else {
    const auto ext = a.shape().extents();
    for (std::size_t e : ext)
      if (e == 0) return;
    const auto& sa = a.strides();
    const auto& sb = b.strides();
    std::array<std::size_t, rank> idx{};
    std::ptrdiff_t oa = 0, ob = 0;
    for (;;) {
      f(a.data() + oa, b.data() + ob);
      std::size_t k = rank;
      for (;;) {
        if (k == 0) return;
        --k;
        oa += sa[k];
        ob += sb[k];
        if (++idx[k] < ext[k]) break;
        oa -= sa[k] * static_cast<std::ptrdiff_t>(ext[k]);
        ob -= sb[k] * static_cast<std::ptrdiff_t>(ext[k]);
        idx[k] = 0;
      }
    }
  }
}

// Softmax (or, with Log, log-softmax) of one row of n elements (x steps by xs, o by os): the
// max, exp(x - max) and its sum, then the division (or x - max - log(sum)); the element
// functions of max, sub, exp, sum, div and log.
template <bool Log, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row(T* o, std::ptrdiff_t os, const V* x,
                                               std::ptrdiff_t xs, std::size_t n) {
  const auto at = [](std::size_t i, std::ptrdiff_t s) {
    return static_cast<std::ptrdiff_t>(i) * s;
  };
  V m = fn::max_reduce::identity<V>();
  for (std::size_t i = 0; i < n; ++i) m = fn::max_reduce::combine(m, x[at(i, xs)]);
  T sum = T(0);
  for (std::size_t i = 0; i < n; ++i) {
    const T d = fn::sub{}(static_cast<T>(x[at(i, xs)]), static_cast<T>(m));
    const T e = fn::exp{}(d);
    o[at(i, os)] = Log ? d : e;
    sum = fn::sum_reduce::combine(sum, e);
  }
  if constexpr (Log) {
    const T log_sum = fn::log{}(sum);
    for (std::size_t i = 0; i < n; ++i) o[at(i, os)] = fn::sub{}(o[at(i, os)], log_sum);
  } else {
    for (std::size_t i = 0; i < n; ++i) o[at(i, os)] = fn::div{}(o[at(i, os)], sum);
  }
}

// Softmax over D of a tensor or view, row by row: each row (all of D at one position of
// the other dims) is read and written while it is in cache, in three short passes.
template <class D, bool Log, class X>
auto softmax_rows(const X& x) {
  using V = typename X::value_type;
  using T = fn::float_of_t<V>;
  auto out = [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<T, Ds...>(x.shape());
  }(static_cast<typename X::dims*>(nullptr));
  const std::size_t n = x.template extent<D>();
  if (n == 0 || out.size() == 0) return out;
  const std::ptrdiff_t xs = x.template stride<D>(), os = out.template stride<D>();
  for_each_position(x[dimgraph::at<D>(0)], out[dimgraph::at<D>(0)], [&](const V* xr, T* o) {
    if (xs == 1 && os == 1) softmax_row<Log>(o, 1, xr, 1, n);  // vectorisable
    else softmax_row<Log>(o, os, xr, xs, n);
  });
  return out;
}

// positions along D: 0, 1, ..., extent - 1
template <class D>
tensor<std::int64_t, D> positions(std::size_t n) {
  tensor<std::int64_t, D> p(extent<D>(n));
  for (std::size_t i = 0; i < n; ++i) p.data()[i] = static_cast<std::int64_t>(i);
  return p;
}
}  // namespace detail

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite. Shape rule: as sum. Result: a tensor of floating type; over
// no elements (a reduced extent of 0) it is log(0) = -inf.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, expression X>
auto logsumexp(X&& x) {
  constexpr bool ok = detail::numeric_over<X, Rs...>();
  static_assert(ok,
                "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    const auto m =
        detail::materialize(reduce_expr<detail::fn::running_max_reduce, operand_t<X&>, Rs...>(x));
    return eval(m + log(sum<Rs...>(exp(x - m))));
  } else {
    return detail::invalid_expr{};
  }
}

// exp(x) / sum(exp(x)) over D, with the max subtracted first. Shape rule: x's dims.
template <class D, expression X>
auto softmax(X&& x) {
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
auto log_softmax(X&& x) {
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
// dg::index<D>. Shape rule: [x dims] -> [x dims without D].
// Error (run time): D has extent 0, so there is no position (shape_error).
#define DIMGRAPH_ARG_REDUCTION(NAME, EXTREME)                                                    \
  template <class D, expression X>                                                               \
  auto NAME(X&& x) {                                                                             \
    constexpr bool ok = detail::numeric_over<X, D>();                                            \
    static_assert(                                                                               \
        ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers"); \
    if constexpr (ok) {                                                                          \
      const std::size_t n = x.template extent<D>();                                              \
      if (n == 0) detail::throw_empty_reduction<D>(#NAME, x);                                    \
      const auto best = detail::materialize(EXTREME<D>(x));                                      \
      const auto pos = detail::positions<D>(n);                                                  \
      const auto first =                                                                         \
          detail::materialize(min<D>(where(equal(x, best), pos, static_cast<std::int64_t>(n)))); \
      return eval(cast<index<D>>(first));                                                        \
    } else {                                                                                     \
      return detail::invalid_expr{};                                                             \
    }                                                                                            \
  }
DIMGRAPH_ARG_REDUCTION(argmax, max)
DIMGRAPH_ARG_REDUCTION(argmin, min)
#undef DIMGRAPH_ARG_REDUCTION

}  // namespace dimgraph
