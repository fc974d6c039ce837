// The kernels of argmax and argmin: row by row (vectorised), over ragged rows, and masked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "dimgraph/eval/ragged.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/eval/rows.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph::detail {

// Whether b (at a later position) replaces a as the extreme (lanes of T): a NaN counts as more
// extreme than any number, and the first NaN stays.
template <bool Max, class T, class Lanes>
DIMGRAPH_ALWAYS_INLINE inline auto arg_replaces(Lanes b, Lanes a) {
  if constexpr (std::is_floating_point_v<T>) return (Max ? a < b : b < a) | ((b != b) & (a == a));
  else return Max ? a < b : b < a;
}

// The first position of the largest (Max) or smallest element of a row of n > 0 elements; a
// NaN counts as more extreme than any number (the first NaN wins, as torch.argmax).
template <bool Max, bool Unit, class V>
DIMGRAPH_ALWAYS_INLINE inline std::int64_t arg_extreme_row(const V* x, std::ptrdiff_t xs,
                                                           std::size_t n) {
  using T = simd::lane_t<V>;
  constexpr std::size_t L = simd::lanes_for(sizeof(std::int64_t));
  const auto in = [&]<std::size_t M>(std::size_t i)
                      DIMGRAPH_ALWAYS_INLINE { return row_lanes<M, Unit, T>(x, xs, i); };
  const auto better = [](auto b, auto a)
                          DIMGRAPH_ALWAYS_INLINE { return arg_replaces<Max, T>(b, a); };
  std::size_t i = 0;
  T best_value = x[0];
  std::int64_t best_at = 0;
  if (n >= L) {
    auto best = in.template operator()<L>(0);
    simd::vec<std::int64_t, L> at{}, iota{};
    for (std::size_t l = 0; l < L; ++l) iota[l] = at[l] = static_cast<std::int64_t>(l);
    for (i = L; i + L <= n; i += L) {
      const auto v = in.template operator()<L>(i);
      const auto take = better(v, best);
      best = take ? v : best;
      at = simd::convert<std::int64_t>(take) ? iota + static_cast<std::int64_t>(i) : at;
    }
    best_value = best[0];
    best_at = at[0];
    for (std::size_t l = 1; l < L; ++l) {
      const auto b = simd::splat<T, 1>(best[l]), a = simd::splat<T, 1>(best_value);
      const bool wins = better(b, a)[0] || (!better(a, b)[0] && at[l] < best_at);
      if (wins) {
        best_value = best[l];
        best_at = at[l];
      }
    }
  } else {
    i = 1;
  }
  for (; i < n; ++i) {
    const auto v = in.template operator()<1>(i);
    if (better(v, simd::splat<T, 1>(best_value))[0]) {
      best_value = v[0];
      best_at = static_cast<std::int64_t>(i);
    }
  }
  return best_at;
}

// The positions o[0, w) of the extreme elements of the w columns of a block of n > 0 rows (x
// steps by xs from row to row, by 1 along a row), in vectors of columns: the same choice as
// arg_extreme_row makes along each column, where that would read each column with a stride.
template <bool Max, class I, class V>
DIMGRAPH_ALWAYS_INLINE inline void arg_extreme_columns(I* o, const V* x, std::ptrdiff_t xs,
                                                       std::size_t n, std::size_t w) {
  using T = simd::lane_t<V>;
  constexpr std::size_t L = simd::lanes_for(sizeof(std::int64_t));
  const auto block = [&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    auto best = row_lanes<M, true, T>(x, 1, j);
    simd::vec<std::int64_t, M> at{};
    for (std::size_t t = 1; t < n; ++t) {
      const auto v = row_lanes<M, true, T>(x + static_cast<std::ptrdiff_t>(t) * xs, 1, j);
      const auto take = arg_replaces<Max, T>(v, best);
      best = take ? v : best;
      at = simd::convert<std::int64_t>(take) ? simd::splat<std::int64_t, M>(std::int64_t(t)) : at;
    }
    for (std::size_t l = 0; l < M; ++l) o[j + l] = I(at[l]);
  };
  for_columns<L>(w, block);
}

