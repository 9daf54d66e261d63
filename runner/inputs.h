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

// Host bytes for one buffer argument, drawn from `seed` (mixed with the
// argument's position so buffers differ).
std::vector<unsigned char> make_input(const ArgPlan& plan, uint64_t seed, size_t position);

// True when element `index` still holds the poison pattern.
bool is_poison(const unsigned char* data, size_t element_size, size_t index);

}  // namespace kgate
