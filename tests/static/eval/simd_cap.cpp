// DIMGRAPH_CONFIG_SIMD_MAX_BYTES caps the products' vectors as it caps every other kernel's,
// whatever the target (this file is compiled, never linked: it may set the knob otherwise than
// the rest of the suite).
#define DIMGRAPH_CONFIG_SIMD_MAX_BYTES 8
#include <dimgraph.hpp>

namespace {
namespace dd = dimgraph::detail;

static_assert(dd::gemm_target_isa::vector_bytes == 8);
static_assert(sizeof(dd::gemm_blocking<float>::vector) == 8);
static_assert(dd::gemm_blocking<float>::lanes == 2);
// A register of 8 bytes holds one double: the kernels compute in double itself.
static_assert(std::is_same_v<dd::gemm_blocking<double>::vector, double>);
static_assert(dd::gemm_blocking<double>::lanes == 1);
}  // namespace