// out = the position of the extreme element along D of x (D's extent n > 0; out has x's other
// dims, in x's order).
template <class D, bool Max, class X, class Out>
DIMGRAPH_ALWAYS_INLINE inline void arg_extreme_into(const X& x, const Out& out) {
  using V = typename X::value_type;
  const std::size_t n = x.template extent<D>();
  if (out.size() == 0) return;
  const std::ptrdiff_t xs = x.template stride<D>();
  using inner = last_or_void_t<typename X::dims>;
  if constexpr (!std::is_same_v<inner, D>) {
    // D is not the inner dim: all of D by all of the inner dim at a time, by columns, when the
    // inner dim is contiguous in x and out.
    if (xs != 1 && x.template stride<inner>() == 1 && out.template stride<inner>() == 1) {
      const std::size_t w = x.template extent<inner>();
      for_each_position(x[dimgraph::at<D>(0)][dimgraph::at<inner>(0)], out[dimgraph::at<inner>(0)],
                        n * w, [&](const V* xr, index<D>* o) DIMGRAPH_ALWAYS_INLINE {
                          arg_extreme_columns<Max>(o, xr, xs, n, w);
                        });
      return;
    }
  }
  for_each_position(x[dimgraph::at<D>(0)], out, n,
                    [&](const V* xr, index<D>* o) DIMGRAPH_ALWAYS_INLINE {
                      *o = index<D>(xs == 1 ? arg_extreme_row<Max, true>(xr, 1, n)
                                            : arg_extreme_row<Max, false>(xr, xs, n));
                    });
}

// A new tensor of element type T with x's dims but D (D's extent > 0), keeping the lengths of
// x's other ragged dims.
template <class T, class D, class X>
auto uninitialized_without(const X& x) {
  if constexpr (X::shape_type::ragged_count > 0) {
    auto s = entry_view<D>(x, 0).shape();
    s.take_lengths(x.shape());
    return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
      return tensor_internals::for_overwrite<tensor<T, Ds...>>(s);
    }(std::type_identity<list_difference_t<dims_t<X>, dim_list<D>>>{});
  } else {
    return uninitialized_like<T>(x[dimgraph::at<D>(0)]);
  }
}

template <class D, bool Max, class X>
DIMGRAPH_ALWAYS_INLINE inline auto arg_extreme(const X& x) {
  auto out = uninitialized_without<index<D>, D>(x);
  arg_extreme_into<D, Max>(x, out.view());
  return out;
}

// argmax (Max) or argmin over the ragged dim D alone (its batch dim in x): each row over its
// own length. Error: a row of length 0 (shape_error naming the batch entry), before any work.
template <class D, bool Max, class X>
auto arg_extreme_ragged_rows(const X& x, const char* op) {
  using B = ragged_batch_t<D>;
  const std::size_t rows = x.template extent<B>();
  const lengths_ref lens = lengths_in<D>(x);
  if (lens)
    for (std::size_t b = 0; b < rows; ++b)
      if ((*lens)[b] == 0) [[unlikely]]
        throw_no_valid_element<B>(op, {b}, lengths_description<D>(*lens));
  auto out = uninitialized_without<index<D>, D>(x);
  for (std::size_t b = 0; b < rows; ++b) {
    const auto len = lens ? static_cast<std::size_t>((*lens)[b]) : x.template extent<D>();
    arg_extreme_into<D, Max>(leading_view<D>(entry_view<B>(x, b), len), entry_view<B>(out, b));
  }
  return out;
}

// The error of arg_extreme_masked at x's position p (x's dims XDims): names p along the dims
// Ks... and the lengths of the masked dims (rules, in the order of Masked).
template <class XDims, class Masked, class... Ks, std::size_t R, class Rules>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_no_valid_row(
    const char* op, const std::array<std::size_t, R>& p, const Rules& rules, dim_list<Ks...>) {
  std::string lens;
  [&]<class... Es>(dim_list<Es...>) {
    std::size_t k = 0;
    ((lens += (k ? "; " : "") + lengths_description<Es>(rules[k].lengths), ++k), ...);
  }(Masked{});
  throw_no_valid_element<Ks...>(op, {p[list_index_of_v<XDims, Ks>]...}, lens);
}

