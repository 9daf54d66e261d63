#pragma once
// The interleaved A/B timing loop of one measurement (harness.cpp's timing
// step): input copies rotated so repeated samples do not read warm caches,
// both sides on the same buffers in the order timing_schedule.h gives, in/out
// buffers restored from a pristine copy before every launch (outside the
// timed region) so every sample starts from the same data, and sampling until
// the budget is spent or the caller's rule says it is enough, finishing the
// schedule's period so the sides stay balanced.
#include <string>

#include "runner/device.h"
#include "runner/device_buffers.h"
#include "runner/harness.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/measurement.h"
#include "runner/staged_inputs.h"

namespace kgate {

struct TimedKernel {
  LoadedKernel* kernel = nullptr;
  LaunchDims dims;
};

// What timing needs beyond the request: the plan both sides take (they are
// comparable), the loaded kernels, and the checked buffers with their inputs
// (the first copy times on them: for a large shape, the only copy).
struct TimingSetup {
  const LaunchPlan* plan = nullptr;
  // The base's plan over the same leaves (side_compatibility.h); null: the
  // base takes `plan` too.
  const LaunchPlan* base_plan = nullptr;
  TimedKernel head;
  TimedKernel base;  // kernel null: head alone
  const Buffers* first_copy = nullptr;
  const HostData* first_inputs = nullptr;
  // The first inputs kept on the device (staged_inputs.h), or nullptr.
  const StagedInputs* first_staged = nullptr;
};

struct TimingOutcome {
  enum class Fault { kNone, kHead, kBase, kHarness };
  Fault fault = Fault::kNone;
  std::string message;  // "head failed while timed: ..."
};

// Appends samples, clocks, throttled counts and input_copies to `m`.
TimingOutcome time_interleaved(const MeasureRequest& request, Device& device, Allocations& owned,
                               const TimingSetup& setup, ShapeMeasurement& m);

}  // namespace kgate
