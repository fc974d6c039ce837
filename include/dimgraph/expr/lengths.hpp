// The lengths of ragged dims at the tensor level: given from a tensor over the batch dim, and
// read back from any expression.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "dimgraph/expr/node.hpp"

namespace dimgraph {

// Lengths of the ragged dim D from an integer tensor or view over D's batch dim:
// dg::lengths<Time>(lens) next to dg::extent<Batch>(n) where a tensor is made.
// Errors (compile time): D is not ragged; x is not an integer tensor over D's batch dim alone.
template <dimension D, expression X>
  requires detail::memory_operand<X>
lengths_arg<std::remove_cvref_t<D>> lengths(const X& x) {
  using d = std::remove_cvref_t<D>;
  static_assert(is_ragged_v<d>,
                "dimgraph: lengths: the dim is not ragged (declare it dg::dim<\"name\", "
                "dg::ragged<Batch>>)");
  if constexpr (is_ragged_v<d>) {
    static_assert(std::is_same_v<dims_t<X>, dim_list<ragged_batch_t<d>>> &&
                      std::integral<value_t<X>> && !std::is_same_v<value_t<X>, bool>,
                  "dimgraph: lengths: the lengths are an integer tensor over the ragged dim's "
                  "batch dim alone");
  }
  std::vector<std::int64_t> v;
  v.reserve(x.size());
  for (auto n : x.to_vector()) v.push_back(static_cast<std::int64_t>(n));
  return {std::make_shared<const std::vector<std::int64_t>>(std::move(v))};
}

// The lengths of the ragged dim D in x, as a tensor over D's batch dim (every entry is D's
// extent when x's lengths are full). Error (compile time): D is not a ragged dim of x, or x
// lacks its batch dim.
template <dimension D, detail::expression_or_poisoned X>
auto lengths_of(const X& x) {
  using d = std::remove_cvref_t<D>;
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    static_assert(is_ragged_v<d>, "dimgraph: lengths_of: the dim is not ragged");
    if constexpr (is_ragged_v<d>) {
      using B = ragged_batch_t<d>;
      static_assert(list_contains_v<dims_t<X>, d> && list_contains_v<dims_t<X>, B>,
                    "dimgraph: lengths_of: the expression lacks the dim or its batch dim");
      if constexpr (list_contains_v<dims_t<X>, d> && list_contains_v<dims_t<X>, B>) {
        tensor<std::int64_t, B> out(extent<B>(x.template extent<B>()));
        const lengths_ref l = detail::lengths_in<d>(x);
        for (std::size_t b = 0; b < out.size(); ++b)
          out.data()[b] = l ? (*l)[b] : static_cast<std::int64_t>(x.template extent<d>());
        return out;
      }
    }
  }
}

}  // namespace dimgraph
