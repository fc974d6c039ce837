// operator<< for shapes, tensors and views: a line of dims, then NumPy-style brackets.
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/element.hpp"
#include "dimgraph/tensor/promote.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph {

// "[batch[2], time[25], feature=512]": a non-static dim as name[extent], a static one as name=size.
template <class... Ds>
std::ostream& operator<<(std::ostream& os, const shape<Ds...>& s) {
  return os << to_string(s);
}

namespace detail {

// The name of an element type: bool, int8..int64, uint8..uint64, float32, float64, index<dim>.
template <class T>
std::string element_name() {
  if constexpr (is_index_v<T>) {
    return "index<" + describe<index_dim_t<T>>() + ">";
  } else {
    constexpr const char* names[] = {"bool",  "uint8", "uint16", "uint32",  "uint64", "int8",
                                     "int16", "int32", "int64",  "float32", "float64"};
    return names[static_cast<int>(code_of<T>())];
  }
}

// One element as text: bool as true/false, integers (int8/uint8 too) and indices as
// numbers, floating point as printf's %.4g (locale-independent).
template <class T>
std::string element_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (is_index_v<T>) {
    return std::to_string(v.value());
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 4).ptr;
    return std::string(buf, end);
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<std::int64_t>(v));
  } else {
    return std::to_string(static_cast<std::uint64_t>(v));
  }
}

// NumPy's defaults: summarise above 1000 elements, keeping 3 items at each edge.
inline constexpr std::size_t print_threshold = 1000;
inline constexpr std::size_t print_edge_items = 3;

// Writes the nested brackets of a rank-R strided array (R >= 1). Elements are right-
// aligned to the widest one printed. In a summarised array a dim longer than
// 2 * edge items shows its first and last edge items around "...".
template <class T, std::size_t R>
class array_printer {
 public:
  array_printer(const T* data, const std::array<std::size_t, R>& extent,
                const std::array<std::ptrdiff_t, R>& stride)
      : data_(data), extent_(extent), stride_(stride) {
    std::size_t n = 1;
    for (std::size_t e : extent_) n *= e;
    summarise_ = n > print_threshold;
  }

  void write(std::ostream& os) {
    width_ = 0;
    measure(0, data_);
    write(os, 0, data_);
  }

 private:
  bool cut(std::size_t level) const { return summarise_ && extent_[level] > 2 * print_edge_items; }
  // The k-th printed position along `level` (skipping the middle when cut).
  std::size_t position(std::size_t level, std::size_t k) const {
    return cut(level) && k >= print_edge_items ? extent_[level] - 2 * print_edge_items + k : k;
  }
  std::size_t printed(std::size_t level) const {
    return cut(level) ? 2 * print_edge_items : extent_[level];
  }
  const T* at(std::size_t level, const T* p, std::size_t k) const {
    return p + static_cast<std::ptrdiff_t>(position(level, k)) * stride_[level];
  }

  void measure(std::size_t level, const T* p) {
    for (std::size_t k = 0; k < printed(level); ++k) {
      if (level + 1 == R) {
        std::size_t w = element_text(*at(level, p, k)).size();
        if (w > width_) width_ = w;
      } else {
        measure(level + 1, at(level, p, k));
      }
    }
  }

  void write(std::ostream& os, std::size_t level, const T* p) const {
    // Between items: ", " in the last dim; otherwise a comma, one line break per
    // remaining dim, and an indent under the opening bracket.
    // (Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "," + string.)
    if (level >= R) return;  // (never: said for GCC, which warns on a wrapped count below)
    std::string sep(1, ',');
    if (level + 1 == R) {
      sep += ' ';
    } else {
      sep.append(R - 1 - level, '\n');
      sep.append(level + 1, ' ');
    }
    os << '[';
    for (std::size_t k = 0; k < printed(level); ++k) {
      if (k > 0) os << sep;
      if (cut(level) && k == print_edge_items) os << "..." << sep;
      if (level + 1 == R) {
        std::string s = element_text(*at(level, p, k));
        os << std::string(width_ - s.size(), ' ') << s;
      } else {
        write(os, level + 1, at(level, p, k));
      }
    }
    os << ']';
  }

  const T* data_;
  std::array<std::size_t, R> extent_;
  std::array<std::ptrdiff_t, R> stride_;
  bool summarise_ = false;
  std::size_t width_ = 0;
};

// The header line, then the elements (rank 0: the one element; no elements: []).
template <class X>
std::ostream& print_tensor(std::ostream& os, const char* kind, const X& x) {
  using value_type = typename X::value_type;
  os << kind << '<' << element_name<value_type>() << "> " << dimgraph::to_string(x.shape()) << '\n';
  const value_type* data = x.data();
  if constexpr (X::rank == 0) {
    os << element_text(*data);
  } else if (x.size() == 0) {
    os << "[]";  // as NumPy: the header line has the extents
  } else {
    array_printer<value_type, X::rank>(data, x.shape().extents(), x.strides()).write(os);
  }
  return os;
}

}  // namespace detail

// A tensor as text, e.g. for dg::tensor<int, A, B> with A of extent 2 and B of size 3:
//   tensor<int32> [a[2], b=3]
//   [[0, 1, 2],
//    [3, 4, 5]]
// Rows on separate lines, elements right-aligned, floats as %.4g, bool as true/false;
// above 1000 elements NumPy's summary (first and last 3 of each long dim around "...").
template <class T, class... Ds>
std::ostream& operator<<(std::ostream& os, const tensor<T, Ds...>& x) {
  return detail::print_tensor(os, "tensor", x);
}

// A view as text: as a tensor, with the header "tensor_view<...>".
template <class T, class... Ds>
std::ostream& operator<<(std::ostream& os, const tensor_view<T, Ds...>& x) {
  return detail::print_tensor(os, "tensor_view", x);
}

}  // namespace dimgraph
