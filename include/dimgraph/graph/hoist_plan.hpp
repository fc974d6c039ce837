// Loop-invariant hoisting for dg::scan, the analysis: which nodes of the body run once for all
// iterations, decided from the body's graph type.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/symbol.hpp"
#include "dimgraph/graph/trace.hpp"

namespace dimgraph {

// Scan options: dg::scan<D, dg::hoist>(body) computes the nodes of the body that do not
// depend on a carry once, for every iteration, before the loop; dg::scan<D, dg::no_hoist>
// keeps the naive schedule. (DIMGRAPH_CONFIG_SCAN_HOIST sets the default.)
struct hoist {};
struct no_hoist {};

namespace detail {

// What a node of the body is, for the schedule:
//   carried    it depends on a carry: computed in the loop
//   varying    it depends on a slice and on no carry: computable for all iterations at once, as
//              the same ops over the whole sliced input (the scanned dim D becomes a batch dim)
//   invariant  it depends on neither (captured tensors and scalars only): computable once
//   blocked    it depends on no carry, but one of its ops cannot take D as an extra batch dim
//              (or a captured operand has D): computed in the loop
enum class stage : unsigned char { carried, varying, invariant, blocked };

// The ops whose eager form is the same op over any extra dim, as a batch dim: element-wise
// ops (those of the op table, expr/op_table.hpp, and where and cast), contractions over named
// dims, reductions and the softmax family over named dims, and the views that name the dim
// they act on. (Each forwards its operands, so the expression it returns holds rvalues by
// value.)
constexpr bool batchable_op(std::string_view name) {
  constexpr std::string_view others[] = {
      "where",     "cast",    "dot",         "sum",    "prod",   "mean",   "any",        "all",
      "logsumexp", "softmax", "log_softmax", "argmax", "argmin", "rename", "split_dims", "at"};
  for (std::string_view n : fn::table_op_names)
    if (n == name) return true;
  for (std::string_view n : others)
    if (n == name) return true;
  return false;
}

// Every dim of A is in B.
template <class A, class B>
inline constexpr bool dims_within_v =
    []<class... As>(dim_list<As...>) { return (list_contains_v<B, As> && ...); }(A{});

template <class L, class D>
using with_dim_t = std::conditional_t<list_contains_v<L, D>, L, list_concat_t<L, dim_list<D>>>;

// The facts of one scan: its dim D and which arguments of the body are carries.
template <class D, std::size_t... Carried>
struct scan_facts {
  using dim = D;
  static constexpr bool carried(std::size_t i) { return ((i == Carried) || ...); }
};

// stage_of<Facts, N>: N's stage; worth: N contains a contraction (hoisting pays);
// foreign: N contains a node the staged run does not know (a nested scan or if_).
template <class Facts, class N>
struct node_stage {
  static constexpr stage value = stage::blocked;
  static constexpr bool worth = false;
  static constexpr bool foreign = true;
};
template <class Facts, std::size_t I, class T, class... Ds>
struct node_stage<Facts, arg_node<I, T, Ds...>> {
  static constexpr stage value = Facts::carried(I) ? stage::carried : stage::varying;
  static constexpr bool worth = false;
  static constexpr bool foreign = false;
};
template <class Facts, class T, class Dims>
struct node_stage<Facts, constant_node<T, Dims>> {
  static constexpr stage value = stage::invariant;
  static constexpr bool worth = false;
  static constexpr bool foreign = false;
};
template <class Facts, class T>
struct node_stage<Facts, scalar_node<T>> {
  static constexpr stage value = stage::invariant;
  static constexpr bool worth = false;
  static constexpr bool foreign = false;
};

// An op over children that depend on no carry and take D: can it take D as a batch dim? Its
// per-iteration dims and its operands' must not have D, and for an element-wise op of several
// operands one operand's dims with D added where it varies must hold all the others' (the
// broadcast rule, now with D).
template <class Facts, class Op, class Dims, class... Cs>
constexpr bool batchable() {
  using d = typename Facts::dim;
  if constexpr (!batchable_op(Op::name.view())) {
    return false;
  } else if constexpr (list_contains_v<Dims, d> || (list_contains_v<typename Cs::dims, d> || ...)) {
    return false;
  } else if constexpr (sizeof...(Cs) < 2 || Op::name.view() == std::string_view("dot")) {
    return true;
  } else {
    using hoisted =
        type_list<std::conditional_t<node_stage<Facts, Cs>::value == stage::varying,
                                     with_dim_t<typename Cs::dims, d>, typename Cs::dims>...>;
    // (Some operand's dims, D included, hold every operand's.)
    return []<class... Hs>(type_list<Hs...>) {
      auto holds_all = []<class Big>(std::type_identity<Big>) {
        return (dims_within_v<Hs, Big> && ...);
      };
      return (holds_all(std::type_identity<Hs>{}) || ...);
    }(hoisted{});
  }
}

template <class Facts, class Op, class T, class Dims, class... Cs>
struct node_stage<Facts, op_node<Op, T, Dims, Cs...>> {
  static constexpr bool foreign = (node_stage<Facts, Cs>::foreign || ...);
  static constexpr stage value = [] {
    if constexpr (((node_stage<Facts, Cs>::value == stage::carried) || ...)) {
      return stage::carried;
    } else if constexpr (((node_stage<Facts, Cs>::value == stage::blocked) || ...) ||
                         !batchable<Facts, Op, Dims, Cs...>()) {
      return stage::blocked;
    } else if constexpr (((node_stage<Facts, Cs>::value == stage::varying) || ...)) {
      return stage::varying;
    } else {
      return stage::invariant;
    }
  }();
  static constexpr bool worth =
      (value == stage::varying || value == stage::invariant) &&
      (Op::name.view() == std::string_view("dot") || (node_stage<Facts, Cs>::worth || ...));
};

template <class Facts, class N>
inline constexpr stage stage_v = node_stage<Facts, N>::value;

// A node computed once before the loop where a carried node (or the step) takes it.
template <class Facts, class N>
inline constexpr bool hoisted_v = node_stage<Facts, N>::worth;

template <class Facts, class Acc, class N>
struct add_frontier {
  using type = std::conditional_t<hoisted_v<Facts, N>, typename append_unique<Acc, N>::type, Acc>;
};

// The frontier of the graph whose nodes (topologically ordered) are Nodes and whose
// outputs are Outs: each hoisted node a carried node or the step takes, once.
template <class Facts, class Acc, class Nodes>
struct frontier_of;
template <class Facts, class Acc>
struct frontier_of<Facts, Acc, type_list<>> {
  using type = Acc;
};
template <class Facts, class Acc, class N, class... Rest>
struct frontier_of<Facts, Acc, type_list<N, Rest...>> {
  using type = typename frontier_of<Facts, Acc, type_list<Rest...>>::type;
};
template <class Facts, class Acc, class Op, class T, class Dims, class... Cs, class... Rest>
struct frontier_of<Facts, Acc, type_list<op_node<Op, T, Dims, Cs...>, Rest...>> {
  template <class A, class C>
  using step = typename add_frontier<Facts, A, C>::type;
  template <class A, class... Xs>
  struct fold {
    using type = A;
  };
  template <class A, class X, class... Xs>
  struct fold<A, X, Xs...> {
    using type = typename fold<step<A, X>, Xs...>::type;
  };
  using here = std::conditional_t<stage_v<Facts, op_node<Op, T, Dims, Cs...>> == stage::carried,
                                  typename fold<Acc, Cs...>::type, Acc>;
  using type = typename frontier_of<Facts, here, type_list<Rest...>>::type;
};

// The plan of a body whose traced step yields the nodes Outs... (carries, then emitted).
template <class Facts, class... Outs>
struct hoist_plan {
  using nodes = typename topo<type_list<>, Outs...>::type;
  static constexpr bool foreign = (node_stage<Facts, Outs>::foreign || ...);
  template <class A, class... Os>
  struct with_outputs {
    using type = A;
  };
  template <class A, class O, class... Os>
  struct with_outputs<A, O, Os...> {
    using type = typename with_outputs<typename add_frontier<Facts, A, O>::type, Os...>::type;
  };
  using inner = typename frontier_of<Facts, type_list<>, nodes>::type;
  using frontier = typename with_outputs<inner, Outs...>::type;
  static constexpr bool useful = !foreign && frontier::size > 0;
};

}  // namespace detail
}  // namespace dimgraph
