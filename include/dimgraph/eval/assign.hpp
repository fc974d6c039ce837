// Assignment of an expression to a tensor or a view: the checks, then one dispatch to a
// contraction, a reduction or an element-wise kernel. This header defines the assignment hook
// that tensor and tensor_view call: include it (or <dimgraph.hpp>) to evaluate expressions.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/eval/contract.hpp"
#include "dimgraph/eval/elementwise.hpp"
#include "dimgraph/eval/ragged.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/tensor/assign_hook.hpp"

namespace dimgraph {
namespace detail {

template <class Dst, class E>
constexpr bool assign_dims_match() {
  return list_same_set_v<typename Dst::dims, dims_t<E>>;
}

// Compile-time checks of out = e, at the entry point (one message per mistake).
template <class Dst, class E>
constexpr bool check_assign() {
  constexpr bool dims_ok = assign_dims_match<Dst, E>();
  DIMGRAPH_REQUIRE(
      dims_ok, "dimgraph: assign: the expression's dims are not the destination's dims",
      detail::operand_role_t<"destination", Dst>, detail::operand_role_t<"expression", E>);
  constexpr bool narrowing = dims_ok && is_narrowing_v<value_t<E>, typename Dst::value_type>;
  DIMGRAPH_REQUIRE(!narrowing,
                   "dimgraph: assign: the expression's element type would narrow to the "
                   "destination's; use dg::cast<T>",
                   detail::operand_role_t<"destination", Dst>,
                   detail::operand_role_t<"expression", E>, typename Dst::value_type, value_t<E>);
  return dims_ok && !narrowing;
}

// The expression's extents in the destination's dim order.
template <class... Ds, class E>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::size_t, sizeof...(Ds)> extents_in_order(
    dim_list<Ds...>, const E& e) {
  return {e.template extent<Ds>()...};
}

// (Cold and out of line: the message is built only when it is thrown.)
template <class... Ds, std::size_t R>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_extent_mismatch(
    dim_list<Ds...>, const std::array<std::size_t, R>& have,
    const std::array<std::size_t, R>& want) {
  std::string what;
  std::size_t i = 0;
  ((what.empty() && have[i] != want[i]
        ? void(what = "dim '" + describe<Ds>() + "' has extent " + std::to_string(have[i]) +
                      " in the destination and " + std::to_string(want[i]) + " in the expression")
        : void(),
    ++i),
   ...);
  throw shape_error("assign", what);
}

template <class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void check_extents(const Dst& dst, const E& e) {
  if constexpr (Dst::rank > 0) {
    const auto want = extents_in_order(typename Dst::dims{}, e);
    const auto have = dst.shape().extents();
    if (want != have) throw_extent_mismatch(typename Dst::dims{}, have, want);
  }
}

// dst = a reduction: accumulated into a fresh tensor (so dst may even share memory with
// the input), then written to dst (divided by the count for a mean). Over a ragged dim or its
// batch dim, padding is masked out (reduce_ragged_into).
// Error: max or min over no elements, or over a row of length 0 (shape_error), before anything
// is written.
template <class Dst, class Op, class X, class... Rs>
DIMGRAPH_ALWAYS_INLINE inline void reduce_into(Dst& dst, const reduce_expr<Op, X, Rs...>& e) {
  using node = reduce_expr<Op, X, Rs...>;
  using acc_t = typename Op::template acc<value_t<X>>;
  using result_t = value_t<node>;
  const auto& x = e.source();
  if constexpr (Op::empty_is_error)
    if (e.count() == 0) throw_empty_reduction<Rs...>(Op::name, x);
  if constexpr (ragged_over_v<dims_t<X>, dim_list<Rs...>>) {
    reduce_ragged_into<Op, Rs...>(dst, x);
  } else {
    auto acc = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
      return tensor<acc_t, Ds...>(
          shape<Ds...>::from_extents({x.template extent<Ds>()...}, Op::name));
    }(std::type_identity<typename node::dims>{});
    constexpr acc_t identity = Op::template identity<acc_t>();
    if constexpr (identity != acc_t(0)) std::fill_n(acc.data(), acc.size(), identity);
    accumulate<Op, acc_t>(acc, x);
    constexpr bool mean = std::is_same_v<Op, fn::mean_reduce>;
    write_reduction<mean, result_t>(dst, acc, mean ? static_cast<double>(e.count()) : 1.0);
  }
}

// The lengths of e's ragged dims given to the shape s (of e's extents).
template <class... Ds, class E>
void take_lengths_of(shape<Ds...>& s, const E& e, const char* op) {
  auto one = [&]<class D>(std::type_identity<D>) {
    if constexpr (carries_lengths_v<D, dim_list<Ds...>>)
      s.template set_lengths<D>(op, lengths_in<D>(e));
  };
  (one(std::type_identity<Ds>{}), ...);
}

// A view keeps its lengths: e's must be the same, or full. Error: shape_error naming the dim.
template <class... Ds, class E>
void check_view_lengths(const shape<Ds...>& s, const E& e) {
  auto one = [&]<class D>(std::type_identity<D>) {
    if constexpr (carries_lengths_v<D, dim_list<Ds...>>) {
      lengths_ref mine = s.template lengths<D>();
      merge_lengths<D>("assign", mine, lengths_in<D>(e));
    }
  };
  (one(std::type_identity<Ds>{}), ...);
}

// New memory for an assignment that changes a tensor's extents, made and handed over out of
// line (cold), so the steady-state assignment keeps no allocation or call in its body and the
// kernel is compiled once for both.
template <class Dst>
struct fresh_tensor {
  Dst* ptr = nullptr;
  [[gnu::cold]] DIMGRAPH_NOINLINE void make(const typename Dst::shape_type& s) {
    ptr = new Dst(tensor_internals::for_overwrite<Dst>(s));
  }
  [[gnu::cold]] DIMGRAPH_NOINLINE void move_to(Dst& out) {
    out = std::move(*ptr);
    discard();
  }
  [[gnu::cold]] DIMGRAPH_NOINLINE void discard() {
    delete ptr;
    ptr = nullptr;
  }
  fresh_tensor() = default;
  fresh_tensor(const fresh_tensor&) = delete;
  fresh_tensor& operator=(const fresh_tensor&) = delete;
  ~fresh_tensor() {
    if (ptr) [[unlikely]]
      discard();  // (an exception left the assignment)
  }
};

// The shape of a tensor Dst that takes e's extents. Error: an extent outside its dim's interval
// (shape_error, named after the operation: dot for a product, else assign).
template <class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline typename Dst::shape_type shape_for(const E& e) {
  if constexpr (Dst::is_static) {
    return {};
  } else {
    const char* op = is_contract_v<E> ? "dot" : "assign";
    auto s = Dst::shape_type::from_extents(extents_in_order(typename Dst::dims{}, e), op);
    if constexpr (Dst::shape_type::ragged_count > 0) take_lengths_of(s, e, op);
    return s;
  }
}

// dst = e once dst has e's extents: the one place that tells the kinds of evaluation apart. A
// product runs as matrix products (checking that dst shares no memory with an operand), a
// reduction accumulates, anything else is one fused element-wise kernel (a long one out of
// line). CheckOverlap: whether dst may partially overlap an operand (a tensor under
// construction cannot).
template <bool CheckOverlap, class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void assign_into(Dst& dst, const E& e) {
  if constexpr (is_contract_v<E>) {
    if constexpr (is_tensor_v<std::remove_const_t<Dst>>) contract_into(dst.view(), e);
    else contract_into(dst, e);
  } else if constexpr (is_reduce_v<E>) {
    reduce_into(dst, e);
  } else if constexpr (evaluator_of<E>::program::size > outline_above) {
    assign_outlined<CheckOverlap>(dst, e);
  } else {
    assign_elementwise<CheckOverlap>(dst, e);
  }
}

// The operand of a map node E that is a product over exactly the dims of Dst (in any order)
// with Dst's element type, and no ragged dim anywhere: its index, or npos. A tensor under
// construction (memory nothing else reads) takes such a product first, then the map with the
// tensor in the product's place, element for element in place: no temporary for the product
// (dot(x, W) + b, tanh(dot(...))).
inline constexpr std::size_t no_product = static_cast<std::size_t>(-1);
template <class E>
inline constexpr bool ragged_product_v = false;
template <class A, class B, class... Ks>
inline constexpr bool ragged_product_v<contract_expr<A, B, Ks...>> =
    ragged_contract_v<A, B, dim_list<Ks...>>;
template <class Dst, class E>
inline constexpr std::size_t product_operand_v = no_product;
template <class Dst, class F, class Dims, class... Ops>
inline constexpr std::size_t product_operand_v<Dst, map_expr<F, Dims, Ops...>> = [] {
  std::size_t found = no_product, i = 0;
  const auto one = [&]<class Op>(std::type_identity<Op>) {
    using op = std::remove_cvref_t<Op>;
    if constexpr (is_contract_v<op>) {
      if (found == no_product && std::is_same_v<value_t<op>, typename Dst::value_type> &&
          list_same_set_v<dims_t<op>, typename Dst::dims> && dims_t<op>::size == Dst::dims::size &&
          Dst::shape_type::ragged_count == 0 && !ragged_product_v<op>)
        found = i;
    }
    ++i;
  };
  (one(std::type_identity<Ops>{}), ...);
  return found;
}();

// dst (under construction, its shape set) = e, a map node whose operand J is a product over
// dst's dims: the product into dst, then the map over dst in its place.
template <std::size_t J, class Dst, class F, class Dims, class... Ops>
void construct_through_product(Dst& dst, const map_expr<F, Dims, Ops...>& e) {
  const auto& product = e.template operand<J>();
  using product_dims = dims_t<std::remove_cvref_t<decltype(product)>>;
  [&]<class... Ps, std::size_t... Is>(dim_list<Ps...>, std::index_sequence<Is...>) {
    contract_into(permute<Ps...>(dst), product);
    const auto done = permute<Ps...>(std::as_const(dst));
    const auto operand =
        [&]<std::size_t I>(std::integral_constant<std::size_t, I>) -> decltype(auto) {
      if constexpr (I == J) return (done);
      else return e.template operand<I>();
    };
    using rest = map_expr<
        F, Dims,
        std::conditional_t<Is == J, tensor_view<const typename Dst::value_type, Ps...>, Ops>...>;
    assign_elementwise<false>(dst,
                              rest(e.fn(), operand(std::integral_constant<std::size_t, Is>{})...));
  }(product_dims{}, std::index_sequence_for<Ops...>{});
}

// The assignment hook (declared in tensor/assign_hook.hpp), for every expression: what
// tensor and tensor_view call. Errors: e's dims are not dst's, or e's element type would narrow
// to dst's (compile time); an extent that differs from a view's (shape_error); an operand that
// partially overlaps dst, or for a product shares any memory with a view (overlap_error); all
// before the first write. After a reported mistake (a poisoned e): nothing more to say.
template <class Dst, class E>
  requires assign_source<E>
struct assign_hook<Dst, E> {
  using dst_type = std::remove_const_t<Dst>;

