// dimgraph::dim: dimension tags (identity = the type), their size, kind and traits.
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/detail/fixed_string.hpp"
#include "dimgraph/dim/interval.hpp"

namespace dimgraph {

// Metadata used by defaults (e.g. "the feature dim" of nn::linear); never a guess:
// an ambiguous default is a compile error at the op that needs it.
enum class dim_kind { batch, spatial, feature };

// Every dim expression (tags and results of the dim algebra) derives from this.
struct dim_expr_base {};
// Every tag derives from this.
struct dim_tag_base : dim_expr_base {};

// The size argument of a ragged dim: a dynamic dim whose valid length differs per entry of
// the batch dim B (a tag). struct Time : dg::dim<"time", dg::ragged<dg::batch>> {};
template <class B>
struct ragged_over {
  using batch = B;
};
template <class B>
inline constexpr ragged_over<B> ragged{};

namespace detail {

template <class S>
struct ragged_size : std::false_type {};
template <class B>
struct ragged_size<ragged_over<B>> : std::true_type {};

template <class S>
constexpr interval size_to_interval(S size) {
  if constexpr (std::is_same_v<S, interval>) {
    return size;
  } else if constexpr (ragged_size<S>::value) {
    return interval{};
  } else {
    static_assert(std::is_integral_v<S> && !std::is_same_v<S, bool>,
                  "dimgraph: dim: a size is an integer, a dg::range{lo, hi} or omitted (dynamic)");
    if constexpr (std::is_signed_v<S>)
      return size < 0 ? interval::empty() : interval::exactly(static_cast<std::size_t>(size));
    else return interval::exactly(static_cast<std::size_t>(size));
  }
}

// The default kind: a static size is a feature dim, anything else a spatial one.
constexpr dim_kind default_kind(interval size) {
  return size.is_static() ? dim_kind::feature : dim_kind::spatial;
}

// The check of a tag's size, in a class of its own: Clang drops a class whose body holds a
// failed check as a base, and a tag derived from it would then be no dim at every later use.
template <fixed_string Name, interval Bounds>
struct dim_size_check {
  DIMGRAPH_REQUIRE_DECL(!Bounds.is_empty(),
                        "dimgraph: dim: the size interval is empty (lo > hi) or the size is "
                        "negative",
                        operand<Name>);
};

}  // namespace detail

// A dimension tag. Declare one as a struct so the struct is the identity:
//   struct Time    : dg::dim<"time"> {};                 // dynamic: [0, unbounded]
//   struct Feature : dg::dim<"feature", 512> {};         // static
//   struct Beam    : dg::dim<"beam", dg::range{1, 8}> {};// interval
//   struct Time    : dg::dim<"time", dg::ragged<Batch>> {};  // dynamic, a length per batch entry
// Two tags with equal names and sizes are still different dims.
// Error: an empty size interval (lo > hi) or a negative size.
template <detail::fixed_string Name, auto Size = interval{},
          dim_kind Kind = detail::default_kind(detail::size_to_interval(Size))>
struct dim : dim_tag_base {
  static constexpr std::string_view name = Name.view();
  static constexpr interval bounds = detail::size_to_interval(Size);
  static constexpr dim_kind kind = Kind;
  static_assert(sizeof(detail::dim_size_check<Name, bounds>) != 0);
  static constexpr auto size_argument = Size;
};

// The one predefined global batch dim (dynamic).
struct batch : dim<"batch", interval{}, dim_kind::batch> {};

// A user-declared (atomic) tag.
template <class T>
inline constexpr bool is_tag_v =
    std::is_base_of_v<dim_tag_base, T> && std::is_same_v<T, std::remove_cvref_t<T>>;

namespace detail {
template <class D>
struct ragged_batch_of {
  using type = void;
};
template <class D>
  requires ragged_size<std::remove_cvref_t<decltype(D::size_argument)>>::value
struct ragged_batch_of<D> {
  using type = typename std::remove_cvref_t<decltype(D::size_argument)>::batch;
  static_assert(std::is_base_of_v<dim_tag_base, type> && !std::is_same_v<type, D>,
                "dimgraph: ragged: a dim is ragged over another dim tag");
};
}  // namespace detail

// The batch dim a ragged dim D has its lengths over (void when D is not ragged).
template <class D>
using ragged_batch_t = typename detail::ragged_batch_of<std::remove_cvref_t<D>>::type;
template <class D>
inline constexpr bool is_ragged_v = !std::is_void_v<ragged_batch_t<D>>;

// Any dim: a tag or a result of the dim algebra (cv-qualifiers and references are
// ignored, so decltype of a constexpr dim variable works everywhere).
template <class T>
concept dimension = std::is_base_of_v<dim_expr_base, std::remove_cvref_t<T>>;

// Dim equality is type identity: the algebra's result types are canonical.
template <class A, class B>
inline constexpr bool same_dim_v = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;

}  // namespace dimgraph
