// Compound assignment: x += e means x = x + e, evaluated in place (exact aliasing).
#pragma once

#include <utility>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/ops/elementwise.hpp"

namespace dimgraph {

// x op= e. Shape rule: e's dims must be a subset of x's (x keeps its dims).
#define DIMGRAPH_COMPOUND(OP, NAME)                                                                \
  template <class X, class E>                                                                      \
    requires detail::memory_operand<X> && (expression<E> || scalar<E> || detail::poisoned<E>)      \
  X&& operator OP##=(X&& x, E&& e) {                                                               \
    if constexpr (!detail::poisoned<E>) {                                                          \
      static_assert(list_is_subset_v<detail::operand_dims_t<E>, dims_t<X>>,                        \
                    "dimgraph: " NAME ": the right-hand side has a dim the left-hand side lacks"); \
      x = std::as_const(x) OP std::forward<E>(e);                                                  \
    }                                                                                              \
    return std::forward<X>(x);                                                                     \
  }
DIMGRAPH_COMPOUND(+, "add")
DIMGRAPH_COMPOUND(-, "sub")
DIMGRAPH_COMPOUND(*, "mul")
DIMGRAPH_COMPOUND(/, "div")
#undef DIMGRAPH_COMPOUND

}  // namespace dimgraph
