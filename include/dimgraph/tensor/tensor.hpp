// dimgraph::tensor (owning, row-major, 64-byte aligned) and permute; with tensor_view (strided).
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/assign_hook.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/index_arg.hpp"
#include "dimgraph/tensor/nested_init.hpp"
#include "dimgraph/tensor/shape_args.hpp"
#include "dimgraph/tensor/storage.hpp"
#include "dimgraph/tensor/tensor_access.hpp"
#include "dimgraph/tensor/tensor_view.hpp"

namespace dimgraph {

namespace detail {
struct tensor_internals;
// A tensor's contents handed to a new tensor without the move's refill of the source (see
// tensor_internals::hand_over); only tensor_internals makes one.
template <class Tensor>
class relocation {
  friend struct tensor_internals;
  friend Tensor;
  explicit relocation(Tensor& t) : source(t) {}
  Tensor& source;
};
}  // namespace detail

// An owning tensor: row-major in the listed dim order (the last dim contiguous),
// 64-byte aligned, inline when every dim is static and its elements take at most
// DIMGRAPH_CONFIG_INLINE_LIMIT bytes (16 KiB by default; is_inline tells). Elements start
// value-initialised. An inline tensor is exactly its elements (no extents, no strides, no
// pointer; aligned to 64 bytes or, when smaller, to its size rounded up to a power of two),
// so sizeof(tensor<float, F8>) == 32 for a static dim F8 of size 8. A larger all-static
// tensor holds only a pointer to its elements (its shape and strides stay constants).
// A tensor with heap storage that has been moved from is left at each dim's smallest extent
// (a static dim's size; empty when a dim may be 0) with value-initialised elements: valid,
// and ready to be assigned again.
// Error: a repeated dim (compile time); an extent outside its dim's interval (shape_error).
template <class T, class... Ds>
class tensor : public tensor_access<tensor<T, Ds...>, T, Ds...> {
  using base = tensor_access<tensor<T, Ds...>, T, Ds...>;
  static_assert(std::is_same_v<T, std::remove_cvref_t<T>>,
                "dimgraph: tensor: the element type must not be const or a reference");
  DIMGRAPH_REQUIRE_DECL(element<std::remove_cvref_t<T>>,
                        "dimgraph: tensor: the element type must be bool, an 8-64-bit integer, "
                        "float, double or dg::index<D>",
                        has<Ds...>, T);

 public:
  using base::rank;
  using typename base::dims;
  using typename base::shape_type;
  static constexpr bool is_static = shape_type::is_static;
  // The elements are inside the object (all-static and at most DIMGRAPH_CONFIG_INLINE_LIMIT
  // bytes).
  static constexpr bool is_inline = [] {
    if constexpr (is_static)
      return sizeof(T) * shape_type{}.size() <= std::size_t{DIMGRAPH_CONFIG_INLINE_LIMIT};
    else return false;
  }();

  tensor()
    requires is_static
  = default;
  explicit tensor(const shape_type& s)
      : shape_(s), storage_(make_storage(s)), strides_(strides_of(s)) {}

  tensor(const tensor&) = default;
  tensor& operator=(const tensor&) = default;
  // (The library's own transfers out of a tensor it destroys next: detail::relocation.)
  tensor(detail::relocation<tensor> r) noexcept
    requires(!is_inline)
      : shape_(r.source.shape_),
        storage_(std::move(r.source.storage_)),
        strides_(r.source.strides_) {}
  tensor(detail::relocation<tensor> r) noexcept
    requires is_inline
      : tensor(std::move(r.source)) {}
  tensor(tensor&&) noexcept
    requires is_inline
  = default;
  tensor& operator=(tensor&&) noexcept
    requires is_inline
  = default;
  // (Allocates only when every dim's smallest extent is above 0.)
  tensor(tensor&& o) noexcept(lower_bound_size == 0)
    requires(!is_inline)
      : shape_(o.shape_), storage_(std::move(o.storage_)), strides_(o.strides_) {
    o.reset_to_lower_bounds();
  }
  tensor& operator=(tensor&& o) noexcept(lower_bound_size == 0)
    requires(!is_inline)
  {
    if (this != &o) {
      shape_ = o.shape_;
      storage_ = std::move(o.storage_);
      strides_ = o.strides_;
      o.reset_to_lower_bounds();
    }
    return *this;
  }
  // By tag, in any order: the extent of every non-static dim, and the lengths of ragged dims
  // (dg::lengths<Time>(lens); the extent is then the largest length unless given).
  // Errors: an extent outside its dim's interval; lengths that are negative, above the extent,
  // or not one per entry of the batch dim (shape_error naming the dims).
  template <detail::shape_arg... As>
    requires(sizeof...(As) > 0)
  explicit tensor(const As&... a) : tensor(detail::shape_from<Ds...>("tensor", a...)) {
    DIMGRAPH_CHECK_SHAPE_ARGS("tensor", Ds, As);
  }

