// tensor_access: what tensor and tensor_view share (extents, strides, access by position or tag).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/index_arg.hpp"

namespace dimgraph {

template <class T, class... Ds>
class tensor_view;

namespace detail {

template <std::size_t R>
using strides_t = std::array<std::ptrdiff_t, R>;

// Row-major strides: the last dim is contiguous.
template <std::size_t R>
constexpr strides_t<R> row_major_strides(const std::array<std::size_t, R>& ext) {
  strides_t<R> s{};
  std::ptrdiff_t step = 1;
  for (std::size_t i = R; i-- > 0;) {
    s[i] = step;
    step *= static_cast<std::ptrdiff_t>(ext[i]);
  }
  return s;
}

// A view without dim D: the same memory, D fixed at index i.
template <class D, class T, class... Ds>
struct drop_dim_view;
template <class D, class T, class... Ds>
using drop_dim_view_t = typename drop_dim_view<D, T, Ds...>::type;

template <class D, class T, class... Ds>
struct drop_dim_view {
  template <class... Kept>
  static tensor_view<T, Kept...> make(type_list<Kept...>);
  template <class X>
  struct keep : std::bool_constant<!std::is_same_v<X, D>> {};
  using type = decltype(make(filter_t<keep, type_list<Ds...>>{}));
};

// Calls f(offset) for every element of a strided layout, in row-major order of its dims.
template <std::size_t R, class F>
void for_each_offset(const std::array<std::size_t, R>& ext, const strides_t<R>& str, F&& f) {
  for (std::size_t e : ext)
    if (e == 0) return;
  if constexpr (R == 0) {
    f(std::ptrdiff_t{0});
  } else {
    std::array<std::size_t, R> pos{};
    std::ptrdiff_t off = 0;
    for (;;) {
      f(off);
      std::size_t i = R;
      while (i-- > 0) {
        off += str[i];
        if (++pos[i] < ext[i]) break;
        off -= static_cast<std::ptrdiff_t>(pos[i]) * str[i];
        pos[i] = 0;
        if (i == 0) return;
      }
    }
  }
}

}  // namespace detail

// What tensor and tensor_view share: extents, strides, access by position and by tag.
// Derived provides data(), shape() and strides().
template <class Derived, class T, class... Ds>
class tensor_access {
  DIMGRAPH_REQUIRE_DECL(detail::first_duplicate_v<detail::type_list<Ds...>> == sizeof...(Ds),
                        "dimgraph: tensor: a dim appears more than once", asked<Ds...>);
  static_assert((dimension<Ds> && ...),
                "dimgraph: tensor: every dim must be a dim tag or a dim expression");

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using dims = dim_list<Ds...>;
  using shape_type = shape<Ds...>;
  static constexpr std::size_t rank = sizeof...(Ds);

  template <class D>
  std::size_t extent() const {
    return self().shape().template extent<D>();
  }
  std::size_t size() const { return self().shape().size(); }
  template <class D>
  std::ptrdiff_t stride() const {
    static_assert(list_contains_v<dims, std::remove_cvref_t<D>>,
                  "dimgraph: stride: the tensor has no such dim");
    return self().strides()[list_index_of_v<dims, std::remove_cvref_t<D>>];
  }

  // The element at positions is... in the listed dim order (unchecked).
  template <std::integral... Is>
    requires(sizeof...(Is) == rank)
  decltype(auto) operator()(Is... is) {
    return derived().data()[offset({static_cast<std::size_t>(is)...})];
  }
  template <std::integral... Is>
    requires(sizeof...(Is) == rank)
  decltype(auto) operator()(Is... is) const {
    return self().data()[offset({static_cast<std::size_t>(is)...})];
  }

  // The element at the given position of every dim, by tag, in any order (checked:
  // index_error). x.at(dg::at<Time>(3), dg::at<Feature>(0))
  template <class... As>
  decltype(auto) at(at_arg<As>... a) {
    return derived().data()[checked_offset(a...)];
  }
  template <class... As>
  decltype(auto) at(at_arg<As>... a) const {
    return self().data()[checked_offset(a...)];
  }

  // A view without dim D, fixed at index i (checked: index_error). x[dg::at<Time>(3)]
  template <class D>
  auto operator[](at_arg<D> a) {
    return drop(derived().data(), a);
  }
  template <class D>
  auto operator[](at_arg<D> a) const {
    return drop(self().data(), a);
  }

  // A copy of the elements in row-major order of the listed dims (whatever the strides).
  std::vector<value_type> to_vector() const {
    std::vector<value_type> out;
    out.reserve(size());
    const T* p = self().data();
    detail::for_each_offset<rank>(self().shape().extents(), self().strides(),
                                  [&](std::ptrdiff_t off) { out.push_back(p[off]); });
    return out;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  Derived& derived() { return static_cast<Derived&>(*this); }

  std::ptrdiff_t offset(const std::array<std::size_t, rank>& pos) const {
    std::ptrdiff_t off = 0;
    const auto& s = self().strides();
    for (std::size_t i = 0; i < rank; ++i) off += static_cast<std::ptrdiff_t>(pos[i]) * s[i];
    return off;
  }
  template <class... As>
  std::ptrdiff_t checked_offset(at_arg<As>... a) const {
    static_assert(sizeof...(As) == rank && (list_contains_v<dims, As> && ...) &&
                      detail::first_duplicate_v<detail::type_list<As...>> == sizeof...(As),
                  "dimgraph: at: give one index for every dim of the tensor, by tag");
    std::array<std::size_t, rank> pos{};
    ((detail::check_index<As>("at", a.value, extent<As>()),
      pos[list_index_of_v<dims, As>] = a.value),
     ...);
    return offset(pos);
  }
  template <class P, class D>
  auto drop(P* data, at_arg<D> a) const {
    static_assert(list_contains_v<dims, D>, "dimgraph: at: the tensor has no such dim");
    detail::check_index<D>("at", a.value, extent<D>());
    constexpr std::size_t k = list_index_of_v<dims, D>;
    using view = detail::drop_dim_view_t<D, P, Ds...>;
    std::array<std::size_t, rank - 1> ext{};
    std::array<std::ptrdiff_t, rank - 1> str{};
    for (std::size_t i = 0, j = 0; i < rank; ++i)
      if (i != k) {
        ext[j] = self().shape().extent(i);
        str[j++] = self().strides()[i];
      }
    // Entry i of a ragged dim's batch dim is that sequence: the ragged dim's extent is its length.
    [[maybe_unused]] auto to_length = [&]<class R>(std::type_identity<R>) {
      if constexpr (detail::carries_lengths_v<R, dims> && std::is_same_v<ragged_batch_t<R>, D>) {
        constexpr std::size_t r = list_index_of_v<dims, R>;
        if (const auto& l = self().shape().template lengths<R>())
          ext[r < k ? r : r - 1] = static_cast<std::size_t>((*l)[a.value]);
      }
    };
    (to_length(std::type_identity<Ds>{}), ...);
    auto vs = view::shape_type::from_extents(ext, "at");
    if constexpr (view::shape_type::ragged_count > 0) vs.take_lengths(self().shape());
    // (An empty tensor's view keeps its base: the offset would point past the storage, which
    // is undefined even unread.)
    const std::ptrdiff_t offset =
        self().size() == 0 ? 0 : static_cast<std::ptrdiff_t>(a.value) * self().strides()[k];
    return view(data + offset, vs, str);
  }
};

}  // namespace dimgraph
