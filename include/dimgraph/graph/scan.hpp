// dg::scan<D>(body)(inputs...): OpenVINO TensorIterator-1, run eagerly on tensors.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dimgraph/graph/scan_check.hpp"
#include "dimgraph/graph/scan_run.hpp"
#include "dimgraph/graph/slicing.hpp"
#include "dimgraph/graph/step.hpp"

namespace dimgraph {

// dg::unroll<K>: run the body K times per pass of the scan loop (the rest one at a time).
template <std::size_t K>
struct unroll {
  static_assert(K >= 1, "dimgraph: scan: unroll<K> needs K of at least 1");
  static constexpr std::size_t factor = K;
};
// dg::unroll_all: no loop at all; needs a trip count known at compile time.
struct unroll_all {};

namespace detail {

// Runs the loop body once per iteration: i = 0, 1, ..., n - 1 (n static with unroll_all).
template <class Unroll, std::size_t StaticCount, class F>
void scan_loop(std::size_t n, F&& once) {
  if constexpr (std::is_same_v<Unroll, unroll_all>) {
    [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      (once(Is), ...);
    }(std::make_index_sequence<StaticCount>{});
  } else {
    constexpr std::size_t k = Unroll::factor;
    std::size_t i = 0;
    if constexpr (k > 1)
      for (; i + k <= n; i += k)
        [&]<std::size_t... Us>(std::index_sequence<Us...>) {
          (once(i + Us), ...);
        }(std::make_index_sequence<k>{});
    for (; i < n; ++i) once(i);
  }
}

}  // namespace detail

// A scan over D: call it on the inputs. See dg::scan.
template <class D, class Unroll, class Body>
class scan_fn {
 public:
  explicit scan_fn(Body body) : body_(std::move(body)) {}

  template <class... Xs>
  auto operator()(Xs&&... xs) const {
    constexpr auto check = detail::check_scan_inputs<D, std::remove_cvref_t<Xs>...>();
    if constexpr (check != detail::scan_input_check::ok) {
      return detail::invalid_expr{};
    } else {
      using run = detail::scan_run<D, Body, std::remove_cvref_t<Xs>...>;
      constexpr slicing s = run::first::slicing_value;
      constexpr bool unroll_ok = !std::is_same_v<Unroll, unroll_all> || static_trip_v<D, s>;
      static_assert(unroll_ok,
                    "dimgraph: scan: unroll_all needs a trip count known at compile "
                    "time (a static dim, or start and end both from the front)");
      if constexpr (!unroll_ok) {
        return detail::invalid_expr{};
      } else if constexpr (!run::invocable) {
        static_assert(run::invocable,
                      "dimgraph: scan: the body cannot be called with the slices "
                      "and carries, in the order of the inputs");
        return detail::invalid_expr{};
      } else if constexpr (!detail::check_scan_body<typename run::iter, typename run::carried,
                                                    typename run::result>()) {
        return detail::invalid_expr{};
      } else {
        return execute<run>(std::forward_as_tuple(xs...));
      }
    }
  }

 private:
  template <class Run, class Inputs>
  auto execute(const Inputs& in) const;

