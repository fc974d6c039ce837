// dg::io::load_npy, dg::io::save_npy: one tensor in NumPy's .npy format (versions 1 to 3).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/io/dtype.hpp"
#include "dimgraph/io/file.hpp"
#include "dimgraph/shape/error.hpp"
#include "dimgraph/tensor/tensor.hpp"

namespace dimgraph::io {

// The header of a .npy file, checked.
struct npy_header {
  char byte_order = '<';  // '<' little, '>' big, '|' not applicable
  char kind = 'f';        // 'f', 'i', 'u', 'b', ...
  std::size_t item_size = 0;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::size_t data_start = 0;
  std::string dtype_name() const {
    return std::string(1, byte_order) + kind + std::to_string(item_size);
  }
};

namespace detail {

[[noreturn]] inline void bad_npy(const std::string& source, const std::string& why) {
  throw io_error("load_npy", "file '" + source + "': " + why);
}

// A strict reader of the Python dict literal of a .npy header: string keys; string, True,
// False and tuple-of-integers values.
class npy_dict_reader {
 public:
  npy_dict_reader(std::string_view text, const std::string& source) : s_(text), source_(source) {}

  npy_header read() {
    npy_header h;
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') break;
      const std::size_t key_at = pos_;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr" && !has_descr) {
        has_descr = true;
        descr(string_literal(), h);
      } else if (key == "fortran_order" && !has_order) {
        has_order = true;
        h.fortran_order = boolean();
      } else if (key == "shape" && !has_shape) {
        has_shape = true;
        h.shape = tuple();
      } else {
        pos_ = key_at;
        fail("unexpected or repeated key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++pos_;
      else if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) fail("text after the dict");
    if (!has_descr || !has_order || !has_shape) fail("needs 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    bad_npy(source_, "header at character " + std::to_string(pos_) + " (from 0): " + why);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a string");
    const std::size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    if (s_.substr(pos_, 4) == "True") return pos_ += 4, true;
    if (s_.substr(pos_, 5) == "False") return pos_ += 5, false;
    fail("expected True or False");
  }
  std::vector<std::uint64_t> tuple() {
    std::vector<std::uint64_t> out;
    expect('(');
    for (;;) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer");
      std::uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const auto digit = static_cast<std::uint64_t>(peek() - '0');
        if (v > (UINT64_MAX - digit) / 10) fail("an extent does not fit 64 bits");
        v = v * 10 + digit;
        ++pos_;
      }
      out.push_back(v);
      skip_space();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') fail("expected ',' or ')'");
    }
    ++pos_;
    return out;
  }
  void descr(const std::string& d, npy_header& h) {
    if (d.size() < 3 || (d[0] != '<' && d[0] != '>' && d[0] != '|' && d[0] != '='))
      fail("unsupported dtype '" + d + "'");
    h.byte_order = d[0] == '=' ? (std::endian::native == std::endian::big ? '>' : '<') : d[0];
    h.kind = d[1];
    std::size_t n = 0;
    for (std::size_t i = 2; i < d.size(); ++i) {
      if (d[i] < '0' || d[i] > '9' || n > 64) fail("unsupported dtype '" + d + "'");
      n = n * 10 + static_cast<std::size_t>(d[i] - '0');
    }
    if (n == 0) fail("unsupported dtype '" + d + "'");
    h.item_size = n;
  }

  std::string_view s_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

// The dtype a file's header names, as dimgraph names it ("F32", ...), or its descr when no
// element type matches.
inline std::string npy_dtype_name(const npy_header& h) {
  const std::size_t bits = h.item_size * 8;
  if (h.kind == 'b' && h.item_size == 1) return "BOOL";
  if ((h.kind == 'f' && (bits == 32 || bits == 64)) ||
      ((h.kind == 'i' || h.kind == 'u') && (bits == 8 || bits == 16 || bits == 32 || bits == 64)))
    return std::string(1, h.kind == 'f' ? 'F' : h.kind == 'i' ? 'I' : 'U') + std::to_string(bits);
  return h.dtype_name();
}

}  // namespace detail

