// Evaluation of reductions: one pass over the input (fused with its element-wise ops); over
// ragged dims, the masks that keep padding out of results.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/indices.hpp"
#include "dimgraph/eval/elementwise.hpp"
#include "dimgraph/eval/loop.hpp"
#include "dimgraph/eval/plan.hpp"
#include "dimgraph/eval/store.hpp"
#include "dimgraph/eval/table.hpp"
#include "dimgraph/expr/broadcast.hpp"
#include "dimgraph/expr/elementwise.hpp"
#include "dimgraph/expr/reduce.hpp"
#include "dimgraph/tensor/make.hpp"

namespace dimgraph::detail {

template <class E>
inline constexpr bool is_reduce_v = false;
template <class Op, class X, class... Rs>
inline constexpr bool is_reduce_v<reduce_expr<Op, X, Rs...>> = true;

// An op without identity (max, min) over a reduced extent of 0: names the empty dims.
template <class... Rs, class X>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_empty_reduction(const char* op, const X& x) {
  std::string what;
  ((x.template extent<Rs>() == 0
        ? void(what += (what.empty() ? "dim '" : ", dim '") + describe<Rs>() + "' has extent 0")
        : void()),
   ...);
  throw shape_error(op, "reduces over no elements (" + what + ") and has no identity");
}

// A vertical reduction's rows are reduced in blocks of this many (see accumulate); a float
// sum adds a block in float before adding it into the double accumulators.
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

// *o = Op(*o, every element of the row r of n elements) (the inner dim is reduced): L lane
// accumulators of Acc in parts of H lanes (C sets of them for a short kernel, C vectors at a
// time: a combine is a chain of dependent instructions, and one set would wait on it at every
// vector), folded together and then as a tree into *o at the end, then the last piece's
// m < L elements.
template <class Op, class Acc, std::size_t L, std::size_t H, class Row, class Kernel>
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
  const auto add = [&](lanes_type& set, const fn::lanes_t<E, L>& v) DIMGRAPH_ALWAYS_INLINE {
    for_each_index<L / H>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      set[P] = Op::combine(set[P], widened_part<Acc, E, H, P>(v));
    });
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
      if constexpr (Chains == 4) add(lanes[0], (t[0] + t[1]) + (t[2] + t[3]));
      else add(lanes[0], t[0]);
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
            add(lanes[Chain], k.template packet<L>(r, i + Chain * L));
          });
        lanes[0] = combine_parts<Op>(combine_parts<Op>(lanes[0], lanes[1]),
                                     combine_parts<Op>(lanes[2], lanes[3]));
      }
    }
  }
  if constexpr (float_sum) float_blocks.template operator()<1>(i);
  else
    for (; i + L <= n; i += L) add(lanes[0], k.template packet<L>(r, i));
  std::size_t rest = n - i;
  fn::lanes_t<E, L> last{};
  if (rest != 0) {
    unsigned char scratch[(Row::leaves + 1) * piece_bytes(L)];
    Row c = r;
    c.template pad<L>(r, i, rest, leaf_step, leaf_bytes, scratch);
    last = k.template packet<L>(c, 0);
  }
  part folded = lanes[0][0];
  for_each_index<L / H - 1>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
    folded = Op::combine(folded, lanes[0][P + 1]);
  });
  const auto combine = [](auto a, auto b) DIMGRAPH_ALWAYS_INLINE { return Op::combine(a, b); };
  auto sum = Op::combine(load_lanes<1>(o), simd::fold_lanes(folded, combine));
  for (std::size_t l = 0; l < rest; ++l)
    sum = Op::combine(sum, fn::as<Acc, E>(simd::splat<simd::lane_t<E>, 1>(last[l])));
  // (A number is stored from its register; a store of the one-lane vector went through two
  // copies on the stack.)
  if constexpr (std::is_same_v<simd::lane_t<Acc>, Acc>) *o = sum[0];
  else store_lanes<1>(o, sum);
}

