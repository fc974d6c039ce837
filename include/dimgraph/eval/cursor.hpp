// Cursors: an expression flattened into loads from leaf pointers, for the loop executor.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/config.hpp"
#include "dimgraph/expr/broadcast.hpp"
#include "dimgraph/expr/map.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph::detail {

// How a leaf steps along the inner loop, decided at compile time from its type:
// an owning tensor whose last dim is the output's last dim steps by 1; a leaf
// without that dim does not step (broadcast); anything else steps by a run-time stride.
enum class stride_kind { unit, zero, dynamic };

template <class L>
inline constexpr bool is_leaf_v =
    is_tensor_v<std::remove_cvref_t<L>> || is_view_v<std::remove_cvref_t<L>>;

// The number of memory leaves (tensors and views) in an expression, in visiting order.
template <class E>
struct leaf_count : std::integral_constant<std::size_t, 1> {};  // a tensor or view
template <class T>
struct leaf_count<scalar_expr<T>> : std::integral_constant<std::size_t, 0> {};
template <class F, class Dims, class... Ops>
struct leaf_count<map_expr<F, Dims, Ops...>>
    : std::integral_constant<std::size_t, (leaf_count<std::remove_cvref_t<Ops>>::value + ... + 0)> {
};
template <class X, class... Ds>
struct leaf_count<broadcast_expr<X, Ds...>> : leaf_count<std::remove_cvref_t<X>> {};
template <class E>
inline constexpr std::size_t leaf_count_v = leaf_count<std::remove_cvref_t<E>>::value;

// The innermost (last) dim of a dim list; void for rank 0, where every leaf has stride 0.
template <class Dims>
struct inner_dim {
  using type = back_t<types_of_t<Dims>>;
};
template <>
struct inner_dim<dim_list<>> {
  using type = void;
};
template <class Dims>
using inner_dim_t = typename inner_dim<Dims>::type;

template <class L, class Inner>
constexpr stride_kind kind_of_leaf() {
  using l = std::remove_cvref_t<L>;
  if constexpr (!list_contains_v<typename l::dims, Inner>) return stride_kind::zero;
  else if constexpr (is_tensor_v<l> && std::is_same_v<back_t<types_of_t<typename l::dims>>, Inner>)
    return stride_kind::unit;
  else return stride_kind::dynamic;
}

// A leaf at the start of an inner row.
template <class T, stride_kind K, bool AssumeUnit>
struct leaf_row {
  const T* p;
  std::ptrdiff_t s;
  DIMGRAPH_ALWAYS_INLINE T load(std::size_t i) const {
    if constexpr (K == stride_kind::zero) return *p;
    else if constexpr (K == stride_kind::unit || AssumeUnit) return p[i];
    else return p[static_cast<std::ptrdiff_t>(i) * s];
  }
};
template <class T>
struct scalar_row {
  T v;
  DIMGRAPH_ALWAYS_INLINE T load(std::size_t) const { return v; }
};
// The children of a map node: an aggregate whose bases hold one child each, so that
// {{a}, {b}} builds each child in place from its prvalue (std::tuple's constructors would
// move every level of a deep expression into its parent: quadratic work for the compiler's
// alias analysis and dead-store elimination).
template <std::size_t I, class T>
struct child_slot {
  T value;
};
template <class Is, class... Ts>
struct children_base;
template <std::size_t... Is, class... Ts>
struct children_base<std::index_sequence<Is...>, Ts...> : child_slot<Is, Ts>... {};
template <class... Ts>
using children_pack = children_base<std::index_sequence_for<Ts...>, Ts...>;
// f(children...).
template <class F, std::size_t... Is, class... Ts>
DIMGRAPH_ALWAYS_INLINE inline decltype(auto) apply_children(
    const F& f, const children_base<std::index_sequence<Is...>, Ts...>& p) {
  return f(static_cast<const child_slot<Is, Ts>&>(p).value...);
}

