#pragma once
// Where compute-sanitizer is: on PATH, in $CUDA_HOME/bin or in
// /usr/local/cuda/bin. Used by the gate's sanitized checks and by the
// workload validation's sanitized run.
#include <string>

namespace kgate {

// The program's path; empty when it is not installed.
std::string find_compute_sanitizer();

}  // namespace kgate