  // Copies of elements given in row-major order of Ds..., from a span or a vector whose size
  // is the shape's size, or from a pointer to that many elements; extents by tag as above.
  // dg::tensor<float, Time, Feature> x(buffer, dg::extent<Time>(3)). Errors: those of the
  // extents; a span of another size (shape_error naming the shape and both sizes).
  template <detail::shape_arg... As>
  explicit tensor(std::span<const T> elements, const As&... a)
      : tensor(checked_for_overwrite<As...>(a...)) {
    if (elements.size() != this->size())
      detail::throw_element_count("tensor", elements.size(), shape());
    std::copy_n(elements.data(), this->size(), data());
  }
  template <detail::shape_arg... As>
  explicit tensor(const T* elements, const As&... a) : tensor(checked_for_overwrite<As...>(a...)) {
    std::copy_n(elements, this->size(), data());
  }

  // A static tensor from nested braced lists, one level per dim, in the listed order:
  // dg::tensor<float, Row, Col> t{{1, 2}, {3, 4}}. Errors: an innermost list whose length is
  // not the last dim's size (compile time); another list whose length is not its dim's size
  // (shape_error naming the dim, the length and the shape).
  // NOLINTNEXTLINE(google-explicit-constructor)
  tensor(detail::nested_init_t<T, rank, detail::last_or_void_t<detail::type_list<Ds...>>> list)
    requires(is_static && rank > 0)
  {
    detail::check_nested_lengths<Ds...>(list, shape().extents(), 0);
    detail::copy_nested(list, data());
  }

