// dg::io::load / save in the safetensors format: round trips, files written by hand, renames,
// and hostile files (each an io_error that leaves the model untouched).
#include <dimgraph.hpp>
#include <dimgraph/io/safetensors.hpp>

#include <boost/hana/define_struct.hpp>
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

namespace st_test {
struct Row : dg::dim<"row", 2> {};
struct Col : dg::dim<"col", 3> {};
struct Time : dg::dim<"time"> {};
struct Beam : dg::dim<"beam", dg::range{1, 4}> {};
struct Vocab : dg::dim<"vocab", 10> {};

struct Small {
  BOOST_HANA_DEFINE_STRUCT(Small, (dg::tensor<float, Row>, w), (dg::tensor<std::int16_t, Col>, b));
};

struct Flags {
  BOOST_HANA_DEFINE_STRUCT(Flags, (dg::tensor<bool, Row>, f));
};

// Every element type, static, interval and dynamic dims.
struct Every {
  dg::tensor<bool, Row> flags;
  dg::tensor<std::int8_t, Col> i8;
  dg::tensor<std::uint8_t, Col> u8;
  dg::tensor<std::int16_t, Col> i16;
  dg::tensor<std::uint16_t, Col> u16;
  dg::tensor<std::int32_t, Beam> i32{dg::extent<Beam>(3)};
  dg::tensor<std::uint32_t, Col> u32;
  dg::tensor<std::int64_t, Col> i64;
  dg::tensor<std::uint64_t, Col> u64;
  dg::tensor<float, Time, Col> f32{dg::extent<Time>(1)};
  dg::tensor<double, Row, Time> f64{dg::extent<Time>(2)};
  dg::tensor<dg::index<Vocab>, Row> ids;
};
}  // namespace st_test
BOOST_HANA_ADAPT_STRUCT(st_test::Every, flags, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, ids);

using namespace st_test;

namespace {
std::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// Little-endian bytes, written independently of the library.
void put_le(std::string& out, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
std::string f32_bytes(std::initializer_list<float> vs) {
  std::string out;
  for (float v : vs) put_le(out, std::bit_cast<std::uint32_t>(v), 4);
  return out;
}
std::string i16_bytes(std::initializer_list<std::int16_t> vs) {
  std::string out;
  for (auto v : vs) put_le(out, static_cast<std::uint16_t>(v), 2);
  return out;
}
// A file: the 8-byte length, the header text, the data.
std::string file_of(const std::string& header, const std::string& data) {
  std::string out;
  put_le(out, header.size(), 8);
  return out + header + data;
}

const std::string small_header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                 R"("b":{"dtype":"I16","shape":[3],"data_offsets":[8,14]}})";
const std::string small_data = f32_bytes({1.5f, -2.0f}) + i16_bytes({7, -8, 9});

Small sentinel_small() {
  Small m;
  m.w = dg::tensor<float, Row>{42, 43};
  m.b = dg::tensor<std::int16_t, Col>{1, 2, 3};
  return m;
}
bool untouched(const Small& m) {
  return m.w.to_vector() == std::vector<float>{42, 43} &&
         m.b.to_vector() == std::vector<std::int16_t>{1, 2, 3};
}

// The message of the io_error that loading `file` into a fresh sentinel model throws (checking
// that the model is left as it was), or "no exception".
std::string load_error(const std::string& file, const dg::io::load_options& o = {}) {
  Small m = sentinel_small();
  std::string msg = "no exception";
  try {
    dg::io::load_bytes(bytes_of(file), m, o, "f.safetensors");
  } catch (const dg::io_error& e) {
    msg = e.what();
    CHECK(untouched(m));
  }
  return msg;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}
}  // namespace

TEST_CASE("io::load: a file written by hand gives its numbers") {
  Small m;
  dg::io::load_bytes(bytes_of(file_of(small_header, small_data)), m);
  CHECK(m.w.to_vector() == std::vector<float>{1.5f, -2.0f});
  CHECK(m.b.to_vector() == std::vector<std::int16_t>{7, -8, 9});
}

TEST_CASE("io::save: the bytes are the format's, independently written") {
  const Small m = [] {
    Small s;
    s.w = dg::tensor<float, Row>{1.5f, -2.0f};
    s.b = dg::tensor<std::int16_t, Col>{7, -8, 9};
    return s;
  }();
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"I16","shape":[3],"data_offsets":[8,14]}})";
  const std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
  CHECK(dg::io::save_bytes(m) == file_of(padded, small_data));
}

