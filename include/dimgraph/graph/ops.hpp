// The public ops on symbolic values: each records a node whose type is what the op gives on
// tensors, so a traced function checks and types exactly as it does when run eagerly. (The op
// table's element-wise ops take symbols themselves: only their node is made here.)
#pragma once

#include <string>
#include <utility>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/symbol.hpp"
#include "dimgraph/ops/concat.hpp"
#include "dimgraph/ops/contract.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/index.hpp"
#include "dimgraph/ops/reduce.hpp"
#include "dimgraph/ops/reshape.hpp"
#include "dimgraph/ops/slice.hpp"
#include "dimgraph/ops/softmax.hpp"
#include "dimgraph/tensor/print.hpp"

// Each op's result type is decltype of the public op on its operands' stand-ins, in the op
// itself (see symbolic_apply_with); its eager form, which a scan that hoists runs, is the same
// call in a lambda. (The eager form forwards its operands: run on values, as a scan that
// hoists does, the expression it returns holds rvalues by value.)
#define DIMGRAPH_FWD(x) static_cast<decltype(x)&&>(x)

namespace dimgraph {

namespace detail {

// The op table's ops (expr/op_table.hpp) on symbols: the op checks its operands as tensors of
// the symbols' types and records one node, op_tag<op name>, of the type it gives on such
// tensors (decltype of its expression on the stand-ins). Its eager form, which a scan that
// hoists runs, is the same expression on the operands' values.
template <class N>
inline constexpr bool is_deferred_v<symbol<N>> = true;
template <class N>
struct deferred_elementwise<symbol<N>> {
  template <class F, class... Xs>
  static auto make(Xs&&... xs) {
    using result = decltype(make_elementwise<F>(stand_in_of(xs)...));
    return symbolic_apply<op_tag<F::label>, result>(
        [](auto&&... ys) { return make_elementwise<F>(DIMGRAPH_FWD(ys)...); },
        std::forward<Xs>(xs)...);
  }
};

}  // namespace detail

// where(c, a, b) with a symbolic operand.
template <class C, class A, class B>
  requires detail::symbolic_operands<C, A, B>
auto where(C&& c, A&& a, B&& b) {
  using result =
      decltype(where(detail::stand_in_of(c), detail::stand_in_of(a), detail::stand_in_of(b)));
  return detail::symbolic_apply<op_tag<"where">, result>(
      [](auto&& x, auto&& y, auto&& z) {
        return where(DIMGRAPH_FWD(x), DIMGRAPH_FWD(y), DIMGRAPH_FWD(z));
      },
      std::forward<C>(c), std::forward<A>(a), std::forward<B>(b));
}

// cast<T>(x).
template <class T, symbolic X>
auto cast(const X& x) {
  using result = decltype(cast<T>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"cast", T>, result>(
      [](auto&& y) { return cast<T>(DIMGRAPH_FWD(y)); }, x);
}

// Reductions and the softmax family over named dims: the dims are the node's attributes.
#define DIMGRAPH_SYMBOLIC_OVER(NAME, PARAMS, ARGS)                \
  template <PARAMS, symbolic X>                                   \
  auto NAME(const X& x) {                                         \
    using result = decltype(NAME<ARGS>(detail::stand_in_of(x)));  \
    return detail::symbolic_apply<op_tag<#NAME, ARGS>, result>(   \
        [](auto&& y) { return NAME<ARGS>(DIMGRAPH_FWD(y)); }, x); \
  }
#define DIMGRAPH_PACK class... Rs
#define DIMGRAPH_ONE class D
DIMGRAPH_SYMBOLIC_OVER(sum, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(prod, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(mean, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(max, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(min, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(any, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(all, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(logsumexp, DIMGRAPH_PACK, Rs...)
DIMGRAPH_SYMBOLIC_OVER(softmax, DIMGRAPH_ONE, D)
DIMGRAPH_SYMBOLIC_OVER(log_softmax, DIMGRAPH_ONE, D)
DIMGRAPH_SYMBOLIC_OVER(argmax, DIMGRAPH_ONE, D)
DIMGRAPH_SYMBOLIC_OVER(argmin, DIMGRAPH_ONE, D)
#undef DIMGRAPH_PACK
#undef DIMGRAPH_ONE
#undef DIMGRAPH_SYMBOLIC_OVER

// dot<Ks...>(a, b) with a symbolic operand.
template <class... Ks, class A, class B>
  requires detail::symbolic_operands<A, B> && (!scalar<A>) && (!scalar<B>)
auto dot(A&& a, B&& b) {
  using result = decltype(dot<Ks...>(detail::stand_in_of(a), detail::stand_in_of(b)));
  return detail::symbolic_apply<op_tag<"dot", Ks...>, result>(
      [](auto&& x, auto&& y) { return dot<Ks...>(DIMGRAPH_FWD(x), DIMGRAPH_FWD(y)); },
      std::forward<A>(a), std::forward<B>(b));
}

// Structural ops. The views (rename, split, split_dims, slice, permute) and the copies
// (merge_dims, concat, pad, gather, one_hot) alike become one node each.
template <dimension Old, dimension New, symbolic X>
auto rename(X&& x) {
  using result = decltype(rename<Old, New>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"rename", Old, New>, result>(
      [](auto&& y) { return rename<Old, New>(DIMGRAPH_FWD(y)); }, x);
}
template <class... Ps, symbolic X>
auto permute(X&& x) {
  using result = decltype(permute<Ps...>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"permute", Ps...>, result>(
      [](auto&& y) { return permute<Ps...>(DIMGRAPH_FWD(y)); }, x);
}
template <dimension A, dimension B, symbolic X>
auto merge_dims(X&& x) {
  using result = decltype(merge_dims<A, B>(detail::stand_in_of(x)));
  return detail::symbolic_apply<op_tag<"merge_dims", A, B>, result>(
      [](auto&& y) { return merge_dims<A, B>(DIMGRAPH_FWD(y)); }, x);
}
// (By symbol<N> rather than a constrained X: constraints on the Parts pack never subsume the
// eager overload's, so only a more specialised parameter type wins overload resolution.)
template <dimension... Parts, class N, class... Es>
auto split(const symbol<N>& x, extent_arg<Es>... e) {
  using result = decltype(split<Parts...>(detail::stand_in_of(x), e...));
  return detail::symbolic_apply<op_tag<"split", Parts...>, result>(
      [e...](auto&& y) { return split<Parts...>(DIMGRAPH_FWD(y), e...); }, x);
}
template <dimension... Parts, class N, class... Es>
auto split(symbol<N>&& x, extent_arg<Es>... e) {
  return split<Parts...>(static_cast<const symbol<N>&>(x), e...);
}
template <dimension A, dimension B, symbolic X, class... Es>
auto split_dims(X&& x, extent_arg<Es>... e) {
  using result = decltype(split_dims<A, B>(detail::stand_in_of(x), e...));
  return detail::symbolic_apply<op_tag<"split_dims", A, B>, result>(
      [e...](auto&& y) { return split_dims<A, B>(DIMGRAPH_FWD(y), e...); }, x);
}

namespace detail {
inline std::string slice_bound_text(slice_index i) {
  return i.is_none ? std::string("none") : std::to_string(i.value);
}
inline std::string slice_text(slice_index start, slice_index end, std::ptrdiff_t stride) {
  return "start=" + slice_bound_text(start) + ", end=" + slice_bound_text(end) +
         ", stride=" + std::to_string(stride);
}
}  // namespace detail

template <dimension A, slice_index Start, slice_index End = none, std::ptrdiff_t Stride = 1,
          symbolic X>
auto slice(X&& x) {
  using result = decltype(slice<A, Start, End, Stride>(detail::stand_in_of(x)));
  return detail::symbolic_apply_with<op_tag<"slice", A>, result>(
      detail::slice_text(Start, End, Stride),
      [](auto&& y) { return slice<A, Start, End, Stride>(DIMGRAPH_FWD(y)); }, x);
}
template <dimension A, symbolic X>
auto slice(X&& x, slice_index start, slice_index end, std::ptrdiff_t stride = 1) {
  using result = decltype(slice<A>(detail::stand_in_of(x), start, end, stride));
  return detail::symbolic_apply_with<op_tag<"slice", A>, result>(
      detail::slice_text(start, end, stride),
      [=](auto&& y) { return slice<A>(DIMGRAPH_FWD(y), start, end, stride); }, x);
}
namespace detail {
template <class N>
struct pad_value<symbol<N>> {
  using type = typename N::value_type;
};
}  // namespace detail
template <dimension A, std::size_t Before, std::size_t After, symbolic X>
auto pad(X&& x, typename detail::pad_value<std::remove_cvref_t<X>>::type value = {}) {
  using result = decltype(pad<A, Before, After>(detail::stand_in_of(x), value));
  return detail::symbolic_apply_with<op_tag<"pad", A>, result>(
      "before=" + std::to_string(Before) + ", after=" + std::to_string(After) +
          ", value=" + detail::element_text(value),
      [value](auto&& y) { return pad<A, Before, After>(DIMGRAPH_FWD(y), value); }, x);
}
template <class... As, class... Xs>
  requires(sizeof...(Xs) > 0 && (symbolic<Xs> || ...))
auto concat(along_arg<As, Xs>... parts) {
  using result = decltype(concat(along<As>(detail::stand_in_of(parts.operand))...));
  return detail::symbolic_apply<op_tag<"concat", As...>, result>(
      [](auto&&... ys) { return concat(along<As>(DIMGRAPH_FWD(ys))...); }, parts.operand...);
}
template <class Table, class Idx>
  requires detail::symbolic_operands<Table, Idx>
auto gather(const Table& table, const Idx& idx) {
  using result = decltype(gather(detail::stand_in_of(table), detail::stand_in_of(idx)));
  return detail::symbolic_apply<op_tag<"gather">, result>(
      [](auto&& t, auto&& i) { return gather(DIMGRAPH_FWD(t), DIMGRAPH_FWD(i)); }, table, idx);
}
template <class T = float, symbolic Idx, class... Es>
auto one_hot(const Idx& idx, extent_arg<Es>... e) {
  using result = decltype(one_hot<T>(detail::stand_in_of(idx), e...));
  return detail::symbolic_apply<op_tag<"one_hot", T>, result>(
      [e...](auto&& i) { return one_hot<T>(DIMGRAPH_FWD(i), e...); }, idx);
}

// eval(x) of a symbol is the symbol: a traced function may materialise where it likes.
template <symbolic X>
X eval(const X& x) {
  return x;
}

}  // namespace dimgraph
#undef DIMGRAPH_FWD
