#pragma once
// The cuda backend: NVRTC (or nvcc) compiles, the driver API loads, launches
// and times, on one GPU. The rest of runner/cuda is kgate::cuda; this factory
// is the folder's face to the backend-neutral code and stays in kgate, beside
// runner/host's make_host_backend.
#include <memory>
#include <string>

#include "runner/backend.h"

namespace kgate {

// `arch` ("sm_90") fixes the compile target; empty: KGATE_CUDA_ARCH, else the
// GPU's, probed in a child process.
std::unique_ptr<Backend> make_cuda_backend(const std::string& arch = "");

}  // namespace kgate
