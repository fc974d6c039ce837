// dg::io::load_npy / save_npy: files written by hand (C and Fortran order, both byte orders),
// round trips, hostile headers.
#include <dimgraph.hpp>
#include <dimgraph/io/npy.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace dg = dimgraph;

namespace {
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};
struct Time : dg::dim<"time"> {};

std::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}
void put(std::string& out, std::uint64_t v, std::size_t n, bool big = false) {
  for (std::size_t i = 0; i < n; ++i)
    out += static_cast<char>((v >> (8 * (big ? n - 1 - i : i))) & 0xff);
}
// A version 1.0 file with the given header dict (padded as NumPy pads it) and data.
std::string npy_of(const std::string& dict, const std::string& data) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  put(out, header.size(), 2);
  return out + header + data;
}
std::string message_of(const std::string& file) {
  try {
    (void)dg::io::load_npy_bytes<dg::tensor<float, Row, Col>>(bytes_of(file), "a.npy");
  } catch (const dg::io_error& e) {
    return e.what();
  }
  return "no exception";
}
}  // namespace

TEST_CASE("load_npy: C order, little-endian float32, written by hand") {
  std::string data;
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.5f}) put(data, std::bit_cast<std::uint32_t>(v), 4);
  const auto t = dg::io::load_npy_bytes<dg::tensor<float, Row, Col>>(
      bytes_of(npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data)));
  CHECK(t.to_vector() == std::vector<float>{1, 2, 3, 4, 5, 6.5f});
}

TEST_CASE("load_npy: Fortran order and big-endian int32, a dynamic dim takes the file's extent") {
  // The matrix [[1, 2, 3], [4, 5, 6]] stored column by column, big-endian.
  std::string data;
  for (std::int32_t v : {1, 4, 2, 5, 3, 6}) put(data, static_cast<std::uint32_t>(v), 4, true);
  const auto t = dg::io::load_npy_bytes<dg::tensor<std::int32_t, Time, Col>>(
      bytes_of(npy_of("{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }", data)));
  CHECK(t.extent<Time>() == 2);
  CHECK(t.to_vector() == std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("save_npy: the bytes NumPy writes, then a bit-exact round trip through a file") {
  const dg::tensor<std::int16_t, Col> x{-1, 2, 300};
  std::string data;
  for (int v : {-1, 2, 300}) put(data, static_cast<std::uint16_t>(v), 2);
  CHECK(dg::io::save_npy_bytes(x) ==
        npy_of("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", data));

  const dg::tensor<bool, Row> flags{true, false};
  CHECK(
      dg::io::save_npy_bytes(flags) ==
      npy_of("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\1\0", 2)));

  const std::vector<double> v{-0.0,
                              std::numeric_limits<double>::denorm_min(),
                              std::bit_cast<double>(0x7ff8000000000abcull),
                              1e300,
                              -2.5,
                              0.1};
  const dg::tensor<double, Time, Col> d(v, dg::extent<Time>(2));
  const auto path = std::filesystem::temp_directory_path() / "dimgraph_io_d.npy";
  dg::io::save_npy(path, dg::permute<Col, Time>(d));  // a view: saved in its own dim order
  const auto back = dg::io::load_npy<dg::tensor<double, Col, Time>>(path);
  std::filesystem::remove(path);
  const std::vector<double> transposed{v[0], v[3], v[1], v[4], v[2], v[5]};
  const auto got = back.to_vector();
  CHECK(std::memcmp(got.data(), transposed.data(), sizeof(double) * 6) == 0);
}

TEST_CASE("load_npy: hostile and mismatched files are io_errors") {
  const std::string ok_data(24, '\0');
  CHECK(message_of("\x93NUMPX") ==
        "dimgraph: load_npy: file 'a.npy': not a .npy file (no magic "
        "string)");
  CHECK(message_of(std::string("\x93NUMPY\x09\x00\x10\x00", 10)) ==
        "dimgraph: load_npy: file 'a.npy': unsupported version 9.0");
  CHECK(message_of(std::string("\x93NUMPY\x01\x00\xff\xff{}", 12)) ==
        "dimgraph: load_npy: file 'a.npy': the header length 65535 is beyond the file's 12 bytes");
  CHECK(message_of(npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                          ok_data.substr(0, 20))) ==
        "dimgraph: load_npy: file 'a.npy': 20 bytes of data, but <f4 [2, 3] takes 24");
  CHECK(message_of(npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, "
                          "4294967296), }",
                          "")) ==
        "dimgraph: load_npy: file 'a.npy': the size of <f4 [4294967296, 4294967296] in bytes "
        "overflows");
  CHECK(message_of(npy_of("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': "
                          "(2, 3), }",
                          ok_data)) ==
        "dimgraph: load_npy: file 'a.npy': header at character 17 (from 0): unexpected or repeated "
        "key "
        "'descr'");
  CHECK(
      message_of(npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", ok_data)) ==
      "dimgraph: load_npy: file 'a.npy': header at character 54 (from 0): expected a non-negative "
      "integer");
  CHECK(message_of(npy_of("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
                          ok_data)) ==
        "dimgraph: load_npy: file 'a.npy': header at character 10 (from 0): expected a string");
  CHECK(message_of(npy_of("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                          std::string(48, '\0'))) ==
        "dimgraph: load_npy: file 'a.npy': another element type: "
        "the file has F64 [2, 3], expected F32 [row=2, col=3]");
  CHECK(
      message_of(npy_of("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", ok_data)) ==
      "dimgraph: load_npy: file 'a.npy': dim 'row' cannot have "
      "extent 3: the file has F32 [3, 2], expected F32 [row=2, col=3]");
}
