// Strided windows over a dim: ceildiv(a, k) and floordiv(a, k).
#pragma once

#include <cstddef>
#include <type_traits>

#include "dimgraph/dim/quotient.hpp"

namespace dimgraph::detail {

// Both are opaque except: constants fold, k == 1 is the identity, an exact split
// gives the quotient (ceildiv(a * 6, 2) == a * 3), and nested ones merge
// (ceildiv(ceildiv(a, 2), 3) == ceildiv(a, 6), since ceil(ceil(x / p) / q) == ceil(x / (p q))).
template <template <class, std::size_t> class Form, class A, std::size_t K, bool Up>
constexpr auto window_fn() {
  using exact = quotient_t<A, const_dim<K>>;
  if constexpr (K == 1) return std::type_identity<A>{};
  else if constexpr (is_const_v<A>)
    return std::type_identity<const_dim<(A::value / K) + (Up && A::value % K != 0)>>{};
  else if constexpr (!std::is_same_v<exact, dim_quotient<A, const_dim<K>>>)
    return std::type_identity<exact>{};
  else return std::type_identity<Form<A, K>>{};
}
template <class A, std::size_t K>
struct ceildiv_form {
  using type = typename decltype(window_fn<dim_ceildiv, A, K, true>())::type;
};
template <class A, std::size_t J, std::size_t K>
struct ceildiv_form<dim_ceildiv<A, J>, K> {
  using type = dim_ceildiv<A, J * K>;
};
template <class A, std::size_t K>
struct floordiv_form {
  using type = typename decltype(window_fn<dim_floordiv, A, K, false>())::type;
};
template <class A, std::size_t J, std::size_t K>
struct floordiv_form<dim_floordiv<A, J>, K> {
  using type = dim_floordiv<A, J * K>;
};

}  // namespace dimgraph::detail