TEST_CASE("io: save then load is bit-exact for every element type and kind of dim") {
  Every a;
  a.flags = dg::tensor<bool, Row>{true, false};
  a.i8 = dg::tensor<std::int8_t, Col>{-128, 0, 127};
  a.u8 = dg::tensor<std::uint8_t, Col>{0, 1, 255};
  a.i16 = dg::tensor<std::int16_t, Col>{-32768, -1, 32767};
  a.u16 = dg::tensor<std::uint16_t, Col>{0, 1, 65535};
  a.i32 = dg::tensor<std::int32_t, Beam>(
      std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 5, -5},
      dg::extent<Beam>(3));
  a.u32 = dg::tensor<std::uint32_t, Col>{0, 123456789, 4294967295u};
  a.i64 = dg::tensor<std::int64_t, Col>{std::numeric_limits<std::int64_t>::min(), -1,
                                        std::numeric_limits<std::int64_t>::max()};
  a.u64 = dg::tensor<std::uint64_t, Col>{0, 1, std::numeric_limits<std::uint64_t>::max()};
  const std::vector<float> f32{-0.0f, std::numeric_limits<float>::denorm_min(),
                               std::bit_cast<float>(0x7fc12345u)};  // a NaN with a payload
  a.f32 = dg::tensor<float, Time, Col>(f32, dg::extent<Time>(1));
  const std::vector<double> f64{std::numeric_limits<double>::infinity(), -1e-300,
                                std::bit_cast<double>(0xfff0000000000001ull), 0.1};
  a.f64 = dg::tensor<double, Row, Time>(f64, dg::extent<Time>(2));
  a.ids = dg::tensor<dg::index<Vocab>, Row>{dg::index<Vocab>(9), dg::index<Vocab>(0)};

  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "dimgraph_io_every.safetensors";
  dg::io::save(path, a);
  Every b;  // other extents for the interval and dynamic dims: the file's are taken
  dg::io::load(path, b);
  std::filesystem::remove(path);

  CHECK(b.flags.to_vector() == std::vector<bool>{true, false});
  CHECK(b.i8.to_vector() == std::vector<std::int8_t>{-128, 0, 127});
  CHECK(b.u8.to_vector() == std::vector<std::uint8_t>{0, 1, 255});
  CHECK(b.i16.to_vector() == std::vector<std::int16_t>{-32768, -1, 32767});
  CHECK(b.u16.to_vector() == std::vector<std::uint16_t>{0, 1, 65535});
  CHECK(b.i32.to_vector() ==
        std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 5, -5});
  CHECK(b.u32.to_vector() == std::vector<std::uint32_t>{0, 123456789, 4294967295u});
  CHECK(b.i64.to_vector() == std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1,
                                                       std::numeric_limits<std::int64_t>::max()});
  CHECK(b.u64.to_vector() ==
        std::vector<std::uint64_t>{0, 1, std::numeric_limits<std::uint64_t>::max()});
  CHECK(b.f32.extent<Time>() == 1);
  CHECK(same_bits(b.f32.to_vector(), f32));
  CHECK(b.f64.extent<Time>() == 2);
  CHECK(same_bits(b.f64.to_vector(), f64));
  CHECK(b.ids(0) == dg::index<Vocab>(9));
  CHECK(b.ids(1) == dg::index<Vocab>(0));
}

