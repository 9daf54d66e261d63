#pragma once
// One correctness run of a kernel under the memory rules: guard zones
// written around every buffer, inputs uploaded, outputs poisoned, one
// launch, then the guards and the inputs checked before the outputs are read
// back. What a caller compares with the reference. With `staged` (the same
// inputs kept on the device, staged_inputs.h) the inputs are restored and
// checked on the device; without, from and against the host bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/device_buffers.h"
#include "runner/launch_plan.h"
#include "runner/staged_inputs.h"

namespace kgate {

struct CheckedRun {
  HostData outputs;  // per argument, outputs and in/out only
  // A memory rule the kernel broke, empty when none: "wrote 4 bytes past the
  // end of 'out'", "changed its input 'x' (3 elements, first at index 0)".
  std::string violation;
};

// An Error when the kernel or the device failed to run (a launch error, an
// illegal address): on a GPU the context may be unusable afterwards.
Result<CheckedRun> checked_run(Device& device, LoadedKernel& kernel, const LaunchPlan& plan,
                               const Buffers& buffers, const HostData& inputs, uint8_t poison,
                               const StagedInputs* staged = nullptr);

// Called when a run's outputs failed their check: runs the kernel again with
// outputs filled with another byte, then with the usual poison, and returns
// "reads 'C' before writing it: declare it \"role\": \"inout\"" when an
// output's result depends on what the buffer held before the launch (and
// the kernel is otherwise deterministic); "" when it does not.
Result<std::string> output_read_before_written(Device& device, LoadedKernel& kernel,
                                               const LaunchPlan& plan, const Buffers& buffers,
                                               const HostData& inputs,
                                               const HostData& first_outputs,
                                               const StagedInputs* staged = nullptr);

}  // namespace kgate