// A vertical reduction's registers for one vector of L elements (of type E) of an acc row:
// Staged, one vector of E, the sum from 0; otherwise L / H parts of H lanes of Acc, from acc.
// t = Op(t, v):
template <class Op, class Acc, class E, bool Staged, std::size_t L, std::size_t H, class T,
          std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void combine_into(std::array<T, N>& t, fn::lanes_t<E, L> v) {
  if constexpr (Staged) {
    t[0] += v;
  } else {
    for_each_index<N>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      t[P] = Op::combine(t[P], widened_part<Acc, E, H, P>(v));
    });
  }
}

// and t written to the L elements of acc at o (contiguous).
template <class Acc, bool Staged, std::size_t L, std::size_t H, class T, std::size_t N>
DIMGRAPH_ALWAYS_INLINE inline void finish_vector(Acc* o, const std::array<T, N>& t) {
  if constexpr (Staged) {
    for_each_index<L / H>([&]<std::size_t P>(index_constant<P>) DIMGRAPH_ALWAYS_INLINE {
      store_lanes<H>(o + P * H, load_lanes<H>(o + P * H) + widened_part<double, float, H, P>(t[0]));
    });
  } else {
    for (std::size_t p = 0; p < N; ++p) store_lanes<H>(o + p * H, t[p]);
  }
}

// o[i * s] = Op(o[i * s], element i of each row) for the count (<= B) rows of a vertical
// reduction given by their offsets, in row order, for i < n: one vector of L elements at a
// time, reduced over the rows in registers (Acc in parts of H lanes) and written to o once.
// Staged (float sums into double): the vector's sum over the rows in float, from 0, then added
// into o in double. The rows' elements past n (a last piece of m < L) come from padded copies.
template <class Op, class Acc, bool Staged, std::size_t L, std::size_t H, class Row, class Kernel,
          class Bases, std::size_t B, std::size_t S>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void reduce_block(
    const Kernel& k, const Bases& bases, const std::array<std::array<std::ptrdiff_t, S>, B>& off,
    std::size_t count, const std::array<std::ptrdiff_t, S>& step, std::size_t n, Acc* o,
    std::ptrdiff_t s, const std::ptrdiff_t* leaf_step, const std::size_t* leaf_bytes) {
  using E = typename Kernel::value_type;
  using part = std::conditional_t<Staged, fn::lanes_t<E, L>, fn::lanes_t<Acc, H>>;
  constexpr std::size_t parts = Staged ? 1 : L / H;
  constexpr std::size_t width = Staged ? L : H;
  // (Unused entries repeat the first row.)
  const auto rows =
      with_indices<B>([&]<std::size_t... J>(index_constant<J>...) DIMGRAPH_ALWAYS_INLINE {
        return std::array<Row, B>{Row(bases, off[J < count ? J : 0], step)...};
      });
  // Whole vectors of a contiguous acc row, C at a time (independent chains of combines; C
  // copies of the kernel, so fewer for a long one).
  constexpr std::size_t size = Kernel::facts::size;
  constexpr std::size_t C = size <= 8 ? 4 : size <= 32 ? 2 : 1;
  std::size_t i = 0;
  if constexpr (C > 1) {
    if (s == 1)
      for (; i + C * L <= n; i += C * L) {
        std::array<std::array<part, parts>, C> t;
        for (std::size_t c = 0; c < C; ++c)
          for (std::size_t p = 0; p < parts; ++p) {
            if constexpr (Staged) t[c][p] = simd::splat<simd::lane_t<E>, L>(0.0f);
            else t[c][p] = load_lanes<H>(o + i + c * L + p * H);
          }
        for (std::size_t j = 0; j < count; ++j)
          for_each_index<C>([&]<std::size_t Chain>(index_constant<Chain>) DIMGRAPH_ALWAYS_INLINE {
            combine_into<Op, Acc, E, Staged, L, H>(t[Chain],
                                                   k.template packet<L>(rows[j], i + Chain * L));
          });
        for (std::size_t c = 0; c < C; ++c) finish_vector<Acc, Staged, L, H>(o + i + c * L, t[c]);
      }
  }
  // The rest, a vector at a time, acc strided or not, the last piece padded.
  unsigned char scratch[(Row::leaves + 1) * piece_bytes(L)];
  Row padded = rows[0];
  for (; i < n; i += L) {
    const std::size_t m = std::min(L, n - i);
    const bool whole = m == L && s == 1;
    std::array<part, parts> t;
    if constexpr (Staged) {
      t[0] = simd::splat<simd::lane_t<E>, L>(0.0f);
    } else {
      t.fill(simd::splat<simd::lane_t<Acc>, H>(fn::lane_of(Op::template identity<Acc>())));
      if (whole) {
        for (std::size_t p = 0; p < parts; ++p) t[p] = load_lanes<H>(o + i + p * H);
      } else {
        for (std::size_t l = 0; l < m; ++l)
          t[l / H][l % H] = load_lanes<1>(o + static_cast<std::ptrdiff_t>(i + l) * s)[0];
      }
    }
    for (std::size_t j = 0; j < count; ++j) {
      const Row* r = &rows[j];
      std::size_t at = i;
      if (m != L) [[unlikely]] {
        padded = rows[j];
        padded.template pad<L>(rows[j], i, m, leaf_step, leaf_bytes, scratch);
        r = &padded;
        at = 0;
      }
      combine_into<Op, Acc, E, Staged, L, H>(t, k.template packet<L>(*r, at));
    }
    if (whole) {
      finish_vector<Acc, Staged, L, H>(o + i, t);
    } else {
      for (std::size_t l = 0; l < m; ++l) {
        Acc* q = o + static_cast<std::ptrdiff_t>(i + l) * s;
        if constexpr (Staged) *q += static_cast<double>(t[0][l]);
        else store_lanes<1>(q, simd::splat<simd::lane_t<Acc>, 1>(t[l / width][l % width]));
      }
    }
  }
}

