// Composite reductions: logsumexp, softmax, log_softmax, argmax, argmin (evaluated eagerly).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/compound.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/ops.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph {
namespace detail {
template <class X, class... Rs>
constexpr bool numeric_over() {
  return (list_contains_v<dims_t<X>, Rs> && ...) && !is_index_v<value_t<X>> &&
         !std::is_same_v<value_t<X>, bool>;
}

// f(a_row, b_row) for every position of the dims of the views a and b (the same dims and
// extents, any strides): the pointers to the two elements there. Positions are the rows of a
// loop plan (ordered by b's strides), shared among threads: f writes only at b_row, and each
// call does `weight` elements' work.
template <class A, class B, class F>
DIMGRAPH_ALWAYS_INLINE inline void for_each_position(const A& a, const B& b, std::size_t weight,
                                                     F f) {
  constexpr std::size_t rank = A::rank;
  if constexpr (rank == 0) {
    f(a.data(), b.data());
  } else {
    std::array<std::array<std::ptrdiff_t, rank>, 2> strides{};
    for (std::size_t d = 0; d < rank; ++d) {
      strides[0][d] = b.strides()[d];
      strides[1][d] = a.strides()[d];
    }
    const auto plan = make_loop_plan<rank>(a.shape().extents(), strides);
    for_each_row(
        plan,
        [&](const std::array<std::ptrdiff_t, 2>& off, std::size_t n) DIMGRAPH_ALWAYS_INLINE {
          const std::ptrdiff_t sb = plan.inner_stride(0), sa = plan.inner_stride(1);
          for (std::size_t j = 0; j < n; ++j) {
            const auto i = static_cast<std::ptrdiff_t>(j);
            f(a.data() + off[1] + i * sa, b.data() + off[0] + i * sb);
          }
        },
        weight);
  }
}

// Lanes M of a row of element type V read as T, at element i (stride s, or 1 when Unit).
template <std::size_t M, bool Unit, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, M> row_lanes(const V* x, std::ptrdiff_t s,
                                                          std::size_t i) {
  if constexpr (Unit) return fn::as<T, V>(load_lanes<M>(x + i));
  else return fn::as<T, V>(load_lanes<M>(x + static_cast<std::ptrdiff_t>(i) * s, s));
}
template <std::size_t M, bool Unit, class T>
DIMGRAPH_ALWAYS_INLINE inline void put_row_lanes(T* o, std::ptrdiff_t s, std::size_t i,
                                                 fn::lanes_t<T, M> v) {
  if constexpr (Unit) store_lanes<M>(o + i, v);
  else store_lanes<M>(o + static_cast<std::ptrdiff_t>(i) * s, s, v);
}

// fold(acc, lanes) over a row of n elements: L-lane vectors (into four accumulators when
// Chains is 4: a cheap fold is a chain of dependent instructions, and one accumulator would
// wait on it at every vector), then the vector's lanes folded as a tree, then single lanes.
template <std::size_t L, std::size_t Chains, class T, class Load, class Fold>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<T, 1> fold_row(std::size_t n, T identity,
                                                         const Load& load, const Fold& fold) {
  static_assert(Chains == 1 || Chains == 4);
  auto acc = simd::splat<T, L>(identity);
  std::size_t i = 0;
  if constexpr (Chains == 4) {
    if (n >= 4 * L) {
      auto acc1 = acc, acc2 = acc, acc3 = acc;
      for (; i + 4 * L <= n; i += 4 * L) {
        acc = fold(acc, load.template operator()<L>(i));
        acc1 = fold(acc1, load.template operator()<L>(i + L));
        acc2 = fold(acc2, load.template operator()<L>(i + 2 * L));
        acc3 = fold(acc3, load.template operator()<L>(i + 3 * L));
      }
      acc = fold(fold(acc, acc1), fold(acc2, acc3));
    }
  }
  for (; i + L <= n; i += L) acc = fold(acc, load.template operator()<L>(i));
  auto one = simd::fold_lanes(acc, fold);
  for (; i < n; ++i) one = fold(one, load.template operator()<1>(i));
  return one;
}

// Softmax (or, with Log, log-softmax) of one row of n elements (x steps by xs, o by os; by 1
// when Unit): the max, exp(x - max) and its sum, then the scaling (or x - max - log(sum)).
// As in PyTorch, a row holding +inf or only -inf gives NaN, and NaN propagates.
template <bool Log, bool Unit, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row(T* o, std::ptrdiff_t os, const V* x,
                                               std::ptrdiff_t xs, std::size_t n) {
  constexpr std::size_t L = simd::lanes_for(sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V));
  const auto in = [&]<std::size_t M>(std::size_t i)
                      DIMGRAPH_ALWAYS_INLINE { return row_lanes<M, Unit, T>(x, xs, i); };
  // The row's max without NaN propagation (one max instruction per vector): a NaN in the row
  // makes the sum below NaN, and with it every output, whatever the max is.
  const auto largest = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return a > b ? a : b; };
  const T m = fold_row<L, 4>(n, fn::max_reduce::identity<T>(), in, largest)[0];
  const auto shifted_exp = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    const auto d = in.template operator()<M>(i) - m;
    const auto e = simd::exp(d);
    put_row_lanes<M, Unit>(o, os, i, Log ? d : e);
    return e;
  };
  const auto add = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return a + b; };
  // (One accumulator: each vector's exp takes longer than the addition that waits on it.)
  const T sum = fold_row<L, 1>(n, T(0), shifted_exp, add)[0];
  const auto out = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (Unit) return load_lanes<M>(o + i);
    else return load_lanes<M>(o + static_cast<std::ptrdiff_t>(i) * os, os);
  };
  if constexpr (Log) {
    const T log_sum = simd::log(simd::splat<T, 1>(sum))[0];
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) - log_sum);
    for (; i < n; ++i) put_row_lanes<1, Unit>(o, os, i, out.template operator()<1>(i) - log_sum);
  } else {
    const T scale = T(1) / sum;
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) * scale);
    for (; i < n; ++i) put_row_lanes<1, Unit>(o, os, i, out.template operator()<1>(i) * scale);
  }
}

