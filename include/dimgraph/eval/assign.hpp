// Assignment of an expression to a tensor or a view: the checks, then a reduction or an
// element-wise kernel.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/elementwise.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/expr/ops.hpp"

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
  static_assert(dims_ok, "dimgraph: assign: the expression's dims are not the destination's dims");
  constexpr bool narrowing = dims_ok && is_narrowing_v<value_t<E>, typename Dst::value_type>;
  static_assert(!narrowing,
                "dimgraph: assign: the expression's element type would narrow to the "
                "destination's; use dg::cast<T>");
  return dims_ok && !narrowing;
}

// The expression's extents in the destination's dim order.
template <class... Ds, class E>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::size_t, sizeof...(Ds)> extents_in_order(
    dim_list<Ds...>*, const E& e) {
  return {e.template extent<Ds>()...};
}

// (Cold and out of line: the message is built only when it is thrown.)
template <class... Ds, std::size_t R>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_extent_mismatch(
    dim_list<Ds...>*, const std::array<std::size_t, R>& have,
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
    const auto want = extents_in_order(static_cast<typename Dst::dims*>(nullptr), e);
    const auto have = dst.shape().extents();
    if (want != have) throw_extent_mismatch(static_cast<typename Dst::dims*>(nullptr), have, want);
  }
}

// dst = a reduction: accumulated into a fresh tensor (so dst may even share memory with
// the input), then written to dst (divided by the count for a mean).
// Error: max or min over no elements (shape_error), before anything is written.
template <class Dst, class Op, class X, class... Rs>
DIMGRAPH_ALWAYS_INLINE inline void reduce_into(Dst& dst, const reduce_expr<Op, X, Rs...>& e) {
  using node = reduce_expr<Op, X, Rs...>;
  using acc_t = typename Op::template acc<value_t<X>>;
  using result_t = value_t<node>;
  const auto& x = e.source();
  if constexpr (Op::empty_is_error)
    if (e.count() == 0) throw_empty_reduction<Rs...>(Op::name, x);
  auto acc = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return tensor<acc_t, Ds...>(shape<Ds...>::from_extents({x.template extent<Ds>()...}, Op::name));
  }(std::type_identity<typename node::dims>{});
  constexpr acc_t identity = Op::template identity<acc_t>();
  if constexpr (identity != acc_t(0)) std::fill_n(acc.data(), acc.size(), identity);
  accumulate<Op, acc_t>(acc, x);
  if constexpr (std::is_same_v<Op, fn::mean_reduce>)
    assign_elementwise<false>(dst, cast<result_t>(acc / static_cast<double>(e.count())));
  else if constexpr (std::is_same_v<acc_t, result_t>) assign_elementwise<false>(dst, acc);
  else assign_elementwise<false>(dst, cast<result_t>(acc));
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

// dst = e. A freshly constructed dst cannot overlap anything (CheckOverlap = false).
template <bool CheckOverlap = true, class Dst, class E>
DIMGRAPH_ALWAYS_INLINE inline void assign_into(Dst& dst, const E& e) {
  if constexpr (is_reduce_v<E>) reduce_into(dst, e);
  else if constexpr (evaluator_of<E>::program::size > outline_above)
    assign_outlined<CheckOverlap>(dst, e);
  else assign_elementwise<CheckOverlap>(dst, e);
}

}  // namespace detail

// out = e for a view: every extent must match (shape_error), no operand may partially
// overlap out (overlap_error); both checked before the first write.
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(const tensor_view<T, Ds...>& out, E&& e) {
  if constexpr (detail::check_assign<tensor_view<T, Ds...>, std::remove_cvref_t<E>>()) {
    detail::check_extents(out, e);
    detail::assign_into(out, e);
  }
}

// out = e for an owning tensor: takes the expression's extents (re-allocating when
// they change, into new memory first, so an expression reading out stays valid). The kernel
// is the same either way: it is compiled once.
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(tensor<T, Ds...>& out, E&& e) {
  using dst = tensor<T, Ds...>;
  if constexpr (detail::check_assign<dst, std::remove_cvref_t<E>>()) {
    if constexpr (dst::is_static) {
      detail::assign_into(out, e);
    } else {
      auto s = dst::shape_type::from_extents(
          detail::extents_in_order(static_cast<typename dst::dims*>(nullptr), e), "assign");
      detail::fresh_tensor<dst> fresh;
      if (!detail::opaque(s == out.shape())) [[unlikely]]
        fresh.make(s);
      detail::assign_into(fresh.ptr ? *fresh.ptr : out, e);
      if (fresh.ptr) [[unlikely]]
        fresh.move_to(out);
    }
  }
}
template <class T, class... Ds, expression E>
DIMGRAPH_ALWAYS_INLINE inline void assign_expression(tensor<T, Ds...>& out, E&& e,
                                                     detail::construct_tag) {
  using dst = tensor<T, Ds...>;
  if constexpr (detail::check_assign<dst, std::remove_cvref_t<E>>()) {
    // (The elements are uninitialised: assign_into writes every one.)
    if constexpr (!dst::is_static)
      detail::tensor_internals::reshape_for_overwrite(
          out,
          dst::shape_type::from_extents(
              detail::extents_in_order(static_cast<typename dst::dims*>(nullptr), e), "assign"));
    detail::assign_into<false>(out, e);
  }
}

namespace detail {
// A node that is not element-wise (a reduction), evaluated into a tensor of its own
// when it is the operand of an element-wise op.
template <class E>
auto materialize(const E& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<value_t<E>, Ds...>(e);
  }(static_cast<dims_t<E>*>(nullptr));
}
}  // namespace detail

// After a reported mistake: nothing more to say.
template <class Dst, detail::poisoned E>
void assign_expression(Dst&, E&&, detail::construct_tag = {}) {}
template <detail::poisoned E>
detail::invalid_expr eval(E&&) {
  return {};
}

// A new tensor holding the value of e (dims in e's order).
template <expression E>
auto eval(E&& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return tensor<value_t<E>, Ds...>(std::forward<E>(e));
  }(static_cast<dims_t<E>*>(nullptr));
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
