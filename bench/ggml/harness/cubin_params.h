// The parameter sizes a cubin records for a kernel (.nv.info.<symbol>,
// EIATTR_KPARAM_INFO), so the harness can check its own parameter lists
// against the compiled kernels without a GPU.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ggml_harness {

// Sizes in bytes by parameter ordinal; empty when the cubin does not say.
std::vector<size_t> cubin_param_sizes(const std::string& image, const std::string& symbol);

}  // namespace ggml_harness