// Softmax (Log: log-softmax) over D of a block of n rows along D (x steps by xs, o by os) by
// w columns (the inner dim, contiguous in x and o), in vectors of columns: the max and then
// the sum of each column kept in m and s (w elements each), in three passes over the rows in
// memory order, where the row kernel would read each column element by element with a
// stride. The same function as softmax_row column by column (a column's NaN or +inf makes
// its sum, and so all of it, NaN whatever its max is); sums are taken in row order.
template <bool Log, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_columns(T* o, std::ptrdiff_t os, const V* x,
                                                   std::ptrdiff_t xs, std::size_t n, std::size_t w,
                                                   T* m, T* s) {
  constexpr std::size_t L = simd::lanes_for(sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V));
  const auto columns = [w](const auto& f) DIMGRAPH_ALWAYS_INLINE {
    std::size_t j = 0;
    for (; j + L <= w; j += L) f.template operator()<L>(j);
    for (; j < w; ++j) f.template operator()<1>(j);
  };
  const auto x_row = [&](std::size_t t)
                         DIMGRAPH_ALWAYS_INLINE { return x + static_cast<std::ptrdiff_t>(t) * xs; };
  const auto o_row = [&](std::size_t t)
                         DIMGRAPH_ALWAYS_INLINE { return o + static_cast<std::ptrdiff_t>(t) * os; };
  columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    store_lanes<M>(m + j, row_lanes<M, true, T>(x_row(0), 1, j));
    store_lanes<M>(s + j, simd::splat<T, M>(T(0)));
  });
  for (std::size_t t = 1; t < n; ++t)
    columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
      const auto a = load_lanes<M>(m + j);
      const auto v = row_lanes<M, true, T>(x_row(t), 1, j);
      store_lanes<M>(m + j, v > a ? v : a);
    });
  for (std::size_t t = 0; t < n; ++t)
    columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
      const auto d = row_lanes<M, true, T>(x_row(t), 1, j) - load_lanes<M>(m + j);
      const auto e = simd::exp(d);
      put_row_lanes<M, true>(o_row(t), 1, j, Log ? d : e);
      store_lanes<M>(s + j, load_lanes<M>(s + j) + e);
    });
  // m becomes what each column's elements are scaled by (1 / sum) or shifted by (log sum).
  columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    const auto sum = load_lanes<M>(s + j);
    if constexpr (Log) store_lanes<M>(m + j, simd::log(sum));
    else store_lanes<M>(m + j, T(1) / sum);
  });
  for (std::size_t t = 0; t < n; ++t)
    columns([&]<std::size_t M>(std::size_t j) DIMGRAPH_ALWAYS_INLINE {
      const auto v = load_lanes<M>(o_row(t) + j);
      const auto c = load_lanes<M>(m + j);
      put_row_lanes<M, true>(o_row(t), 1, j, Log ? v - c : v * c);
    });
}