TEST_CASE("io: a rename map gives parameters the names of a PyTorch state dict") {
  const std::string header =
      R"({"__metadata__":{"format":"pt"},)"
      R"("lstm.weight_ih_l0":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("lstm.bias_ih_l0":{"dtype":"I16","shape":[3],"data_offsets":[8,14]}})";
  dg::io::load_options o;
  o.rename = {{"w", "lstm.weight_ih_l0"}, {"b", "lstm.bias_ih_l0"}};
  Small m;
  dg::io::load_bytes(bytes_of(file_of(header, small_data)), m, o);
  CHECK(m.w.to_vector() == std::vector<float>{1.5f, -2.0f});
  CHECK(m.b(2) == 9);

  dg::io::save_options so;
  so.rename = o.rename;
  so.metadata = {{"format", "pt"}};
  const auto header_of_saved =
      dg::io::read_safetensors_header(bytes_of(dg::io::save_bytes(m, so)), "s");
  CHECK(header_of_saved.metadata.at("format") == "pt");
  CHECK(header_of_saved.tensors.size() == 2);

  o.rename["nope"] = "x";
  CHECK(load_error(file_of(header, small_data), o) ==
        "dimgraph: load: file 'f.safetensors': the rename map names 'nope', which is not a "
        "parameter of the model");
}

TEST_CASE("io::load: what does not fit the model is an io_error naming the parameter and shapes") {
  const auto with_w = [](const std::string& w_entry, const std::string& w_data) {
    return file_of(
        R"({"w":)" + w_entry + R"(,"b":{"dtype":"I16","shape":[3],"data_offsets":[0,6]}})",
        i16_bytes({7, -8, 9}) + w_data);
  };
  CHECK(load_error(with_w(R"({"dtype":"F64","shape":[2],"data_offsets":[6,22]})",
                          std::string(16, '\0'))) ==
        "dimgraph: load: file 'f.safetensors': parameter 'w': another element type: the file has "
        "F64 [2], expected F32 [row=2]");
  CHECK(load_error(with_w(R"({"dtype":"F32","shape":[3],"data_offsets":[6,18]})",
                          std::string(12, '\0'))) ==
        "dimgraph: load: file 'f.safetensors': parameter 'w': dim 'row' cannot have extent 3: "
        "the file has F32 [3], expected F32 [row=2]");
  CHECK(load_error(with_w(R"({"dtype":"F32","shape":[1,2],"data_offsets":[6,14]})",
                          std::string(8, '\0'))) ==
        "dimgraph: load: file 'f.safetensors': parameter 'w': another rank: the file has F32 "
        "[1, 2], expected F32 [row=2]");
  // Missing and extra names.
  CHECK(load_error(file_of(R"({"b":{"dtype":"I16","shape":[3],"data_offsets":[0,6]}})",
                           i16_bytes({1, 2, 3}))) ==
        "dimgraph: load: file 'f.safetensors': parameter 'w': not in the file; expected F32 "
        "[row=2]");
  const std::string extra =
      file_of(small_header.substr(0, small_header.size() - 1) +
                  R"(,"c":{"dtype":"U8","shape":[1],"data_offsets":[14,15]}})",
              small_data + "x");
  CHECK(load_error(extra) ==
        "dimgraph: load: file 'f.safetensors': no parameter takes the tensors 'c' "
        "(load_options::allow_extra permits them)");
  dg::io::load_options allow;
  allow.allow_extra = true;
  CHECK(load_error(extra, allow) == "no exception");
}

TEST_CASE("io::load: a dynamic or interval extent outside its interval is an io_error") {
  const std::string file =
      file_of(R"({"":{"dtype":"F32","shape":[5],"data_offsets":[0,20]}})", std::string(20, '\0'));
  dg::tensor<float, Beam> x{dg::extent<Beam>(2)};
  x(0) = 3;
  try {
    dg::io::load_bytes(bytes_of(file), x);
    FAIL("no exception");
  } catch (const dg::io_error& e) {
    CHECK(std::string(e.what()) ==
          "dimgraph: load: file '<memory>': parameter '': dim 'beam' cannot have extent 5: the "
          "file has F32 [5], expected F32 [beam in [1, 4]]");
  }
  CHECK(x.extent<Beam>() == 2);
  CHECK(x(0) == 3.0f);
}

