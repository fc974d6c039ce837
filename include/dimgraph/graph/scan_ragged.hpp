// dg::scan over a ragged dim: every batch row runs for its own length (see dg::scan).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/graph/scan_run.hpp"
#include "dimgraph/ops/elementwise.hpp"
#include "dimgraph/ops/view.hpp"

// How: the body runs on the whole batch at once, max(len) times. At iteration i, row b is
// active while i < len[b]. Once a row has finished, each slice with the batch dim is copied
// with zeros in the finished rows (the body never reads padding), each carry becomes
// where(active, next, carry) and each emitted value where(active, value, 0); while every row is
// active, the slices are views and the values are taken as they are. A backward walk first
// copies its input with each row's valid part reversed (row b's step i reads position
// len[b] - 1 - i) and walks that copy forwards; when the first sliced input walks backwards,
// the stacked outputs are reversed back the same way, so every value lands at its own position.

namespace dimgraph::detail {

// The lengths of D the sliced inputs carry, merged (null: every row is full). Error:
// shape_error when two sliced inputs carry different lengths.
template <class D, class... Ss>
lengths_ref scan_lengths(const Ss&... in) {
  lengths_ref l;
  [[maybe_unused]] auto one = [&]<class S>(const S& s) {
    if constexpr (carries_lengths_v<D, dims_t<typename S::operand_type>>)
      merge_lengths<D>("scan", l, lengths_in<D>(s.operand));
  };
  (one(in), ...);
  return l;
}

// x (input or value k, `what` saying which) has one row per length along D's batch dim, when
// it has that dim. Error: shape_error naming scan, x and both counts.
template <class D, class X>
void check_scan_rows(const X& x, std::size_t rows, const char* what, std::size_t k) {
  using b = ragged_batch_t<D>;
  if constexpr (list_contains_v<dims_t<X>, b>) {
    const std::size_t got = x.template extent<b>();
    if (got != rows)
      throw shape_error("scan", std::string(what) + " " + std::to_string(k) + " has extent " +
                                    std::to_string(got) + " along dim '" + describe<b>() +
                                    "', but dim '" + describe<D>() + "' has " +
                                    std::to_string(rows) + " lengths");
  }
}

// A copy of x (which has D and its batch dim) with each row's valid part reversed along D:
// out[b, t] = x[b, len[b] - 1 - t] for t < len[b], 0 past it.
template <class D, class X>
tensor_of_list_t<value_t<X>, dims_t<X>> reversed_rows(const X& x,
                                                      const std::vector<std::int64_t>& lens) {
  using b = ragged_batch_t<D>;
  tensor_of_list_t<value_t<X>, dims_t<X>> out(x.shape());
  for (std::size_t r = 0; r < lens.size(); ++r) {
    const auto n = static_cast<std::size_t>(lens[r]);
    if (n == 0) continue;
    auto from = x[dimgraph::at<b>(r)];
    auto to = out[dimgraph::at<b>(r)];
    const std::ptrdiff_t s = from.template stride<D>();
    replaced_view<D, D>(to, "scan", 0, {n}, {to.template stride<D>()}) =
        replaced_view<D, D>(from, "scan", static_cast<std::ptrdiff_t>(n - 1) * s, {n}, {-s});
  }
  return out;
}

// A sliced input as a ragged scan walks it, always forwards: a view of its operand, or (a
// backward walk) its reversed_rows.
template <class S>
auto ragged_source(const S& in, const std::vector<std::int64_t>& lens) {
  using x_t = typename S::operand_type;
  if constexpr (S::slicing_value.stride < 0)
    return reversed_rows<typename S::dim>(in.operand, lens);
  else
    return view_of_list_t<const value_t<x_t>, types_of_t<dims_t<x_t>>>(
        in.operand.data(), in.operand.shape(), in.operand.strides());
}

// Position i of a source along D: a view, or, once a row has finished (full is false) and the
// slice has D's batch dim, the view with zeros in the inactive rows, copied into buf.
template <class D, class Slice, class Source, class Buffer, class Mask>
Slice ragged_slice(const Source& src, Buffer& buf, const Mask& active, std::size_t i, bool full) {
  Slice v(src[dimgraph::at<D>(i)]);
  if constexpr (list_contains_v<dims_t<Slice>, ragged_batch_t<D>>) {
    if (!full) {
      auto masked = where(active, v, value_t<Slice>{});
      if (buf) *buf = masked;
      else buf.emplace(masked);
      return Slice(std::as_const(*buf).view());
    }
  }
  return v;
}

// scan<D> run on the inputs `in` (Run's facts; D's extent n) with the lengths lens (not null)
// over D's batch dim, as described at the top. Returns what the plain scan returns, the
// stacked outputs carrying lens along D. Errors (shape_error, before the first iteration): a
// sliced input or a carry whose batch extent is not the number of lengths; at iteration 0,
// an emitted value whose batch extent is not; those of the body (as for any scan).
template <class D, class Unroll, class Run, class Body, class Inputs>
auto run_ragged_scan(const Body& body, const Inputs& in, const lengths_ref& lens_ref,
                     std::size_t n) {
  using b = ragged_batch_t<D>;
  using iter = typename Run::iter;
  constexpr std::size_t slice_count = Run::sliced::size;
  constexpr std::size_t carry_count = Run::carried::size;
  constexpr std::size_t emit_count = std::tuple_size_v<typename Run::emitted>;
  constexpr auto pos = Run::positions;
  using state_t = typename tuple_of<typename Run::carried>::type;
  using outputs_t = typename optional_outputs<Run, std::make_index_sequence<emit_count>>::type;
  const std::vector<std::int64_t>& lens = *lens_ref;
  const std::size_t rows = lens.size();

  for_each_index<slice_count>([&]<std::size_t S>(index_constant<S>) {
    check_scan_rows<D>(std::get<pos[S]>(in).operand, rows, "sliced input", S);
  });
  state_t state = with_indices<carry_count>([&]<std::size_t... Cs>(index_constant<Cs>...) {
    return state_t(std::get<pos[slice_count + Cs]>(in)...);
  });
  for_each_index<carry_count>([&]<std::size_t C>(index_constant<C>) {
    check_scan_rows<D>(std::get<C>(state), rows, "carry", C);
  });

  std::size_t shortest = n, longest = 0;
  for (std::int64_t l : lens) {
    shortest = std::min(shortest, static_cast<std::size_t>(l));
    longest = std::max(longest, static_cast<std::size_t>(l));
  }
  auto sources = with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
    return std::tuple{ragged_source(std::get<pos[Ss]>(in), lens)...};
  });
  auto buffers = with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
    return std::tuple<std::optional<
        tensor_type_of_t<typename Run::template arg_of<at_t<Ss, typename Run::sliced>>>>...>{};
  });
  tensor<bool, b> active(extent<b>(rows));
  outputs_t outs;

  auto once = [&](std::size_t i) {
    const bool full = i < shortest;
    if (!full)
      for (std::size_t r = 0; r < rows; ++r)
        active.data()[r] = i < static_cast<std::size_t>(lens[r]);
    const auto slices = with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
      return std::tuple{
          ragged_slice<D, typename Run::template arg_of<at_t<Ss, typename Run::sliced>>>(
              std::get<Ss>(sources), std::get<Ss>(buffers), active, i, full)...};
    });
    auto r = at_iteration(i, [&] {
      return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
        return body(scan_arg<Ks, Run>(slices, state)...);
      }(std::make_index_sequence<Run::input_count>{});
    });
    for_each_index<emit_count>([&]<std::size_t K>(index_constant<K>) {
      auto& out = std::get<K>(outs);
      const auto& e = std::get<K>(r.emits.values);
      if (!out) {
        check_scan_rows<D>(e, rows, "emitted value", K);
        out.emplace(stacked_output<typename Run::template output_t<K>, iter, true>(
            n, [&]<class X>(std::type_identity<X>) { return e.template extent<X>(); }));
      } else {
        check_emitted(*out, e, K, i);
      }
      if (full) (*out)[dimgraph::at<iter>(i)] = e;
      else (*out)[dimgraph::at<iter>(i)] = where(active, e, value_t<decltype(e)>{});
    });
    // Every next carry is computed (from the old ones) before any is replaced.
    if (full) {
      state = with_indices<carry_count>([&]<std::size_t... Cs>(index_constant<Cs>...) {
        return state_t(std::move(std::get<Cs>(r.carries.values))...);
      });
    } else {
      for_each_index<carry_count>([&]<std::size_t C>(index_constant<C>) {
        std::get<C>(state) = where(active, std::get<C>(r.carries.values), std::get<C>(state));
      });
    }
  };
  scan_loop<Unroll, 0>(longest, once);

  return with_indices<emit_count>([&]<std::size_t... Ks>(index_constant<Ks>...) {
    [[maybe_unused]] auto finish = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      using out_t = typename Run::template output_t<K>;
      auto& out = std::get<K>(outs);
      // No iteration: the extents of the other dims come from the inputs (see dg::scan).
      if (!out)
        out.emplace(stacked_output<out_t, iter, true>(n, [&]<class X>(std::type_identity<X>) {
          return with_indices<slice_count>([&]<std::size_t... Ss>(index_constant<Ss>...) {
            return std::apply(
                [&](const auto&... carries) {
                  return input_extent<X>(std::get<pos[Ss]>(in).operand..., carries...);
                },
                state);
          });
        }));
      out_t result = [&] {
        if constexpr (Run::first::slicing_value.stride < 0) return reversed_rows<iter>(*out, lens);
        else return std::move(*out);
      }();
      auto s = result.shape();
      s.template set_lengths<iter>("scan", lens_ref);
      tensor_internals::take_lengths(result, s);
      return result;
    };
    return std::tuple_cat(std::tuple{finish(std::integral_constant<std::size_t, Ks>{})...},
                          std::move(state));
  });
}

}  // namespace dimgraph::detail