// How a map node holds its function: a stateless one (the built-in ops) as a copy that
// takes no room and no store, any other by pointer.
template <class F>
inline constexpr bool fn_by_value_v = std::is_empty_v<F> && std::is_trivially_copyable_v<F>;
template <class F>
using fn_store_t = std::conditional_t<fn_by_value_v<F>, F, const F*>;
template <class F>
DIMGRAPH_ALWAYS_INLINE inline fn_store_t<F> store_fn(const F& f) {
  if constexpr (fn_by_value_v<F>) return f;
  else return &f;
}
template <class F>
DIMGRAPH_ALWAYS_INLINE inline const F& stored_fn(const fn_store_t<F>& f) {
  if constexpr (fn_by_value_v<F>) return f;
  else return *f;
}

template <class F, class... Rows>
struct map_row {
  [[no_unique_address]] fn_store_t<F> f;
  children_pack<Rows...> rows;
  DIMGRAPH_ALWAYS_INLINE auto load(std::size_t i) const {
    return apply_children([&](const Rows&... r)
                              DIMGRAPH_ALWAYS_INLINE { return stored_fn<F>(f)(r.load(i)...); },
                          rows);
  }
};

// Cursors hold base pointers; row(offsets, strides) positions them at a row.
template <class T, stride_kind K, std::size_t I>
struct leaf_cursor {
  const T* base;
  static constexpr stride_kind kind = K;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>& off,
                                  const std::array<std::ptrdiff_t, N>& inner) const {
    return leaf_row<T, K, AssumeUnit>{base + off[I], inner[I]};
  }
};
template <class T>
struct scalar_cursor {
  T v;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>&,
                                  const std::array<std::ptrdiff_t, N>&) const {
    return scalar_row<T>{v};
  }
};
template <class F, class... Cs>
struct map_cursor {
  [[no_unique_address]] fn_store_t<F> f;
  children_pack<Cs...> children;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>& off,
                                  const std::array<std::ptrdiff_t, N>& inner) const {
    return apply_children(
        [&](const Cs&... c) DIMGRAPH_ALWAYS_INLINE {
          return map_row<F, decltype(c.template row<AssumeUnit>(off, inner))...>{
              f, {{c.template row<AssumeUnit>(off, inner)}...}};
        },
        children);
  }
};

// (Out of line and cold, so that the checks cost a few compares in the hot path.)
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE inline void throw_partial_overlap(std::size_t operand) {
  throw overlap_error("assign",
                      "operand " + std::to_string(operand) +
                          " partially overlaps the output (same memory, different element order); "
                          "evaluate it into a new tensor first");
}

// f(element&) for every element of a tensor or view (any strides; not a hot path).
template <class X, class F>
void for_each_element(X& x, F f) {
  constexpr std::size_t rank = std::remove_cvref_t<X>::rank;
  auto* base = x.data();
  if constexpr (rank == 0) {
    f(*base);
  } else {
    const auto ext = x.shape().extents();
    const auto& str = x.strides();
    if (x.size() == 0) return;
    std::array<std::size_t, rank> idx{};
    std::ptrdiff_t off = 0;
    for (;;) {
      for (std::size_t i = 0; i < ext[rank - 1]; ++i)
        f(base[off + static_cast<std::ptrdiff_t>(i) * str[rank - 1]]);
      std::size_t k = rank - 1;
      for (;;) {
        if (k == 0) return;
        --k;
        off += str[k];
        if (++idx[k] < ext[k]) break;
        off -= str[k] * static_cast<std::ptrdiff_t>(ext[k]);
        idx[k] = 0;
      }
    }
  }
}

// A reduction used as an operand is evaluated first (declared here, defined with the
// assignment machinery in eval/assign.hpp).
template <class E>
auto materialize(const E& e);

