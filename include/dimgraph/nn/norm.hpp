// dg::nn::layer_norm and dg::nn::rms_norm: normalisation over named dims, as torch.nn's.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/nn/parameter_struct.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/reduce.hpp"

namespace dimgraph::nn {
namespace detail {

using dimgraph::detail::type_list;
using dimgraph::detail::types_of_t;

// The dims a norm normalizes over: Dims... when named, else the weight's (W void: no weight).
template <class W, class... Dims>
struct normalized {
  using type = type_list<Dims...>;
};
template <class W>
  requires(!std::is_void_v<W>)
struct normalized<W> {
  using type = types_of_t<dims_of_t<W>>;
};
template <class W, class... Dims>
using normalized_t = typename normalized<W, Dims...>::type;

template <class D, class... Ds>
inline constexpr std::size_t count_v = (std::size_t{std::is_same_v<D, Ds>} + ... + 0);

// Why a norm rejects its operands (checked in this order: one message per mistake).
enum class norm_check { ok, no_dims, not_floating, repeated_dim, x_lacks_dim, w_dims, b_dims };

// W and B are void when not given.
template <class X, class W, class B, class... Dims>
constexpr norm_check check_norm(type_list<Dims...>) {
  if constexpr (sizeof...(Dims) == 0) {
    return norm_check::no_dims;
  } else if constexpr (!std::is_floating_point_v<value_of_t<X>>) {
    return norm_check::not_floating;
  } else if constexpr (!((count_v<Dims, Dims...> == 1) && ...)) {
    return norm_check::repeated_dim;  // (before a dim_list of them is formed)
  } else {
    if (!(list_contains_v<dims_of_t<X>, Dims> && ...)) return norm_check::x_lacks_dim;
    if constexpr (!std::is_void_v<W>)
      if (!list_same_set_v<dims_of_t<W>, dim_list<Dims...>>) return norm_check::w_dims;
    if constexpr (!std::is_void_v<B>)
      if (!list_same_set_v<dims_of_t<B>, dim_list<Dims...>>) return norm_check::b_dims;
    return norm_check::ok;
  }
}
template <class X, class W, class B, class... Dims>
inline constexpr norm_check norm_check_v = check_norm<X, W, B>(normalized_t<W, Dims...>{});

// (W and B: the weight's and the bias's types, or void without them; Dims: the dims named in
// the call. A check that holds instantiates nothing.)
template <norm_check Check, bool Rms, class X, class W, class B, class... Dims>
void report_norm() {
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using normalized = dimgraph::detail::as_role_t<::dimgraph::asked, normalized_t<W, Dims...>>;
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::no_dims,
                   "dimgraph: nn::layer_norm: name the normalized dims (layer_norm<Dims...>(x)) or "
                   "give a weight, whose dims they then are",
                   x);
  DIMGRAPH_REQUIRE(
      !Rms || Check != norm_check::no_dims,
      "dimgraph: nn::rms_norm: name the normalized dims (rms_norm<Dims...>(x)) or give "
      "a weight, whose dims they then are",
      x);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::not_floating,
                   "dimgraph: nn::layer_norm: x must have a floating-point element type", x,
                   value_of_t<X>);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::not_floating,
                   "dimgraph: nn::rms_norm: x must have a floating-point element type", x,
                   value_of_t<X>);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::repeated_dim,
                   "dimgraph: nn::layer_norm: a normalized dim is named twice", normalized);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::repeated_dim,
                   "dimgraph: nn::rms_norm: a normalized dim is named twice", normalized);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::x_lacks_dim,
                   "dimgraph: nn::layer_norm: x has not every normalized dim", normalized, x);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::x_lacks_dim,
                   "dimgraph: nn::rms_norm: x has not every normalized dim", normalized, x);
  DIMGRAPH_REQUIRE(Rms || Check != norm_check::w_dims,
                   "dimgraph: nn::layer_norm: the weight must have exactly the normalized dims",
                   normalized, dimgraph::detail::operand_role_t<"weight", W>);
  DIMGRAPH_REQUIRE(!Rms || Check != norm_check::w_dims,
                   "dimgraph: nn::rms_norm: the weight must have exactly the normalized dims",
                   normalized, dimgraph::detail::operand_role_t<"weight", W>);
  DIMGRAPH_REQUIRE(Check != norm_check::b_dims,
                   "dimgraph: nn::layer_norm: the bias must have exactly the normalized dims",
                   normalized, dimgraph::detail::operand_role_t<"bias", B>);
}

