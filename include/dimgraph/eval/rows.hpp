// The loops of row-by-row kernels (softmax, argmax): a call at every position of two views,
// lanes of a strided row, a fold over a row, and an uninitialised result.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <type_traits>

#include "dimgraph/config.hpp"
#include "dimgraph/detail/indices.hpp"
#include "dimgraph/detail/simd.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/store.hpp"
#include "dimgraph/expr/functors.hpp"
#include "dimgraph/tensor/tensor.hpp"

DIMGRAPH_WIDE_BEGIN

namespace dimgraph::detail {

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

// f.template operator()<M>(j) for the w columns [j, j + M) of a block of rows: vectors of L
// columns (M = L), then the last w % L columns one at a time (M = 1).
template <std::size_t L, class F>
DIMGRAPH_ALWAYS_INLINE inline void for_columns(std::size_t w, const F& f) {
  std::size_t j = 0;
  for (; j + L <= w; j += L) f.template operator()<L>(j);
  for (; j < w; ++j) f.template operator()<1>(j);
}

// fold(acc, lanes) over a row of n elements: L-lane vectors (into four accumulators when
// Chains is 4: a cheap fold is a chain of dependent instructions, and one accumulator would
// wait on it at every vector), then the vector's lanes folded as a tree, then the rest in
// parts of fewer lanes (for_pieces), each folded as a tree.
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
  for_pieces<L, 4>(i, n - i, [&]<std::size_t M>(std::size_t at) DIMGRAPH_ALWAYS_INLINE {
    one = fold(one, simd::fold_lanes(load.template operator()<M>(at), fold));
  });
  return one;
}

// A new tensor with x's dims and element type T whose elements the caller writes.
template <class T, class X>
auto uninitialized_like(const X& x) {
  return [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return tensor_internals::for_overwrite<tensor<T, Ds...>>(x.shape());
  }(std::type_identity<typename X::dims>{});
}

}  // namespace dimgraph::detail
DIMGRAPH_WIDE_END
