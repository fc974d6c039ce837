// map_expr: the lazy element-wise node (one fused loop for a whole chain).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/expr/evaluator.hpp"
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

namespace detail {
// The operands of a node: an aggregate whose bases hold one operand each, built in place
// from the node's arguments (std::tuple's converting constructors are a dozen functions per
// node, and a chain of N ops instantiates them N times).
template <std::size_t I, class T>
struct operand_slot {
  T value;
};
template <class Is, class... Ts>
struct operand_pack_impl;
template <std::size_t... Is, class... Ts>
struct operand_pack_impl<std::index_sequence<Is...>, Ts...> : operand_slot<Is, Ts>... {};
template <class... Ts>
using operand_pack = operand_pack_impl<std::index_sequence_for<Ts...>, Ts...>;
template <std::size_t I, class T>
constexpr const std::remove_reference_t<T>& operand_at(const operand_slot<I, T>& slot) {
  return slot.value;
}

// Two operands of `op` disagree on the extent of a dim (cold, out of line, and shared by every
// node: a long chain carries one call per dim, not one message builder per node).
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_operand_extents(
    const char* op, std::string (*dim)(), std::size_t first, std::size_t first_at,
    std::size_t other, std::size_t other_at) {
  throw shape_error(op, "dim '" + dim() + "' has extent " + std::to_string(first) + " in operand " +
                            std::to_string(first_at + 1) + " and " + std::to_string(other) +
                            " in operand " + std::to_string(other_at + 1));
}
// x's extent of D when D is a non-static dim of x, else 0.
template <class D, class X>
std::size_t dynamic_extent_or_zero(const X& x) {
  if constexpr (!is_static_v<D> && list_contains_v<dims_t<X>, D>) return x.template extent<D>();
  else return 0;
}

// Checks that operands agree on the extents of shared dims: ext[k][d] is operand k's extent
// of dim d where has[k][d]. Error: shape_error naming the op, the dim and both extents.
template <std::size_t K, std::size_t R>
DIMGRAPH_ALWAYS_INLINE inline void check_operand_extents(
    const char* op, const std::array<std::array<std::size_t, R>, K>& ext,
    const std::array<std::array<bool, R>, K>& has,
    const std::array<std::string (*)(), R>& dim_names) {
  for (std::size_t d = 0; d < R; ++d) {
    std::size_t first_at = K;
    for (std::size_t k = 0; k < K; ++k) {
      if (!has[k][d]) continue;
      if (first_at == K) first_at = k;
      else if (ext[k][d] != ext[first_at][d])
        throw_operand_extents(op, dim_names[d], ext[first_at][d], first_at, ext[k][d], k);
    }
  }
}

}  // namespace detail

template <class F, class... Ds, class... Ops>
class map_expr<F, dim_list<Ds...>, Ops...> : public expr_node_base {
 public:
  using dims = dim_list<Ds...>;
  using value_type = typename F::template result_t<value_t<Ops>...>;
  using operand_types = std::tuple<Ops...>;  // (as held: a reference or a value)
  static constexpr const char* name = detail::op_name<F>();

 private:
  // (steps, operand) of the operand with D nearest to a tensor.
  template <class D>
  static constexpr std::pair<std::size_t, std::size_t> steps_to() {
    std::pair<std::size_t, std::size_t> best{static_cast<std::size_t>(-1), 0};
    std::size_t i = 0;
    (
        [&] {
          using op = std::remove_cvref_t<Ops>;
          if constexpr (list_contains_v<dims_t<op>, D>) {
            std::size_t steps = 0;
            if constexpr (requires { op::extent_steps; })
              steps = op::extent_steps[list_index_of_v<dims_t<op>, D>];
            if (steps < best.first) best = {steps, i};
          }
          ++i;
        }(),
        ...);
    return best;
  }
  static constexpr std::array<std::size_t, sizeof...(Ds) + 1> nearest_{steps_to<Ds>().second..., 0};
  // (Used here, so they are computed as the node's type is made, bottom-up; computed on first
  // use at the top of a deep chain they would nest one instantiation per node.)
  static_assert(nearest_[sizeof...(Ds)] == 0);

 public:
  template <class... Args>
  explicit map_expr(F f, Args&&... args) : f_(std::move(f)), ops_{{std::forward<Args>(args)}...} {
    if constexpr (shared_dynamic_dims) check_extents(std::index_sequence_for<Ops...>{});
  }

