#pragma once
// The manifest's compile flags as NVRTC takes them. Libraries write their
// flags for nvcc (--expt-relaxed-constexpr, -O3, -Xptxas -v); NVRTC refuses
// every option it does not know, which would fail every kernel of such a
// port under the default compiler. Each flag is kept, translated to NVRTC's
// spelling, or dropped with a note that says why (and what to do when the
// kernel needs it).
#include <string>
#include <vector>

namespace kgate::cuda {

struct NvrtcFlags {
  std::vector<std::string> options;  // for nvrtcCompileProgram
  std::vector<std::string> notes;    // "-O3: dropped (NVRTC always optimizes device code)"
};

NvrtcFlags translate_for_nvrtc(const std::vector<std::string>& flags);

}  // namespace kgate::cuda
