// Composite reductions: logsumexp, softmax, log_softmax, argmax, argmin (evaluated eagerly).
#pragma once

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
// positions along D: 0, 1, ..., extent - 1
template <class D>
tensor<std::int64_t, D> positions(std::size_t n) {
  tensor<std::int64_t, D> p(extent<D>(n));
  for (std::size_t i = 0; i < n; ++i) p.data()[i] = static_cast<std::int64_t>(i);
  return p;
}
}  // namespace detail

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite. Shape rule: as sum. Result: a tensor of floating type.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, expression X>
auto logsumexp(X&& x) {
  constexpr bool ok = detail::numeric_over<X, Rs...>();
  static_assert(ok,
                "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    const auto m = detail::materialize(max<Rs...>(x));
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
    const auto m = detail::materialize(max<D>(x));
    auto e = detail::materialize(exp(x - m));
    e /= sum<D>(e);
    return e;
  } else {
    return detail::invalid_expr{};
  }
}

// x - logsumexp(x) over D. Shape rule: x's dims.
template <class D, expression X>
auto log_softmax(X&& x) {
  constexpr bool ok = detail::numeric_over<X, D>();
  static_assert(
      ok, "dimgraph: log_softmax: the tensor has no such dim, or its elements are not numbers");
  if constexpr (ok) {
    using real = detail::fn::float_of_t<value_t<X>>;
    const auto m = detail::materialize(max<D>(x));
    auto r = detail::materialize(cast<real>(x - m));
    r -= log(sum<D>(exp(r)));
    return r;
  } else {
    return detail::invalid_expr{};
  }
}

// The first position of the largest (argmax) or smallest (argmin) element along D, as
// dg::index<D>. Shape rule: [x dims] -> [x dims without D].
#define DIMGRAPH_ARG_REDUCTION(NAME, EXTREME)                                                    \
  template <class D, expression X>                                                               \
  auto NAME(X&& x) {                                                                             \
    constexpr bool ok = detail::numeric_over<X, D>();                                            \
    static_assert(                                                                               \
        ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers"); \
    if constexpr (ok) {                                                                          \
      const std::size_t n = x.template extent<D>();                                              \
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
