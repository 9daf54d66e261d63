#pragma once
// One input set kept on the device: a pristine copy of every input and
// in/out buffer, uploaded once. Each correctness run restores its buffers
// from these copies (device to device) and checks its inputs unchanged
// against them in place, instead of uploading the host bytes and
// downloading them again on every run: on an 8k shape that is gigabytes of
// host traffic per gate (docs/BENCHMARKS.md, "Fast checks").
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/device_buffers.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"

namespace kgate {

// Invariant: copies and bytes have one entry per argument of the plan they
// were staged for; copies[i] is 0 where the argument is not an input or
// in/out buffer, and otherwise holds bytes[i] bytes equal to the host input.
struct StagedInputs {
  std::vector<DeviceAddress> copies;
  std::vector<size_t> bytes;

  // The pristine copy of argument `i` when it holds `size` bytes, else 0 (a
  // plan that differs is served from the host bytes).
  DeviceAddress copy_of(size_t i, size_t size) const {
    return i < copies.size() && bytes[i] == size ? copies[i] : 0;
  }
};

// Uploads `inputs` once into allocations that `owned` releases. An Error
// (out of device memory) leaves the caller on the host path.
Result<StagedInputs> stage_inputs(Device& device, const LaunchPlan& plan, const HostData& inputs,
                                  Allocations& owned);

// The input set make_inputs(plan, seed) describes, drawn on the device
// straight into the pristine copies (Device::draw: no host drawing, no
// upload), with its host bytes downloaded into `host` for what reads them
// there. A set is drawn in one place only: input_formula.h says how a
// device's draw may differ from the host's.
Result<StagedInputs> draw_inputs(Device& device, const LaunchPlan& plan, uint64_t seed,
                                 Allocations& owned, HostData& host);

}  // namespace kgate