  Body body_;
};

// dg::scan<D>(body)(inputs...) is TensorIterator-1 over the dim D.
//  inputs   dg::sliced<D, S>(x) is sliced along D (see dg::slicing for the walk); any other
//           tensor or expression is a carry, its initial value the input; tensors the body
//           captures are invariant (read whole every iteration).
//  body     called once per iteration with (slices and carries...) in the order the inputs
//           were passed (const views of the slices, const references to the carries). It
//           returns dg::step(dg::carry(next carries...), dg::emit(values...)); a next carry
//           has its input's element type and dim set (any order: it is evaluated into the
//           input's order).
//  result   a std::tuple: the stacked emitted outputs, then the carries' last values
//           (auto [ys, h, c] = ...). Emitted value k of dims [E...] gives an output of dims
//           stacked_dims_t<iteration_dim_t<D, S>, p, [E...]>: the iteration dim is inserted at
//           p, the position of D in the first sliced input (clamped to the rank); it is D
//           itself when the walk reads every position of D once (else trip_dim<D, S>), S
//           being the first sliced input's slicing. Outputs are in original order: iteration i
//           fills slot slice_walk::slot(i), so a backward walk (start -1, end 0, stride -1) gives
//           S[N-1] ... S[0] for its N iterations S[0] ... S[N-1]. With no iteration the outputs
//           are empty along the iteration dim (other non-static dims at their smallest
//           extents) and the carries are the inputs.
//  Unroll   dg::unroll<K> (default 1), or dg::unroll_all for a trip count known at compile time.
// Per-batch (ragged) lengths are not supported: every sequence walks the whole dim.
// Errors (compile time): see graph/scan_check.hpp (no sliced input, a sliced input without D,
// static trip counts that differ, a carry that changes type, ...). Errors (run time, before
// the first iteration): a slicing outside its dim, trip counts that differ (shape_error).
template <dimension D, class Unroll = unroll<1>, class Body>
scan_fn<std::remove_cvref_t<D>, Unroll, Body> scan(Body body) {
  static_assert(
      std::is_same_v<Unroll, unroll_all> || requires { Unroll::factor; },
      "dimgraph: scan: the second argument must be dg::unroll<K> or dg::unroll_all");
  return scan_fn<std::remove_cvref_t<D>, Unroll, Body>(std::move(body));
}

template <class D, class Unroll, class Body>
template <class Run, class Inputs>
auto scan_fn<D, Unroll, Body>::execute(const Inputs& in) const {
  using iter = typename Run::iter;
  constexpr std::size_t slice_count = Run::sliced::size;
  constexpr std::size_t carry_count = Run::carried::size;
  constexpr std::size_t emit_count = std::tuple_size_v<typename Run::emitted>;
  constexpr auto pos = Run::positions;
  using state_t = typename detail::tuple_of<typename Run::carried>::type;
  using outputs_t =
      typename detail::optional_outputs<Run, std::make_index_sequence<emit_count>>::type;

  const auto walks = [&]<std::size_t... Ss>(std::index_sequence<Ss...>) {
    return detail::scan_walks(std::get<pos[Ss]>(in)...);
  }(std::make_index_sequence<slice_count>{});
  const std::size_t n = walks[0].count;
  state_t state = [&]<std::size_t... Cs>(std::index_sequence<Cs...>) {
    return state_t(std::get<pos[slice_count + Cs]>(in)...);
  }(std::make_index_sequence<carry_count>{});
  outputs_t outs;

  auto once = [&](std::size_t i) {
    const auto slices = [&]<std::size_t... Ss>(std::index_sequence<Ss...>) {
      return std::tuple{detail::slice_at(std::get<pos[Ss]>(in), walks[Ss], i)...};
    }(std::make_index_sequence<slice_count>{});
    auto r = [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return body_(detail::scan_arg<Ks, Run>(slices, state)...);
    }(std::make_index_sequence<Run::input_count>{});
    const std::size_t slot = walks[0].slot(i);
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      [[maybe_unused]] auto put = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        auto& out = std::get<K>(outs);
        const auto& e = std::get<K>(r.emits.values);
        if (!out)
          out.emplace(detail::stacked_output<typename Run::template output_t<K>, iter>(&e, n));
        (*out)[at<iter>(slot)] = e;
      };
      (put(std::integral_constant<std::size_t, Ks>{}), ...);
    }(std::make_index_sequence<emit_count>{});
    // Every next carry is computed (from the old ones) before any is replaced.
    state = [&]<std::size_t... Cs>(std::index_sequence<Cs...>) {
      return state_t(std::move(std::get<Cs>(r.carries.values))...);
    }(std::make_index_sequence<carry_count>{});
  };
  constexpr slicing s = Run::first::slicing_value;
  detail::scan_loop<Unroll, (static_trip_v<D, s> ? static_walk<D, s>().count : 0)>(n, once);

  return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    [[maybe_unused]] auto finish = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      using out_t = typename Run::template output_t<K>;
      auto& out = std::get<K>(outs);
      if (!out)
        out.emplace(detail::stacked_output<out_t, iter>(
            static_cast<const std::tuple_element_t<K, typename Run::emitted>*>(nullptr), n));
      return std::move(*out);
    };
    return std::tuple_cat(std::tuple{finish(std::integral_constant<std::size_t, Ks>{})...},
                          std::move(state));
  }(std::make_index_sequence<emit_count>{});
}

}  // namespace dimgraph