// The number of a parameter struct's operand members (Members: their roles).
template <class X, class... Members>
void report_layer_norm_members(type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1 || sizeof...(Members) == 2,
                   "dimgraph: nn::layer_norm: a parameter struct must hold the weight, or the "
                   "weight and the bias (its tensor members, in declaration order)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}
template <class X, class... Members>
void report_rms_norm_members(type_list<Members...>) {
  DIMGRAPH_REQUIRE(sizeof...(Members) == 1,
                   "dimgraph: nn::rms_norm: a parameter struct must hold the weight (its one "
                   "tensor member)",
                   dimgraph::detail::operand_role_t<"x", X>, Members...);
}

// finish((x - mean) / sqrt(biased variance + eps)) over Dims, finish given the lazy normalized
// x (it applies the weight and bias and evaluates): the mean first, then the variance as the
// mean of the centred squares (no E[x^2] - E[x]^2 cancellation), 1 / sqrt once per row, then
// one element-wise pass.
template <class... Dims, class X, class Finish>
auto layer_norm_of(type_list<Dims...>, const X& x_in, double eps, const Finish& finish) {
  using T = value_of_t<X>;
  decltype(auto) x = read_once(x_in);
  const auto mean = dimgraph::eval(dimgraph::mean<Dims...>(x));
  const auto centred = x - mean;
  const auto var = dimgraph::eval(dimgraph::mean<Dims...>(centred * centred));
  const auto inv_std = dimgraph::eval(dimgraph::rsqrt(var + static_cast<T>(eps)));
  return finish(centred * inv_std);
}

// finish(x / sqrt(mean(x^2) + eps)) over Dims; eps defaults to the machine epsilon of x's
// element type (torch.nn.RMSNorm with eps=None).
template <class... Dims, class X, class Finish>
auto rms_norm_of(type_list<Dims...>, const X& x_in, std::optional<double> eps,
                 const Finish& finish) {
  using T = value_of_t<X>;
  decltype(auto) x = read_once(x_in);
  const T e = eps ? static_cast<T>(*eps) : std::numeric_limits<T>::epsilon();
  const auto mean_square = dimgraph::eval(dimgraph::mean<Dims...>(x * x));
  const auto inv_rms = dimgraph::eval(dimgraph::rsqrt(mean_square + e));
  return finish(x * inv_rms);
}

// Evaluates the normalized x.
inline constexpr auto plain = [](const auto& y) { return dimgraph::eval(y); };

}  // namespace detail

