// The row kernels of a reduction that reduce across a row into one element (reduce_across),
// and the lane helpers they share with the kernels that reduce down (eval/reduce_down.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/store.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/eval/table_row.hpp"
#include "dimgraph/expr/reduce.hpp"

namespace dimgraph::detail {

// A vertical reduction's rows are reduced in blocks of this many (see accumulate); a float
// sum reduces a block in float (then into a float row of partial sums, eval/reduce.hpp).
inline constexpr std::size_t block_rows = 16;

// Lanes [P * H, P * H + H) of v (lanes of elements E), converted to To. (To may be wider
// than v's lanes: a vector of v's lane count would then be wider than a register, so it is
// taken in parts.)
// (By a shuffle: a copy through memory would keep a loop's accumulator of v on the stack.)
template <class To, class E, std::size_t H, std::size_t P, class V>
DIMGRAPH_ALWAYS_INLINE inline fn::lanes_t<To, H> widened_part(V v) {
  if constexpr (sizeof(V) == sizeof(fn::lanes_t<E, H>)) {
    return fn::as<To, E>(v);
  } else {
    return with_indices<H>([&]<std::size_t... I>(index_constant<I>...) DIMGRAPH_ALWAYS_INLINE {
      return fn::as<To, E>(fn::lanes_t<E, H>(__builtin_shufflevector(v, v, (P * H + I)...)));
    });
  }
}

template <std::size_t S>
DIMGRAPH_ALWAYS_INLINE inline std::array<std::ptrdiff_t, S> add_offsets(
    std::array<std::ptrdiff_t, S> a, const std::array<std::ptrdiff_t, S>& b) {
  for (std::size_t op = 0; op < S; ++op) a[op] += b[op];
  return a;
}

// The parts of two sets of lane accumulators combined part by part.
template <class Op, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline std::array<T, N> combine_parts(std::array<T, N> a,
                                                             const std::array<T, N>& b) {
  for_each_index<N>([&]<std::size_t P>(index_constant<P>)
                        DIMGRAPH_ALWAYS_INLINE { a[P] = Op::combine(a[P], b[P]); });
  return a;
}

// A vertical reduction's registers for one vector of L elements (of type E) of an acc row:
// L / H parts of H lanes of Acc, from acc. t = Op(t, v):
template <class Op, class Acc, class E, std::size_t L, std::size_t H, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void combine_into(std::array<T, N>& t, fn::lanes_t<E, L> v) {
  for_each_index<N>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
    t[P] = Op::combine(t[P], widened_part<Acc, E, H, P>(v));
  });
}

// sum (a number of type Acc, or one lane of it) combined with Op (NaN-propagating) with the
// M lanes of v, widened to Acc, folded as a tree. (M <= H: the callers' pieces are at most
// L / 2 lanes, and L is the lane count of the wider of E and Acc, so M lanes of Acc fit in a
// register.)
template <class Op, class Acc, std::size_t H, std::size_t M, class E, class Sum>
DIMGRAPH_ALWAYS_INLINE inline Sum add_piece(Sum sum, fn::lanes_t<E, M> v) {
  static_assert(M <= H, "dimgraph: add_piece: a piece wider than a register of the accumulator");
  const auto folded = simd::fold_lanes(
      fn::as<Acc, E>(v), [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return Op::combine(a, b); });
  if constexpr (std::is_same_v<Sum, Acc>) return Op::combine(simd::splat<Acc, 1>(sum), folded)[0];
  else return Op::combine(sum, folded);
}

// Whether Op's NaN-propagating combine of Acc lanes is a max or min of floating-point numbers:
// GCC compiles it for vectors shorter than 16 bytes (2 floats, 1 float or double) to
// general-register code, a compare, a flag and a branch per lane.
template <class Op, class Acc>
inline constexpr bool narrow_combine_slow =
    std::is_floating_point_v<Acc> && requires(Acc a) { Op::combine_numbers(a, a); };

// sum combined with the m (0 < m < W) elements of row r from i on, in one W-lane register of
// 16 bytes: element 0 in every lane, then element j put in lane j, sum combined into every
// lane, and the lanes folded by shuffles that keep all W of them (a row of 3 floats: one
// register, no compare narrower than 16 bytes).
template <class Op, class Acc, std::size_t W, class E, class Kernel, class Row, class Sum>
DIMGRAPH_ALWAYS_INLINE inline Sum add_in_register(const Kernel& k, const Row& r, std::size_t i,
                                                  std::size_t m, Sum sum) {
  using wide = fn::lanes_t<Acc, W>;
  const auto element = [&](std::size_t j) DIMGRAPH_ALWAYS_INLINE {
    return simd::splat<Acc, W>(fn::as<Acc, E>(k.template packet<1>(r, i + j))[0]);
  };
  wide w = element(0);
  for_each_index<W - 1>([&]<std::size_t J>(index_constant<J>) DIMGRAPH_ALWAYS_INLINE {
    if (J + 1 < m) {
      const wide e = element(J + 1);
      w = with_indices<W>([&]<std::size_t... I>(index_constant<I>...) DIMGRAPH_ALWAYS_INLINE {
        return __builtin_shufflevector(w, e, (I == J + 1 ? W + I : I)...);
      });
    }
  });
  if constexpr (std::is_same_v<Sum, Acc>) w = Op::combine(simd::splat<Acc, W>(sum), w);
  else w = Op::combine(simd::splat<Acc, W>(sum[0]), w);
  w = simd::fold_lanes_in_place(
      w, [](wide a, wide b) DIMGRAPH_ALWAYS_INLINE { return Op::combine(a, b); });
  if constexpr (std::is_same_v<Sum, Acc>) return w[0];
  else return simd::splat<Acc, 1>(w[0]);
}