// acc (row-major over the result's dims) combined with Op over every element of x. The loop
// nest runs over x's dims; acc steps with stride 0 along the reduced dims. A row along which
// acc does not step (the inner dim is reduced) folds into L lane accumulators and then into
// one element (reduce_across); otherwise the rows that combine into the same acc row are
// taken in blocks of up to block_rows, and each vector of the acc row is reduced over a block
// in registers (reduce_block: the input is read once, acc once per block).
//
// Float sums accumulate in double, so that long sums stay exact or nearly (2^25 ones sum to
// 2^25). Adding each element in double would double a vertical reduction's memory traffic,
// so there a block is summed in float and then added into acc in double: each element of acc
// is a double sum of float sums of at most block_rows terms.
//
// Out of line, and compiled once per op and input type: acc enters as a pointer and its strides
// along x's dims (0 along the reduced ones), so every reduction of the same x with the same op
// (sum over any dims, and mean, which sums) shares one copy of this code.
template <class Op, class Acc, class X>
DIMGRAPH_NOINLINE DIMGRAPH_FLATTEN void accumulate_strided(
    Acc* acc_data, const std::array<std::ptrdiff_t, dims_t<X>::size>& acc_strides, const X& x) {
  using ev = evaluator_of<X>;
  using kernel = program_kernel<typename ev::program>;
  using xdims = dims_t<X>;
  using E = typename kernel::value_type;
  using table_t = table_for<xdims, X>;
  using inner = back_t<types_of_t<xdims>>;
  constexpr std::size_t R = xdims::size;
  static_assert(R > 0);  // (x has at least the reduced dims)
  constexpr bool staged = std::is_same_v<Acc, double> && std::is_same_v<E, float> &&
                          std::is_base_of_v<fn::sum_reduce, Op>;
  // L lanes of x, a register of its widest lanes; the accumulators in parts of H lanes, each
  // at most a register.
  constexpr std::size_t L = simd::lanes_for(
      staged ? ev::lane_bytes : std::max(ev::lane_bytes, sizeof(simd::lane_t<Acc>)));
  constexpr std::size_t H = std::max<std::size_t>(1, std::min(L, simd::lanes_for(sizeof(Acc))));

  const auto ext = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::size_t, R>{x.template extent<Ds>()...};
  }(std::type_identity<xdims>{});
  table_t table(ext, {acc_data, acc_strides}, false);
  typename table_t::bases_type bases;
  const kernel k = make_kernel(x, table, bases);
  const auto plan = make_loop_plan<R>(ext, table.strides);
  std::array<std::ptrdiff_t, table_t::slots> step{};
  if (plan.depth > 0)
    for (std::size_t op = 0; op < table_t::slots; ++op) step[op] = plan.inner_stride(op);
  const auto leaf_step = leaf_steps<table_t>(step);
  const bool across = step[0] == 0;

  // Groups: the rows that combine into the same acc row (across: the same acc element). The
  // levels along which acc does not step come innermost among the outer levels (the planner
  // orders the outer levels by acc's strides), so a group is the rows of the last `run`
  // outer levels: `groups` runs over the levels before them, and each group runs over
  // `rows`, the run levels and the inner one. Groups write disjoint parts of acc: they are
  // shared among threads, and each is reduced by one thread in order, so the result does
  // not depend on the thread count.
  std::size_t run = 0;
  while (run + 1 < plan.depth && plan.stride[0][plan.depth - 2 - run] == 0) ++run;
  auto groups = plan, rows = plan;
  if (plan.depth > 0) {
    groups.depth = plan.depth - run;
    groups.extent[groups.depth - 1] = plan.inner_extent();
    for (std::size_t op = 0; op < table_t::slots; ++op)
      groups.stride[op][groups.depth - 1] = plan.inner_stride(op);
    rows.depth = run + 1;
    for (std::size_t l = 0; l <= run; ++l) {
      rows.extent[l] = plan.extent[groups.depth - 1 + l];
      for (std::size_t op = 0; op < table_t::slots; ++op)
        rows.stride[op][l] = plan.stride[op][groups.depth - 1 + l];
    }
  }
  std::size_t per_group = 1;
  for (std::size_t l = 0; l < run; ++l) per_group *= rows.extent[l];

  const auto run_groups = [&]<bool Unit>(std::bool_constant<Unit>) {
    using row_t = row<table_t, inner, Unit>;
    using offsets = std::array<std::ptrdiff_t, table_t::slots>;
    // (A group of an across reduction is not split into pieces of its rows: they would all
    // write the same acc element.)
    for_each_row<1, true>(
        groups,
        [&](const offsets& first, std::size_t n) DIMGRAPH_ALWAYS_INLINE {
          Acc* o = acc_data + first[0];
          // (A group of one row, the common case, takes no loop over rows: the loop's setup
          // cost as much as a short row's work.)
          if (across && run == 0) {
            reduce_across<Op, Acc, L, H>(k, row_t(bases, first, step), n, o, leaf_step.data(),
                                         table.leaf_bytes.data());
            return;
          }
          auto group = rows;
          group.extent[run] = n;
          if (across) {
            for_each_row<1, false>(
                group, [&](const offsets& at, std::size_t) DIMGRAPH_ALWAYS_INLINE {
                  reduce_across<Op, Acc, L, H>(k, row_t(bases, add_offsets(first, at), step), n, o,
                                               leaf_step.data(), table.leaf_bytes.data());
                });
            return;
          }
          // Vertical: the group's rows in blocks of up to block_rows, each block reduced
          // into o one vector at a time (a register tile over the block's rows).
          std::array<offsets, block_rows> block;
          std::size_t count = 0;
          const auto run_block = [&]() DIMGRAPH_ALWAYS_INLINE {
            reduce_block<Op, Acc, staged, L, H, row_t>(k, bases, block, count, step, n, o, step[0],
                                                       leaf_step.data(), table.leaf_bytes.data());
            count = 0;
          };
          for_each_row<1, false>(group, [&](const offsets& at, std::size_t) DIMGRAPH_ALWAYS_INLINE {
            block[count] = add_offsets(first, at);
            if (++count == block_rows) run_block();
          });
          if (count != 0) run_block();
        },
        per_group, !across);
  };
  if (table.unit_inner(plan, false)) run_groups(std::true_type{});
  else if constexpr (kernel::views > 0) run_groups(std::false_type{});
}