  // The extent of D, read from the operand that reaches a tensor with D in the fewest steps
  // (the node keeps no extents: a deep chain's nodes stay small, and each query is a walk
  // of a few nodes, not of the chain).
  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (is_static_v<d>) return bounds_v<d>.lo;
    else {
      constexpr std::size_t at = nearest_[list_index_of_v<dims, d>];
      return operand<at>().template extent<d>();
    }
  }
  // For each dim, how many nodes a query of its extent walks (0 for a tensor).
  static constexpr std::array<std::size_t, sizeof...(Ds) + 1> extent_steps{
      1 + steps_to<Ds>().first..., 0};
  static_assert(extent_steps[sizeof...(Ds)] == 0);

  const F& fn() const { return f_; }
  template <std::size_t I>
  const auto& operand() const {
    return detail::operand_at<I>(ops_);
  }

 private:
  // Naming the operands' evaluators instantiates them now, bottom-up as the expression is
  // built, so that evaluating a deep chain never nests their instantiations.
  static_assert(((detail::evaluator_of<Ops>::program::size > 0) && ...));

  // Whether two operands share a non-static dim (whose extents must then agree).
  template <class D>
  static constexpr std::size_t holders() {
    return is_static_v<D> ? 0 : (std::size_t{list_contains_v<dims_t<Ops>, D>} + ... + 0);
  }
  template <class Op>
  static constexpr std::array<bool, sizeof...(Ds)> dynamic_dims_of() {
    return {(!is_static_v<Ds> && list_contains_v<dims_t<Op>, Ds>)...};
  }
  static constexpr bool shared_dynamic_dims = ((holders<Ds>() > 1) || ...);
  template <std::size_t K>
  std::array<std::size_t, sizeof...(Ds)> operand_extents() const {
    return {detail::dynamic_extent_or_zero<Ds>(operand<K>())...};
  }
  template <std::size_t... Ks>
  void check_extents(std::index_sequence<Ks...>) const {
    detail::check_operand_extents<sizeof...(Ops), sizeof...(Ds)>(
        name, {operand_extents<Ks>()...}, {dynamic_dims_of<Ops>()...}, {&describe<Ds>...});
  }

  [[no_unique_address]] F f_;
  detail::operand_pack<Ops...> ops_;
};

namespace detail {

// The instruction of a map node whose operands' programs have sizes Ns...: operand J's result
// is 1 + (the sizes of the operands after J) places before it.
template <class F, class V, class Args, class Js, std::size_t... Ns>
struct map_instruction;
template <class F, class V, class Args, std::size_t... Js, std::size_t... Ns>
struct map_instruction<F, V, Args, std::index_sequence<Js...>, Ns...> {
  static constexpr std::array<std::size_t, sizeof...(Ns)> sizes{Ns...};
  static constexpr std::size_t distance(std::size_t j) {
    std::size_t d = 1;
    for (std::size_t k = j + 1; k < sizes.size(); ++k) d += sizes[k];
    return d;
  }
  using type = apply_op<F, V, Args, distance(Js)...>;
};

// F over the operands' results: the operands' programs, then one instruction.
template <class F, class Dims, class... Ops>
struct evaluator<map_expr<F, Dims, Ops...>> {
  using node = map_expr<F, Dims, Ops...>;
  using value_type = typename node::value_type;
  using instruction = typename map_instruction<F, value_type, type_list<value_t<Ops>...>,
                                               std::index_sequence_for<Ops...>,
                                               evaluator_of<Ops>::program::size...>::type;
  using program = concat_t<typename evaluator_of<Ops>::program..., type_list<instruction>>;
  using layouts = typename set_union_all<typename evaluator_of<Ops>::layouts...>::type;
  static constexpr std::size_t lane_bytes = [] {
    std::size_t m = sizeof(simd::lane_t<value_type>);
    ((m = evaluator_of<Ops>::lane_bytes > m ? evaluator_of<Ops>::lane_bytes : m), ...);
    return m;
  }();
  static constexpr bool static_layout = (evaluator_of<Ops>::static_layout && ...);
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = (evaluator_of<Ops>::has_temporaries || ...);

  static void walk(const node& e, walker& w) {
    walk_operands(e, w, std::index_sequence_for<Ops...>{});
    if constexpr (instruction::stateful) w.add_state(&e.fn());
  }
  // (Used here, so the facts and the walk are made as the node's type is, bottom-up, not all
  // at once, nested, on first use at the top of a deep chain.)
  static_assert(known(program::size, lane_bytes, static_layout, has_temporaries, &walk));

 private:
  template <std::size_t... Ks>
  static void walk_operands(const node& e, walker& w, std::index_sequence<Ks...>) {
    (evaluator_of<Ops>::walk(e.template operand<Ks>(), w), ...);
  }
};

}  // namespace detail

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
