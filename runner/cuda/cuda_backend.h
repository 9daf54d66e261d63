#pragma once
// The cuda backend: NVRTC (or nvcc) compiles, the driver API loads, launches
// and times, on one GPU. Like the rest of runner/cuda it is in kgate::cuda; the
// factory is also named in kgate, the folder's face to the backend-neutral code
// (runner/backend.cpp), beside runner/host's make_host_backend.
#include <memory>
#include <string>

#include "runner/backend.h"

namespace kgate::cuda {

// `arch` ("sm_90") fixes the compile target; empty: KGATE_CUDA_ARCH, else the
// GPU's, probed in a child process.
std::unique_ptr<Backend> make_cuda_backend(const std::string& arch = "");

}  // namespace kgate::cuda

namespace kgate {
using cuda::make_cuda_backend;
}  // namespace kgate
