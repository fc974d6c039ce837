// evaluator<E>: how each kind of expression is evaluated — its program of per-lane
// instructions, its leaves, and the walk that finds them at run time.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/simd.hpp"
#include "dimgraph/detail/type_list.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/node.hpp"
#include "dimgraph/expr/program.hpp"
#include "dimgraph/expr/program_kernel.hpp"
#include "dimgraph/tensor/tensor.hpp"

// An expression is evaluated against a flat description of its memory operands (its
// "leaves": tensors, views and evaluated temporaries, numbered in visiting order) and a
// program: the expression's nodes in post-order, each one instruction that reads a leaf, a
// scalar, or applies a function to the results of earlier instructions. The program is a
// type, built bottom-up as each node's type is made (a node's program is its operands'
// programs followed by its own instruction), and it is run by one function whose body is one
// statement per instruction: a chain of N ops is one flat function of N statements, with no
// nesting of N functions or instantiations, however deep the expression.
//
// Owning tensors are row-major, and tensors with the same dims in one expression have the
// same extents, so they have the same strides: the loop planner treats each distinct dim
// list of owning leaves (a "layout") as one operand, and each view as one. A chain over
// five tensors and a bias is a plan with three operands, whatever its length.
//
// Every node kind has one evaluator specialisation, holding together
//   program           the node's instructions (a type_list, post-order)
//   layouts           the distinct dim lists of its owning leaves (a type_list)
//   lane_bytes        the widest lane in the node's program (sets the vector length)
//   static_layout     every leaf is an all-static owning tensor (the plan is a constant)
//   needs_temporary   the node is evaluated into a tensor of its own when it is the operand
//                     of an element-wise op (a reduction, a contraction)
//   has_temporaries   the node or one below it needs a temporary
//   walk(e, w)        hands the walker the node's leaves and state (scalars, functions with
//                     data), in program order.
// A node's evaluator is instantiated when the node's type is (map_expr names its operands'
// evaluators), and it asks for its walk there, so that a chain of N ops never nests N
// instantiations.
namespace dimgraph::detail {

template <class E>
struct evaluator;  // specialised next to each node kind

template <class E>
using evaluator_of = evaluator<std::remove_cvref_t<E>>;

// Whether its arguments have values (they always do: naming them in a static_assert makes the
// compiler compute them there).
template <class... Ts>
constexpr bool known(Ts...) {
  return true;
}

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

// ---- Walking an expression -------------------------------------------------------------

// An evaluated temporary kept alive for the duration of an assignment.
struct kept_base {
  virtual ~kept_base() = default;
};
template <class Tensor>
struct kept final : kept_base {
  Tensor value;
  explicit kept(Tensor&& t) : value(std::move(t)) {}
};

// A node that is not element-wise (a reduction, a product), evaluated into a tensor of its
// own (declared here, defined with the assignment in eval/assign.hpp).
template <class E>
auto materialize(const E& e);

// What a walk records, in program order: a pointer to each leaf object and to each piece of
// state, and the temporaries it evaluated.
struct walker {
  const void** leaf;
  const void** state;
  std::vector<std::unique_ptr<kept_base>>* temporaries = nullptr;

  void add_leaf(const void* x) { *leaf++ = x; }
  void add_state(const void* s) { *state++ = s; }
  // e evaluated into a tensor that lives as long as the walk's owner.
  template <class E>
  const void* keep(const E& e) {
    using tensor_t = decltype(materialize(e));
    auto k = std::make_unique<kept<tensor_t>>(materialize(e));
    const void* p = &k->value;
    temporaries->push_back(std::move(k));
    return p;
  }
};

// ---- Leaves and scalars ----------------------------------------------------------------

// The evaluator of memory: an object X of element type T.
template <class X, class T, bool Static>
struct leaf_evaluator {
  using program = type_list<leaf_op<X, T>>;
  using layouts = std::conditional_t<is_view_v<X>, type_list<>, type_list<typename X::dims>>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = Static && !is_view_v<X>;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  static void walk(const X& x, walker& w) { w.add_leaf(&x); }
};
template <class T, class... Ds>
struct evaluator<tensor<T, Ds...>>
    : leaf_evaluator<tensor<T, Ds...>, T, tensor<T, Ds...>::is_static> {};
template <class T, class... Ds>
struct evaluator<tensor_view<T, Ds...>>
    : leaf_evaluator<tensor_view<T, Ds...>, std::remove_const_t<T>, false> {};

// A node evaluated into a tensor of its own first (needs_temporary): a leaf of that tensor.
template <class E>
struct temporary_evaluator {
  using object = tensor_of_list_t<typename E::value_type, typename E::dims>;
  using program = type_list<leaf_op<object, typename E::value_type>>;
  using layouts = type_list<typename E::dims>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<typename E::value_type>);
  static constexpr bool static_layout = false;
  static constexpr bool needs_temporary = true;
  static constexpr bool has_temporaries = true;
  static void walk(const E& e, walker& w) { w.add_leaf(w.keep(e)); }
};

template <class T>
struct evaluator<scalar_expr<T>> {
  using program = type_list<scalar_op<T>>;
  using layouts = type_list<>;
  static constexpr std::size_t lane_bytes = sizeof(simd::lane_t<T>);
  static constexpr bool static_layout = true;
  static constexpr bool needs_temporary = false;
  static constexpr bool has_temporaries = false;
  static void walk(const scalar_expr<T>& e, walker& w) { w.add_state(&e.value); }
};

}  // namespace dimgraph::detail
