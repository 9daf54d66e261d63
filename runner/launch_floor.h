#pragma once
// The launch floor: what one timed sample costs when the kernel does nothing
// (Device::time_empty_launch), measured where the samples are taken so the
// gate can tell a shape that only launches from one that works
// (gate/shape_decision.h, docs/gate.md).
#include "runner/device.h"

namespace kgate {

// The median of `samples` empty launches; 0 when the device cannot time
// them (the launch-floor rule is then off for the shape).
double measure_launch_floor(Device& device, int samples = 21);

}  // namespace kgate