// sum combined with the rest elements of row r from i on (rest < 2 M) by add_piece: a piece of
// M lanes when rest has that bit, then of M / 2, and so on; for a floating-point max or min,
// the last ones (fewer than a 16-byte register holds) in one register (add_in_register).
// (Values, not captures by reference, so that the sum stays in a register.)
template <class Op, class Acc, std::size_t H, class E, std::size_t M, class Kernel, class Row,
          class Sum>
DIMGRAPH_ALWAYS_INLINE inline Sum add_pieces(const Kernel& k, const Row& r, std::size_t i,
                                             std::size_t rest, Sum sum) {
  constexpr std::size_t W = 16 / sizeof(Acc);
  if constexpr (M == 0) {
    return sum;
  } else if constexpr (M < W && W > 1 && narrow_combine_slow<Op, Acc>) {
    const std::size_t m = rest & (2 * M - 1);
    return m == 0 ? sum : add_in_register<Op, Acc, W, E>(k, r, i, m, sum);
  } else {
    if (rest & M) {
      sum = add_piece<Op, Acc, H, M, E>(sum, k.template packet<M>(r, i));
      i += M;
    }
    return add_pieces<Op, Acc, H, E, M / 2>(k, r, i, rest, sum);
  }
}

template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel>
void reduce_across_exact(const Kernel& k, const Row& r, std::size_t n, Acc* o,
                         const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes);

// *o = Op(*o, every element of the row r of n elements) (the inner dim is reduced): L lane
// accumulators of Acc in parts of H lanes (C sets of them for a short kernel, C vectors at a
// time: a combine is a chain of dependent instructions, and one set would wait on it at every
// vector), folded together and then as a tree into *o at the end, then the last m < L
// elements in pieces of fewer lanes (and a row shorter than L in those pieces only).
//
// Floating-point max and min (unless Exact) take the max (min) instruction, which drops a NaN
// operand, and beside it add up the elements, which a NaN makes NaN: a row whose sum is NaN (a
// NaN, or both infinities) is reduced again with the NaN-propagating combine. (Two
// instructions a vector where the propagating combine takes four, six without SSE4.1.)
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel,
          bool Exact = false>
