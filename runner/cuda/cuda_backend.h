#pragma once
// The cuda backend: NVRTC (or nvcc) compiles, the driver API loads, launches
// and times, on one GPU.
#include <memory>

#include "runner/backend.h"

namespace kgate {

std::unique_ptr<Backend> make_cuda_backend();

}  // namespace kgate