template <class Op, class Acc, class X, class AccTensor>
DIMGRAPH_ALWAYS_INLINE inline void accumulate(AccTensor& acc, const X& x) {
  using xdims = dims_t<X>;
  const auto ext = [&]<class... Ds>(std::type_identity<dim_list<Ds...>>) {
    return std::array<std::size_t, xdims::size>{x.template extent<Ds>()...};
  }(std::type_identity<xdims>{});
  // A mean accumulates as a sum (the same code).
  using fold = std::conditional_t<std::is_base_of_v<fn::sum_reduce, Op>, fn::sum_reduce, Op>;
  accumulate_strided<fold, Acc>(acc.data(), layout_strides<xdims, typename AccTensor::dims>(ext),
                                x);
}

// out[i] = To(in[i] / divisor) (Divide) or To(in[i]), for i < n: a reduction's result from its
// accumulators, in vectors of L elements, then one at a time. One copy per pair of types,
// shared by every reduction, so a reduction compiles no element-wise kernel of its own.
template <class To, class From, bool Divide>
DIMGRAPH_NOINLINE void convert_elements(To* out, const From* in, std::size_t n, double divisor) {
  static_assert(!Divide || std::is_same_v<From, double>);
  constexpr std::size_t L =
      simd::lanes_for(std::max(sizeof(simd::lane_t<To>), sizeof(simd::lane_t<From>)));
  const auto one = [&]<std::size_t M>(std::size_t i) DIMGRAPH_ALWAYS_INLINE {
    auto v = load_lanes<M>(in + i);
    if constexpr (Divide) v = v / simd::splat<double, M>(divisor);
    store_lanes<M>(out + i, fn::as<To, From>(v));
  };
  std::size_t i = 0;
  for (; i + L <= n; i += L) one.template operator()<L>(i);
  for (; i < n; ++i) one.template operator()<1>(i);
}

