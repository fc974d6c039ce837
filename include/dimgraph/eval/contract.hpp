// Evaluation of dot: the contraction mapped onto a (batched) matrix product.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/config.hpp"
#include "dimgraph/eval/cblas.hpp"
#include "dimgraph/eval/elementwise.hpp"
#include "dimgraph/eval/gemm.hpp"
#include "dimgraph/eval/matmul.hpp"
#include "dimgraph/eval/ragged.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/eval/threads.hpp"
#include "dimgraph/expr/contract.hpp"
#include "dimgraph/expr/map.hpp"

namespace dimgraph {
namespace detail {

template <class E>
inline constexpr bool is_contract_v = false;
template <class A, class B, class... Ks>
inline constexpr bool is_contract_v<contract_expr<A, B, Ks...>> = true;

// An operand as memory of element type T: a tensor or view of T as it is, anything else
// (an element-wise expression, another dot, another element type) evaluated once.
template <class T, class X>
decltype(auto) contract_operand(const X& x) {
  if constexpr (memory_operand<X> && std::is_same_v<typename X::value_type, T>) return (x);
  else if constexpr (std::is_same_v<value_t<X>, T>) return materialize(x);
  else return materialize(make_map(fn::cast_to<T>{}, x));
}

// The group of x's dims Gs... (x has them all), in the order listed.
template <class... Gs, class X>
dim_group group_of(dim_list<Gs...>, const X& x) {
  return make_dim_group<sizeof...(Gs)>({x.template extent<Gs>()...}, {x.template stride<Gs>()...});
}

// Whether a tensor or view operand of e shares memory with out.
template <class Out, class E>
bool contract_overlaps(const Out& out, const E& e) {
  const auto [lo, hi] = memory_span(out);
  const auto hits = [&](const auto& x) {
    if constexpr (memory_operand<std::remove_cvref_t<decltype(x)>>) {
      const auto [xl, xh] = memory_span(x);
      return lo != hi && xl != xh && xl < hi && lo < xh;
    } else {
      return false;
    }
  };
  return hits(e.lhs()) || hits(e.rhs());
}

// Whether dot over Ks (a dim_list) of operands A and B reads padding: a ragged dim of an
// operand (its batch dim there too) is contracted, or its batch dim is.
template <class A, class B, class Ks>
inline constexpr bool ragged_contract_v =
    ragged_over_v<dims_t<A>, Ks> || ragged_over_v<dims_t<B>, Ks>;

// v with each dim of Masked (from the K-th on) that it has cut to its length at entry i.
template <class Masked, std::size_t K = 0, class V, class Lengths>
auto cut_to_lengths(const V& v, std::size_t i, const Lengths& lengths) {
  if constexpr (K == Masked::size) {
    return v;
  } else {
    using E = at_t<K, types_of_t<Masked>>;
    if constexpr (list_contains_v<dims_t<V>, E>)
      return cut_to_lengths<Masked, K + 1>(
          leading_view<E>(v, static_cast<std::size_t>(lengths[K][i])), i, lengths);
    else return cut_to_lengths<Masked, K + 1>(v, i, lengths);
  }
}

// The valid part at entry i of the batch dim Bt of x: a view of x with Bt fixed at i (when x
// has it) and each dim of Masked (the ragged dims over Bt) cut to its length at i.
template <class Bt, class Masked, class X, class Lengths>
auto valid_part(X& x, std::size_t i, const Lengths& lengths) {
  if constexpr (list_contains_v<dims_t<std::remove_const_t<X>>, Bt>)
    return cut_to_lengths<Masked>(entry_view<Bt>(x, i), i, lengths);
  else return cut_to_lengths<Masked>(without_lengths(x), i, lengths);
}

template <class Out, class A, class B, class... Ks>
void contract_into(const Out& out, const contract_expr<A, B, Ks...>& e);

// out = dot over Ks... where padding must be left out (ragged_contract_v): one product per entry
// i of the ragged dims' batch dim Bt, over the valid part at i (valid_part) of each operand, so
// no padding is read and no work is done on it. Where Bt is kept, the product at i is out's
// entry i (the ragged dims are then all contracted: a row of length 0 gives zeros); where Bt
// is contracted too, the products are summed into out (zero where no row is valid).
// Error (compile time): the ragged dims to respect have different batch dims.
template <class Out, class A, class B, class... Ks>
void contract_ragged_into(const Out& out, const contract_expr<A, B, Ks...>& e) {
  using T = value_t<contract_expr<A, B, Ks...>>;
  using contracted = dim_list<Ks...>;
  using masked =
      list_union_t<masked_dims_t<dims_t<A>, contracted>, masked_dims_t<dims_t<B>, contracted>>;
  using Bt = ragged_batch_t<front_t<types_of_t<masked>>>;
  constexpr bool one_batch = []<class... Es>(dim_list<Es...>) {
    return (std::is_same_v<ragged_batch_t<Es>, Bt> && ...);
  }(masked{});
  static_assert(one_batch,
                "dimgraph: dot: the contraction reads ragged dims over different batch dims; "
                "contract over one batch dim's ragged dims at a time");
  if constexpr (one_batch) {
    auto&& a = contract_operand<T>(e.lhs());
    auto&& b = contract_operand<T>(e.rhs());
    const std::size_t rows = [&] {
      if constexpr (list_contains_v<dims_t<A>, Bt>) return a.template extent<Bt>();
      else return b.template extent<Bt>();
    }();
    // Each masked dim's lengths (full where none are given), in masked's order.
    const auto lengths = [&]<class... Es>(dim_list<Es...>) {
      const auto one = [&]<class E>(std::type_identity<E>) {
        lengths_ref l = lengths_in<E>(e.lhs());
        if (!l) l = lengths_in<E>(e.rhs());
        if (l) return *l;
        if constexpr (list_contains_v<dims_t<A>, E>)
          return std::vector<std::int64_t>(rows, static_cast<std::int64_t>(a.template extent<E>()));
        else
          return std::vector<std::int64_t>(rows, static_cast<std::int64_t>(b.template extent<E>()));
      };
      return std::array<std::vector<std::int64_t>, sizeof...(Es)>{one(std::type_identity<Es>{})...};
    }(masked{});
    if constexpr (list_contains_v<contracted, Bt>) {
      // Bt contracted: out is the sum over i of the product of the valid parts at i.
      for_each_offset<Out::rank>(out.shape().extents(), out.strides(),
                                 [&](std::ptrdiff_t off) { out.data()[off] = T(0); });
      for (std::size_t i = 0; i < rows; ++i) {
        const auto av = valid_part<Bt, masked>(a, i, lengths);
        const auto bv = valid_part<Bt, masked>(b, i, lengths);
        const auto ov = valid_part<Bt, masked>(out, i, lengths);
        [&]<class... Rest>(dim_list<Rest...>) {
          const auto part =
              materialize(contract_expr<std::remove_const_t<decltype(av)>,
                                        std::remove_const_t<decltype(bv)>, Rest...>(av, bv));
          assign_elementwise<false>(ov, ov + part);
        }(list_difference_t<contracted, dim_list<Bt>>{});
      }
    } else {
      for (std::size_t i = 0; i < rows; ++i) {
        const auto av = valid_part<Bt, masked>(a, i, lengths);
        const auto bv = valid_part<Bt, masked>(b, i, lengths);
        contract_into(entry_view<Bt>(out, i),
                      contract_expr<std::remove_const_t<decltype(av)>,
                                    std::remove_const_t<decltype(bv)>, Ks...>(av, bv));
      }
    }
  }
}

// out = dot (out's extents already match). The dims split into four groups: batch (in both
// operands, not contracted), M (only in a), K (contracted, in a's order) and N (only in b).
// Each operand sees each of its groups as one affine index where its strides allow, else
// through an offset table; per batch entry the product is one matrix product.
// Error: out shares memory with an operand (overlap_error), before any write.
template <class Out, class A, class B, class... Ks>
void contract_into(const Out& out, const contract_expr<A, B, Ks...>& e) {
  using T = value_t<contract_expr<A, B, Ks...>>;
  if constexpr (!std::is_same_v<typename Out::value_type, T>) {
    const auto tmp = materialize(e);
    assign_elementwise<false>(out, tmp);
  } else if constexpr (ragged_contract_v<A, B, dim_list<Ks...>>) {
    if (contract_overlaps(out, e))
      throw overlap_error("dot",
                          "the output shares memory with an operand; evaluate into a new tensor");
    contract_ragged_into(out, e);
  } else {
    if (contract_overlaps(out, e))
      throw overlap_error("dot",
                          "the output shares memory with an operand; evaluate into a new tensor");
    auto&& a = contract_operand<T>(e.lhs());
    auto&& b = contract_operand<T>(e.rhs());
    using adims = dims_t<A>;
    using bdims = dims_t<B>;
    using kdims = list_intersection_t<adims, dim_list<Ks...>>;
    using batch = list_difference_t<list_intersection_t<adims, bdims>, kdims>;
    using mdims = list_difference_t<adims, bdims>;
    using ndims = list_difference_t<bdims, adims>;
    const auto group = [](const auto& x, auto dims) { return group_of(dims, x); };
    const dim_group am = group(a, mdims{});
    const dim_group ak = group(a, kdims{});
    const dim_group bk = group(b, kdims{});
    const dim_group bn = group(b, ndims{});
    const dim_group cm = group(out, mdims{});
    const dim_group cn = group(out, ndims{});
    const dim_group ab = group(a, batch{});
    const dim_group bb = group(b, batch{});
    const dim_group cb = group(out, batch{});
    // (An operand with no elements may have no storage: its offsets are then not added.)
    const auto at = [](auto* p, std::ptrdiff_t offset) { return p ? p + offset : p; };
    const auto entries = [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        const matmul_operands<T> op{at(a.data(), ab.at(i)),   &am, &ak,
                                    at(b.data(), bb.at(i)),   &bk, &bn,
                                    at(out.data(), cb.at(i)), &cm, &cn};
        matmul(op, am.size, bn.size, ak.size);
      }
    };
    // With threads and at least as many batch entries, whole entries per thread (each
    // product then runs on its thread alone); otherwise each product splits its rows.
    std::size_t threads = 1;
    if (cb.size > 1) {
      threads = parallel_threads_for(product_work(cb.size, am.size, bn.size, ak.size));
    }
    if (threads > 1 && cb.size >= threads) parallel_parts(cb.size, threads, entries);
    else entries(0, cb.size);
  }
}

}  // namespace detail
}  // namespace dimgraph
