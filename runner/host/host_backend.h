#pragma once
// The host backend: kernels written as C++ functions for the CPU. It lets
// every stage of kgate run on machines without a GPU, and gates CPU kernels.
#include <memory>

#include "runner/backend.h"

namespace kgate {

std::unique_ptr<Backend> make_host_backend();

}  // namespace kgate