TEST_CASE("io::load: hostile files are io_errors and leave the model untouched") {
  // Too short for the header length; a header length beyond the file.
  CHECK(load_error("abc") ==
        "dimgraph: load: file 'f.safetensors': 3 bytes: too short for the 8-byte header length");
  std::string beyond;
  put_le(beyond, 1000, 8);
  beyond += "{}";
  CHECK(load_error(beyond) ==
        "dimgraph: load: file 'f.safetensors': the header length 1000 is beyond the file's 10 "
        "bytes");
  std::string huge;
  put_le(huge, std::numeric_limits<std::uint64_t>::max(), 8);
  CHECK(contains(load_error(huge), "the header length 18446744073709551615 is beyond"));

  // Offsets out of range; truncated data.
  CHECK(load_error(file_of(small_header, small_data.substr(0, 13))) ==
        "dimgraph: load: file 'f.safetensors': tensor 'b': data_offsets [8, 14] are not a range "
        "inside the 13 bytes of data");
  CHECK(contains(load_error(file_of(
                     R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[18446744073709551615,8]}})",
                     small_data)),
                 "tensor 'w': data_offsets [18446744073709551615, 8] are not a range"));
  // A range of another size than the extents take.
  CHECK(load_error(
            file_of(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,12]}})", small_data)) ==
        "dimgraph: load: file 'f.safetensors': tensor 'w': data_offsets [0, 12] hold 12 bytes, "
        "but F32 [2] takes 8");
  // Overlapping data.
  CHECK(load_error(file_of(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                           R"("b":{"dtype":"I16","shape":[3],"data_offsets":[6,12]}})",
                           small_data)) ==
        "dimgraph: load: file 'f.safetensors': the data of tensors 'w' and 'b' overlap");
  // Sizes that overflow.
  CHECK(load_error(file_of(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],)"
                           R"("data_offsets":[0,0]}})",
                           "")) ==
        "dimgraph: load: file 'f.safetensors': tensor 'w': the size of F32 [4294967296, "
        "4294967296] in bytes overflows");
  CHECK(contains(
      load_error(file_of(R"({"w":{"dtype":"F32","shape":[1e30],"data_offsets":[0,0]}})", "")),
      "tensor 'w': \"shape\" holds something other than a non-negative integer"));
  CHECK(contains(
      load_error(file_of(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", "")),
      "tensor 'w': \"shape\" holds something other than a non-negative integer"));
  // Names that are not UTF-8; duplicate names.
  CHECK(load_error(file_of("{\"w\xff\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                           small_data)) ==
        "dimgraph: load: file 'f.safetensors': the header is not valid JSON (or holds text that "
        "is not UTF-8)");
  CHECK(load_error(file_of(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                           R"("w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                           small_data + "xx")) ==
        "dimgraph: load: file 'f.safetensors': the header names 'w' twice");
  // Not JSON, not an object, unknown dtype, missing keys, elements that are not bools.
  CHECK(contains(load_error(file_of("{\"w\":", "")), "the header is not valid JSON"));
  CHECK(contains(load_error(file_of("[1, 2]", "")), "the header is not a JSON object"));
  CHECK(contains(
      load_error(file_of(R"({"w":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", small_data)),
      "tensor 'w': unknown dtype 'Q7'"));
  CHECK(contains(load_error(file_of(R"({"w":{"dtype":"F32","shape":[2]}})", small_data)),
                 "tensor 'w': needs \"dtype\", \"shape\" and \"data_offsets\""));
  Flags flags;
  flags.f = dg::tensor<bool, Row>{true, true};
  CHECK_THROWS_WITH_AS(
      dg::io::load_bytes(
          bytes_of(file_of(R"({"f":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\1\2")),
          flags),
      "dimgraph: load: file '<memory>': parameter 'f': element 1 is the byte 2, not a bool (0 or "
      "1)",
      dg::io_error);
  CHECK(flags.f.to_vector() == std::vector<bool>{true, true});
}

TEST_CASE("io: files that cannot be opened are io_errors") {
  Small m = sentinel_small();
  CHECK_THROWS_AS(dg::io::load("/nonexistent/dimgraph/x.safetensors", m), dg::io_error);
  CHECK(untouched(m));
  CHECK_THROWS_AS(dg::io::save("/nonexistent/dimgraph/x.safetensors", m), dg::io_error);
}
