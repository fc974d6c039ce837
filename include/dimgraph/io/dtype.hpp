// dg::io::dtype_v: element types as files name them; reading elements from little- or
// big-endian bytes with checks.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/tensor/element.hpp"

namespace dimgraph::io {

// How a file stores an element type: its safetensors dtype ("F32", "I64", "BOOL", ...), its
// NumPy kind ('f', 'i', 'u', 'b') and its size in bytes. dg::index<D> is stored as I64.
struct dtype {
  std::string_view name;
  char kind;
  std::size_t size;
  friend constexpr bool operator==(const dtype&, const dtype&) = default;
};

namespace detail {
// The type an element is stored as: an index as its int64, everything else as itself.
template <class T>
struct stored {
  using type = T;
};
template <class D>
struct stored<index<D>> {
  using type = std::int64_t;
};
template <class T>
using stored_t = typename stored<T>::type;

template <class T>
constexpr dtype dtype_of() {
  using S = stored_t<T>;
  if constexpr (std::is_same_v<S, bool>) return {"BOOL", 'b', 1};
  else if constexpr (std::is_same_v<S, float>) return {"F32", 'f', 4};
  else if constexpr (std::is_same_v<S, double>) return {"F64", 'f', 8};
  else {
    constexpr std::string_view signed_names[] = {"I8", "I16", "", "I32", "", "", "", "I64"};
    constexpr std::string_view unsigned_names[] = {"U8", "U16", "", "U32", "", "", "", "U64"};
    return {std::is_signed_v<S> ? signed_names[sizeof(S) - 1] : unsigned_names[sizeof(S) - 1],
            std::is_signed_v<S> ? 'i' : 'u', sizeof(S)};
  }
}
}  // namespace detail

// The dtype of element type T.
template <class T>
  requires element<T>
inline constexpr dtype dtype_v = detail::dtype_of<T>();

// The element size of a safetensors dtype name, or 0 for a name this library does not know
// (dtypes it knows but has no element type for, such as F16 and BF16, have their size).
inline std::size_t safetensors_dtype_size(std::string_view name) {
  struct known {
    std::string_view name;
    std::size_t size;
  };
  static constexpr known table[] = {{"BOOL", 1},    {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1},
                                    {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
                                    {"BF16", 2},    {"I32", 4}, {"U32", 4}, {"F32", 4},
                                    {"F64", 8},     {"I64", 8}, {"U64", 8}};
  for (const auto& k : table)
    if (k.name == name) return k.size;
  return 0;
}

namespace detail {

// Reads n elements of T from bytes stored in the given byte order into out. Errors (io_error
// naming `op` and `where`): a bool byte other than 0 or 1; an index outside its dim's bounds.
template <class T>
void read_elements(const char* op, const unsigned char* bytes, std::size_t n, bool big_endian,
                   T* out, const std::string& where) {
  using S = stored_t<T>;
  const bool swap = big_endian != (std::endian::native == std::endian::big);
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char b[sizeof(S)];
    std::memcpy(b, bytes + i * sizeof(S), sizeof(S));
    if (swap)
      for (std::size_t k = 0; k < sizeof(S) / 2; ++k) std::swap(b[k], b[sizeof(S) - 1 - k]);
    if constexpr (std::is_same_v<S, bool>) {
      if (b[0] > 1)
        throw io_error(op, where + ": element " + std::to_string(i) + " is the byte " +
                               std::to_string(b[0]) + ", not a bool (0 or 1)");
      out[i] = b[0] == 1;
    } else {
      S v;
      std::memcpy(&v, b, sizeof(S));
      if constexpr (is_index_v<T>) {
        constexpr interval bounds = bounds_v<typename T::dim_type>;
        if (v < 0 || (bounds.is_bounded() && static_cast<std::uint64_t>(v) >= bounds.hi))
          throw io_error(op, where + ": element " + std::to_string(i) + " is " + std::to_string(v) +
                                 ", outside the indices of dim '" +
                                 describe<typename T::dim_type>() + "'");
        out[i] = T(v);
      } else {
        out[i] = v;
      }
    }
  }
}

// Appends n elements of T to out as little-endian bytes.
template <class T>
void write_elements(const T* in, std::size_t n, std::string& out) {
  using S = stored_t<T>;
  for (std::size_t i = 0; i < n; ++i) {
    S v;
    if constexpr (is_index_v<T>) v = in[i].value();
    else v = in[i];
    unsigned char b[sizeof(S)];
    std::memcpy(b, &v, sizeof(S));
    if constexpr (std::endian::native == std::endian::big)
      for (std::size_t k = 0; k < sizeof(S) / 2; ++k) std::swap(b[k], b[sizeof(S) - 1 - k]);
    out.append(reinterpret_cast<const char*>(b), sizeof(S));
  }
}

}  // namespace detail
}  // namespace dimgraph::io
