// dg::nn::gelu (exact and tanh forms, as torch's) and the activations nn layers choose from.
#pragma once

#include <type_traits>

#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/ops/elementwise.hpp"

namespace dimgraph::nn {

// torch.nn.functional.gelu's `approximate`: 'none' (the erf form) or 'tanh'.
enum class gelu_approximate { none, tanh };

// The activation between the two products of nn::feed_forward.
enum class activation { relu, gelu, gelu_tanh };

namespace detail {

// gelu of x as a lazy expression over x (which must outlive it):
//   none:  x / 2 (1 + erf(x / sqrt 2))                           dg::gelu
//   tanh:  x / 2 (1 + tanh(u)),  u = sqrt(2 / pi) (x + 0.044715 x^3)
// The tanh form is computed as x sigmoid(2u), the same function without the cancellation
// of 1 + tanh(u) for negative u. At -inf the exact form gives its limit -0 (dg::gelu), the
// tanh form NaN (-inf * 0, as torch's formula x / 2 (1 + tanh(u)) gives).
template <gelu_approximate A, class X>
auto gelu_expr(const X& x) {
  using T = value_of_t<X>;
  if constexpr (A == gelu_approximate::none) {
    return dimgraph::gelu(x);
  } else {
    constexpr T two_k = static_cast<T>(2 * 0.79788456080286535588);  // 2 sqrt(2 / pi)
    constexpr T c = static_cast<T>(0.044715);
    return x * dimgraph::sigmoid((x + c * (x * x * x)) * two_k);
  }
}

// The activation A of x as a lazy expression over x.
template <activation A, class X>
auto activate(const X& x) {
  if constexpr (A == activation::relu) return dimgraph::relu(x);
  else if constexpr (A == activation::gelu) return gelu_expr<gelu_approximate::none>(x);
  else return gelu_expr<gelu_approximate::tanh>(x);
}

}  // namespace detail

// gelu<A>(x): torch.nn.functional.gelu(x, approximate=A) element by element, A none (the exact
// erf form, the default; the same as dg::gelu) or tanh. Shape rule: x's dims. Evaluated now
// (a tensor; a symbol when traced); dg::gelu is the lazy exact form, which fuses into what
// follows. Error (compile time): x's element type is not floating-point.
template <gelu_approximate A = gelu_approximate::none, layer_operand X>
auto gelu(const X& x) {
  if constexpr (dimgraph::detail::poisoned<X>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr bool floating = std::is_floating_point_v<detail::value_of_t<X>>;
    static_assert(floating, "dimgraph: nn::gelu: x must have a floating-point element type");
    if constexpr (floating) return dimgraph::eval(detail::gelu_expr<A>(x));
    else return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
