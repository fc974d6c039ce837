// evaluator<E>: how each kind of expression is evaluated — its leaves, its per-lane kernel,
// and the builder that fills the flat leaf table of an assignment.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/tensor/tensor.hpp"

// An expression is evaluated against a flat description of its memory operands (its
// "leaves": tensors, views and evaluated temporaries, numbered in visiting order) and a
// kernel: a tree of small structs mirroring the expression that holds only functions and
// scalar values, no pointers and no loop state. A kernel computes L lanes at position i of
// the current row: packet<I, V, L>(row, i), where I is the number of leaves before it and V
// the number of views before it; the row (eval/) knows where each leaf is.
//
// Owning tensors are row-major, and tensors with the same dims in one expression have the
// same extents, so they have the same strides: the loop planner treats each distinct dim
// list of owning leaves (a "layout") as one operand, and each view as one. A chain over
// five tensors and a bias is a plan with three operands, whatever its length.
//
// Every node kind has one evaluator specialisation, holding together
//   kernel            the kernel type
//   leaves, views     how many leaves and views the node has
//   layouts           the distinct dim lists of its owning leaves (a type_list)
//   lane_bytes        the widest lane in the node's kernel (sets the vector length)
//   static_layout     every leaf is an all-static owning tensor (the plan is a constant)
//   needs_temporary   the node is evaluated into a tensor of its own when it is the operand
//                     of an element-wise op (a reduction, a contraction)
//   has_temporaries   the node or one below it needs a temporary
//   build<I, V>(e, table) -> kernel   records e's leaves in the table and makes the kernel.
// A node's evaluator is instantiated when the node's type is (map_expr names its operands'
// evaluators), so a chain of N ops never nests N instantiations.
namespace dimgraph::detail {

template <class E>
struct evaluator;  // specialised next to each node kind

template <class E>
using evaluator_of = evaluator<std::remove_cvref_t<E>>;

// set_union_t<A, B>: A's elements, then those of B not in A (type_lists).
template <class A, class B>
struct set_union;
template <class A, class... Bs>
struct set_union<A, type_list<Bs...>> {
  using type = concat_t<A, std::conditional_t<contains_v<Bs, A>, type_list<>, type_list<Bs>>...>;
};
template <class A, class B>
using set_union_t = typename set_union<A, B>::type;
template <class... Ls>
struct set_union_all {
  using type = type_list<>;
};
template <class L, class... Ls>
struct set_union_all<L, Ls...> {
  using type = set_union_t<L, typename set_union_all<Ls...>::type>;
};

// A memory leaf: loads from the current row of leaf I (view V when it is a view).
template <class T, class Dims, bool View>
struct leaf_kernel {
  using value_type = T;
  static constexpr std::size_t leaves = 1;
  static constexpr std::size_t views = View ? 1 : 0;
  template <std::size_t I, std::size_t V, std::size_t L, class Row>
  DIMGRAPH_ALWAYS_INLINE fn::lanes_t<T, L> packet(const Row& row, std::size_t i) const {
    return row.template load<I, V, T, Dims, View, L>(i);
  }
};

// The evaluator of memory of element type T with dims Dims.
template <class T, class Dims, bool Static, bool View>
struct leaf_evaluator {
  using kernel = leaf_kernel<T, Dims, View>;
  using layouts = std::conditional_t<View, type_list<>, type_list<Dims>>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = Static && !View;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  template <std::size_t I, std::size_t V, class X, class Table>
  DIMGRAPH_ALWAYS_INLINE static kernel build(const X& x, Table& table) {
    if constexpr (View) table.template add_view<I, V>(x);
    else table.template add_leaf<I, Dims>(x.data());
    return {};
  }
};
template <class T, class... Ds>
struct evaluator<tensor<T, Ds...>>
    : leaf_evaluator<T, dim_list<Ds...>, tensor<T, Ds...>::is_static, false> {};
template <class T, class... Ds>
struct evaluator<tensor_view<T, Ds...>>
    : leaf_evaluator<std::remove_const_t<T>, dim_list<Ds...>, false, true> {};

// A node evaluated into a tensor of its own first (needs_temporary): a leaf of the result.
template <class E>
struct temporary_evaluator
    : leaf_evaluator<typename E::value_type, typename E::dims, false, false> {
  static constexpr bool static_layout = false;
  static constexpr bool needs_temporary = true;
  static constexpr bool has_temporaries = true;
  template <std::size_t I, std::size_t V, class Table>
  static leaf_kernel<typename E::value_type, typename E::dims, false> build(const E& e,
                                                                            Table& table) {
    table.template add_leaf<I, typename E::dims>(table.keep(e).data());
    return {};
  }
};

// A scalar operand: the same value in every lane.
template <class T>
struct scalar_kernel {
  using value_type = T;
  static constexpr std::size_t leaves = 0;
  static constexpr std::size_t views = 0;
  simd::lane_t<T> value;
  template <std::size_t I, std::size_t V, std::size_t L, class Row>
  DIMGRAPH_ALWAYS_INLINE fn::lanes_t<T, L> packet(const Row&, std::size_t) const {
    return simd::splat<simd::lane_t<T>, L>(value);
  }
};

template <class T>
struct evaluator<scalar_expr<T>> {
  using kernel = scalar_kernel<T>;
  using layouts = type_list<>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = true;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  template <std::size_t I, std::size_t V, class Table>
  DIMGRAPH_ALWAYS_INLINE static kernel build(const scalar_expr<T>& e, Table&) {
    return {fn::lane_of(e.value)};
  }
};

// Exclusive prefix sums: {0, c0, c0 + c1, ...}.
template <std::size_t N>
constexpr std::array<std::size_t, N + 1> prefix_sums(const std::array<std::size_t, N>& c) {
  std::array<std::size_t, N + 1> r{};
  for (std::size_t k = 0; k < N; ++k) r[k + 1] = r[k] + c[k];
  return r;
}

// F over the children's lanes. Child K's leaves start at I + leaf_at[K], its views at
// V + view_at[K].
template <std::size_t K, class Kernel>
struct kernel_slot {
  Kernel kernel;
};
template <class F, class Value, class Is, class... Ks>
struct map_kernel_impl;
template <class F, class Value, std::size_t... Ks, class... Kernels>
struct map_kernel_impl<F, Value, std::index_sequence<Ks...>, Kernels...>
    : kernel_slot<Ks, Kernels>... {
  using value_type = Value;
  static constexpr auto leaf_at = prefix_sums<sizeof...(Ks)>({Kernels::leaves...});
  static constexpr auto view_at = prefix_sums<sizeof...(Ks)>({Kernels::views...});
  static constexpr std::size_t leaves = leaf_at[sizeof...(Ks)];
  static constexpr std::size_t views = view_at[sizeof...(Ks)];
  [[no_unique_address]] F f;

  template <std::size_t I, std::size_t V, std::size_t L, class Row>
  fn::lanes_t<Value, L> packet(const Row& row, std::size_t i) const {
    return f.template apply<typename Kernels::value_type...>(
        static_cast<const kernel_slot<Ks, Kernels>&>(*this)
            .kernel.template packet<I + leaf_at[Ks], V + view_at[Ks], L>(row, i)...);
  }
};
template <class F, class Value, class... Kernels>
using map_kernel = map_kernel_impl<F, Value, std::index_sequence_for<Kernels...>, Kernels...>;

}  // namespace dimgraph::detail
