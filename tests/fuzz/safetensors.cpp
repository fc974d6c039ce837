// libFuzzer target: dg::io::load_bytes on arbitrary bytes. Every input must either load or
// throw dg::io_error; anything else (another exception, a sanitizer report) is a finding.
#include <dimgraph/io/safetensors.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  fuzz_model::Model model;
  dimgraph::io::load_options options;
  options.allow_extra = (size % 2) == 1;
  try {
    dimgraph::io::load_bytes(bytes, model, options, "fuzz");
  } catch (const dimgraph::io_error&) {
  }
  try {
    (void)dimgraph::io::read_safetensors_header(bytes, "fuzz");
  } catch (const dimgraph::io_error&) {
  }
  return 0;
}