// A new tensor with x's dims and element type T whose elements the caller writes.
template <class T, class X>
auto uninitialized_like(const X& x) {
  return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return tensor_internals::for_overwrite<tensor<T, Ds...>>(x.shape());
  }(std::type_identity<typename X::dims>{});
}

// Softmax over D of a tensor or view, row by row: each row (all of D at one position of
// the other dims) is read and written while it is in cache, in three short passes.
template <class D, bool Log, class X>
DIMGRAPH_ALWAYS_INLINE inline auto softmax_rows(const X& x) {
  using V = typename X::value_type;
  using T = fn::float_of_t<V>;
  auto out = uninitialized_like<T>(x);
  const std::size_t n = x.template extent<D>();
  if (n == 0 || out.size() == 0) return out;
  const std::ptrdiff_t xs = x.template stride<D>(), os = out.template stride<D>();
  using inner = last_or_void_t<typename X::dims>;
  if constexpr (!std::is_same_v<inner, D>) {
    // D is not the inner dim: a block of all of D by all of the inner dim at a time, by
    // columns (softmax_columns), when the inner dim is contiguous.
    if (xs != 1 && x.template stride<inner>() == 1 && out.template stride<inner>() == 1) {
      const std::size_t w = x.template extent<inner>();
      for_each_position(x[dimgraph::at<D>(0)][dimgraph::at<inner>(0)],
                        out[dimgraph::at<D>(0)][dimgraph::at<inner>(0)], n * w,
                        [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                          // (Per block, so that threads do not share it; on the stack when small.)
                          constexpr std::size_t on_stack = 1024;
                          if (w <= on_stack) {
                            T scratch[2 * on_stack];
                            softmax_columns<Log>(o, os, xr, xs, n, w, scratch, scratch + w);
                          } else {
                            std::vector<T> scratch(2 * w);
                            softmax_columns<Log>(o, os, xr, xs, n, w, scratch.data(),
                                                 scratch.data() + w);
                          }
                        });
      return out;
    }
  }
  for_each_position(x[dimgraph::at<D>(0)], out[dimgraph::at<D>(0)], n,
                    [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                      if (xs == 1 && os == 1) softmax_row<Log, true>(o, 1, xr, 1, n);
                      else softmax_row<Log, false>(o, os, xr, xs, n);
                    });
  return out;
}