// dst = acc (a fresh tensor of the reduction's dims), divided by divisor when Divide, as the
// reduction's element type result_t (then widened to dst's, if wider).
template <bool Divide, class result_t, class Dst, class Acc>
DIMGRAPH_ALWAYS_INLINE inline void write_reduction(Dst& dst, const Acc& acc, double divisor) {
  using acc_t = typename Acc::value_type;
  if constexpr (is_tensor_v<std::remove_const_t<Dst>> &&
                std::is_same_v<typename Dst::dims, typename Acc::dims> &&
                std::is_same_v<typename Dst::value_type, result_t>) {
    // The same dims in the same order, both contiguous: element for element.
    convert_elements<result_t, acc_t, Divide>(dst.data(), acc.data(), acc.size(), divisor);
  } else if constexpr (Divide) {
    assign_elementwise<false>(dst, make_map(fn::cast_to<result_t>{}, make_binary<fn::div>(acc, divisor)));
  } else if constexpr (std::is_same_v<acc_t, result_t>) {
    assign_elementwise<false>(dst, acc);
  } else {
    assign_elementwise<false>(dst, make_map(fn::cast_to<result_t>{}, acc));
  }
}

// "dim 'time' has lengths {5, 3, 0}"
template <class E>
std::string lengths_description(const std::vector<std::int64_t>& lens) {
  return "dim '" + describe<E>() + "' has lengths " + lengths_text(lens);
}

