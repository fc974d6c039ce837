// Ragged dims in kernels: the view of a batch entry or of a row's valid part, the masks that
// keep padding out of results, and reductions over ragged dims.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/eval/elementwise.hpp"
#include "dimgraph/eval/reduce.hpp"
#include "dimgraph/expr/broadcast.hpp"
#include "dimgraph/expr/elementwise.hpp"
#include "dimgraph/expr/reduce.hpp"
#include "dimgraph/tensor/make.hpp"

namespace dimgraph::detail {

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
    if constexpr (K + 1 == sizeof...(Es))
      return make_where(valid_of<E>(), std::forward<X>(x), fill);
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
            dst,
            make_map(fn::cast_to<result_t>{}, make_binary<fn::div>(acc, count.data()[0] * others)));
      else
        assign_elementwise<false>(
            dst, make_map(fn::cast_to<result_t>{},
                          make_binary<fn::div>(acc, make_binary<fn::mul>(count, others))));
    } else {
      write_reduction<false, result_t>(dst, acc, 1.0);
    }
  });
}

}  // namespace dimgraph::detail
