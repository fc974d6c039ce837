// broadcast_expr, and the nodes of broadcast_to and outer: operands read along dims they lack.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/expr/evaluator.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/map.hpp"

namespace dimgraph {

// x read as a tensor with dims Ds... (a superset of x's dims, in any order); the new
// dims repeat x (stride 0: never materialised). Extents of new non-static dims are given.
template <class X, class... Ds>
class broadcast_expr : public expr_node_base {
 public:
  using dims = dim_list<Ds...>;
  using value_type = value_t<X>;

  template <class Arg>
  broadcast_expr(Arg&& x, const std::array<std::size_t, sizeof...(Ds)>& new_extents)
      : x_(std::forward<Arg>(x)), extents_(new_extents) {}

  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (list_contains_v<dims_t<X>, d>) return x_.template extent<d>();
    else return extents_[list_index_of_v<dims, d>];
  }
  // The lengths of D: the operand's (a new dim has every entry full).
  template <class D>
  lengths_ref lengths() const {
    return detail::lengths_in<std::remove_cvref_t<D>>(x_);
  }
  const std::remove_cvref_t<X>& operand() const { return x_; }

 private:
  static_assert(detail::evaluator_of<X>::program::size > 0);  // (instantiated now)
  X x_;
  std::array<std::size_t, sizeof...(Ds)> extents_;
};

namespace detail {
// The operand's program: its leaves simply do not step along the new dims.
template <class X, class... Ds>
struct evaluator<broadcast_expr<X, Ds...>> : evaluator_of<X> {
  static void walk(const broadcast_expr<X, Ds...>& e, walker& w) {
    evaluator_of<X>::walk(e.operand(), w);
  }
  static constexpr bool static_layout = evaluator_of<X>::static_layout && (is_static_v<Ds> && ...);
  static_assert(known(static_layout, &walk));
};

// x read with the dims Ds... (broadcast_to's checks passed): the given extents checked
// against x's and the new dims' intervals, the element count against what a tensor can
// address (shape_error), then the node.
template <class... Ds, class X, class... Es>
auto make_broadcast(X&& x, extent_arg<Es>... given) {
  using xd = dims_t<X>;
  using target = dim_list<Ds...>;
  std::array<std::size_t, sizeof...(Ds)> ext{bounds_v<Ds>.lo...};
  [[maybe_unused]] auto take = [&]<class E>(extent_arg<E> g) {
    if constexpr (list_contains_v<xd, E>) {
      const std::size_t have = x.template extent<E>();
      if (g.value != have)
        throw shape_error("broadcast_to", "dim '" + describe<E>() + "' has extent " +
                                              std::to_string(have) + " in the operand, but " +
                                              std::to_string(g.value) + " is given");
    } else if constexpr (list_contains_v<target, E>) {
      ext[list_index_of_v<target, E>] = checked_extent<E>("broadcast_to", g.value);
    }
  };
  (take(given), ...);
  auto extent_of = [&]<class D>(std::type_identity<D>, std::size_t new_extent) {
    if constexpr (list_contains_v<xd, D>) return x.template extent<D>();
    else return new_extent;
  };
  check_elements<Ds...>("broadcast_to",
                        {extent_of(std::type_identity<Ds>{}, ext[list_index_of_v<target, Ds>])...});
  return broadcast_expr<operand_t<X&&>, Ds...>(std::forward<X>(x), ext);
}

// f over every pair of elements of a and b aligned by their shared dims (outer's node): the
// element count checked (shape_error), then the node.
template <class A, class B, class F>
auto make_outer(A&& a, B&& b, F f) {
  using result_dims = list_union_t<dims_t<A>, dims_t<B>>;
  [&]<class... Rs>(dim_list<Rs...>) {
    auto extent_of = [&]<class D>(std::type_identity<D>) {
      if constexpr (list_contains_v<dims_t<A>, D>) return a.template extent<D>();
      else return b.template extent<D>();
    };
    check_elements<Rs...>("outer", {extent_of(std::type_identity<Rs>{})...});
  }(result_dims{});
  return map_expr<fn::functor_t<F>, result_dims, operand_t<A&&>, operand_t<B&&>>(
      fn::as_functor(std::move(f)), std::forward<A>(a), std::forward<B>(b));
}
}  // namespace detail

}  // namespace dimgraph
