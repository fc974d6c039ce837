// dg::eigen: dimgraph views of Eigen matrices and tensors, and Eigen maps of dimgraph tensors
// (no copy either way). Optional: needs Eigen 3.4 (Eigen/Core, unsupported/Eigen/CXX11/Tensor).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/tensor.hpp"
#include "dimgraph/tensor/strided_view.hpp"

namespace dimgraph::eigen {
namespace detail {

template <class X>
inline constexpr bool is_eigen_tensor_v = false;
template <class S, int N, int O, class I>
inline constexpr bool is_eigen_tensor_v<Eigen::Tensor<S, N, O, I>> = true;
template <class S, int N, int O, class I>
inline constexpr bool is_eigen_tensor_v<const Eigen::Tensor<S, N, O, I>> = true;
template <class P, int O, template <class> class M>
inline constexpr bool is_eigen_tensor_v<Eigen::TensorMap<P, O, M>> = true;

// The element type of x's data(): const when x gives only const access.
template <class E>
using data_element_t = std::remove_pointer_t<decltype(std::declval<E&>().data())>;

// A view of Ds... over data with the given extents and strides (in Ds... order), checked:
// shape_error naming `op` for an extent outside its dim's interval or a negative or
// overlapping layout.
template <class T, class... Ds>
tensor_view<T, Ds...> checked_view(const char* op, T* data,
                                   const std::array<std::size_t, sizeof...(Ds)>& ext,
                                   const dimgraph::detail::strides_t<sizeof...(Ds)>& str) {
  const auto s = shape<Ds...>::from_extents(ext, op);
  dimgraph::detail::check_layout(op, s, str, false, false);
  return tensor_view<T, Ds...>(data, s, str);
}

}  // namespace detail

// A view of an Eigen object's memory (no copy) with the dims Ds...:
//   a matrix or vector expression with direct access (Matrix, Map, Block, Ref, ...): two dims,
//     rows then columns (one dim for a vector), its strides and storage order honoured;
//   an Eigen::Tensor or TensorMap of rank sizeof...(Ds): dim i is the tensor's dimension i,
//     in either storage order.
// dg::eigen::view<Row, Col>(m) reads and writes m's elements. Errors: a rank or element type
// that does not fit (compile time); an extent outside its dim's interval (shape_error,
// "eigen::view").
template <class... Ds, class E>
auto view(E&& e) {
  using plain = std::remove_cvref_t<E>;
  using T = detail::data_element_t<std::remove_reference_t<E>>;
  static_assert(element<std::remove_const_t<T>>,
                "dimgraph: eigen::view: the Eigen scalar type is not a tensor element type");
  constexpr std::size_t rank = sizeof...(Ds);
  if constexpr (detail::is_eigen_tensor_v<plain>) {
    static_assert(static_cast<std::size_t>(plain::NumIndices) == rank,
                  "dimgraph: eigen::view: give one dim per dimension of the Eigen tensor");
    std::array<std::size_t, rank> ext{};
    dimgraph::detail::strides_t<rank> str{};
    for (std::size_t i = 0; i < rank; ++i) ext[i] = static_cast<std::size_t>(e.dimension(i));
    std::ptrdiff_t step = 1;
    const bool row_major = (static_cast<int>(plain::Layout) == Eigen::RowMajor);
    for (std::size_t k = 0; k < rank; ++k) {
      const std::size_t i = row_major ? rank - 1 - k : k;
      str[i] = step;
      step *= static_cast<std::ptrdiff_t>(ext[i]);
    }
    return detail::checked_view<T, Ds...>("eigen::view", e.data(), ext, str);
  } else {
    static_assert(plain::IsVectorAtCompileTime ? rank == 1 || rank == 2 : rank == 2,
                  "dimgraph: eigen::view: a matrix takes two dims (rows, columns), a vector one "
                  "or two");
    const auto inner = static_cast<std::ptrdiff_t>(e.innerStride());
    const auto outer = static_cast<std::ptrdiff_t>(e.outerStride());
    const bool row_major = plain::IsRowMajor;
    if constexpr (rank == 1) {
      return detail::checked_view<T, Ds...>("eigen::view", e.data(),
                                            {static_cast<std::size_t>(e.size())}, {inner});
    } else {
      return detail::checked_view<T, Ds...>(
          "eigen::view", e.data(),
          {static_cast<std::size_t>(e.rows()), static_cast<std::size_t>(e.cols())},
          row_major ? dimgraph::detail::strides_t<2>{outer, inner}
                    : dimgraph::detail::strides_t<2>{inner, outer});
    }
  }
}

// An Eigen::Map of a rank-1 or rank-2 tensor or view (no copy): a row-major dynamic matrix
// (rows: the first dim, columns: the second; a rank-1 one is a column vector) with the view's
// strides. Error: a negative stride (shape_error, "eigen::matrix_map").
template <class X>
auto matrix_map(X&& x) {
  using x_t = std::remove_cvref_t<X>;
  using T = std::remove_pointer_t<decltype(x.data())>;
  using S = std::remove_const_t<T>;
  static_assert(x_t::rank == 1 || x_t::rank == 2,
                "dimgraph: eigen::matrix_map: the tensor must have one or two dims");
  for (std::ptrdiff_t s : x.strides())
    if (s < 0) throw shape_error("eigen::matrix_map", "Eigen maps take no negative strides");
  using matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using map = Eigen::Map<std::conditional_t<std::is_const_v<T>, const matrix, matrix>,
                         Eigen::Unaligned, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
  const auto ext = x.shape().extents();
  if constexpr (x_t::rank == 1) {
    // A column vector: rows step by the stride; the one column's stride does not matter.
    return map(x.data(), static_cast<Eigen::Index>(ext[0]), 1,
               Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(x.strides()[0], 1));
  } else {
    return map(x.data(), static_cast<Eigen::Index>(ext[0]), static_cast<Eigen::Index>(ext[1]),
               Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(x.strides()[0], x.strides()[1]));
  }
}

// An Eigen::TensorMap of a tensor or view in row-major order (dimension i is dim i; no copy).
// Eigen's tensor maps have no strides: error (shape_error, "eigen::tensor_map") unless the
// layout is row-major and contiguous.
template <class X>
auto tensor_map(X&& x) {
  using x_t = std::remove_cvref_t<X>;
  using T = std::remove_pointer_t<decltype(x.data())>;
  using S = std::remove_const_t<T>;
  constexpr std::size_t rank = x_t::rank;
  const auto ext = x.shape().extents();
  if (x.size() > 1 && x.strides() != dimgraph::detail::row_major_strides<rank>(ext))
    throw shape_error("eigen::tensor_map",
                      "the layout " + dimgraph::detail::layout_text(x.shape(), x.strides()) +
                          " is not row-major and contiguous");
  using tensor_t = Eigen::Tensor<S, static_cast<int>(rank), Eigen::RowMajor>;
  using map = Eigen::TensorMap<std::conditional_t<std::is_const_v<T>, const tensor_t, tensor_t>>;
  std::array<Eigen::Index, rank> dims{};
  for (std::size_t i = 0; i < rank; ++i) dims[i] = static_cast<Eigen::Index>(ext[i]);
  return map(x.data(), dims);
}

}  // namespace dimgraph::eigen