// Reads and checks the header of a .npy file given as bytes. Errors (io_error naming the
// file): a wrong magic string or version, a header length beyond the file, a header that is
// not the dict NumPy writes, extents whose size in bytes overflows, data of another size
// than the extents take.
inline npy_header read_npy_header(std::span<const unsigned char> file, const std::string& source) {
  using detail::bad_npy;
  constexpr unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (file.size() < 10 || !std::equal(magic, magic + 6, file.begin()))
    bad_npy(source, "not a .npy file (no magic string)");
  const unsigned major = file[6];
  if (major < 1 || major > 3 || file[7] != 0)
    bad_npy(source, "unsupported version " + std::to_string(major) + "." + std::to_string(file[7]));
  std::size_t len = 0, start = 0;
  if (major == 1) {
    len = std::size_t{file[8]} | std::size_t{file[9]} << 8;
    start = 10;
  } else {
    if (file.size() < 12) bad_npy(source, "too short for its header length");
    for (std::size_t i = 0; i < 4; ++i) len |= std::size_t{file[8 + i]} << (8 * i);
    start = 12;
  }
  if (len > file.size() - start)
    bad_npy(source, "the header length " + std::to_string(len) + " is beyond the file's " +
                        std::to_string(file.size()) + " bytes");
  for (std::size_t i = start; i < start + len; ++i)
    if (file[i] >= 0x80 || file[i] == 0) bad_npy(source, "the header is not ASCII text");
  npy_header h =
      detail::npy_dict_reader(
          std::string_view(reinterpret_cast<const char*>(file.data() + start), len), source)
          .read();
  h.data_start = start + len;
  std::size_t bytes = h.item_size;
  bool overflow = false, empty = false;
  for (std::uint64_t n : h.shape) {
    empty = empty || n == 0;
    overflow = overflow || n > SIZE_MAX ||
               dimgraph::detail::mul_overflows(bytes, static_cast<std::size_t>(n), bytes);
  }
  if (empty) bytes = 0;
  else if (overflow)
    bad_npy(source, "the size of " + detail::file_shape_text(h.dtype_name(), h.shape) +
                        " in bytes overflows");
  if (file.size() - h.data_start != bytes)
    bad_npy(source, std::to_string(file.size() - h.data_start) + " bytes of data, but " +
                        detail::file_shape_text(h.dtype_name(), h.shape) + " takes " +
                        std::to_string(bytes));
  return h;
}

// The tensor a .npy file holds, read into a tensor<T, Ds...> (C or Fortran order, either byte
// order): dg::io::load_npy_bytes<dg::tensor<float, Time, Feature>>(bytes). Errors: those of
// read_npy_header; another element type, rank or extent (io_error naming the file's shape and
// the expected one); an element that is not a bool or an index of its dim.
template <class Tensor>
Tensor load_npy_bytes(std::span<const unsigned char> file, const std::string& source = "<memory>") {
  const npy_header h = read_npy_header(file, source);
  const std::string where = "file '" + source + "'";
  // A Fortran-order file lists the extents in the same order but stores the first dim
  // fastest: read it as the reversed dims' row-major data, then transpose.
  Tensor t = detail::tensor_from_bytes<Tensor>("load_npy", where, detail::npy_dtype_name(h),
                                               h.shape, file.data() + h.data_start,
                                               file.size() - h.data_start, h.byte_order == '>');
  if (h.fortran_order && Tensor::rank > 1) {
    const auto ext = t.shape().extents();
    dimgraph::detail::strides_t<Tensor::rank> col{};
    std::ptrdiff_t step = 1;
    for (std::size_t i = 0; i < Tensor::rank; ++i) {
      col[i] = step;
      step *= static_cast<std::ptrdiff_t>(ext[i]);
    }
    const auto file_order = t.to_vector();  // the elements as stored
    std::size_t k = 0;
    auto* out = t.data();
    dimgraph::detail::for_each_offset<Tensor::rank>(ext, col, [&](std::ptrdiff_t off) {
      out[k++] = file_order[static_cast<std::size_t>(off)];
    });
  }
  return t;
}

template <class Tensor>
Tensor load_npy(const std::filesystem::path& path) {
  const auto bytes = detail::read_file(path, "load_npy");
  return load_npy_bytes<Tensor>(std::span<const unsigned char>(bytes), path.string());
}

// The bytes of a version 1.0 .npy file holding x (a tensor or a view) in C order,
// little-endian, the header padded so that the data starts at a multiple of 64.
template <class X>
std::string save_npy_bytes(const X& x) {
  using elem = typename X::value_type;
  constexpr dtype d = dtype_v<elem>;
  std::string header = "{'descr': '";
  header += d.size == 1 ? '|' : '<';
  header += d.kind;
  header += std::to_string(d.size) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t e : x.shape().extents()) header += std::to_string(e) + ", ";
  if (X::rank > 1) header.resize(header.size() - 2);
  else if (X::rank == 1) header.resize(header.size() - 1);
  header += "), }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  const auto elements = x.to_vector();
  if constexpr (std::is_same_v<elem, bool>) {
    for (bool b : elements) out += static_cast<char>(b ? 1 : 0);
  } else {
    detail::write_elements(elements.data(), elements.size(), out);
  }
  return out;
}

template <class X>
void save_npy(const std::filesystem::path& path, const X& x) {
  detail::write_file(path, save_npy_bytes(x), "save_npy");
}

}  // namespace dimgraph::io
