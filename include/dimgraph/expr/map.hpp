// map_expr: the lazy element-wise node (one fused loop for a whole chain).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
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
// A lazy map node held by value is the member of an anonymous union: to GCC's points-to
// analysis the node it is in is then flat (it does not walk into unions), where a node N ops
// deep would otherwise be a struct nested N deep, every field of every such temporary of a
// chain walked (quadratic). Still an aggregate, read as a member: no function of its own per
// node, and the optimiser still sees which leaves are the same (a node read from bytes through
// std::launder would hide that, at one more load per leaf).
template <class T>
inline constexpr bool opaque_operand_v = !std::is_reference_v<T> && requires {
  typename T::operand_types;
} && std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>;
template <std::size_t I, class T>
  requires opaque_operand_v<T>
struct operand_slot<I, T> {
  union {
    T value;
  };
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
  if constexpr (!is_static_v<D> && list_contains_v<typename X::dims, D>)
    return x.template extent<D>();
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

// The extents of a map node's non-static dims, kept in the node: a query is one read, and
// what reads them is instantiated once per dim list, not once per node (a node's type names
// its whole subtree, so a function per node of a chain of N ops is N names of length up to
// N).
struct node_extents_tag {};
template <class Dims>
struct node_extents;
template <class... Ds>
struct node_extents<dim_list<Ds...>> : node_extents_tag {
  using dims = dim_list<Ds...>;
  static constexpr std::size_t dynamic = (std::size_t{!is_static_v<Ds>} + ... + 0);
  using array = std::array<std::size_t, dynamic>;

  // The dims that carry lengths (ragged, with their batch dim in the list): none, usually.
  static constexpr std::size_t ragged = (std::size_t{carries_lengths_v<Ds, dims>} + ... + 0);

  explicit node_extents(const array& e) : ext_(e) {}

  // The extent of D.
  template <class D>
  std::size_t extent() const {
    using d = std::remove_cvref_t<D>;
    static_assert(list_contains_v<dims, d>, "dimgraph: extent: the expression has no such dim");
    if constexpr (is_static_v<d>) return bounds_v<d>.lo;
    else return ext_[slot<d>()];
  }

  // The lengths of D (null: every entry full).
  template <class D>
  lengths_ref lengths() const {
    using d = std::remove_cvref_t<D>;
    if constexpr (carries_lengths_v<d, dims>) return len_[lslot<d>()];
    else return {};
  }

 protected:
  // The lengths of the operands xs merged (error: two operands with different lengths for a
  // dim, shape_error naming op and the dim).
  template <class... Xs>
  void merge_operand_lengths(const char* op, const Xs&... xs) {
    auto dim = [&]<class D>(std::type_identity<D>) {
      if constexpr (carries_lengths_v<D, dims>) {
        auto one = [&]<class X>(const X& x) {
          if constexpr (carries_lengths_v<D, typename X::dims>)
            merge_lengths<D>(op, len_[lslot<D>()], lengths_in<D>(x));
        };
        (one(xs), ...);
      }
    };
    (dim(std::type_identity<Ds>{}), ...);
  }
  template <class D>
  void set_lengths(lengths_ref l) {
    len_[lslot<D>()] = std::move(l);
  }

