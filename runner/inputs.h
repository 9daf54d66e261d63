#pragma once
// Seeded input data per dtype, and output poisoning. Inputs are never zeros
// (zeros hide unwritten outputs and wrong indexing); outputs are filled with
// 0xFF bytes, which reads as NaN for every float type.
#include <cstdint>
#include <string>
#include <vector>

#include "runner/launch_plan.h"

namespace kgate {

inline constexpr uint8_t kPoisonByte = 0xFF;

// Host bytes per argument of a launch plan: one entry per argument, empty
// for scalars and outputs.
using HostData = std::vector<std::vector<unsigned char>>;

// Host bytes for one buffer argument, drawn from `seed` (mixed with the
// argument's position so buffers differ). Each element is drawn from its own
// counter, so large buffers are filled on `threads` threads (0:
// host_threads()) and the bytes are the same for any thread count.
std::vector<unsigned char> make_input(const ArgPlan& plan, uint64_t seed, size_t position,
                                      int threads = 0);

// Inputs for every input and in/out buffer of `plan`, drawn from `seed`.
HostData make_inputs(const LaunchPlan& plan, uint64_t seed, int threads = 0);

// True when element `index` still holds the poison pattern.
bool is_poison(const unsigned char* data, size_t element_size, size_t index);

}  // namespace kgate