// Softmax (Log: log-softmax) over D of a tensor or view whose only dim to mask is D itself
// (ragged, its batch dim in x): the row of each batch entry over its own length, and fill at
// the padding (0, or -inf for log-softmax; an empty row is all fill).
template <class D, bool Log, class X>
auto softmax_ragged_rows(const X& x) {
  using B = ragged_batch_t<D>;
  using V = typename X::value_type;
  using T = fn::float_of_t<V>;
  auto out = uninitialized_like<T>(x);
  const std::size_t n = x.template extent<D>();
  if (n == 0 || out.size() == 0) return out;
  const lengths_ref lens = lengths_in<D>(x);
  const std::ptrdiff_t xs = x.template stride<D>(), os = out.template stride<D>();
  constexpr T fill = Log ? -std::numeric_limits<T>::infinity() : T(0);
  for (std::size_t b = 0, rows = x.template extent<B>(); b < rows; ++b) {
    const auto len = lens ? static_cast<std::size_t>((*lens)[b]) : n;
    const auto xb = entry_view<B>(x, b);
    const auto ob = entry_view<B>(out, b);
    for_each_position(xb[dimgraph::at<D>(0)], ob[dimgraph::at<D>(0)], n,
                      [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                        if (len != 0) {
                          if (xs == 1 && os == 1) softmax_row<Log, true>(o, 1, xr, 1, len);
                          else softmax_row<Log, false>(o, os, xr, xs, len);
                        }
                        for (std::size_t j = len; j < n; ++j)
                          o[static_cast<std::ptrdiff_t>(j) * os] = fill;
                      });
  }
  return out;
}

// Softmax over D of a tensor or view with ragged dims to mask (masked_dims_t over D): D's
// padding, or (D a batch dim) the entries of D at which a ragged dim's position is past its
// length. The masked positions read -inf (probability 0) and are written fill afterwards, so
// a row with no valid position is all fill. Each row of D alone: softmax_ragged_rows.
template <class D, bool Log, class X>
auto softmax_ragged(const X& x) {
  using masked = masked_dims_t<dims_t<X>, dim_list<D>>;
  if constexpr (std::is_same_v<masked, dim_list<D>>) {
    return softmax_ragged_rows<D, Log>(x);
  } else {
    using T = fn::float_of_t<typename X::value_type>;
    constexpr T inf = std::numeric_limits<T>::infinity();
    return with_position_type(x, masked{}, [&]<class I>(std::type_identity<I>) {
      const auto mask = make_ragged_mask<I>(x, masked{});
      const auto masked_x = materialize(mask.apply(cast<T>(x), -inf));
      auto out = softmax_rows<D, Log>(without_lengths(masked_x));
      assign_elementwise<false>(out, mask.apply(out, Log ? -inf : T(0)));
      tensor_internals::take_lengths(out, masked_x.shape());
      return out;
    });
  }
}

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
  std::size_t j = 0;
  for (; j + L <= w; j += L) block.template operator()<L>(j);
  for (; j < w; ++j) block.template operator()<1>(j);
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
}  // namespace detail

