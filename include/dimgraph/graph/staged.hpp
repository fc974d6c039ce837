// Loop-invariant hoisting for dg::scan, the run: staged values, on which the body computes each
// node or looks it up (in the pass before the loop, and in the loop).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/matmul.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/graph/region.hpp"
#include "dimgraph/graph/scan_run.hpp"
#include "dimgraph/graph/stage_arena.hpp"
#include "dimgraph/graph/symbol.hpp"
#include "dimgraph/graph/hoist_plan.hpp"
#include "dimgraph/graph/trace.hpp"

namespace dimgraph {
namespace detail {

// How a staged value holds its node: computed (value), not computed yet (a thunk), or not
// computed in this pass (the hoisting pass skips carried and blocked nodes).
enum class stage_hold : unsigned char { ready, deferred, absent };

struct no_value {};

// The node N of a staged run Ctx, held as H, with value V. A symbol's node: every public op
// on symbols takes it, and symbolic_apply_with sends it to staged_apply.
template <class N, class Ctx, stage_hold H, class V>
struct staged {
  using value_type = typename N::value_type;
  using dims = typename N::dims;
  using node = N;
  using context = Ctx;
  static constexpr stage_hold holding = H;
  V value;
  Ctx* ctx;
};

// An op not computed yet: its eager form and its operands (staged values or what they read).
template <class Eager, class... Ops>
struct thunk {
  Eager eager;
  std::tuple<Ops...> operands;
};

// A captured tensor an op reads (by address: it outlives the scan call).
template <class T>
struct tensor_ref {
  const T* p;
};

template <class X>
struct plain_node {
  using type = node_of_t<X>;
};
template <class N, class Ctx, stage_hold H, class V>
struct plain_node<symbol<staged<N, Ctx, H, V>>> {
  using type = N;
};
// The node type an operand stands for in the body's graph.
template <class X>
using plain_node_t = typename plain_node<std::remove_cvref_t<X>>::type;

// The hoisted values of one scan call and the per-iteration state of the staged run.
template <class Facts, class Frontier>
struct stage_store;
template <class Facts, class... Fs>
struct stage_store<Facts, type_list<Fs...>> {
  using d = typename Facts::dim;
  // A hoisted node's value, a view: over D first when it varies, then its own dims.
  template <class N>
  using stored_t = std::conditional_t<
      stage_v<Facts, N> == stage::varying,
      view_of_list_t<const typename N::value_type,
                     types_of_t<list_concat_t<dim_list<d>, typename N::dims>>>,
      view_of_list_t<const typename N::value_type, types_of_t<typename N::dims>>>;
  std::tuple<std::vector<stored_t<Fs>>...> values;
  std::array<std::size_t, sizeof...(Fs)> taken{};
  stage_arena tensors;   // what the views read, when a hoisted value was not memory already
  weight_cache weights;  // the loop's constant weights, packed once

