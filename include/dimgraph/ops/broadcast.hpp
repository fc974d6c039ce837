// broadcast_to and outer: the explicit ways to combine operands whose dims do not nest.
#pragma once

#include <utility>

#include "dimgraph/expr/broadcast.hpp"

namespace dimgraph {

// broadcast_to<Ds...>(x, dg::extent<D>(n)...): Shape rule [x dims] -> [Ds...].
// Extents are given for new non-static dims, and may be given for x's own dims
// (they must then be x's). Errors (compile time): Ds... lacks one of x's dims;
// a new non-static dim without an extent; an extent given for a dim not in
// Ds..., or twice. Errors (run time, shape_error): a given extent of one of x's
// dims that is not x's extent; a new dim's extent outside its interval; more elements than a
// tensor can address (though none is stored, so that counts over them cannot wrap).
template <class... Ds, detail::expression_or_poisoned X, class... Es>
auto broadcast_to(X&& x, extent_arg<Es>... given) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    using xd = dims_t<X>;
    using target = dim_list<Ds...>;
    static_assert(list_is_subset_v<xd, target>,
                  "dimgraph: broadcast_to: the target dims must include every dim of the operand");
    static_assert(
        ((is_static_v<Ds> || list_contains_v<xd, Ds> ||
          detail::contains_v<Ds, detail::type_list<Es...>>)&&...),
        "dimgraph: broadcast_to: a new non-static dim needs its extent: dg::extent<Dim>(n)");
    static_assert((list_contains_v<target, Es> && ...),
                  "dimgraph: broadcast_to: an extent is given for a dim that is not a target dim");
    static_assert(detail::first_duplicate_v<detail::type_list<Es...>> == sizeof...(Es),
                  "dimgraph: broadcast_to: an extent is given twice");
    return detail::make_broadcast<Ds...>(std::forward<X>(x), given...);
  }
}

// outer(a, b, f = multiply): f over every pair of elements of a and b aligned by the
// dims they share. Shape rule: [a dims] , [b dims] -> [a dims, b dims not in a].
// Error (run time): more elements than a tensor can address (shape_error).
template <class A, class B, class F = detail::fn::mul>
  requires(expression<A> && expression<B>) || detail::any_poisoned<A, B>
auto outer(A&& a, B&& b, F f = {}) {
  if constexpr (detail::any_poisoned<A, B>) {
    return detail::invalid_expr{};
  } else {
    return detail::make_outer(std::forward<A>(a), std::forward<B>(b), std::move(f));
  }
}

}  // namespace dimgraph
