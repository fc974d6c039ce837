// The kernels of softmax and log_softmax: row by row, and over ragged dims with masks.
#pragma once

#include <cstddef>
#include <limits>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/assign.hpp"
#include "dimgraph/eval/dispatch.hpp"
#include "dimgraph/eval/ragged.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/eval/rows.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/expr/map.hpp"
#include "dimgraph/expr/reduce.hpp"
#include "dimgraph/tensor/storage.hpp"

DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

// Softmax (or, with Log, log-softmax) of one row of n elements (x steps by xs, o by os; by 1
// when Unit): the max, exp(x - max) and its sum, then the scaling (or x - max - log(sum)).
// As in PyTorch, a row holding +inf or only -inf gives NaN, and NaN propagates.
template <bool Log, bool Unit, class T, class V,
          std::size_t L = simd::lanes_for(sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V))>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row(T* o, std::ptrdiff_t os, const V* x,
                                               std::ptrdiff_t xs, std::size_t n) {
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
    for_pieces<L, 4>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
      put_row_lanes<M, Unit>(o, os, at, out.template operator()<M>(at) - log_sum);
    });
  } else {
    const T scale = T(1) / sum;
    std::size_t i = 0;
    for (; i + L <= n; i += L)
      put_row_lanes<L, Unit>(o, os, i, out.template operator()<L>(i) * scale);
    for_pieces<L, 4>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
      put_row_lanes<M, Unit>(o, os, at, out.template operator()<M>(at) * scale);
    });
  }
}

// Contiguous rows of at least this many elements run softmax_row compiled for the widest
// instruction set the CPU has (run-time dispatch; a build for a narrower target, such as
// x86-64's default SSE2, otherwise runs a 512-element row in vectors of 4 floats: W4b took
// 2.5 times as long). Shorter rows stay in the build's own: a call per row, and more of the
// row in parts of fewer lanes.
inline constexpr std::size_t dispatch_row_from = 32;

// softmax_row of a contiguous row compiled for AVX-512 and for AVX2 with FMA, in vectors of
// that width. (Its results may differ from the build's own in the last bit: the compiler may
// fuse multiply-adds there.)
template <bool Log, class T, class V>
struct softmax_row_isa {
  static constexpr std::size_t wider = sizeof(T) > sizeof(V) ? sizeof(T) : sizeof(V);
#if DIMGRAPH_DISPATCH_HELPERS_AVX512
  DIMGRAPH_TARGET_AVX512 static void avx512(T* o, const V* x, std::size_t n) {
    softmax_row<Log, true, T, V, 64 / wider>(o, 1, x, 1, n);
  }
#endif
#if DIMGRAPH_DISPATCH_HELPERS_AVX2
  DIMGRAPH_TARGET_AVX2 static void avx2(T* o, const V* x, std::size_t n) {
    softmax_row<Log, true, T, V, 32 / wider>(o, 1, x, 1, n);
  }
#endif
};
template <bool Log, class T, class V>
DIMGRAPH_ALWAYS_INLINE inline void softmax_row_at([[maybe_unused]] isa_level level, T* o,
                                                  const V* x, std::size_t n) {
  switch (level) {
#if DIMGRAPH_DISPATCH_HELPERS_AVX512
    case isa_level::avx512:
      return softmax_row_isa<Log, T, V>::avx512(o, x, n);
#endif
#if DIMGRAPH_DISPATCH_HELPERS_AVX2
    case isa_level::avx2:
      return softmax_row_isa<Log, T, V>::avx2(o, x, n);
#endif
    default:
      return softmax_row<Log, true>(o, 1, x, 1, n);
  }
}

// The level a contiguous row of n elements runs at: the CPU's for a row of dispatch_row_from
// elements or more, else the build's own.
DIMGRAPH_ALWAYS_INLINE inline isa_level row_level([[maybe_unused]] std::size_t n) {
  if constexpr (DIMGRAPH_DISPATCH_HELPERS_AVX512 || DIMGRAPH_DISPATCH_HELPERS_AVX2)
    return n >= dispatch_row_from ? cpu_isa_level() : isa_level::target;
  else return isa_level::target;
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
  const auto columns = [w](const auto& f) DIMGRAPH_ALWAYS_INLINE { for_columns<L>(w, f); };
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
                          // (Per block, so that threads do not share it; on the stack when small.
                          // Cache-line aligned, as a tensor: the columns are read in vectors.)
                          constexpr std::size_t on_stack = 1024;
                          if (w <= on_stack) {
                            alignas(storage_alignment) T scratch[2 * on_stack];
                            softmax_columns<Log>(o, os, xr, xs, n, w, scratch, scratch + w);
                          } else {
                            heap_storage<T> scratch(for_overwrite_t{}, 2 * w);
                            softmax_columns<Log>(o, os, xr, xs, n, w, scratch.data(),
                                                 scratch.data() + w);
                          }
                        });
      return out;
    }
  }
  const isa_level level = row_level(n);
  for_each_position(x[dimgraph::at<D>(0)], out[dimgraph::at<D>(0)], n,
                    [&](const V* xr, T* o) DIMGRAPH_ALWAYS_INLINE {
                      if (xs == 1 && os == 1) softmax_row_at<Log>(level, o, xr, n);
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
                          if (xs == 1 && os == 1) softmax_row_at<Log>(row_level(len), o, xr, len);
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
      const auto masked_x = materialize(mask.apply(make_map(fn::cast_to<T>{}, x), -inf));
      auto out = softmax_rows<D, Log>(without_lengths(masked_x));
      assign_elementwise<false>(out, mask.apply(out, Log ? -inf : T(0)));
      tensor_internals::take_lengths(out, masked_x.shape());
      return out;
    });
  }
}

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
