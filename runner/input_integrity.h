#pragma once
// Inputs must come out of a correctness run as they went in: a kernel that
// overwrites a buffer declared as an input (not "output" or "inout") would
// otherwise pass its check and then time on data it changed itself, and
// the caller's tensor would be corrupted in the real program.
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/device_buffers.h"
#include "runner/launch_plan.h"

namespace kgate {

struct StagedInputs;  // staged_inputs.h

// "" when every input buffer still holds `inputs`, else
// "changed its input 'x' (12 elements, first at index 3)". Where `staged`
// holds the input, it is compared on the device first and read back only
// when it changed (for the message).
Result<std::string> check_inputs_unchanged(Device& device, const LaunchPlan& plan,
                                           const Buffers& buffers, const HostData& inputs,
                                           const StagedInputs* staged = nullptr);

// The message for one input as read back against what was uploaded.
std::string describe_input_change(const ArgPlan& arg, std::span<const unsigned char> uploaded,
                                  std::span<const unsigned char> found);

}  // namespace kgate
