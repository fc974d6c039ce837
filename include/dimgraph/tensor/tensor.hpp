// dimgraph::tensor (owning, row-major, 64-byte aligned) and tensor_view (non-owning, strided).
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dimgraph/detail/require.hpp"
#include "dimgraph/config.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/assign_hook.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/index_arg.hpp"
#include "dimgraph/tensor/nested_init.hpp"
#include "dimgraph/tensor/storage.hpp"

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

// Why extents given by tag do not fit the dims Ds... (checked in this order, so that the
// entry point's static_asserts give one message per mistake).
enum class extents_check { ok, unknown_dim, repeated, missing };
template <class... Ds, class... Es>
constexpr extents_check check_extents(type_list<Ds...>, type_list<Es...>) {
  if (!(contains_v<Es, type_list<Ds...>> && ...)) return extents_check::unknown_dim;
  if (first_duplicate_v<type_list<Es...>> != sizeof...(Es)) return extents_check::repeated;
  if (!((is_static_v<Ds> || contains_v<Ds, type_list<Es...>>)&&...)) return extents_check::missing;
  return extents_check::ok;
}

// What a tensor is made from, by tag: extents (dg::extent<D>(n)) and the lengths of ragged
// dims (dg::lengths<D>(lens)).
template <class A>
struct shape_arg_traits : std::false_type {};
template <class D>
struct shape_arg_traits<extent_arg<D>> : std::true_type {
  using extent_dims = type_list<D>;
  using lengths_dims = type_list<>;
};
template <class D>
struct shape_arg_traits<lengths_arg<D>> : std::true_type {
  using extent_dims = type_list<>;
  using lengths_dims = type_list<D>;
};
template <class A>
concept shape_arg = shape_arg_traits<A>::value;

// Why shape arguments As... do not fit the dims Ds... (one message per mistake, in this order).
enum class shape_args_check {
  ok,
  unknown_dim,
  unknown_lengths_dim,
  repeated,
  repeated_lengths,
  missing,
  lengths_not_ragged,
  lengths_without_batch
};
template <class... Ds, class... As>
constexpr shape_args_check check_shape_args(type_list<Ds...>, type_list<As...>) {
  using given = concat_t<typename shape_arg_traits<As>::extent_dims...>;
  using lens = concat_t<typename shape_arg_traits<As>::lengths_dims...>;
  using named = concat_t<given, lens>;
  using all = type_list<Ds...>;
  constexpr auto in_all = []<class... Xs>(type_list<Xs...>) {
    return (contains_v<Xs, all> && ...);
  };
  if (!in_all(given{})) return shape_args_check::unknown_dim;
  if (!in_all(lens{})) return shape_args_check::unknown_lengths_dim;
  if (first_duplicate_v<given> != given::size) return shape_args_check::repeated;
  if (first_duplicate_v<lens> != lens::size) return shape_args_check::repeated_lengths;
  if (!((is_static_v<Ds> || contains_v<Ds, named>)&&...)) return shape_args_check::missing;
  constexpr auto ragged = []<class... Ls>(type_list<Ls...>) { return (is_ragged_v<Ls> && ...); };
  if (!ragged(lens{})) return shape_args_check::lengths_not_ragged;
  constexpr auto batched = []<class... Ls>(type_list<Ls...>) {
    return (carries_lengths_v<Ls, dim_list<Ds...>> && ...);
  };
  if (!batched(lens{})) return shape_args_check::lengths_without_batch;
  return shape_args_check::ok;
}

// The extent given for D; else, for a ragged dim with lengths, the largest length; else D's
// static size.
template <class D, class A>
constexpr void extent_from(const A&, std::size_t&, bool&) {}
template <class D>
constexpr void extent_from(const extent_arg<D>& e, std::size_t& n, bool& given) {
  n = e.value;
  given = true;
}
template <class D, class A>
constexpr void length_extent_from(const A&, std::size_t&) {}
template <class D>
void length_extent_from(const lengths_arg<D>& l, std::size_t& n) {
  n = longest(l.value);
}
template <class D, class... As>
constexpr std::size_t given_extent(const As&... a) {
  std::size_t n = bounds_v<D>.lo;
  bool given = false;
  (extent_from<D>(a, n, given), ...);
  if (!given) (length_extent_from<D>(a, n), ...);
  return n;
}

// The shape of Ds... from shape arguments in any order (static dims optional), each extent
// checked against its dim's interval and the lengths against the extents: a shape_error that
// names `op`, the dim and the extent. The caller has checked the arguments with
// check_shape_args.
template <class S, class A>
void lengths_from(S&, const char*, const A&) {}
template <class S, class D>
void lengths_from(S& s, const char* op, const lengths_arg<D>& l) {
  if constexpr (carries_lengths_v<D, typename S::dims>)  // (else a reported mistake)
    s.template set_lengths<D>(op, l.value);
}
template <class... Ds, class... As>
shape<Ds...> shape_from(const char* op, const As&... a) {
  auto s = shape<Ds...>::from_extents({given_extent<Ds>(a...)...}, op);
  (lengths_from(s, op, a), ...);
  return s;
}

// The static_asserts of an entry point Op taking shape arguments As for the dims Ds...
#define DIMGRAPH_CHECK_SHAPE_ARGS(OP, DS, AS)                                                     \
  constexpr auto shape_check = ::dimgraph::detail::check_shape_args(                              \
      ::dimgraph::detail::type_list<DS...>{}, ::dimgraph::detail::type_list<AS...>{});            \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::unknown_dim,              \
                   "dimgraph: " OP ": an extent is given for a dim the tensor does not have",     \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::unknown_lengths_dim,      \
                   "dimgraph: " OP ": lengths are given for a dim the tensor does not have",      \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::repeated,                 \
                   "dimgraph: " OP ": an extent is given twice", ::dimgraph::has<DS...>,          \
                   ::dimgraph::asked<AS...>);                                                     \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::repeated_lengths,         \
                   "dimgraph: " OP ": lengths are given twice for a dim", ::dimgraph::has<DS...>, \
                   ::dimgraph::asked<AS...>);                                                     \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::missing,                  \
                   "dimgraph: " OP ": a non-static dim has no extent (give dg::extent<D>(n))",    \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::lengths_not_ragged,       \
                   "dimgraph: " OP                                                                \
                   ": lengths are given for a dim that is not ragged (declare it "                \
                   "dg::dim<\"name\", dg::ragged<Batch>>)",                                       \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>);                             \
  DIMGRAPH_REQUIRE(shape_check != ::dimgraph::detail::shape_args_check::lengths_without_batch,    \
                   "dimgraph: " OP                                                                \
                   ": lengths are given for a ragged dim whose batch dim the "                    \
                   "tensor does not have",                                                        \
                   ::dimgraph::has<DS...>, ::dimgraph::asked<AS...>)

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

// The error of elements given for a shape whose size is another.
template <class... Ds>
[[noreturn]] void throw_element_count(const char* op, std::size_t given, const shape<Ds...>& s) {
  throw shape_error(op, std::to_string(given) + " elements are given for the shape " +
                            to_string(s) + " of " + std::to_string(s.size()) + " elements");
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
    return view(data + static_cast<std::ptrdiff_t>(a.value) * self().strides()[k], vs, str);
  }
};

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
