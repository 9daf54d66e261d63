#pragma once
// Evaluates a kernel's manifest expressions for one shape and one set of
// tunables: how big each buffer is, the bytes of each scalar, the launch size.
#include <cstdint>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/device.h"

namespace kgate {

struct ArgPlan {
  const Arg* arg = nullptr;
  int64_t count = 0;  // buffers: elements
  size_t bytes = 0;   // buffers: count * element size
  ArgSlot scalar;     // scalars: the value's bytes
  int64_t randint_low = 0, randint_high = 0;
};

struct LaunchPlan {
  std::vector<ArgPlan> args;  // in manifest order
  LaunchDims dims;            // from the implementation's "launch" (cuda)
  Variables variables;        // shape variables and tunables used

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