  // dst = e. A view keeps its extents; a tensor takes e's, into new memory first when they
  // change or when a product reads dst (h = dot<H>(w, h)), so that an expression reading dst
  // stays valid. The kernel is the same either way: it is compiled once.
  DIMGRAPH_ALWAYS_INLINE static void assign(Dst& dst, const E& e) {
    if constexpr (poisoned<E>) {
      return;
    } else if constexpr (check_assign<dst_type, E>()) {
      if constexpr (is_view_v<dst_type>) {
        check_extents(dst, e);
        if constexpr (dst_type::shape_type::ragged_count > 0) check_view_lengths(dst.shape(), e);
        assign_into<true>(dst, e);
      } else if constexpr (dst_type::is_static && !is_contract_v<E>) {
        assign_into<true>(dst, e);
      } else {
        auto s = shape_for<dst_type>(e);
        bool in_place = s == dst.shape();
        if constexpr (is_contract_v<E>) in_place = in_place && !contract_overlaps(dst, e);
        fresh_tensor<dst_type> fresh;
        if (!opaque(in_place)) [[unlikely]]
          fresh.make(s);
        assign_into<true>(fresh.ptr ? *fresh.ptr : dst, e);
        if (fresh.ptr) [[unlikely]]
          fresh.move_to(dst);
        else if constexpr (dst_type::shape_type::ragged_count > 0)
          tensor_internals::take_lengths(dst, s);
      }
    }
  }

