// tensor_view (non-owning, strided) and dg::view, a row-major view over memory the caller owns.
#pragma once

#include <cstddef>
#include <ranges>
#include <type_traits>

#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/assign_hook.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/shape_args.hpp"
#include "dimgraph/tensor/tensor_access.hpp"

namespace dimgraph {

// A non-owning strided view (T may be const). Made by permute, slicing by tag, or
// over external memory with dg::view or dg::strided_view (tensor/strided_view.hpp).
template <class T, class... Ds>
class tensor_view : public tensor_access<tensor_view<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor_view<T, Ds...>, T, Ds...>;
  static_assert(
      element<std::remove_const_t<T>>,
      "dimgraph: tensor_view: the element type must be bool, an 8-64-bit integer, float, double or "
      "dg::index<D> (optionally const)");

 public:
  using base::rank;
  using typename base::dims;
  using typename base::shape_type;

  tensor_view(T* data, const shape_type& s, const detail::strides_t<rank>& strides)
      : data_(data), shape_(s), strides_(strides) {}
  // A view of a tensor (const-converting from a mutable view too).
  template <class U>
    requires std::is_same_v<const U, T>
  tensor_view(const tensor_view<U, Ds...>& v)
      : tensor_view(v.data(), v.shape(), v.strides()) {}  // NOLINT

  template <detail::assign_source E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor_view>)
  const tensor_view& operator=(E&& e) const {
    detail::assign_hook<const tensor_view, std::remove_cvref_t<E>>::assign(*this, e);
    return *this;
  }
  // Assignment writes through to the viewed elements (a view is a reference).
  const tensor_view& operator=(const tensor_view& other) const
    requires(!std::is_const_v<T>)
  {
    detail::assign_hook<const tensor_view, tensor_view>::assign(*this, other);
    return *this;
  }
  tensor_view(const tensor_view&) = default;

  T* data() const { return data_; }
  const shape_type& shape() const { return shape_; }
  const detail::strides_t<rank>& strides() const { return strides_; }

 private:
  T* data_;
  shape_type shape_;
  detail::strides_t<rank> strides_;
};

namespace detail {
template <class... Ds, class... Es>
shape<Ds...> view_shape(extent_arg<Es>... e) {
  constexpr auto check = check_extents(type_list<Ds...>{}, type_list<Es...>{});
  static_assert(check != extents_check::unknown_dim,
                "dimgraph: view: an extent is given for a dim the view does not have");
  static_assert(check != extents_check::repeated, "dimgraph: view: an extent is given twice");
  static_assert(check != extents_check::missing, "dimgraph: view: a non-static dim has no extent");
  return shape_from<Ds...>("view", e...);
}

template <class R>
using range_element_t = std::remove_reference_t<std::ranges::range_reference_t<R>>;

}  // namespace detail

// A row-major view over memory the caller owns (no copy), in either form:
//   dg::view<Batch, Feature>(ptr, dg::extent<Batch>(2))      element type from the pointer
//   dg::view<float, Batch, Feature>(ptr, dg::extent<Batch>(2))
//   dg::view<Batch, Feature>(vec, dg::extent<Batch>(2))      a contiguous range: its size must
//                                                            be the view's
// Extents by tag in any order; static dims need none. Errors: a missing, repeated or foreign
// extent (compile time); an extent outside its dim's interval; a range of another size
// (shape_error naming the shape and both sizes).
template <class T, class... Ds, class... Es>
  requires element<std::remove_const_t<T>>
tensor_view<T, Ds...> view(T* data, extent_arg<Es>... e) {
  shape<Ds...> s = detail::view_shape<Ds...>(e...);
  return {data, s, detail::row_major_strides<sizeof...(Ds)>(s.extents())};
}
template <dimension D0, class... Ds, class T, class... Es>
  requires element<std::remove_const_t<T>>
tensor_view<T, D0, Ds...> view(T* data, extent_arg<Es>... e) {
  return view<T, D0, Ds...>(data, e...);
}
template <dimension D0, class... Ds, std::ranges::contiguous_range R, class... Es>
  requires std::ranges::borrowed_range<R> && std::ranges::sized_range<R> &&
           element<std::remove_const_t<detail::range_element_t<R>>>
tensor_view<detail::range_element_t<R>, D0, Ds...> view(R&& source, extent_arg<Es>... e) {
  shape<D0, Ds...> s = detail::view_shape<D0, Ds...>(e...);
  const auto n = static_cast<std::size_t>(std::ranges::size(source));
  if (n != s.size()) detail::throw_element_count("view", n, s);
  return {std::ranges::data(source), s, detail::row_major_strides<1 + sizeof...(Ds)>(s.extents())};
}

}  // namespace dimgraph