// log(sum(exp(x))) over Rs..., as m + log(sum(exp(x - m))) with m = max(x), so inputs
// near +-1000 stay finite; an infinite m is taken as 0 (as PyTorch), so a row holding +inf
// gives +inf and a row of only -inf gives -inf. Integers compute in float. Shape rule: as
// sum. Over no elements (a reduced extent of 0, or a ragged row of length 0) it is
// log(0) = -inf; over a ragged dim or its batch dim, padding is left out.
// Error: a dim the tensor does not have; a bool or index operand.
template <class... Rs, detail::expression_or_poisoned X>
auto logsumexp(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, Rs...>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: logsumexp: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<Rs...>, detail::has_role_t<X>);
    if constexpr (ok) {
      using T = detail::fn::float_of_t<value_t<X>>;
      // (Over a ragged dim, a row of length 0 has no max: its max is taken as -inf, the identity.)
      using max_op =
          std::conditional_t<detail::ragged_over_v<dims_t<X>, dim_list<Rs...>>,
                             detail::fn::extreme_reduce<true, false>, detail::fn::max_reduce>;
      const auto xf = eval(cast<T>(x));
      const bool empty = ((x.template extent<Rs>() == 0) || ...);
      if (empty) return eval(log(sum<Rs...>(exp(xf))));
      const auto m = eval(reduce_expr<max_op, const decltype(xf)&, Rs...>(xf));
      const auto shift = eval(where(equal(abs(m), std::numeric_limits<T>::infinity()), T(0), m));
      return eval(shift + log(sum<Rs...>(exp(xf - shift))));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// exp(x) / sum(exp(x)) over D, with the max subtracted first. Shape rule: x's dims. Over a
// ragged dim D (or D the batch dim of a ragged dim of x) only valid positions count: padding
// gets probability exactly 0, and a row of length 0 is all 0.
template <class D, detail::expression_or_poisoned X>
DIMGRAPH_ALWAYS_INLINE inline auto softmax(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, D>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: softmax: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<D>, detail::has_role_t<X>);
    if constexpr (ok) {
      if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {
        if constexpr (detail::memory_operand<X>) return detail::softmax_ragged<D, false>(x);
        else return detail::softmax_ragged<D, false>(detail::materialize(x));
      } else if constexpr (detail::memory_operand<X>) return detail::softmax_rows<D, false>(x);
      else return detail::softmax_rows<D, false>(detail::materialize(x));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// x - logsumexp(x) over D, row by row as softmax. Shape rule: x's dims. Over a ragged dim,
// as softmax: padding gets -inf (log 0), and a row of length 0 is all -inf.
template <class D, detail::expression_or_poisoned X>
DIMGRAPH_ALWAYS_INLINE inline auto log_softmax(X&& x) {
  if constexpr (detail::poisoned<X>) {
    return detail::invalid_expr{};
  } else {
    constexpr bool ok = detail::numeric_over<X, D>();
    DIMGRAPH_REQUIRE(
        ok, "dimgraph: log_softmax: the tensor has no such dim, or its elements are not numbers",
        ::dimgraph::asked<D>, detail::has_role_t<X>);
    if constexpr (ok) {
      if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {
        if constexpr (detail::memory_operand<X>) return detail::softmax_ragged<D, true>(x);
        else return detail::softmax_ragged<D, true>(detail::materialize(x));
      } else if constexpr (detail::memory_operand<X>) return detail::softmax_rows<D, true>(x);
      else return detail::softmax_rows<D, true>(detail::materialize(x));
    } else {
      return detail::invalid_expr{};
    }
  }
}

// The first position of the largest (argmax) or smallest (argmin) element along D, as
// dg::index<D>; NaN counts as the most extreme value (the first NaN's position, as PyTorch).
// Over a ragged dim D (or D the batch dim of a ragged dim of x), only valid positions count.
// Shape rule: [x dims] -> [x dims without D].
// Error (run time): D has extent 0, or a ragged row has no valid position (length 0), so
// there is no position (shape_error).
#define DIMGRAPH_ARG_REDUCTION(NAME, MAX)                                                         \
  template <class D, detail::expression_or_poisoned X>                                            \
  auto NAME(X&& x) {                                                                              \
    if constexpr (detail::poisoned<X>) {                                                          \
      return detail::invalid_expr{};                                                              \
    } else {                                                                                      \
      constexpr bool ok = detail::numeric_over<X, D>();                                           \
      DIMGRAPH_REQUIRE(                                                                           \
          ok, "dimgraph: " #NAME ": the tensor has no such dim, or its elements are not numbers", \
          ::dimgraph::asked<D>, detail::has_role_t<X>);                                           \
      if constexpr (ok) {                                                                         \
        if (x.template extent<D>() == 0) detail::throw_empty_reduction<D>(#NAME, x);              \
        if constexpr (detail::ragged_over_v<dims_t<X>, dim_list<D>>) {                            \
          if constexpr (detail::memory_operand<X>)                                                \
            return detail::arg_extreme_ragged<D, MAX>(x, #NAME);                                  \
          else return detail::arg_extreme_ragged<D, MAX>(detail::materialize(x), #NAME);          \
        } else if constexpr (detail::memory_operand<X>) {                                         \
          return detail::arg_extreme<D, MAX>(x);                                                  \
        } else {                                                                                  \
          return detail::arg_extreme<D, MAX>(detail::materialize(x));                             \
        }                                                                                         \
      } else {                                                                                    \
        return detail::invalid_expr{};                                                            \
      }                                                                                           \
    }                                                                                             \
  }
DIMGRAPH_ARG_REDUCTION(argmax, true)
DIMGRAPH_ARG_REDUCTION(argmin, false)
#undef DIMGRAPH_ARG_REDUCTION

}  // namespace dimgraph
