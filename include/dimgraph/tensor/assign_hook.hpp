// The assignment hook: how a tensor or a view takes the value of an expression (declared here,
// defined in eval/assign.hpp).
#pragma once

#include <type_traits>

namespace dimgraph::detail {

// Whether a tensor or a view can take the value of an E (be made from it, be assigned it).
// Each layer says which of its types qualify: tensors and views (tensor.hpp), lazy nodes and
// the stand-in for a reported mistake (expr/node.hpp), so that this one need not know them.
template <class E>
inline constexpr bool assign_source_v = false;
template <class E>
concept assign_source = assign_source_v<std::remove_cvref_t<E>>;

// dst = e, for Dst a tensor or a const tensor_view (a view is a reference: writing through it
// leaves it const) and E an assign_source. The tensor layer calls it; eval/assign.hpp defines
// it, once for every kind of expression, as a specialisation for every assign_source. Without
// that header the call finds this primary template, which says what to include.
// (The message is one class's, void for every Dst and E, so that a translation unit gets it
// once however many expressions it evaluates: the mistake is one missing include.)
template <class Void>
struct assign_header_missing {
  static_assert(!std::is_void_v<Void>,
                "dimgraph: assign: evaluating an expression needs <dimgraph/eval/assign.hpp> (or "
                "<dimgraph.hpp>)");
};
template <class Dst, class E>
struct assign_hook {
  static_assert(sizeof(assign_header_missing<std::conditional_t<true, void, E>>) != 0);
  // dst = e: a tensor takes e's extents, a view must have them already.
  static void assign(Dst& dst, const E& e);
  // A tensor under construction (no shape yet, elements uninitialised) made from e.
  static void construct(Dst& dst, const E& e);
};

}  // namespace dimgraph::detail
