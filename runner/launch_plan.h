#pragma once
// Evaluates a kernel's manifest expressions for one shape and one set of
// tunables: its arguments (core/argument_plan.h: each buffer's size, each
// scalar's bytes, the parameters they make) and the launch size.
#include <cstdint>
#include <vector>

#include "core/argument_plan.h"
#include "core/manifest.h"
#include "core/status.h"
#include "runner/device.h"

namespace kgate {

// The arguments (ArgumentPlan: `args`, the leaves in manifest order, and
// `params`, the kernel's parameters made of them) and the launch.
struct LaunchPlan : ArgumentPlan {
  LaunchDims dims;      // from the implementation's "launch" (cuda)
  Variables variables;  // shape variables, tunables and lets used
  // Bytes every buffer takes together (the memory a launch needs).
  size_t total_bytes() const;
  // Bytes a launch moves at least: inputs read once, outputs written once,
  // in/out buffers read and written (twice). Counted as a device-to-device
  // copy's read + write, so GB/s of a kernel and of a copy compare.
  size_t traffic_bytes() const;
};

// `impl` may be null (the host reference has no launch section).
Result<LaunchPlan> plan_launch(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                               const Variables& tunables);

}  // namespace kgate