  // A tensor under construction made from e: it takes e's extents; its elements are
  // uninitialised, and every kind of evaluation writes every one.
  DIMGRAPH_ALWAYS_INLINE static void construct(Dst& dst, const E& e) {
    if constexpr (poisoned<E>) {
      return;
    } else if constexpr (check_assign<Dst, E>()) {
      if constexpr (!Dst::is_static)
        tensor_internals::reshape_for_overwrite(dst, shape_for<Dst>(e));
      if constexpr (product_operand_v<Dst, E> != no_product)
        construct_through_product<product_operand_v<Dst, E>>(dst, e);
      else assign_into<false>(dst, e);
    }
  }
};

// A node that is not element-wise (a reduction, a product), evaluated into a tensor of its own
// when it is the operand of an element-wise op (declared in expr/evaluator.hpp).
template <class E>
auto materialize(const E& e) {
  return tensor_of_list_t<value_t<E>, dims_t<E>>(e);
}

}  // namespace detail

// After a reported mistake: nothing more to say.
template <detail::poisoned E>
detail::invalid_expr eval(E&&) {
  return {};
}

// A new tensor holding the value of e (dims in e's order).
template <expression E>
auto eval(E&& e) {
  return detail::tensor_of_list_t<value_t<E>, dims_t<E>>(std::forward<E>(e));
}

// The loop plan of dst = e, as text (for tests and debugging). Its operands are the
// output ("out"), then each distinct layout of the owning tensors e reads, then each view.
template <class Dst, expression E>
std::string describe_plan(const Dst& dst, const E& e) {
  using table_t = detail::table_for<typename Dst::dims, E>;
  table_t table(dst.shape().extents(), {dst.data(), dst.strides()}, false);
  typename table_t::bases_type bases;
  (void)detail::make_kernel(e, table, bases);
  return to_string(detail::make_loop_plan<Dst::rank>(table.extents, table.strides));
}

}  // namespace dimgraph
