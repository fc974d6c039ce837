// dimgraph::dim: dimension tags (identity = the type), their size, kind and traits.
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>
#include <type_traits>

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

namespace detail {

template <class S>
constexpr interval size_to_interval(S size) {
  if constexpr (std::is_same_v<S, interval>) {
    return size;
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

}  // namespace detail

// A dimension tag. Declare one as a struct so the struct is the identity:
//   struct Time    : dg::dim<"time"> {};                 // dynamic: [0, unbounded]
//   struct Feature : dg::dim<"feature", 512> {};         // static
//   struct Beam    : dg::dim<"beam", dg::range{1, 8}> {};// interval
// Two tags with equal names and sizes are still different dims.
// Error: an empty size interval (lo > hi) or a negative size.
template <detail::fixed_string Name, auto Size = interval{},
          dim_kind Kind = detail::default_kind(detail::size_to_interval(Size))>
struct dim : dim_tag_base {
  static constexpr std::string_view name = Name.view();
  static constexpr interval bounds = detail::size_to_interval(Size);
  static constexpr dim_kind kind = Kind;
  static_assert(!bounds.is_empty(),
                "dimgraph: dim: the size interval is empty (lo > hi) or the size is negative");
};

// The one predefined global batch dim (dynamic).
struct batch : dim<"batch", interval{}, dim_kind::batch> {};

// A user-declared (atomic) tag.
template <class T>
inline constexpr bool is_tag_v =
    std::is_base_of_v<dim_tag_base, T> && std::is_same_v<T, std::remove_cvref_t<T>>;

// Any dim: a tag or a result of the dim algebra (cv-qualifiers and references are
// ignored, so decltype of a constexpr dim variable works everywhere).
template <class T>
concept dimension = std::is_base_of_v<dim_expr_base, std::remove_cvref_t<T>>;

// Dim equality is type identity: the algebra's result types are canonical.
template <class A, class B>
inline constexpr bool same_dim_v = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;

}  // namespace dimgraph
