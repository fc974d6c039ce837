// libFuzzer target: dg::io::load_npy_bytes on arbitrary bytes. Every input must either load or
// throw dg::io_error; anything else (another exception, a sanitizer report) is a finding.
#include <dimgraph/io/npy.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace dg = dimgraph;
  using namespace fuzz_model;
  const std::span<const unsigned char> bytes(data, size);
  try {
    (void)dg::io::load_npy_bytes<dg::tensor<float, Free, Two>>(bytes, "fuzz");
  } catch (const dg::io_error&) {
  }
  try {
    (void)dg::io::load_npy_bytes<dg::tensor<bool, Span>>(bytes, "fuzz");
  } catch (const dg::io_error&) {
  }
  return 0;
}