  // From an expression (another tensor, a view, a lazy node): evaluates it, through the
  // assignment hook (defined in eval/assign.hpp; without it, a compile error that says so).
  // The shape is not set yet, and the elements are not initialised: the hook writes every one.
  template <detail::assign_source E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>)
  DIMGRAPH_ALWAYS_INLINE tensor(E&& e)  // NOLINT: implicit, like assigning the expression's value
      : storage_(detail::for_overwrite_t{}, static_count()) {  // (none yet when not static)
    detail::assign_hook<tensor, std::remove_cvref_t<E>>::construct(*this, e);
  }
  template <detail::assign_source E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>)
  DIMGRAPH_ALWAYS_INLINE tensor& operator=(E&& e) {
    detail::assign_hook<tensor, std::remove_cvref_t<E>>::assign(*this, e);
    return *this;
  }

  T* data() { return storage_.data(); }
  const T* data() const { return storage_.data(); }
  const shape_type& shape() const {
    if constexpr (is_static) return static_shape_;
    else return shape_;
  }
  const detail::strides_t<rank>& strides() const {
    if constexpr (is_static) return static_strides_;
    else return strides_;
  }

  // Re-shapes (dynamic dims only); the contents become value-initialised when the extents change.
  void reshape(const shape_type& s) {
    if (s == shape()) {
      if constexpr (shape_type::ragged_count > 0) shape_ = s;
      return;
    }
    storage_ = make_storage(s);
    shape_ = s;
    strides_ = strides_of(s);
  }

  // A view of the whole tensor.
  tensor_view<T, Ds...> view() { return {data(), shape(), strides()}; }
  tensor_view<const T, Ds...> view() const { return {data(), shape(), strides()}; }
  operator tensor_view<const T, Ds...>() const { return view(); }  // NOLINT

 private:
  friend struct detail::tensor_internals;

  // A tensor of shape s whose elements the caller writes (the delegating constructors).
  struct overwrite_shape {
    shape_type shape;
  };
  explicit tensor(overwrite_shape s)
      : shape_(s.shape),
        storage_(detail::for_overwrite_t{}, s.shape.size()),
        strides_(strides_of(s.shape)) {}
  template <class... As>
  static overwrite_shape checked_for_overwrite(const As&... a) {
    DIMGRAPH_CHECK_SHAPE_ARGS("tensor", Ds, As);
    return {detail::shape_from<Ds...>("tensor", a...)};
  }

  static constexpr std::size_t static_count() {
    if constexpr (is_static) return shape_type{}.size();
    else return 0;
  }
  using storage_type = std::conditional_t<is_inline, detail::inline_storage<T, static_count()>,
                                          detail::heap_storage<T>>;
  static storage_type make_storage(const shape_type& s) {
    if constexpr (is_inline) return {};
    else return storage_type(s.size());
  }

  // Takes the shape s (non-static tensors) with elements left uninitialised, always
  // allocating: a tensor under construction has no storage yet.
  void reshape_for_overwrite(const shape_type& s) {
    storage_ = storage_type(detail::for_overwrite_t{}, s.size());
    shape_ = s;
    strides_ = strides_of(s);
  }

  static constexpr std::size_t lower_bound_size = (std::size_t{1} * ... * bounds_v<Ds>.lo);
  static constexpr shape_type lower_bounds() {
    return shape_type::from_extents({bounds_v<Ds>.lo...});
  }
  // A static tensor's shape and strides are constants (static_shape_, static_strides_);
  // only other tensors store theirs.
  static constexpr auto static_shape_ = [] {
    if constexpr (is_static) return shape_type::from_extents({bounds_v<Ds>.lo...});
    else return 0;  // (a shape with ragged dims is not a literal type)
  }();
  static constexpr detail::strides_t<rank> static_strides_ =
      detail::row_major_strides<rank>({bounds_v<Ds>.lo...});
  struct no_shape {
    constexpr no_shape() = default;
    constexpr no_shape(const shape_type&) {}  // NOLINT: stands in for the shape
  };
  struct no_strides {};
  using shape_member = std::conditional_t<is_static, no_shape, shape_type>;
  using strides_type = std::conditional_t<is_static, no_strides, detail::strides_t<rank>>;
  static constexpr strides_type strides_of([[maybe_unused]] const shape_type& s) {
    if constexpr (is_static) return {};
    else return detail::row_major_strides<rank>(s.extents());
  }
  void reset_to_lower_bounds() {
    shape_ = lower_bounds();
    storage_ = make_storage(shape());
    strides_ = strides_of(shape());
  }

  // (Before a constructor sets it: every dim at its smallest extent.)
  [[no_unique_address]] shape_member shape_ = lower_bounds();
  storage_type storage_ = make_storage(shape());
  [[no_unique_address]] strides_type strides_ = strides_of(shape());
};