  // A new run: no values, tensors to reuse, weights to pack again (see stage_lease).
  void renew() {
    finish();
    weights.renew();
  }
  // The end of a run: what it referred to is dropped; the tensors and packs stay.
  void finish() {
    std::apply([](auto&... v) { (v.clear(), ...); }, values);
    taken = {};
    tensors.reset();
  }
  std::size_t bytes() const { return tensors.bytes() + weights.bytes(); }
  void release() {
    renew();
    tensors.release();
    weights = weight_cache{};
  }
  template <class N>
  static constexpr std::size_t index = [] {
    std::size_t i = 0, found = 0;
    ((std::is_same_v<N, Fs> ? found = i++ : i++), ...);
    return found;
  }();
};

// One staged run: Hoisting (the pass before the loop) or the loop; Facts and the plan's
// frontier; position is the iteration's position along D.
template <bool Hoisting, class Facts, class Frontier>
struct stage_context {
  static constexpr bool hoisting = Hoisting;
  using facts = Facts;
  using frontier = Frontier;
  using store_type = stage_store<Facts, Frontier>;
  store_type* store;
  stage_arena* arena;
  std::size_t position = 0;
};

template <class Ctx, class N>
inline constexpr bool in_frontier_v = contains_v<N, typename Ctx::frontier>;

// A value that outlives the op that made it: tensors go to the arena (and are read by view);
// views and lazy expressions are held by value.
template <class Ctx, class V>
auto settle(Ctx* ctx, V&& v) {
  if constexpr (is_tensor_v<std::remove_cvref_t<V>>)
    return ctx->arena->keep(std::forward<V>(v)).view();
  else return std::remove_cvref_t<V>(std::forward<V>(v));
}

template <class N, class Ctx, stage_hold H, class V>
symbol<staged<N, Ctx, H, std::remove_cvref_t<V>>> make_staged(Ctx* ctx, V&& v) {
  return {{std::forward<V>(v), ctx}};
}
template <class N, class Ctx>
symbol<staged<N, Ctx, stage_hold::absent, no_value>> absent_staged(Ctx* ctx) {
  return {{no_value{}, ctx}};
}

// What a thunk keeps of an operand: a staged value as is, a captured tensor by address (an
// rvalue tensor in the arena), anything else (views, expressions, scalars) by value.
template <class Ctx, class X>
auto keep_operand(Ctx* ctx, X&& x) {
  using x_t = std::remove_cvref_t<X>;
  if constexpr (is_staged_v<x_t>) return x_t(x);
  else if constexpr (is_tensor_v<x_t> && std::is_lvalue_reference_v<X>) return tensor_ref<x_t>{&x};
  else if constexpr (is_tensor_v<x_t>) return tensor_ref<x_t>{&ctx->arena->keep(std::move(x))};
  else return x_t(std::forward<X>(x));
}

template <class Ctx, class K>
decltype(auto) force(Ctx* ctx, const K& k);

// The value of a kept operand, computed if it is a thunk: a prvalue, or a captured tensor by
// reference (the op's node then holds it by reference).
template <class Ctx, class K>
decltype(auto) operand_value(Ctx* ctx, const K& k) {
  if constexpr (is_staged_v<K>) {
    if constexpr (K::node_type::holding == stage_hold::ready)
      return std::remove_cvref_t<decltype(k.node.value)>(k.node.value);
    else return force(ctx, k.node.value);
  } else if constexpr (requires { k.p; }) {
    return static_cast<const std::remove_cvref_t<decltype(*k.p)>&>(*k.p);
  } else {
    return K(k);
  }
}

template <class Ctx, class K>
decltype(auto) force(Ctx* ctx, const K& k) {
  return settle(ctx, std::apply(
                         [&](const auto&... ops) -> decltype(auto) {
                           return k.eager(operand_value(ctx, ops)...);
                         },
                         k.operands));
}

// The hoisting pass: a carried op (or the step) takes the staged value x; if x's node is on
// the frontier, its value over all iterations is stored.
template <class Ctx, class X>
void store_if_hoisted(Ctx* ctx, const X& x) {
  if constexpr (is_staged_v<X>) {
    using n = typename X::node_type::node;
    if constexpr (in_frontier_v<Ctx, n> && X::node_type::holding != stage_hold::absent) {
      using store_t = typename Ctx::store_type;
      using out_t = typename store_t::template stored_t<n>;
      auto& vec = std::get<store_t::template index<n>>(ctx->store->values);
      auto v = operand_value(ctx, x);
      // A view is kept as it is (its tensor is in the arena, alive until the loop ends), in the
      // stored order of dims; anything else is evaluated once into a tensor.
      const auto reordered = [&](const auto& view) {
        return [&]<class... Ds>(dim_list<Ds...>) {
          return out_t(dimgraph::permute<Ds...>(view));
        }(typename out_t::dims{});
      };
      if constexpr (is_view_v<decltype(v)>) vec.push_back(reordered(v));
      else vec.push_back(reordered(ctx->store->tensors.materialise(v)));
    }
  }
}

[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_hoist_mismatch(std::size_t k,
                                                                           std::size_t have) {
  throw error("scan",
              "hoisting: the body took hoisted value " + std::to_string(k) +
                  " of a kind, but the "
                  "pass before the loop made " +
                  std::to_string(have) +
                  " (the body must compute the same ops every iteration; use dg::no_hoist)");
}

// The loop: the value a carried op (or the step) reads for the staged value x: its hoisted
// value at this iteration's position when its node is on the frontier, else its own value.
template <class Ctx, class X>
decltype(auto) loop_operand(Ctx* ctx, X&& x) {
  using x_t = std::remove_cvref_t<X>;
  if constexpr (is_staged_v<x_t>) {
    using n = typename x_t::node_type::node;
    if constexpr (in_frontier_v<Ctx, n>) {
      using store_t = typename Ctx::store_type;
      constexpr std::size_t idx = store_t::template index<n>;
      auto& vec = std::get<idx>(ctx->store->values);
      const std::size_t k = ctx->store->taken[idx]++;
      if (k >= vec.size()) throw_hoist_mismatch(k, vec.size());
      const auto& t = vec[k];
      if constexpr (stage_v<typename Ctx::facts, n> == stage::varying)
        return t[dimgraph::at<typename Ctx::facts::dim>(ctx->position)];
      else return t.view();
    } else {
      return operand_value(ctx, x);
    }
  } else if constexpr (is_tensor_v<x_t> && std::is_lvalue_reference_v<X>) {
    return static_cast<const x_t&>(x);
  } else if constexpr (is_tensor_v<x_t>) {
    return ctx->arena->keep(std::move(x)).view();
  } else {
    return x_t(std::forward<X>(x));
  }
}

// The context of the first staged operand.
template <class... Xs>
struct first_staged;
template <class X, class... Xs>
struct first_staged<X, Xs...> {
  using type = typename first_staged<Xs...>::type;
};
template <class N, class Ctx, stage_hold H, class V, class... Xs>
struct first_staged<symbol<staged<N, Ctx, H, V>>, Xs...> {
  using type = Ctx;
};
template <class... Xs>
auto* context_of(const Xs&... xs) {
  using ctx_t = typename first_staged<std::remove_cvref_t<Xs>...>::type;
  ctx_t* found = nullptr;
  [[maybe_unused]] auto one = [&]<class X>(const X& x) {
    if constexpr (is_staged_v<X>)
      if (!found) found = x.node.ctx;
  };
  (one(xs), ...);
  return found;
}

// Op over xs, at least one of them staged: the node's type is the one the traced graph has;
// in the loop a carried node is computed (reading hoisted nodes where it takes them) and a
// node that depends on no carry waits as a thunk (the frontier's are never computed there);
// in the pass before the loop, carried nodes are skipped and the frontier's values stored.
template <class Op, class Eager, class... Xs>
auto staged_apply(Eager eager, Xs&&... xs) {
  using result = decltype(eager(std::declval<stand_in_t<Xs>>()...));
  auto* ctx = context_of(xs...);
  using ctx_t = std::remove_pointer_t<decltype(ctx)>;
  using facts = typename ctx_t::facts;
  if constexpr (poisoned<result>) {
    return invalid_expr{};
  } else if constexpr (is_tuple_v<result>) {
    // Several results (split): computed at once in the loop, skipped before it.
    return with_indices<std::tuple_size_v<result>>([&]<std::size_t... Is>(index_constant<Is>...) {
      using parts =
          std::tuple<op_node<Op, value_t<std::tuple_element_t<Is, result>>,
                             dims_t<std::tuple_element_t<Is, result>>, plain_node_t<Xs>...>...>;
      if constexpr (ctx_t::hoisting) {
        (store_if_hoisted(ctx, xs), ...);
        return std::tuple{absent_staged<std::tuple_element_t<Is, parts>>(ctx)...};
      } else {
        auto values = std::tuple<decltype(loop_operand(ctx, std::forward<Xs>(xs)))...>{
            loop_operand(ctx, std::forward<Xs>(xs))...};
        auto r = std::apply(eager, std::move(values));
        return std::tuple{make_staged<std::tuple_element_t<Is, parts>, ctx_t, stage_hold::ready>(
            ctx, settle(ctx, std::get<Is>(std::move(r))))...};
      }
    });
  } else {
    using n = op_node<Op, value_t<result>, dims_t<result>, plain_node_t<Xs>...>;
    constexpr stage s = stage_v<facts, n>;
    if constexpr (s == stage::varying || s == stage::invariant) {
      using t = thunk<Eager, decltype(keep_operand(ctx, std::forward<Xs>(xs)))...>;
      return make_staged<n, ctx_t, stage_hold::deferred>(
          ctx, t{std::move(eager), {keep_operand(ctx, std::forward<Xs>(xs))...}});
    } else if constexpr (ctx_t::hoisting) {
      if constexpr (s == stage::carried) (store_if_hoisted(ctx, xs), ...);
      return absent_staged<n>(ctx);
    } else {
      // (Braced: the operands are read left to right, as the pass before the loop stored them.)
      auto values = std::tuple<decltype(loop_operand(ctx, std::forward<Xs>(xs)))...>{
          loop_operand(ctx, std::forward<Xs>(xs))...};
      if constexpr (Op::name.view() == "dot") {
        // A tensor a carried product takes that is not staged is a constant of the loop: its
        // product is run over a copy packed once (eval/matmul.hpp, weight_cache).
        with_indices<sizeof...(Xs)>([&]<std::size_t... Is>(index_constant<Is>...) {
          const auto constant = [&]<class X>(std::type_identity<X>, const auto& v) {
            if constexpr (!is_staged_v<std::remove_cvref_t<X>> &&
                          memory_operand<std::remove_cvref_t<decltype(v)>>) {
              const auto [lo, hi] = memory_span(v);
              ctx->store->weights.add_constant(lo, hi);
            }
          };
          (constant(std::type_identity<Xs>{}, std::get<Is>(values)), ...);
        });
      }
      if constexpr (batchable_op(Op::name.view())) {
        return make_staged<n, ctx_t, stage_hold::ready>(
            ctx, settle(ctx, std::apply(eager, std::move(values))));
      } else {
        // An op whose eager form may not forward its operands: evaluated while they live.
        return make_staged<n, ctx_t, stage_hold::ready>(
            ctx, ctx->arena->materialise(std::apply(eager, std::move(values))));
      }
    }
  }
}

// A captured tensor as a staged value that reads it (see constant_symbol): ready in every pass.
template <class S, class X>
auto staged_constant(const S& s, const X& x) {
  using ctx_t = typename S::node_type::context;
  if constexpr (is_view_v<X>)
    return make_staged<node_of_t<X>, ctx_t, stage_hold::ready>(s.node.ctx, x);
  else return make_staged<node_of_t<X>, ctx_t, stage_hold::ready>(s.node.ctx, x.view());
}

// dg::eval of a staged value: in the loop, a carried value is materialised (it is read more
// than once) and a thunk stays one that materialises when forced; before the loop, a value
// over all iterations is materialised now.
template <class N, class Ctx, stage_hold H, class V>
auto eval_staged(const symbol<staged<N, Ctx, H, V>>& x) {
  Ctx* ctx = x.node.ctx;
  if constexpr (H == stage_hold::absent) {
    return x;
  } else if constexpr (H == stage_hold::ready) {
    if constexpr (is_view_v<V>) return x;
    else return make_staged<N, Ctx, stage_hold::ready>(ctx, ctx->arena->materialise(x.node.value));
  } else if constexpr (Ctx::hoisting) {
    return make_staged<N, Ctx, stage_hold::ready>(
        ctx, ctx->arena->materialise(force(ctx, x.node.value)));
  } else {
    auto materialise = [](auto&& v) { return eval(std::forward<decltype(v)>(v)); };
    using t = thunk<decltype(materialise), symbol<staged<N, Ctx, H, V>>>;
    return make_staged<N, Ctx, stage_hold::deferred>(ctx, t{materialise, {x}});
  }
}

// What dg::carry and dg::emit hold of a staged value, made while the body runs (its locals,
// which thunks may read, are alive): in the loop, its value (looked up when hoisted), a lazy
// one evaluated; before the loop, nothing (a hoisted one is stored).
template <class X>
auto staged_held_value(const X& x) {
  using ctx_t = typename X::node_type::context;
  ctx_t* ctx = x.node.ctx;
  if constexpr (ctx_t::hoisting) {
    store_if_hoisted(ctx, x);
    return no_value{};
  } else {
    return held_value(loop_operand(ctx, x));
  }
}

}  // namespace detail

template <class N, class Ctx, detail::stage_hold H, class V>
auto eval(const symbol<detail::staged<N, Ctx, H, V>>& x) {
  return detail::eval_staged(x);
}

}  // namespace dimgraph
