// The dim algebra on tag values: + * / - div_left sub_left ceildiv floordiv.
#pragma once

#include <cstddef>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/dim/difference.hpp"
#include "dimgraph/dim/quotient.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/dim/window.hpp"

namespace dimgraph {

// Meaning: a dim denotes an index space with its linear order, and two dims are
// the same type exactly when they denote the same ordered space. Laws (all tested
// in tests/static/dim/algebra.cpp):
//   (a + b) + c == a + (b + c)        (a * b) * c == a * (b * c)
//   a + 0 == 0 + a == a               a * 1 == 1 * a == a,  a * 0 == 0
//   (a + b) * c == a * c + b * c      (the sum is the major factor; c * (a + b) is not distributed)
//   a + a == 2 * a, 2 * (a + b) == a + b + a + b   (copies one after the other)
//   k1 * a + k2 * a == (k1 + k2) * a  (adjacent terms only: the order is kept)
//   a * 2 * 3 == a * 6                (constants fold when adjacent; 2 * (a * 3) != a * 6)
//   (a * b) / b == a,  div_left(b, b * a) == a,  (a / b) * b == a,  b * div_left(b, a) == a
//   (a + b) - b == a,  sub_left(b, b + a) == a,  (a - b) + b == a,  b + sub_left(b, a) == a
// Anything else stays an opaque dim: (b * a) / b, (2 + a) - 2, ceildiv(a, 2).

namespace detail {

// A stand-in result after a reported error (static size 0), so one mistake gives one message.
struct invalid_dim : dim_expr_base {
  static constexpr interval bounds = interval::exactly(0);
  static constexpr std::string_view name = "<invalid>";
  static constexpr dim_kind kind = dim_kind::spatial;
};

template <class A, class B>
constexpr bool split_possible() {
  return !exact_div(bounds_v<A>, bounds_v<B>).is_empty();
}
template <class A, class B>
constexpr bool removal_possible() {
  return bounds_v<B>.is_empty() || bounds_v<A>.hi >= bounds_v<B>.lo;
}

}  // namespace detail

// Concatenation: [a..., b...]. size(a + b) = size(a) + size(b).
// (Return types are deduced so that overload resolution on unrelated operands never
// looks inside the algebra.)
template <dimension A, dimension B>
constexpr auto operator+(A, B) {
  return detail::plus_t<A, B>{};
}

// Merge, a major: index (i, j) -> i * size(b) + j. size(a * b) = size(a) * size(b).
template <dimension A, dimension B>
constexpr auto operator*(A, B) {
  return detail::times_t<A, B>{};
}

// Exact split off a trailing factor: a == (a / b) * b.
// Error: static sizes that do not divide (compile time); a run-time extent that does
// not divide is a shape_error where the extent becomes known.
template <dimension A, dimension B>
constexpr auto operator/(A, B) {
  DIMGRAPH_REQUIRE((detail::split_possible<A, B>()),
                   "dimgraph: split: the divisor's size does not divide the dim's size",
                   ::dimgraph::lhs<A>, ::dimgraph::rhs<B>);
  if constexpr (detail::split_possible<A, B>()) return detail::quotient_t<A, B>{};
  else return detail::invalid_dim{};
}

// Exact split off a leading factor: a == b * div_left(b, a).
template <dimension B, dimension A>
constexpr auto div_left(B, A) {
  DIMGRAPH_REQUIRE((detail::split_possible<A, B>()),
                   "dimgraph: div_left: the divisor's size does not divide the dim's size",
                   ::dimgraph::lhs<A>, ::dimgraph::rhs<B>);
  if constexpr (detail::split_possible<A, B>()) return detail::left_quotient_t<B, A>{};
  else return detail::invalid_dim{};
}

// Removing a trailing term: a == (a - b) + b. Error: b is larger than a.
template <dimension A, dimension B>
constexpr auto operator-(A, B) {
  static_assert(detail::removal_possible<A, B>(),
                "dimgraph: sub: the part removed is larger than the dim");
  if constexpr (detail::removal_possible<A, B>()) return detail::difference_t<A, B>{};
  else return detail::invalid_dim{};
}

// Removing a leading term: a == b + sub_left(b, a).
template <dimension B, dimension A>
constexpr auto sub_left(B, A) {
  static_assert(detail::removal_possible<A, B>(),
                "dimgraph: sub_left: the part removed is larger than the dim");
  if constexpr (detail::removal_possible<A, B>()) return detail::left_difference_t<B, A>{};
  else return detail::invalid_dim{};
}

// Windows of k: ceil(size / k) (ceildiv) or floor(size / k) (floordiv), k > 0.
template <dimension A, std::size_t K>
constexpr auto ceildiv(A, const_dim<K>) {
  static_assert(K > 0, "dimgraph: ceildiv: the window size is 0");
  if constexpr (K > 0) return typename detail::ceildiv_form<A, K>::type{};
  else return detail::invalid_dim{};
}
template <dimension A, std::size_t K>
constexpr auto floordiv(A, const_dim<K>) {
  static_assert(K > 0, "dimgraph: floordiv: the window size is 0");
  if constexpr (K > 0) return typename detail::floordiv_form<A, K>::type{};
  else return detail::invalid_dim{};
}

}  // namespace dimgraph