// An op without identity (max, min, argmax, argmin) at a result position whose row has no
// valid element: names the position along the dims Ks... (those of the masks the result
// keeps, such as the batch dim) and the lengths.
template <class... Ks>
[[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_no_valid_element(
    const char* op, const std::array<std::size_t, sizeof...(Ks)>& pos, const std::string& lens) {
  std::string at;
  [[maybe_unused]] std::size_t i = 0;
  ((at += (i ? ", '" : " at '") + describe<Ks>() + "' " + std::to_string(pos[i]), ++i), ...);
  throw shape_error(op,
                    "reduces over no valid element" + at + " (" + lens + ") and has no identity");
}

// The view of x at entry i of its dim B, without B, every other dim at its full extent and with
// no lengths (so its ragged dims' padding is in it: see leading_view).
template <class B, class X>
auto entry_view(X& x, std::size_t i) {
  using elem = std::remove_pointer_t<decltype(x.data())>;
  using xdims = dims_t<std::remove_const_t<X>>;
  constexpr std::size_t k = list_index_of_v<xdims, B>;
  return [&]<class... Ds>(dim_list<Ds...>) {
    const std::array<std::size_t, sizeof...(Ds)> ext{x.template extent<Ds>()...};
    const std::array<std::ptrdiff_t, sizeof...(Ds)> str{x.template stride<Ds>()...};
    return tensor_view<elem, Ds...>(x.data() + static_cast<std::ptrdiff_t>(i) * x.strides()[k],
                                    shape<Ds...>::from_extents(ext), str);
  }(list_difference_t<xdims, dim_list<B>>{});
}

// x as a view with no lengths (every row full: its padding is in it, and x[dg::at<B>(i)] does
// not cut its ragged dims to a row's length).
template <class X>
auto without_lengths(X& x) {
  using elem = std::remove_pointer_t<decltype(x.data())>;
  return [&]<class... Ds>(dim_list<Ds...>) {
    return tensor_view<elem, Ds...>(x.data(), shape<Ds...>::from_extents(x.shape().extents()),
                                    x.strides());
  }(dims_t<std::remove_const_t<X>>{});
}

// The view of x's first n positions along D (n at most its extent), with no lengths: what a
// row of a ragged dim is once its batch dim is fixed.
template <class D, class X>
auto leading_view(const X& x, std::size_t n) {
  using elem = std::remove_pointer_t<decltype(x.data())>;
  return [&]<class... Ds>(dim_list<Ds...>) {
    auto ext = x.shape().extents();
    ext[list_index_of_v<dim_list<Ds...>, D>] = n;
    return tensor_view<elem, Ds...>(x.data(), shape<Ds...>::from_extents(ext), x.strides());
  }(dims_t<X>{});
}

// mask_dims_t<L, dim_list<Es...>>: the ragged dims Es... of L and their batch dims, in L's order.
template <class... Es>
struct in_masks_of {
  template <class D>
  struct pred : std::bool_constant<(
                    (std::is_same_v<D, Es> || std::is_same_v<D, ragged_batch_t<Es>>) || ...)> {};
};
template <class L, class Masked>
struct mask_dims;
template <class L, class... Es>
struct mask_dims<L, dim_list<Es...>> {
  using type = dims_of_t<filter_t<in_masks_of<Es...>::template pred, types_of_t<L>>>;
};
template <class L, class Masked>
using mask_dims_t = typename mask_dims<L, Masked>::type;

// The integer type f is called with for the positions and lengths of a mask over the dims
// Es... of x: int32 where every extent fits it, so that a kernel of 4-byte lanes keeps its vector
// length; int64 otherwise, and whenever x's lanes are 8 bytes anyway.
template <class X, class... Es, class F>
decltype(auto) with_position_type(const X& x, dim_list<Es...>, F&& f) {
  if constexpr (evaluator_of<X>::lane_bytes >= sizeof(std::int64_t)) {
    return f(std::type_identity<std::int64_t>{});
  } else {
    constexpr auto top = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
    if (((x.template extent<Es>() > top) || ...)) [[unlikely]]
      return f(std::type_identity<std::int64_t>{});
    return f(std::type_identity<std::int32_t>{});
  }
}

// Which positions of an operand with the dims L are valid along its ragged dims Es... (each
// with its batch dim in L): position t of E at entry b of E's batch dim is valid when t <
// length[b]. Holds each E's positions 0, 1, ... and its lengths as tensors of I (lengths not
// given read as full rows); the masks it makes are lazy expressions reading them, so it
// outlives them. A mask is one select per element, fused into the kernel that reads it.
template <class I, class L, class... Es>
class ragged_mask {
 public:
  template <class X>
  explicit ragged_mask(const X& x) : parts_{make_part<Es>(x)...} {}

  // x where every E is valid, else fill (in x's element type): lazy, x held as given.
  template <class X, class V>
  auto apply(X&& x, V fill) const {
    return apply_from<0>(std::forward<X>(x), fill);
  }

  // 1.0 where every E is valid, else 0.0, over the Es and their batch dims: lazy.
  auto valid() const { return valid_from<0>(); }

  // The number of valid positions (over the dims Rs... that are mask dims) at each position
  // of the mask dims that are not among Rs..., as double (exact below 2^53).
  template <class... Rs>
  auto count() const {
    const auto v = valid();
    using kept = list_difference_t<dims_t<decltype(v)>, dim_list<Rs...>>;
    auto out = [&]<class... Ks>(dim_list<Ks...>) {
      return tensor<double, Ks...>(shape<Ks...>::from_extents({v.template extent<Ks>()...}));
    }(kept{});
    constexpr bool lengths_count = [] {
      if constexpr (sizeof...(Es) == 1)
        return std::is_same_v<kept, dim_list<ragged_batch_t<Es>...>>;
      else return false;
    }();
    if constexpr (lengths_count) {
      // One ragged dim reduced and its batch dim kept (the usual case): the lengths.
      const auto& length = std::get<0>(parts_).length;
      for (std::size_t b = 0; b < out.size(); ++b)
        out.data()[b] = static_cast<double>(length.data()[b]);
    } else {
      accumulate<fn::sum_reduce, double>(out, v);
    }
    return out;
  }

  // Error (shape_error naming op, the position and the lengths): a zero in count, i.e. an op
  // without identity over no valid element.
  template <class... Ks>
  void check_nonempty(const char* op, const tensor<double, Ks...>& count) const {
    const double* c = count.data();
    for (std::size_t i = 0, n = count.size(); i < n; ++i)
      if (c[i] == 0.0) [[unlikely]]
        throw_empty_at(op, count, i);
  }

  // The lengths of E, given or full.
  template <class E>
  std::vector<std::int64_t> lengths() const {
    const auto& p = std::get<part<E>>(parts_);
    std::vector<std::int64_t> out(p.length.size());
    for (std::size_t b = 0; b < out.size(); ++b) out[b] = p.length.data()[b];
    return out;
  }

 private:
  template <class E>
  struct part {
    tensor<I, E> position;
    tensor<I, ragged_batch_t<E>> length;
  };
  template <class E, class X>
  static part<E> make_part(const X& x) {
    using B = ragged_batch_t<E>;
    const std::size_t n = x.template extent<E>(), rows = x.template extent<B>();
    part<E> p{dimgraph::iota<I, E>(extent<E>(n)), tensor<I, B>(extent<B>(rows))};
    const lengths_ref given = lengths_in<E>(x);
    for (std::size_t b = 0; b < rows; ++b)
      p.length.data()[b] = static_cast<I>(given ? (*given)[b] : static_cast<std::int64_t>(n));
    return p;
  }
  // position < length over E and its batch dim (in L's order), a bool expression.
  template <class E>
  auto valid_of() const {
    using B = ragged_batch_t<E>;
    const auto& p = std::get<part<E>>(parts_);
    return [&]<class... Ps>(dim_list<Ps...>) {
      return make_binary<fn::less>(make_broadcast<Ps...>(p.position, extent<B>(p.length.size())),
                                    p.length);
    }(list_intersection_t<L, dim_list<B, E>>{});
  }
  template <std::size_t K, class X, class V>
  auto apply_from(X&& x, V fill) const {
    using E = at_t<K, type_list<Es...>>;
    if constexpr (K + 1 == sizeof...(Es)) return make_where(valid_of<E>(), std::forward<X>(x), fill);
    else return make_where(valid_of<E>(), apply_from<K + 1>(std::forward<X>(x), fill), fill);
  }
  template <std::size_t K>
  auto valid_from() const {
    auto one = make_where(valid_of<at_t<K, type_list<Es...>>>(), 1.0, 0.0);
    if constexpr (K + 1 == sizeof...(Es)) return one;
    else return make_outer(std::move(one), valid_from<K + 1>(), fn::mul{});
  }

  template <class... Ks>
  [[noreturn, gnu::cold]] DIMGRAPH_NOINLINE void throw_empty_at(const char* op,
                                                                const tensor<double, Ks...>& count,
                                                                std::size_t flat) const {
    const std::array<std::size_t, sizeof...(Ks)> ext{count.template extent<Ks>()...};
    std::array<std::size_t, sizeof...(Ks)> pos{};
    for (std::size_t k = sizeof...(Ks); k-- > 0;) {
      pos[k] = flat % ext[k];
      flat /= ext[k];
    }
    std::string lens;
    ((lens += (lens.empty() ? "" : "; ") + lengths_description<Es>(lengths<Es>())), ...);
    detail::throw_no_valid_element<Ks...>(op, pos, lens);
  }

  std::tuple<part<Es>...> parts_;
};

// The mask of x's ragged dims Es..., with positions of type I.
template <class I, class X, class... Es>
ragged_mask<I, dims_t<X>, Es...> make_ragged_mask(const X& x, dim_list<Es...>) {
  return ragged_mask<I, dims_t<X>, Es...>(x);
}

// dst = Op over the dims Rs... of x where the op must respect lengths (ragged_over_v): padding
// is read as Op's identity (a select, fused into the one pass over x), and a mean divides by
// the number of valid positions at each result position. Error: max or min where some result
// position has no valid element (shape_error), before anything is written.
template <class Op, class... Rs, class Dst, class X>
void reduce_ragged_into(Dst& dst, const X& x) {
  using V = value_t<X>;
  using acc_t = typename Op::template acc<V>;
  using result_t = typename Op::template result<V>;
  using masked = masked_dims_t<dims_t<X>, dim_list<Rs...>>;
  using kept = list_difference_t<dims_t<X>, dim_list<Rs...>>;
  constexpr bool mean = std::is_same_v<Op, fn::mean_reduce>;
  with_position_type(x, masked{}, [&]<class I>(std::type_identity<I>) {
    const auto mask = make_ragged_mask<I>(x, masked{});
    using mask_dims = dims_t<decltype(mask.valid())>;
    [[maybe_unused]] const auto count = [&] {
      if constexpr (mean || Op::empty_is_error) return mask.template count<Rs...>();
      else return 0;
    }();
    if constexpr (Op::empty_is_error) mask.check_nonempty(Op::name, count);
    auto acc = [&]<class... Ds>(dim_list<Ds...>) {
      return tensor<acc_t, Ds...>(
          shape<Ds...>::from_extents({x.template extent<Ds>()...}, Op::name));
    }(kept{});
    constexpr acc_t identity = Op::template identity<acc_t>();
    if constexpr (identity != acc_t(0)) std::fill_n(acc.data(), acc.size(), identity);
    accumulate<Op, acc_t>(acc, mask.apply(x, Op::template identity<V>()));
    if constexpr (mean) {
      // Each valid position of the mask dims stands for every position of the other reduced dims.
      const double others = [&]<class... Os>(dim_list<Os...>) {
        return (1.0 * ... * static_cast<double>(x.template extent<Os>()));
      }(list_difference_t<dim_list<Rs...>, mask_dims>{});
      if constexpr (std::remove_cvref_t<decltype(count)>::rank == 0)
        assign_elementwise<false>(
            dst, make_map(fn::cast_to<result_t>{}, make_binary<fn::div>(acc, count.data()[0] * others)));
      else
        assign_elementwise<false>(dst, make_map(fn::cast_to<result_t>{},
                                                make_binary<fn::div>(acc, make_binary<fn::mul>(count, others))));
    } else {
      write_reduction<false, result_t>(dst, acc, 1.0);
    }
  });
}

}  // namespace dimgraph::detail
