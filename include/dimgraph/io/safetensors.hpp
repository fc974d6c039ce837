// dg::io::load, dg::io::save: a model's tensors in a safetensors file (needs nlohmann/json).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "dimgraph/detail/checked_size.hpp"
#include "dimgraph/io/dtype.hpp"
#include "dimgraph/io/file.hpp"
#include "dimgraph/model/parameters.hpp"
#include "dimgraph/shape/error.hpp"

namespace dimgraph::io {

// One tensor of a safetensors file: its name, dtype, extents and bytes [begin, end) in the
// data that follows the header.
struct tensor_entry {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::size_t begin = 0, end = 0;
};

// The header of a safetensors file, checked: every entry has a known dtype, its extents'
// bytes fit a std::size_t and are exactly its data range, the ranges lie inside the data and
// do not overlap. Entries in the file's order; data_start is where the data begins.
struct safetensors_header {
  std::vector<tensor_entry> tensors;
  std::map<std::string, std::string> metadata;
  std::size_t data_start = 0;
};

// The most header bytes read (a longer header is an error rather than an allocation).
inline constexpr std::size_t max_header_bytes = std::size_t{100} << 20;

namespace detail {

[[noreturn]] inline void bad_file(const std::string& source, const std::string& why) {
  throw io_error("load", "file '" + source + "': " + why);
}

inline std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

// One entry's JSON, checked.
inline tensor_entry read_entry(const std::string& source, const std::string& name,
                               const nlohmann::json& v, std::size_t data_size) {
  const auto bad = [&](const std::string& why) {
    bad_file(source, "tensor " + in_quotes(name) + ": " + why);
  };
  if (!v.is_object()) bad("its entry is not a JSON object");
  for (const auto& [key, value] : v.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      bad("unexpected key " + in_quotes(key));
  const auto dt = v.find("dtype");
  const auto sh = v.find("shape");
  const auto off = v.find("data_offsets");
  if (dt == v.end() || sh == v.end() || off == v.end())
    bad("needs \"dtype\", \"shape\" and \"data_offsets\"");
  if (!dt->is_string()) bad("\"dtype\" is not a string");
  tensor_entry e;
  e.name = name;
  e.dtype = dt->get<std::string>();
  const std::size_t elem = safetensors_dtype_size(e.dtype);
  if (elem == 0) bad("unknown dtype " + in_quotes(e.dtype));
  if (!sh->is_array()) bad("\"shape\" is not an array");
  std::size_t bytes = elem;
  bool overflow = false;
  for (const auto& x : *sh) {
    if (!x.is_number_unsigned()) bad("\"shape\" holds something other than a non-negative integer");
    const auto n = x.get<std::uint64_t>();
    e.shape.push_back(n);
    overflow = overflow || n > SIZE_MAX ||
               dimgraph::detail::mul_overflows(bytes, static_cast<std::size_t>(n), bytes);
  }
  // (A 0 extent makes the size 0 even after an overflow.)
  if (std::find(e.shape.begin(), e.shape.end(), std::uint64_t{0}) != e.shape.end())
    bytes = 0, overflow = false;
  if (overflow) bad("the size of " + file_shape_text(e.dtype, e.shape) + " in bytes overflows");
  if (!off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    bad("\"data_offsets\" is not two non-negative integers");
  const auto begin = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
  if (begin > end || end > data_size)
    bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
        "] are not a range inside the " + std::to_string(data_size) + " bytes of data");
  e.begin = static_cast<std::size_t>(begin);
  e.end = static_cast<std::size_t>(end);
  if (e.end - e.begin != bytes)
    bad("data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] hold " +
        std::to_string(e.end - e.begin) + " bytes, but " + file_shape_text(e.dtype, e.shape) +
        " takes " + std::to_string(bytes));
  return e;
}

}  // namespace detail

// Reads and checks the header of a safetensors file given as bytes (source names it in
// errors). Errors (io_error naming the file and the tensor): a file shorter than its 8-byte
// header length, a header length beyond the file or above max_header_bytes, a header that is
// not JSON (names that are not UTF-8 included) or not an object of entries, a duplicate name,
// an unknown dtype, extents whose size overflows, data offsets outside the data, of another
// size than the extents take, or overlapping another tensor's.
inline safetensors_header read_safetensors_header(std::span<const unsigned char> file,
                                                  const std::string& source) {
  using detail::bad_file;
  if (file.size() < 8)
    bad_file(source,
             std::to_string(file.size()) + " bytes: too short for the 8-byte header length");
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= std::uint64_t{file[i]} << (8 * i);
  if (n > file.size() - 8 || n > max_header_bytes)
    bad_file(source, "the header length " + std::to_string(n) + " is beyond the file's " +
                         std::to_string(file.size()) + " bytes" +
                         (n > max_header_bytes
                              ? " or above the limit of " + std::to_string(max_header_bytes)
                              : std::string()));
  const auto* begin = reinterpret_cast<const char*>(file.data() + 8);
  // Duplicate keys: JSON allows them, nlohmann::json keeps the last; a file that has them is
  // ambiguous, so the parser's callback records the first.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  bool has_duplicate = false;
  const nlohmann::json::parser_callback_t on_event = [&](int, nlohmann::json::parse_event_t event,
                                                         nlohmann::json& parsed) {
    using ev = nlohmann::json::parse_event_t;
    if (event == ev::object_start) keys.emplace_back();
    else if (event == ev::object_end && !keys.empty()) keys.pop_back();
    else if (event == ev::key && !keys.empty() && parsed.is_string() &&
             !keys.back().insert(parsed.get<std::string>()).second && !has_duplicate) {
      has_duplicate = true;
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  const nlohmann::json header = nlohmann::json::parse(begin, begin + n, on_event, false);
  if (header.is_discarded())
    bad_file(source, "the header is not valid JSON (or holds text that is not UTF-8)");
  if (has_duplicate)
    bad_file(source, "the header names " + detail::in_quotes(duplicate) + " twice");
  if (!header.is_object()) bad_file(source, "the header is not a JSON object");

  safetensors_header out;
  out.data_start = 8 + static_cast<std::size_t>(n);
  const std::size_t data_size = file.size() - out.data_start;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) bad_file(source, "\"__metadata__\" is not a JSON object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string())
          bad_file(source, "\"__metadata__\" entry " + detail::in_quotes(k) + " is not a string");
        out.metadata.emplace(k, v.get<std::string>());
      }
      continue;
    }
    out.tensors.push_back(detail::read_entry(source, name, value, data_size));
  }
  std::vector<const tensor_entry*> by_offset;
  for (const auto& e : out.tensors)
    if (e.end > e.begin) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const tensor_entry* a, const tensor_entry* b) { return a->begin < b->begin; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      bad_file(source, "the data of tensors " + detail::in_quotes(by_offset[i - 1]->name) +
                           " and " + detail::in_quotes(by_offset[i]->name) + " overlap");
  return out;
}

// Loading options. rename maps a parameter's dotted path to its name in the file (a PyTorch
// state-dict name such as "lstm.weight_ih_l0"); allow_extra accepts tensors in the file that
// no parameter takes.
struct load_options {
  std::map<std::string, std::string, std::less<>> rename;
  bool allow_extra = false;
};

// Saving options: rename as for load_options; metadata goes to the file's "__metadata__".
struct save_options {
  std::map<std::string, std::string, std::less<>> rename;
  std::map<std::string, std::string> metadata;
};

namespace detail {

// The file name of a parameter; records which renames were used.
inline std::string file_name_of(const std::string& path,
                                const std::map<std::string, std::string, std::less<>>& rename,
                                std::set<std::string>& used) {
  const auto it = rename.find(path);
  if (it == rename.end()) return path;
  used.insert(path);
  return it->second;
}

inline void check_renames_used(const char* op, const std::string& source,
                               const std::map<std::string, std::string, std::less<>>& rename,
                               const std::set<std::string>& used) {
  for (const auto& [from, to] : rename)
    if (!used.count(from))
      throw io_error(op, "file '" + source + "': the rename map names " + in_quotes(from) +
                             ", which is not a parameter of the model");
}

}  // namespace detail

// Loads every tensor of a model (see dg::parameters) from the bytes of a safetensors file.
// A parameter takes the tensor of its dotted path's name (or its rename); a static dim's
// extent must match the file's, a dynamic or interval dim takes the file's extent if it lies in
// its interval. The model is left untouched on any error: every tensor is read into fresh
// storage first and moved into the model only when all have been read. Errors (io_error
// naming the file, the parameter, the file's shape and the expected one): those of
// read_safetensors_header; a parameter not in the file; a tensor no parameter takes (unless
// allow_extra); another dtype, rank or extent; a rename of no parameter; an element that is
// not a bool or an index of its dim.
template <class M>
void load_bytes(std::span<const unsigned char> file, M& model, const load_options& options = {},
                const std::string& source = "<memory>") {
  static_assert(dimgraph::model<M>,
                "dimgraph: load: the model must be a dg::tensor, a std::array of models or a "
                "Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT / BOOST_HANA_ADAPT_STRUCT)");
  const safetensors_header header = read_safetensors_header(file, source);
  std::map<std::string_view, const tensor_entry*> by_name;
  for (const auto& e : header.tensors) by_name.emplace(e.name, &e);
  std::set<std::string> renamed, taken;
  std::vector<std::function<void()>> commits;
  dimgraph::parameters(model, [&](const std::string& path, auto& t) {
    using tensor_t = std::remove_cvref_t<decltype(t)>;
    const std::string name = detail::file_name_of(path, options.rename, renamed);
    const std::string where =
        "file '" + source + "': parameter " + detail::in_quotes(path) +
        (name == path ? std::string() : " (" + detail::in_quotes(name) + " in the file)");
    const auto it = by_name.find(name);
    if (it == by_name.end())
      throw io_error("load", where + ": not in the file; expected " +
                                 detail::expected_shape_text(std::type_identity<tensor_t>{}));
    if (!taken.insert(name).second)
      throw io_error("load", where + ": another parameter takes the same tensor");
    const tensor_entry& e = *it->second;
    auto fresh = std::make_shared<tensor_t>(detail::tensor_from_bytes<tensor_t>(
        "load", where, e.dtype, e.shape, file.data() + header.data_start + e.begin, e.end - e.begin,
        false));
    commits.push_back([&t, fresh] { t = std::move(*fresh); });
  });
  detail::check_renames_used("load", source, options.rename, renamed);
  if (!options.allow_extra) {
    std::string extra;
    for (const auto& e : header.tensors)
      if (!taken.count(e.name)) extra += (extra.empty() ? "" : ", ") + detail::in_quotes(e.name);
    if (!extra.empty())
      throw io_error("load", "file '" + source + "': no parameter takes the tensors " + extra +
                                 " (load_options::allow_extra permits them)");
  }
  for (auto& commit : commits) commit();
}

// load_bytes on the contents of the file at path.
template <class M>
void load(const std::filesystem::path& path, M& model, const load_options& options = {}) {
  const auto bytes = detail::read_file(path, "load");
  load_bytes(std::span<const unsigned char>(bytes), model, options, path.string());
}

// The bytes of a safetensors file holding every tensor of the model under its dotted path (or
// its rename), in visiting order, little-endian, the header padded with spaces so that the
// data starts at a multiple of 8. Errors (io_error): two parameters with the same file name; a
// rename of no parameter.
template <class M>
std::string save_bytes(const M& model, const save_options& options = {}) {
  static_assert(dimgraph::model<M>,
                "dimgraph: save: the model must be a dg::tensor, a std::array of models or a "
                "Boost.Hana struct (BOOST_HANA_DEFINE_STRUCT / BOOST_HANA_ADAPT_STRUCT)");
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!options.metadata.empty()) header["__metadata__"] = options.metadata;
  std::string data;
  std::set<std::string> renamed;
  dimgraph::parameters(model, [&](const std::string& path, const auto& t) {
    using elem = typename std::remove_cvref_t<decltype(t)>::value_type;
    const std::string name = detail::file_name_of(path, options.rename, renamed);
    if (name == "__metadata__" || header.contains(name))
      throw io_error("save", "parameter " + detail::in_quotes(path) + ": the name " +
                                 detail::in_quotes(name) + " is taken");
    const std::size_t begin = data.size();
    detail::write_elements(t.data(), t.size(), data);
    std::vector<std::uint64_t> shape;
    for (std::size_t e : t.shape().extents()) shape.push_back(e);
    header[name] = {{"dtype", std::string(dtype_v<elem>.name)},
                    {"shape", shape},
                    {"data_offsets", {begin, data.size()}}};
  });
  detail::check_renames_used("save", "<new>", options.rename, renamed);
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i)
    out[i] = static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * i)) & 0xff);
  return out + text + data;
}

// save_bytes written to path (through a temporary file renamed over it).
template <class M>
void save(const std::filesystem::path& path, const M& model, const save_options& options = {}) {
  detail::write_file(path, save_bytes(model, options), "save");
}

}  // namespace dimgraph::io
