#pragma once
// What nvcc's device compile sees that NVRTC does not: nvcc pre-includes
// cuda_runtime.h, which brings the host's <sys/types.h>, <math.h>,
// <limits.h>, <assert.h> and <stdio.h>, so kernels written for nvcc use
// `uint`, `INFINITY`, `M_PI`, `INT_MAX` and `std::sqrt` without an #include
// and #include the C headers freely. NVRTC has none of those headers.
//
// kgate gives NVRTC a prelude it pre-includes (--pre-include) and small
// stand-ins for the C headers device code includes, as in-memory headers.
// assert stays NVRTC's own (crt/common_functions.h): __assertfail, which
// traps on the device like nvcc's.
#include <string>
#include <vector>

namespace kgate::cuda {

struct InMemoryHeader {
  std::string name;  // as an #include names it: "math.h"
  std::string text;
};

// The prelude's include name (for --pre-include=) .
extern const char* const kNvrtcPreludeName;

// The prelude first, then the C and C++ standard header stand-ins.
const std::vector<InMemoryHeader>& nvrtc_headers();

// Everything above as one text, for the compile cache's key.
const std::string& nvrtc_headers_fingerprint();

}  // namespace kgate::cuda
