#pragma once
// A reference kernel run on the measuring device (the manifest's
// "reference": {"cuda": {...}}): the same parameter list as the host
// reference, outputs and in/out buffers as double, computed where the
// kernel runs, so a large shape's check does not wait on one CPU thread.
// Backend-neutral: the host backend runs a host reference this way in
// tests.
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/staged_inputs.h"

namespace kgate {

// Runs `reference` with `dims` on `inputs` (make_inputs for `plan`): inputs
// uploaded as drawn, in/out buffers converted to double, outputs poisoned
// (NaN). Returns the outputs in double, one vector per output or in/out
// argument, empty for the others. Device buffers are released on return.
// With `staged` (the same inputs kept on the device), inputs are copied
// from there device to device instead of uploaded.
Result<DoubleData> run_device_reference(Device& device, LoadedKernel& reference,
                                        const LaunchDims& dims, const LaunchPlan& plan,
                                        const HostData& inputs,
                                        const StagedInputs* staged = nullptr);

// `outputs` (bytes of each output or in/out argument of `plan`, as a kernel
// wrote them) in double, converted on every thread.
DoubleData outputs_as_double(const LaunchPlan& plan, const HostData& outputs);

}  // namespace kgate
