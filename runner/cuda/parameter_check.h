#pragma once
// Whether a compiled kernel takes the parameters its manifest declares: the
// number and the size of each, read from the cubin (cubin_resources.h). A
// kernel whose signature changed without its kgate.json (a pull request
// that adds a parameter) would otherwise read its arguments from the wrong
// bytes; this fails it at compile time, `kgate check` included, with the
// parameter that differs.
#include <string>
#include <vector>

#include "core/manifest.h"

namespace kgate::cuda {

// "" when they agree (or the cubin does not say), else the difference.
// `declared` is what kgate passes: the kernel's top-level args, or the
// leaves (outputs as double*) for a reference kernel.
std::string parameter_mismatch(const std::vector<size_t>& kernel_sizes,
                               const std::vector<const Arg*>& declared, const std::string& entry,
                               const std::string& json_path);

}  // namespace kgate::cuda