 private:
  template <class D>
  static constexpr std::size_t lslot() {
    std::size_t k = 0, at = 0;
    ((std::is_same_v<Ds, D> ? (at = k) : 0, k += carries_lengths_v<Ds, dims>), ...);
    return at;
  }
  template <class D>
  static constexpr std::size_t slot() {
    std::size_t k = 0, at = 0;
    ((std::is_same_v<Ds, D> ? (at = k) : 0, k += !is_static_v<Ds>), ...);
    return at;
  }
  array ext_;
  [[no_unique_address]] lengths_array<ragged> len_{};
};
template <class... Ds>
  requires((is_static_v<Ds> && ...))
struct node_extents<dim_list<Ds...>> : node_extents_tag {
  using dims = dim_list<Ds...>;
  static constexpr std::size_t dynamic = 0;
  static constexpr std::size_t ragged = 0;
  template <class D>
  static lengths_ref lengths() {
    return {};
  }
  using array = std::array<std::size_t, 0>;
  explicit node_extents(const array&) {}
  template <class D>
  static constexpr std::size_t extent() {
    static_assert(list_contains_v<dim_list<Ds...>, std::remove_cvref_t<D>>,
                  "dimgraph: extent: the expression has no such dim");
    return bounds_v<std::remove_cvref_t<D>>.lo;
  }
};

// What a node reads an operand's extents from: a map node's extents (shared by every node
// with its dims), anything else as it is.
template <class Dims>
const node_extents<Dims>& extents_source(const node_extents<Dims>& x) {
  return x;
}
template <class X>
  requires(!std::is_base_of_v<node_extents_tag, X>)
const X& extents_source(const X& x) {
  return x;
}

// Which of Ds... are non-static dims of X, and their extents in x (0 for the others).
template <class X, class... Ds>
constexpr std::array<bool, sizeof...(Ds)> dynamic_dims_in(std::type_identity<dim_list<Ds...>>) {
  return {(!is_static_v<Ds> && list_contains_v<typename X::dims, Ds>)...};
}
template <class... Ds, class X>
std::array<std::size_t, sizeof...(Ds)> dynamic_extents_in(std::type_identity<dim_list<Ds...>>,
                                                          const X& x) {
  return {dynamic_extent_or_zero<Ds>(x)...};
}

// The non-static extents of operands xs... over Ds..., in order; operands that share a
// non-static dim must agree on it (shape_error naming op, the dim and both extents).
template <class... Ds, class... Xs>
std::array<std::size_t, node_extents<dim_list<Ds...>>::dynamic> merge_extents(
    std::type_identity<dim_list<Ds...>>, const char* op, const Xs&... xs) {
  constexpr std::size_t K = sizeof...(Xs), R = sizeof...(Ds);
  using result = std::array<std::size_t, node_extents<dim_list<Ds...>>::dynamic>;
  if constexpr (node_extents<dim_list<Ds...>>::dynamic == 0) {
    return result{};
  } else {
    using dims = std::type_identity<dim_list<Ds...>>;
    constexpr std::array<std::array<bool, R>, K> has{dynamic_dims_in<Xs>(dims{})...};
    const std::array<std::array<std::size_t, R>, K> ext{dynamic_extents_in(dims{}, xs)...};
    constexpr bool shared = [&] {
      for (std::size_t d = 0; d < R; ++d) {
        std::size_t n = 0;
        for (std::size_t k = 0; k < K; ++k) n += has[k][d];
        if (n > 1) return true;
      }
      return false;
    }();
    if constexpr (shared) check_operand_extents<K, R>(op, ext, has, {&describe<Ds>...});
    // Dim d's extent comes from operand source[d] (K: none has it) and goes to r[place[d]]:
    // constants, so every index into r is one (a counter through a run-time loop made g++ -O2
    // warn of r[1] in a one-element r, -Warray-bounds).
    constexpr std::array<std::size_t, R> source = [&] {
      std::array<std::size_t, R> s{};
      for (std::size_t d = 0; d < R; ++d) {
        s[d] = K;
        for (std::size_t k = K; k-- > 0;)
          if (has[k][d]) s[d] = k;
      }
      return s;
    }();
    constexpr std::array<std::size_t, R> place = [&] {
      std::array<std::size_t, R> p{};
      for (std::size_t d = 0, at = 0; d < R; ++d) {
        p[d] = at;
        at += source[d] < K;
      }
      return p;
    }();
    result r{};
    for_each_index<R>([&]<std::size_t D>(index_constant<D>) {
      if constexpr (source[D] < K) r[place[D]] = ext[source[D]][D];
    });
    return r;
  }
}

}  // namespace detail

template <class F, class... Ds, class... Ops>
class map_expr<F, dim_list<Ds...>, Ops...> : public expr_node_base,
                                             public detail::node_extents<dim_list<Ds...>> {
  using extents_base = detail::node_extents<dim_list<Ds...>>;

 public:
  using dims = dim_list<Ds...>;
  using value_type = typename F::template result_t<value_t<Ops>...>;
  using operand_types = std::tuple<Ops...>;  // (as held: a reference or a value)
  static constexpr const char* name = detail::op_name<F>();

  // (The extents are checked and kept before the operands are taken.)
  template <class... Args>
  explicit map_expr(F f, Args&&... args)
      : extents_base(detail::merge_extents(std::type_identity<dims>{}, name,
                                           detail::extents_source(std::as_const(args))...)),
        f_(std::move(f)),
        ops_{{std::forward<Args>(args)}...} {
    if constexpr (extents_base::ragged > 0)
      detail::with_indices<sizeof...(Ops)>([&]<std::size_t... Is>(detail::index_constant<Is>...) {
        this->merge_operand_lengths(name, detail::operand_at<Is>(ops_)...);
      });
  }

  // The extent of D (kept in the node).
  using extents_base::extent;

  const F& fn() const { return f_; }
  template <std::size_t I>
  const auto& operand() const {
    return detail::operand_at<I>(ops_);
  }

 private:
  // Naming the operands' evaluators instantiates them now, bottom-up as the expression is
  // built, so that evaluating a deep chain never nests their instantiations.
  static_assert(((detail::evaluator_of<Ops>::program::size > 0) && ...));

  friend struct detail::evaluator<map_expr>;  // (walks ops_ without a function per operand)
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
    (evaluator_of<Ops>::walk(static_cast<const operand_slot<Ks, Ops>&>(e.ops_).value, w), ...);
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
