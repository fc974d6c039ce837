// dg::nn::conv1d: a 1-d convolution over a named time dim with stride, padding and dilation.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/require.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/contract.hpp"
#include "dimgraph/graph/ops.hpp"
#include "dimgraph/nn/cell_dims.hpp"
#include "dimgraph/ops/concat.hpp"
#include "dimgraph/ops/contract.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/reshape.hpp"
#include "dimgraph/ops/slice.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/rules.hpp"
#include "dimgraph/shape/slice_rule.hpp"

namespace dimgraph::nn {

// torch.nn.Conv1d's stride, padding (zeros on both sides) and dilation, known at compile time
// (a template argument: nn::conv1d<Time, Kernel, nn::conv_options{.stride = 2}>). As with
// nn::attention_options and nn::encoder_options, options that change the computation are a
// template argument, so a traced conv1d records exactly the computation that runs.
struct conv_options {
  std::size_t stride = 1;
  std::size_t padding = 0;
  std::size_t dilation = 1;
};

namespace detail {

// The slice of the padded time dim that tap Tap of a kernel of K taps reads: positions
// Tap d, Tap d + s, ... up to (K - 1 - Tap) d before the end. (Plain values and a struct: GCC 12
// fails on the options' members inside an alias template.)
template <class Time, std::size_t K, conv_options O, std::size_t Tap>
struct conv_tap_slice {
  static constexpr std::size_t before = O.padding;
  static constexpr std::size_t cut = (K - 1 - Tap) * O.dilation;
  static constexpr std::ptrdiff_t start = static_cast<std::ptrdiff_t>(Tap * O.dilation);
  static constexpr slice_index end =
      cut == 0 ? slice_index(none) : slice_index(-static_cast<std::ptrdiff_t>(cut));
  static constexpr std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(O.stride);
  using padded = pad_dim_t<Time, before, before>;
  using type = slice_dim_t<padded, start, end, stride>;
};

}  // namespace detail

// The output time dim of nn::conv1d over Time with a kernel of K taps: the positions of the
// first tap, by the slice and window algebra
//   ceildiv((c<p> + time + c<p>) - c<d (K - 1)>, c<s>)
// of extent floor((L + 2 p - d (K - 1) - 1) / s) + 1 (for a static Time a static dim of that
// size; stride 1, no padding, K = 1 give Time itself).
template <dimension Time, std::size_t K, conv_options O = conv_options{}>
using conv1d_dim_t = typename detail::conv_tap_slice<std::remove_cvref_t<Time>, K, O, 0>::type;

namespace detail {

// Why conv1d rejects its operands (checked in this order: one message per mistake).
enum class conv_check {
  ok,
  zero_option,
  no_time_dim,
  kernel_not_static,
  w_dims,
  no_in_dim,
  out_in_x,
  b_dims
};

template <class Time, class Kernel, conv_options O, class X, class W, class B>
constexpr conv_check check_conv1d() {
  using check = conv_check;
  using wd = dims_of_t<W>;
  if constexpr (O.stride == 0 || O.dilation == 0) {
    return check::zero_option;
  } else if constexpr (!list_contains_v<dims_of_t<X>, Time>) {
    return check::no_time_dim;
  } else if constexpr (!is_static_v<Kernel> || bounds_v<Kernel>.lo == 0) {
    return check::kernel_not_static;
  } else if constexpr (wd::size != 3 || !list_contains_v<wd, Kernel>) {
    return check::w_dims;
  } else if constexpr (list_intersection_t<dims_of_t<X>, wd>::size != 1 ||
                       list_contains_v<wd, Time>) {
    return check::no_in_dim;
  } else {
    using in = first_dim_t<list_intersection_t<dims_of_t<X>, wd>>;
    using out = first_dim_t<list_difference_t<wd, dim_list<in, Kernel>>>;
    if constexpr (list_contains_v<dims_of_t<X>, out>) {
      return check::out_in_x;
    } else if constexpr (!std::is_void_v<B>) {
      if (!list_same_set_v<dims_of_t<B>, dim_list<out>>) return check::b_dims;
    }
    return check::ok;
  }
}

// (B: the bias's type, or void without it. A check that holds instantiates nothing.)
template <conv_check Check, class Time, class Kernel, class X, class W, class B>
void report_conv1d() {
  using check = conv_check;
  using x = dimgraph::detail::operand_role_t<"x", X>;
  using w = dimgraph::detail::operand_role_t<"weight", W>;
  DIMGRAPH_REQUIRE(Check != check::zero_option,
                   "dimgraph: nn::conv1d: the stride and the dilation must be at least 1",
                   ::dimgraph::asked<Time, Kernel>);
  DIMGRAPH_REQUIRE(Check != check::no_time_dim,
                   "dimgraph: nn::conv1d: x has no dim Time (the template argument naming the dim "
                   "convolved over)",
                   ::dimgraph::asked<Time>, x);
  DIMGRAPH_REQUIRE(Check != check::kernel_not_static,
                   "dimgraph: nn::conv1d: the kernel dim must have a static size of at least 1",
                   ::dimgraph::asked<Kernel>);
  DIMGRAPH_REQUIRE(Check != check::w_dims,
                   "dimgraph: nn::conv1d: the weight must have exactly three dims [out, in, "
                   "kernel], one of them the kernel dim",
                   ::dimgraph::asked<Kernel>, x, w);
  DIMGRAPH_REQUIRE(Check != check::no_in_dim,
                   "dimgraph: nn::conv1d: x and the weight must share exactly one dim (the input "
                   "channels), not the time dim",
                   ::dimgraph::asked<Time>, x, w);
  DIMGRAPH_REQUIRE(Check != check::out_in_x,
                   "dimgraph: nn::conv1d: the weight's output channel dim is already a dim of x", x,
                   w);
  DIMGRAPH_REQUIRE(Check != check::b_dims,
                   "dimgraph: nn::conv1d: the bias must have exactly the weight's output channel "
                   "dim",
                   w, dimgraph::detail::operand_role_t<"bias", B>);
}

// The padded x: a copy with O.padding zeros on both sides of Time (x itself without padding).
template <class Time, conv_options O, class X>
decltype(auto) conv_padded(const X& x) {
  if constexpr (O.padding == 0) return read_once(x);
  else return dimgraph::pad<Time, O.padding, O.padding>(x);
}

// Tap k's contribution: x_padded[.., k d + s i, ..] . w[.., k] over the input channels, with
// the slice's time dim renamed to the output time dim.
template <class Time, class Kernel, conv_options O, std::size_t Tap, class In, class P, class W>
auto conv_tap(const P& padded, const W& w) {
  constexpr std::size_t k = static_size_v<Kernel>;
  using out_time = conv1d_dim_t<Time, k, O>;
  using taps = conv_tap_slice<Time, k, O, Tap>;
  using tap = typename taps::type;
  auto slice = [&] {
    return dimgraph::slice<typename taps::padded, taps::start, taps::end, taps::stride>(padded);
  };
  // (The views are handed over by value: the product must not refer to these locals.)
  if constexpr (std::is_same_v<tap, out_time>)
    return dimgraph::dot<In>(slice(), w[dimgraph::at<Kernel>(Tap)]);
  else
    return dimgraph::dot<In>(dimgraph::rename<tap, out_time>(slice()),
                             w[dimgraph::at<Kernel>(Tap)]);
}

template <class Time, class Kernel, conv_options O, class X, class W, class... B>
auto convolve(const X& x, const W& w, const B&... b) {
  constexpr std::size_t k = static_size_v<Kernel>;
  using in = first_dim_t<list_intersection_t<dims_of_t<X>, dims_of_t<W>>>;
  if constexpr (!symbolic<X>) {
    // torch's "Kernel size can't be greater than actual input size", before anything is made.
    const std::size_t padded = x.template extent<Time>() + 2 * O.padding;
    if (padded < O.dilation * (k - 1) + 1)
      throw shape_error("nn::conv1d", "the padded extent " + std::to_string(padded) + " of dim '" +
                                          describe<Time>() +
                                          "' is shorter than the dilated kernel (" +
                                          std::to_string(O.dilation * (k - 1) + 1) + ")");
  }
  return dimgraph::detail::in_call("nn::conv1d", [&] {
    decltype(auto) padded = conv_padded<Time, O>(x);
    decltype(auto) weights = read_once(w);
    // One product per tap (each evaluated by the element-wise pass that reads it), summed in
    // one pass with the bias.
    return dimgraph::detail::with_indices<k>(
        [&]<std::size_t... Taps>(dimgraph::detail::index_constant<Taps>...) {
          const auto taps = (... + conv_tap<Time, Kernel, O, Taps, in>(padded, weights));
          return dimgraph::eval((taps + ... + b));
        });
  });
}

}  // namespace detail

// conv1d<Time, Kernel, O>(x, weight, [bias]): torch.nn.Conv1d (groups 1, zero padding) over the
// dim Time, weight [out, in, kernel] (torch's layout; any dim order), bias [out]:
//   y[.., t', o] = sum over in, k of x_padded[.., t' s + k d, in] w[o, in, k] + b[o]
//   conv1d<Time, Kernel, O>([.., Time, .., in, ..]) -> [x's other dims in x's order with Time
//   replaced by conv1d_dim_t<Time, size(Kernel), O>, out (last)]
// with O = conv_options{.stride = s, .padding = p, .dilation = d} and out length
// floor((L + 2 p - d (size(Kernel) - 1) - 1) / s) + 1. Over a ragged Time the output time dim
// is ragged too, each row's length that of its own L (0 when not positive), and no valid output
// reads a row's padding. in is the one dim x and the weight share. Work: the padding (a copy when p
// > 0), one product per tap over strided views of x (no im2col copy), one pass summing them with
// the bias. Evaluated now (a tensor; a symbol when traced). Errors (compile time): stride or
// dilation 0; x lacks Time; Kernel not static; the weight not [out, in, Kernel] sharing exactly one
// dim with x; out a dim of x; the bias not [out]. Errors (run time): the padded length shorter than
// the dilated kernel, extents that disagree (shape_error; from an op, after the layer's name:
// "dimgraph: nn::conv1d: dot: ...").
template <dimension Time, dimension Kernel, conv_options O = conv_options{}, layer_operand X,
          layer_operand W>
auto conv1d(const X& x, const W& weight) {
  using time = std::remove_cvref_t<Time>;
  using kernel = std::remove_cvref_t<Kernel>;
  if constexpr (dimgraph::detail::any_poisoned<X, W>) return dimgraph::detail::invalid_expr{};
  else {
    constexpr detail::conv_check check = detail::check_conv1d<time, kernel, O, X, W, void>();
    detail::report_conv1d<check, time, kernel, X, W, void>();
    if constexpr (check == detail::conv_check::ok)
      return detail::convolve<time, kernel, O>(x, weight);
    else return dimgraph::detail::invalid_expr{};
  }
}
template <dimension Time, dimension Kernel, conv_options O = conv_options{}, layer_operand X,
          layer_operand W, layer_operand B>
auto conv1d(const X& x, const W& weight, const B& bias) {
  using time = std::remove_cvref_t<Time>;
  using kernel = std::remove_cvref_t<Kernel>;
  if constexpr (dimgraph::detail::any_poisoned<X, W, B>) return dimgraph::detail::invalid_expr{};
  else {
    constexpr detail::conv_check check = detail::check_conv1d<time, kernel, O, X, W, B>();
    detail::report_conv1d<check, time, kernel, X, W, B>();
    if constexpr (check == detail::conv_check::ok)
      return detail::convolve<time, kernel, O>(x, weight, bias);
    else return dimgraph::detail::invalid_expr{};
  }
}

}  // namespace dimgraph::nn