namespace detail {
// What the evaluator needs of a tensor under construction (see assign_hook::construct).
struct tensor_internals {
  // A tensor of shape s whose elements are not initialised (the caller writes every one).
  template <class Tensor>
  static Tensor for_overwrite(const typename Tensor::shape_type& s) {
    return Tensor(typename Tensor::overwrite_shape{s});
  }
  template <class T, class... Ds>
  static void reshape_for_overwrite(tensor<T, Ds...>& t,
                                    const typename tensor<T, Ds...>::shape_type& s) {
    t.reshape_for_overwrite(s);
  }
  // What a new value takes x's contents from when x is dropped next. For a tensor, a
  // relocation: the new tensor takes t's shape and elements and leaves t without storage (where
  // a move gives a tensor with heap storage new zeroed storage of its smallest extents: for
  // all-static dims, an allocation and a fill of its whole size); t may then only be destroyed
  // or assigned a whole tensor. Anything else is moved.
  template <class T, class... Ds>
  static relocation<tensor<T, Ds...>> hand_over(tensor<T, Ds...>& t) noexcept {
    return relocation<tensor<T, Ds...>>(t);
  }
  template <class T, class... Ds>
  static relocation<tensor<T, Ds...>> hand_over(tensor<T, Ds...>&& t) noexcept {
    return hand_over(t);
  }
  template <class X>
  static std::remove_reference_t<X>&& hand_over(X&& x) noexcept {
    return static_cast<std::remove_reference_t<X>&&>(x);
  }
  // dst takes src's shape and elements, src is left as after hand_over (any other type: moved).
  template <class X>
  static void replace(X& dst, X& src) {
    dst = std::move(src);
  }
  template <class T, class... Ds>
  static void replace(tensor<T, Ds...>& dst, tensor<T, Ds...>& src) noexcept {
    if constexpr (tensor<T, Ds...>::is_inline) {
      dst = std::move(src);
    } else {
      dst.shape_ = src.shape_;
      dst.storage_ = std::move(src.storage_);
      dst.strides_ = src.strides_;
    }
  }
  // Takes the lengths of s (same extents as t's).
  template <class T, class... Ds>
  static void take_lengths(tensor<T, Ds...>& t, const shape<Ds...>& s) {
    t.shape_.take_lengths(s);
  }
};
}  // namespace detail

namespace detail {
// Tensors and views are what a tensor or a view can take the value of (see assign_source).
template <class T, class... Ds>
inline constexpr bool assign_source_v<tensor<T, Ds...>> = true;
template <class T, class... Ds>
inline constexpr bool assign_source_v<tensor_view<T, Ds...>> = true;

template <class X>
inline constexpr bool is_tensor_v = false;
template <class T, class... Ds>
inline constexpr bool is_tensor_v<tensor<T, Ds...>> = true;
template <class X>
inline constexpr bool is_view_v = false;
template <class T, class... Ds>
inline constexpr bool is_view_v<tensor_view<T, Ds...>> = true;

// A tensor or a tensor_view (cv and references ignored): elements in memory, reached through
// data() and strides, as opposed to a lazy node or a symbol.
template <class X>
concept memory_operand = is_tensor_v<std::remove_cvref_t<X>> || is_view_v<std::remove_cvref_t<X>>;
}  // namespace detail

// The same elements with the dims in another order (a view, no copy).
// Error: Ps... is not a reordering of the tensor's dims; the tensor is a temporary (the view
// would outlive its elements).
template <class... Ps, class X>
auto permute(X&& x) {
  using x_t = std::remove_cvref_t<X>;
  using dims = typename x_t::dims;
  DIMGRAPH_REQUIRE((list_same_set_v<dims, dim_list<Ps...>> && sizeof...(Ps) == dims::size),
                   "dimgraph: permute: the new order must list each dim of the tensor once",
                   asked<Ps...>, detail::has_role_t<x_t>);
  DIMGRAPH_REQUIRE(std::is_lvalue_reference_v<X> || !detail::is_tensor_v<x_t>,
                   "dimgraph: permute: the tensor is a temporary and the view would dangle; keep "
                   "it in a variable first",
                   asked<Ps...>, detail::has_role_t<x_t>);
  using elem = std::remove_pointer_t<decltype(x.data())>;
  std::array<std::size_t, sizeof...(Ps)> ext{x.template extent<Ps>()...};
  detail::strides_t<sizeof...(Ps)> str{x.template stride<Ps>()...};
  auto s = shape<Ps...>::from_extents(ext, "permute");
  if constexpr (shape<Ps...>::ragged_count > 0) s.take_lengths(x.shape());
  return tensor_view<elem, Ps...>(x.data(), s, str);
}

}  // namespace dimgraph