// argmax (Max) or argmin over D of a tensor or view with other ragged dims to mask (D is the
// batch dim of a ragged dim, with or without being ragged itself): a plain loop that visits
// only the valid entries of each row of D. Error: a row with no valid entry (shape_error
// naming its position along the mask dims), before the result is returned.
template <class D, bool Max, class X>
auto arg_extreme_masked(const X& x, const char* op) {
  using V = typename X::value_type;
  using xdims = dims_t<X>;
  using masked = masked_dims_t<xdims, dim_list<D>>;
  constexpr std::size_t R = X::rank, kd = list_index_of_v<xdims, D>;
  auto out = uninitialized_without<index<D>, D>(x);
  const auto ext = x.shape().extents();
  for (std::size_t i = 0; i < R; ++i)
    if (ext[i] == 0) return out;
  // Per masked dim: where it and its batch dim are in x, and its lengths.
  struct rule {
    std::size_t dim, batch;
    std::vector<std::int64_t> lengths;
  };
  const auto rules = [&]<class... Es>(dim_list<Es...>) {
    const auto one = [&]<class E>(std::type_identity<E>) {
      const lengths_ref l = lengths_in<E>(x);
      return rule{
          list_index_of_v<xdims, E>, list_index_of_v<xdims, ragged_batch_t<E>>,
          l ? *l
            : std::vector<std::int64_t>(ext[list_index_of_v<xdims, ragged_batch_t<E>>],
                                        static_cast<std::int64_t>(ext[list_index_of_v<xdims, E>]))};
    };
    return std::array<rule, sizeof...(Es)>{one(std::type_identity<Es>{})...};
  }(masked{});
  const auto better = [](V b, V a) {
    if constexpr (std::is_floating_point_v<V>) return (Max ? a < b : b < a) || (b != b && a == a);
    else return Max ? a < b : b < a;
  };
  const auto& xs = x.strides();
  const auto& os = out.strides();
  std::array<std::size_t, R> p{};
  for (;;) {
    std::ptrdiff_t xo = 0, oo = 0;
    for (std::size_t i = 0; i < R; ++i)
      if (i != kd) {
        xo += static_cast<std::ptrdiff_t>(p[i]) * xs[i];
        oo += static_cast<std::ptrdiff_t>(p[i]) * os[i < kd ? i : i - 1];
      }
    bool found = false;
    V best{};
    std::int64_t best_at = 0;
    for (std::size_t d = 0; d < ext[kd]; ++d) {
      p[kd] = d;
      bool valid = true;
      for (const rule& r : rules)
        valid = valid && static_cast<std::int64_t>(p[r.dim]) < r.lengths[p[r.batch]];
      if (!valid) continue;
      const V v = x.data()[xo + static_cast<std::ptrdiff_t>(d) * xs[kd]];
      if (!found || better(v, best)) {
        best = v;
        best_at = static_cast<std::int64_t>(d);
        found = true;
      }
    }
    p[kd] = 0;
    if (!found) [[unlikely]]
      throw_no_valid_row<xdims, masked>(
          op, p, rules, list_difference_t<mask_dims_t<xdims, masked>, dim_list<D>>{});
    out.data()[oo] = index<D>(best_at);
    bool done = true;
    for (std::size_t i = R; i-- > 0;) {
      if (i == kd) continue;
      if (++p[i] < ext[i]) {
        done = false;
        break;
      }
      p[i] = 0;
    }
    if (done) return out;
  }
}
// argmax (Max) or argmin over D of a tensor or view with ragged dims to mask: D's own rows
// by length (arg_extreme_ragged_rows) when D is the only one, else arg_extreme_masked.
template <class D, bool Max, class X>
auto arg_extreme_ragged(const X& x, const char* op) {
  if constexpr (std::is_same_v<masked_dims_t<dims_t<X>, dim_list<D>>, dim_list<D>>)
    return arg_extreme_ragged_rows<D, Max>(x, op);
  else return arg_extreme_masked<D, Max>(x, op);
}

}  // namespace dimgraph::detail