// layer_norm<Dims...>(x, [weight, [bias,]] eps = 1e-5): torch.nn.LayerNorm over the dims Dims
// (its normalized_shape; here named, in any position of x, not only the trailing ones):
//   y = (x - mean) / sqrt(var + eps) * weight + bias,  mean and biased var over Dims per row
//   layer_norm<Dims...>([.., Dims.., ..], [Dims...], [Dims...]) -> x's dims in x's order
// weight and bias are torch's weight and bias (shape normalized_shape, any dim order): none
// (elementwise_affine=False), the weight alone (bias=False), or both. With a weight the dims
// may be left out: layer_norm(x, w, b) normalizes over w's dims. The variance is the mean of
// the centred squares (two passes over x, no cancellation). IEEE: a row holding an infinity
// or a NaN gives NaN throughout (inf - inf), as torch; a constant row gives the bias.
// Evaluated now (a tensor; a symbol when traced). Errors (compile time): no normalized dim;
// x's element type not floating-point; a dim named twice; x lacks a normalized dim; the
// weight's or bias's dims not exactly the normalized dims. Errors (run time): extents that
// disagree (shape_error from the op that meets them, after the layer's name: "dimgraph:
// nn::layer_norm: mul: ...").
template <dimension... Dims, layer_operand X>
auto layer_norm(const X& x, double eps = 1e-5) {
  if constexpr (dimgraph::detail::any_poisoned<X>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, void, void, Dims...>;
    detail::report_norm<check, false, X, void, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::layer_norm", [&] {
        return detail::layer_norm_of(detail::normalized_t<void, Dims...>{}, x, eps, detail::plain);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}
template <dimension... Dims, layer_operand X, layer_operand W>
auto layer_norm(const X& x, const W& weight, double eps = 1e-5) {
  if constexpr (dimgraph::detail::any_poisoned<X, W>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, W, void, Dims...>;
    detail::report_norm<check, false, X, W, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::layer_norm", [&] {
        return detail::layer_norm_of(detail::normalized_t<W, Dims...>{}, x, eps,
                                     [&](const auto& y) { return dimgraph::eval(y * weight); });
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}
template <dimension... Dims, layer_operand X, layer_operand W, layer_operand B>
auto layer_norm(const X& x, const W& weight, const B& bias, double eps = 1e-5) {
  if constexpr (dimgraph::detail::any_poisoned<X, W, B>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, W, B, Dims...>;
    detail::report_norm<check, false, X, W, B, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::layer_norm", [&] {
        return detail::layer_norm_of(
            detail::normalized_t<W, Dims...>{}, x, eps,
            [&](const auto& y) { return dimgraph::eval(y * weight + bias); });
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// layer_norm<Dims...>(x, p, eps = 1e-5) with the weights as one struct (see parameter_struct):
// p's operand members are (weight) or (weight, bias) in declaration order, as torch.nn.LayerNorm's
// state dict. Error (compile time): p has not one or two operand members.
template <dimension... Dims, layer_operand X, parameter_struct P>
auto layer_norm(const X& x, const P& p, double eps = 1e-5) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_layer_norm_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 1 || n == 2) {
    return std::apply([&](const auto&... a) { return nn::layer_norm<Dims...>(x, a..., eps); },
                      detail::operand_members(p));
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

// rms_norm<Dims...>(x, [weight,] eps = nullopt): torch.nn.RMSNorm over the dims Dims:
//   y = x / sqrt(mean(x^2) + eps) * weight,  mean over Dims per row
//   rms_norm<Dims...>([.., Dims.., ..], [Dims...]) -> x's dims in x's order
// weight is torch's weight (shape normalized_shape; left out: elementwise_affine=False); with
// it the dims may be left out (rms_norm(x, w)). eps left out (std::nullopt) is what torch
// uses for eps=None: the machine epsilon of x's element type (2^-23 for float).
// Evaluated now (a tensor; a symbol when traced). Errors: as layer_norm.
template <dimension... Dims, layer_operand X>
auto rms_norm(const X& x, std::optional<double> eps = std::nullopt) {
  if constexpr (dimgraph::detail::any_poisoned<X>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, void, void, Dims...>;
    detail::report_norm<check, true, X, void, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::rms_norm", [&] {
        return detail::rms_norm_of(detail::normalized_t<void, Dims...>{}, x, eps, detail::plain);
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}
template <dimension... Dims, layer_operand X, layer_operand W>
auto rms_norm(const X& x, const W& weight, std::optional<double> eps = std::nullopt) {
  if constexpr (dimgraph::detail::any_poisoned<X, W>) {
    return dimgraph::detail::invalid_expr{};
  } else {
    constexpr detail::norm_check check = detail::norm_check_v<X, W, void, Dims...>;
    detail::report_norm<check, true, X, W, void, Dims...>();
    if constexpr (check == detail::norm_check::ok) {
      return dimgraph::detail::in_call("nn::rms_norm", [&] {
        return detail::rms_norm_of(detail::normalized_t<W, Dims...>{}, x, eps,
                                   [&](const auto& y) { return dimgraph::eval(y * weight); });
      });
    } else {
      return dimgraph::detail::invalid_expr{};
    }
  }
}

// rms_norm<Dims...>(x, p, eps = nullopt) with the weight as one struct (see parameter_struct):
// p's one operand member is the weight. Error (compile time): p has not one operand member.
template <dimension... Dims, layer_operand X, parameter_struct P>
auto rms_norm(const X& x, const P& p, std::optional<double> eps = std::nullopt) {
  constexpr std::size_t n = detail::operand_member_count_v<P>;
  detail::report_rms_norm_members<X>(detail::member_roles_t<P>{});
  if constexpr (n == 1) {
    return nn::rms_norm<Dims...>(x, std::get<0>(detail::operand_members(p)), eps);
  } else {
    return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
