// What the file formats of dimgraph/io/ share: reading and writing whole files, and tensors
// made from a file's bytes with their dtype and extents checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/dim/describe.hpp"
#include "dimgraph/dim/size.hpp"
#include "dimgraph/io/dtype.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/shape/shape.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph::io::detail {

// The bytes of a file. Error: io_error when it cannot be opened or read.
inline std::vector<unsigned char> read_file(const std::filesystem::path& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(op, "cannot open '" + path.string() + "' for reading");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (in.bad()) throw io_error(op, "cannot read '" + path.string() + "'");
  return bytes;
}

// Writes bytes to path through a temporary file beside it, renamed over path once complete, so
// that path never holds half a file. Error: io_error when it cannot be written.
inline void write_file(const std::filesystem::path& path, std::string_view bytes, const char* op) {
  std::filesystem::path tmp = path;
  tmp += ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw io_error(op, "cannot open '" + tmp.string() + "' for writing");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw io_error(op, "cannot write '" + tmp.string() + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw io_error(
        op, "cannot rename '" + tmp.string() + "' to '" + path.string() + "': " + ec.message());
  }
}

// "F32 [2, 3]": a dtype and extents as a file gives them.
inline std::string file_shape_text(std::string_view dtype, const std::vector<std::uint64_t>& ext) {
  std::string out(dtype);
  out += " [";
  for (std::size_t i = 0; i < ext.size(); ++i) out += (i ? ", " : "") + std::to_string(ext[i]);
  return out + "]";
}

// "F32 [time in [1, inf], col=3]": what a tensor type takes.
template <class T, class... Ds>
std::string expected_shape_text(std::type_identity<tensor<T, Ds...>>) {
  std::string out(dtype_v<T>.name);
  out += " [";
  std::size_t i = 0;
  ((out +=
    (i++ ? ", " : "") + (is_static_v<Ds> ? describe<Ds>() + "=" + std::to_string(bounds_v<Ds>.lo)
                                         : describe<Ds>() + " in " + to_string(bounds_v<Ds>))),
   ...);
  return out + "]";
}

// A tensor of type tensor<T, Ds...> holding the elements a file gives as `dtype` with extents
// ext, read from n bytes (checked by the caller to be the extents' size). Errors (io_error
// naming `where`, the file's shape and the expected one): another dtype or rank, an extent
// outside its dim's interval, more elements than a tensor can address; those of read_elements.
template <class Tensor>
Tensor tensor_from_bytes(const char* op, const std::string& where, std::string_view dtype,
                         const std::vector<std::uint64_t>& ext, const unsigned char* bytes,
                         std::size_t n, bool big_endian) {
  constexpr std::size_t rank = Tensor::rank;
  using T = typename Tensor::value_type;
  const auto mismatch = [&](const std::string& why) {
    throw io_error(op, where + ": " + why + ": the file has " + file_shape_text(dtype, ext) +
                           ", expected " + expected_shape_text(std::type_identity<Tensor>{}));
  };
  if (dtype != dtype_v<T>.name) mismatch("another element type");
  if (ext.size() != rank) mismatch("another rank");
  std::array<std::size_t, rank> e{};
  const auto check_dims = [&]<class... Ds>(dim_list<Ds...>) {
    std::size_t i = 0;
    ((ext[i] > SIZE_MAX || !bounds_v<Ds>.contains(static_cast<std::size_t>(ext[i]))
          ? mismatch("dim '" + describe<Ds>() + "' cannot have extent " + std::to_string(ext[i]))
          : void(e[i] = static_cast<std::size_t>(ext[i])),
      ++i),
     ...);
  };
  check_dims(typename Tensor::dims{});
  if (!dimgraph::detail::extents_fit<rank>(e)) mismatch("more elements than a tensor can address");
  const auto s = Tensor::shape_type::from_extents(e, "load");
  std::size_t bytes_needed = 0;
  if (dimgraph::detail::mul_overflows(s.size(), dtype_v<T>.size, bytes_needed) || bytes_needed != n)
    mismatch(std::to_string(n) + " bytes of data");
  Tensor t(s);
  read_elements(op, bytes, s.size(), big_endian, t.data(), where);
  return t;
}

}  // namespace dimgraph::io::detail