// A leaf that owns its memory: a materialised node (heap, so the address is stable).
template <class Tensor, stride_kind K, std::size_t I>
struct owned_leaf_cursor {
  std::unique_ptr<Tensor> owned;
  template <bool AssumeUnit, std::size_t N>
  DIMGRAPH_ALWAYS_INLINE auto row(const std::array<std::ptrdiff_t, N>& off,
                                  const std::array<std::ptrdiff_t, N>& inner) const {
    return leaf_row<typename Tensor::value_type, K, AssumeUnit>{owned->data() + off[I], inner[I]};
  }
};

// What the planner needs of each leaf: its strides along the output's dims, and the
// memory it spans (for the overlap check).
template <std::size_t R>
struct leaf_info {
  const void* data = nullptr;
  std::array<std::ptrdiff_t, R> strides{};
  const char* lo = nullptr;  // first and one-past-last byte touched
  const char* hi = nullptr;
};

// The bytes [lo, hi) that a strided tensor touches (empty for 0 elements).
template <class X>
DIMGRAPH_ALWAYS_INLINE inline std::pair<const char*, const char*> memory_span(const X& x) {
  using value = std::remove_const_t<std::remove_pointer_t<decltype(x.data())>>;
  const char* base = reinterpret_cast<const char*>(x.data());
  std::ptrdiff_t lo = 0, hi = 0;
  const auto ext = x.shape().extents();
  for (std::size_t d = 0; d < ext.size(); ++d) {
    if (ext[d] == 0) return {base, base};
    std::ptrdiff_t span = x.strides()[d] * static_cast<std::ptrdiff_t>(ext[d] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo * static_cast<std::ptrdiff_t>(sizeof(value)),
          base + (hi + 1) * static_cast<std::ptrdiff_t>(sizeof(value))};
}

// The strides of leaf E along OutDims (0 where E lacks the dim).
template <class OutDims, class E>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, OutDims::size> strides_along(const E& e) {
  return [&]<class... Ds>(dim_list<Ds...>*) {
    return std::array<std::ptrdiff_t, OutDims::size>{[&] {
      if constexpr (list_contains_v<typename E::dims, Ds>) return e.template stride<Ds>();
      else return std::ptrdiff_t{0};
    }()...};
  }(static_cast<OutDims*>(nullptr));
}

// Builds the cursor of e for output dims OutDims, filling infos[I...] for its leaves
// (only their data pointers when Light: the static path knows the rest at compile time).
template <class OutDims, std::size_t I, bool Light = false, class E, std::size_t R, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline auto build_cursor(const E& e, std::array<leaf_info<R>, N>& infos) {
  using inner = inner_dim_t<OutDims>;
  if constexpr (is_leaf_v<E>) {
    using value = typename E::value_type;
    leaf_info<R>& info = infos[I];
    info.data = e.data();
    if constexpr (!Light) {
      info.strides = strides_along<OutDims>(e);
      std::tie(info.lo, info.hi) = memory_span(e);
    }
    return leaf_cursor<value, kind_of_leaf<E, inner>(), I>{e.data()};
  } else if constexpr (requires { e.value; }) {
    return scalar_cursor<typename E::value_type>{e.value};
  } else if constexpr (requires { e.source(); }) {
    using owned_t = decltype(materialize(e));
    auto owned = std::make_unique<owned_t>(materialize(e));
    leaf_info<R>& info = infos[I];
    info.data = owned->data();
    info.strides = strides_along<OutDims>(*owned);
    std::tie(info.lo, info.hi) = memory_span(*owned);
    return owned_leaf_cursor<owned_t, kind_of_leaf<owned_t, inner>(), I>{std::move(owned)};
  } else if constexpr (requires { e.operand(); }) {
    return build_cursor<OutDims, I, Light>(e.operand(), infos);
  } else {
    return build_children<OutDims, I, Light>(
        e, infos,
        std::make_index_sequence<std::tuple_size_v<std::remove_cvref_t<decltype(e.operands())>>>{});
  }
}
template <class Tuple, std::size_t K>
constexpr std::size_t leaves_before() {
  return [&]<std::size_t... Js>(std::index_sequence<Js...>) {
    return (leaf_count_v<std::tuple_element_t<Js, Tuple>> + ... + 0);
  }(std::make_index_sequence<K>{});
}

template <class OutDims, std::size_t I, bool Light, class E, std::size_t R, std::size_t N,
          std::size_t... Ks>
DIMGRAPH_ALWAYS_INLINE inline auto build_children(const E& e, std::array<leaf_info<R>, N>& infos,
                                                  std::index_sequence<Ks...>) {
  using ops = std::remove_cvref_t<decltype(e.operands())>;
  using fn = std::remove_cvref_t<decltype(e.fn())>;
  return map_cursor<fn, decltype(build_cursor<OutDims, I + leaves_before<ops, Ks>(), Light>(
                            std::get<Ks>(e.operands()), infos))...>{
      store_fn(e.fn()),
      {{build_cursor<OutDims, I + leaves_before<ops, Ks>(), Light>(std::get<Ks>(e.operands()),
                                                                   infos)}...}};
}

// Whether every stride and extent of out = e is known at compile time: the output and
// every leaf are all-static owning tensors (then the loop plan is a constant).
template <class E>
struct static_layout : std::false_type {};
template <class T, class... Ds>
struct static_layout<tensor<T, Ds...>> : std::bool_constant<tensor<T, Ds...>::is_static> {};
template <class T>
struct static_layout<scalar_expr<T>> : std::true_type {};
template <class F, class Dims, class... Ops>
struct static_layout<map_expr<F, Dims, Ops...>>
    : std::bool_constant<(static_layout<std::remove_cvref_t<Ops>>::value && ...)> {};
template <class X, class... Ds>
struct static_layout<broadcast_expr<X, Ds...>>
    : std::bool_constant<static_layout<std::remove_cvref_t<X>>::value && (is_static_v<Ds> && ...)> {
};

// The static strides of every leaf of E along OutDims, from index I on.
template <class OutDims, std::size_t I, class E, std::size_t N>
constexpr void static_strides(std::array<std::array<std::ptrdiff_t, OutDims::size>, N>& out,
                              std::array<std::size_t, N>& bytes) {
  if constexpr (is_tensor_v<E>) {
    bytes[I] = typename E::shape_type{}.size() * sizeof(typename E::value_type);
    [&]<class... Ls, class... Ds>(dim_list<Ls...>*, dim_list<Ds...>*) {
      [[maybe_unused]] constexpr auto own =
          row_major_strides<sizeof...(Ls)>({static_size_v<Ls>...});
      [[maybe_unused]] std::size_t d = 0;
      ((out[I][d++] =
            [&] {
              if constexpr (list_contains_v<dim_list<Ls...>, Ds>)
                return own[list_index_of_v<dim_list<Ls...>, Ds>];
              else return std::ptrdiff_t{0};
            }()),
       ...);
    }(static_cast<typename E::dims*>(nullptr), static_cast<OutDims*>(nullptr));
  } else if constexpr (requires {
                         typename E::value_type;
                         std::declval<E>().value;
                       }) {
  } else if constexpr (requires { std::declval<E>().operand(); }) {
    static_strides<OutDims, I, std::remove_cvref_t<decltype(std::declval<E>().operand())>>(out,
                                                                                           bytes);
  } else {
    using ops = std::remove_cvref_t<decltype(std::declval<E>().operands())>;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (static_strides<OutDims, I + leaves_before<ops, Ks>(),
                      std::remove_cvref_t<std::tuple_element_t<Ks, ops>>>(out, bytes),
       ...);
    }(std::make_index_sequence<std::tuple_size_v<ops>>{});
  }
}

}  // namespace dimgraph::detail
