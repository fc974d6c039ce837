// dg::torch: dimgraph views of LibTorch CPU tensors and LibTorch tensors over dimgraph memory
// (no copy either way). Optional: needs LibTorch (ATen; GCC: LibTorch 1.13's headers do not
// compile as C++20 with Clang 16).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <ATen/ATen.h>

#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/tensor.hpp"
#include "dimgraph/tensor/strided_view.hpp"

namespace dimgraph::torch {
namespace detail {

// The LibTorch dtype of element type T (dg::index<D> is int64).
template <class T>
constexpr c10::ScalarType scalar_type_of() {
  using S = std::remove_const_t<T>;
  if constexpr (is_index_v<S>) return c10::ScalarType::Long;
  else if constexpr (std::is_same_v<S, bool>) return c10::ScalarType::Bool;
  else if constexpr (std::is_same_v<S, float>) return c10::ScalarType::Float;
  else if constexpr (std::is_same_v<S, double>) return c10::ScalarType::Double;
  else if constexpr (std::is_same_v<S, std::uint8_t>) return c10::ScalarType::Byte;
  else if constexpr (std::is_same_v<S, std::int8_t>) return c10::ScalarType::Char;
  else if constexpr (std::is_same_v<S, std::int16_t>) return c10::ScalarType::Short;
  else if constexpr (std::is_same_v<S, std::int32_t>) return c10::ScalarType::Int;
  else if constexpr (std::is_signed_v<S> && sizeof(S) == 8) return c10::ScalarType::Long;
  else return c10::ScalarType::Undefined;  // (u16, u32, u64: no LibTorch 1.13 dtype)
}

}  // namespace detail

// The LibTorch dtype of element type T; a compile error for one LibTorch has not.
template <class T>
inline constexpr c10::ScalarType scalar_type_v = [] {
  constexpr auto s = detail::scalar_type_of<T>();
  static_assert(s != c10::ScalarType::Undefined,
                "dimgraph: torch: LibTorch has no dtype for this element type");
  return s;
}();

// A view of a CPU at::Tensor's memory (no copy) with element type T and dims Ds..., which name
// the tensor's dimensions in order (dimension i is Ds...[i]; reorder afterwards with
// dg::permute). Checked (errors name "torch::view"): the device is the CPU and the dtype is
// T's (dg::error); the rank is sizeof...(Ds), each extent lies in its dim's interval, and the
// strides are non-negative and do not overlap (shape_error).
template <class T, class... Ds>
tensor_view<T, Ds...> view(const at::Tensor& t) {
  constexpr std::size_t rank = sizeof...(Ds);
  constexpr const char* op = "torch::view";
  if (!t.defined() || t.device().type() != c10::DeviceType::CPU)
    throw error(op, "the tensor is undefined or not on the CPU");
  if (t.scalar_type() != scalar_type_v<T>)
    throw error(op, std::string("the tensor's dtype is ") + c10::toString(t.scalar_type()) +
                        ", the view's element type is " + c10::toString(scalar_type_v<T>));
  if (static_cast<std::size_t>(t.dim()) != rank)
    throw shape_error(op, "the tensor has " + std::to_string(t.dim()) + " dimensions, the view " +
                              std::to_string(rank) + " dims");
  std::array<std::size_t, rank> ext{};
  dimgraph::detail::strides_t<rank> str{};
  for (std::size_t i = 0; i < rank; ++i) {
    ext[i] = static_cast<std::size_t>(t.size(static_cast<std::int64_t>(i)));
    str[i] = static_cast<std::ptrdiff_t>(t.stride(static_cast<std::int64_t>(i)));
  }
  const auto s = shape<Ds...>::from_extents(ext, op);
  dimgraph::detail::check_layout(op, s, str, false, false);
  return tensor_view<T, Ds...>(static_cast<T*>(t.data_ptr()), s, str);
}

// An at::Tensor over the memory of a tensor or view (no copy: it aliases the elements and
// does not own them, so it must not outlive them), with its extents and strides, dimension i
// being dim i. A view of const elements gives a tensor that must not be written.
template <class X>
at::Tensor from(X&& x) {
  using x_t = std::remove_cvref_t<X>;
  using T = std::remove_const_t<std::remove_pointer_t<decltype(x.data())>>;
  std::vector<std::int64_t> sizes, strides;
  const auto ext = x.shape().extents();
  for (std::size_t i = 0; i < x_t::rank; ++i) {
    sizes.push_back(static_cast<std::int64_t>(ext[i]));
    strides.push_back(static_cast<std::int64_t>(x.strides()[i]));
  }
  return at::from_blob(const_cast<T*>(x.data()), sizes, strides,  // NOLINT: see above
                       at::TensorOptions().dtype(scalar_type_v<T>));
}

}  // namespace dimgraph::torch