DIMGRAPH_ALWAYS_INLINE inline void reduce_across(const Kernel& k, const Row& r, std::size_t n,
                                                 Acc* o, const std::ptrdiff_t* leaf_step,
                                                 const std::size_t* leaf_bytes) {
  using E = typename Kernel::value_type;
  using part = fn::lanes_t<Acc, H>;
  using lanes_type = std::array<part, L / H>;
  constexpr std::size_t C = Kernel::facts::size <= 8 ? 4 : 1;
  // (A floating-point sum starts its lanes from -0, which x + -0 leaves exactly as x, so the
  // first addition folds away; *o, from +0, still gives +0 to a sum of zeros.)
  constexpr bool signed_zero_sum =
      std::is_base_of_v<fn::sum_reduce, Op> && std::is_floating_point_v<Acc>;
  const auto identity = [] {
    if constexpr (signed_zero_sum) return simd::splat<Acc, H>(Acc(-0.0));
    else return simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>()));
  }();
  std::array<lanes_type, C> lanes;
  for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
    for_each_index<L / H>([&]<std::size_t P>(index_constant<P>)
                              DIMGRAPH_ALWAYS_INLINE { lanes[Chain][P] = identity; });
  });
  constexpr bool screened = !Exact && L == H && std::is_floating_point_v<Acc> &&
                            std::is_same_v<Acc, E> &&
                            requires(part a) { Op::combine_numbers(a, a); };
  std::array<part, screened ? C : 0> screen;
  if constexpr (screened) screen.fill(simd::splat<Acc, H>(Acc(0)));
  const auto add = [&]<std::size_t Chain>(index_constant<Chain>, const fn::lanes_t<E, L>& v)
                       DIMGRAPH_ALWAYS_INLINE {
                         if constexpr (screened) {
                           lanes[Chain][0] = Op::combine_numbers(lanes[Chain][0], v);
                           screen[Chain] += v;
                         } else {
                           combine_into<Op, Acc, E, L, H>(lanes[Chain], v);
                         }
                       };
  constexpr bool float_sum = std::is_same_v<Acc, double> && std::is_same_v<E, float> &&
                             std::is_base_of_v<fn::sum_reduce, Op>;
  // A float sum adds floats: each lane sums at most block_rows elements in float (over the
  // chains together) before the sum is added in double (as a vertical sum does). (Indexed by
  // constants only, so that the arrays stay in registers.)
  const auto float_blocks = [&]<std::size_t Chains>(std::size_t& i) DIMGRAPH_ALWAYS_INLINE {
    static_assert(block_rows % Chains == 0);
    while (i + Chains * L <= n) {
      std::array<fn::lanes_t<E, L>, Chains> t;
      for_each_index<Chains>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
        t[Chain] = simd::splat<simd::lane_t<E>, L>(0.0f);
      });
      const std::size_t whole = i + (n - i) / (Chains * L) * (Chains * L);
      const std::size_t end = std::min(whole, i + block_rows * L);
      for (; i < end; i += Chains * L)
        for_each_index<Chains>(
            [&]<std::size_t Chain>(index_constant<Chain>)
                DIMGRAPH_ALWAYS_INLINE { t[Chain] += k.template packet<L>(r, i + Chain * L); });
      if constexpr (Chains == 4) add(index_constant<0>{}, (t[0] + t[1]) + (t[2] + t[3]));
      else add(index_constant<0>{}, t[0]);
    }
  };
  std::size_t i = 0;
  if constexpr (C > 1) {
    // (Chains only for a row long enough to pay for folding them together.)
    if (n >= 2 * C * L) {
      if constexpr (float_sum) {
        float_blocks.template operator()<C>(i);
      } else {
        for (; i + C * L <= n; i += C * L)
          for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
            add(index_constant<Chain>{}, k.template packet<L>(r, i + Chain * L));
          });
        lanes[0] = combine_parts<Op>(combine_parts<Op>(lanes[0], lanes[1]),
                                     combine_parts<Op>(lanes[2], lanes[3]));
      }
    }
  }
  if constexpr (float_sum) float_blocks.template operator()<1>(i);
  else
    for (; i + L <= n; i += L) add(index_constant<0>{}, k.template packet<L>(r, i));
  if constexpr (screened) {
    part total = screen[0];
    for_each_index<C - 1>([&]<std::size_t Chain>(index_constant<Chain>)
                              DIMGRAPH_ALWAYS_INLINE { total += screen[Chain + 1]; });
    if (!simd::no_nan_lanes(total)) [[unlikely]] {
      reduce_across_exact<Op, Acc, L, H>(k, r, n, o, leaf_step, leaf_bytes);
      return;
    }
  }
  // The row's lanes folded into *o (a row shorter than a vector has none).
  const auto folded_lanes = [&]() DIMGRAPH_ALWAYS_INLINE {
    part folded = lanes[0][0];
    for_each_index<L / H - 1>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      folded = Op::combine(folded, lanes[0][P + 1]);
    });
    // (Screened lanes hold no NaN.)
    const auto combine = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE {
      if constexpr (screened) return Op::combine_numbers(a, b);
      else return Op::combine(a, b);
    };
    return Op::combine(load_lanes<1>(o), simd::fold_lanes(folded, combine));
  };
  // The last n - i < L elements in pieces of L / 2, L / 4, ..., 1 lanes (those whose bits
  // n - i has), each folded into the sum: no padded copy, and log2 L branches.
  // (A kernel longer than pieces_up_to: from a padded copy, one lane at a time.)
  const auto add_rest = [&](auto sum) DIMGRAPH_ALWAYS_INLINE {
    if constexpr (Kernel::instructions <= pieces_up_to) {
      return add_pieces<Op, Acc, H, E, L / 2>(k, r, i, n - i, sum);
    } else {
      const std::size_t rest = n - i;
      if (rest == 0) return sum;
      unsigned char scratch[Row::template scratch_bytes<L>];
      Row c = r;
      c.template pad<L>(r, i, rest, leaf_step, leaf_bytes, scratch);
      const fn::lanes_t<E, L> last = k.template packet<L>(c, 0);
      for (std::size_t l = 0; l < rest; ++l)
        sum = add_piece<Op, Acc, H, 1, E>(sum, simd::splat<simd::lane_t<E>, 1>(last[l]));
      return sum;
    }
  };
  if constexpr (std::is_same_v<simd::lane_t<Acc>, Acc>) {
    // (A number between the steps: GCC keeps a one-lane vector in a general register or on the
    // stack, and moved this one through both at every row.)
    // (Both branches a number: a one-lane vector from one and *o from the other met in a
    // general register.)
    *o = add_rest(n >= L ? folded_lanes()[0] : *o);
  } else {
    store_lanes<1>(o, add_rest(n >= L ? folded_lanes() : load_lanes<1>(o)));
  }
}

// reduce_across with the NaN-propagating combine (out of line: rows with a NaN or an infinity
// are rare).
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel>
[[gnu::cold]] DIMGRAPH_NOINLINE void reduce_across_exact(const Kernel& k, const Row& r,
                                                         std::size_t n, Acc* o,
                                                         const std::ptrdiff_t* leaf_step,
                                                         const std::size_t* leaf_bytes) {
  reduce_across<Op, Acc, L, H, Row, Kernel, true>(k, r, n, o, leaf_step, leaf_bytes);
}

}  // namespace dimgraph::detail
