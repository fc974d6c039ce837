// map_expr: the lazy element-wise node (one fused loop for a whole chain).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/expr/node.hpp"

namespace dimgraph {

// F applied element by element to operands aligned by tag. Dims is the result's dim
// list: the dims of the operand that contains every other operand's dims.
// Error: a shared non-static dim with different extents in two operands (shape_error,
// thrown when the node is made, before anything is written).
template <class F, class Dims, class... Ops>
class map_expr;

namespace detail {
template <class F>
constexpr const char* op_name() {
  if constexpr (requires { F::name; }) return F::name;
  else return "map";
}
}  // namespace detail

template <class F, class... Ds, class... Ops>
class map_expr<F, dim_list<Ds...>, Ops...> : public expr_node_base {
 public:
  using dims = dim_list<Ds...>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, value_t<Ops>...>>;
  static constexpr const char* name = detail::op_name<F>();

  template <class... Args>
  explicit map_expr(F f, Args&&... args) : f_(std::move(f)), ops_(std::forward<Args>(args)...) {
    (check_dim<Ds>(), ...);
  }

  template <class D>
  std::size_t extent() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return extent_from<std::remove_cvref_t<D>>(std::index_sequence_for<Ops...>{});
  }

  const F& fn() const { return f_; }
  const std::tuple<Ops...>& operands() const { return ops_; }

 private:
  template <class D, std::size_t... Is>
  std::size_t extent_from(std::index_sequence<Is...>) const {
    std::size_t e = 0;
    bool found = false;
    ((!found && list_contains_v<dims_t<Ops>, D> ? (e = operand_extent<D, Is>(), found = true)
                                                : false),
     ...);
    return e;
  }
  template <class D, std::size_t I>
  std::size_t operand_extent() const {
    if constexpr (list_contains_v<dims_t<std::tuple_element_t<I, std::tuple<Ops...>>>, D>)
      return std::get<I>(ops_).template extent<D>();
    else return 0;
  }
  // Every operand with a non-static D must agree on its extent.
  template <class D>
  void check_dim() const {
    if constexpr (!is_static_v<D>) check_dim_in<D>(std::index_sequence_for<Ops...>{});
  }
  template <class D, std::size_t... Is>
  void check_dim_in(std::index_sequence<Is...>) const {
    std::size_t first = 0, first_at = 0;
    bool seen = false;
    auto visit = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      if constexpr (list_contains_v<dims_t<std::tuple_element_t<I, std::tuple<Ops...>>>, D>) {
        std::size_t e = std::get<I>(ops_).template extent<D>();
        if (!seen) {
          first = e;
          first_at = I;
          seen = true;
        } else if (e != first) {
          throw shape_error(name, "dim '" + describe<D>() + "' has extent " +
                                      std::to_string(first) + " in operand " +
                                      std::to_string(first_at + 1) + " and " + std::to_string(e) +
                                      " in operand " + std::to_string(I + 1));
        }
      }
    };
    (visit(std::integral_constant<std::size_t, Is>{}), ...);
  }

  [[no_unique_address]] F f_;
  std::tuple<Ops...> ops_;
};

namespace detail {

// A scalar operand becomes a scalar_expr of the type it combines in.
template <class Other, class X>
decltype(auto) as_operand(X&& x) {
  if constexpr (expression<X>) return std::forward<X>(x);
  else
    return scalar_expr<promote_scalar_t<value_t<Other>, std::remove_cvref_t<X>>>{
        {}, static_cast<promote_scalar_t<value_t<Other>, std::remove_cvref_t<X>>>(x)};
}

// The node for f over operands xs (expressions), dims from the containing operand.
template <class F, class... Xs>
auto make_map(F f, Xs&&... xs) {
  constexpr std::size_t at = containing_operand<dims_t<Xs>...>();
  using result_dims = dims_t<std::tuple_element_t<at, std::tuple<Xs...>>>;
  return map_expr<F, result_dims, operand_t<Xs&&>...>(std::move(f), std::forward<Xs>(xs)...);
}

}  // namespace detail
}  // namespace dimgraph
