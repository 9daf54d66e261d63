#pragma once
// The device buffers of one launch plan: one per buffer argument, optionally
// between guard zones (runner/guard_zones.h), released together.
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"

namespace kgate {

struct StagedInputs;  // staged_inputs.h

// Invariant: addresses and allocations have one entry per leaf of the plan
// they were made for; scalars and NULL buffers hold address 0. When guarded,
// allocations[i] starts kFrontGuardBytes before addresses[i] and its back
// guard starts right after the buffer's last byte. A launch's parameters
// are made from the addresses (param_slots), so two plans over the same
// leaves (two revisions of a kernel, side_compatibility.h) share them.
struct Buffers {
  std::vector<DeviceAddress> addresses;    // what the kernel gets; 0 for scalars
  std::vector<DeviceAddress> allocations;  // what was allocated; 0 for scalars
  bool guarded = false;
};

// Releases every buffer a measurement allocated, so a device shared by many
// measurements (MeasureRequest::device) does not fill up.
class Allocations {
 public:
  explicit Allocations(Device& device) : device_(device) {}
  ~Allocations();
  Allocations(const Allocations&) = delete;
  Allocations& operator=(const Allocations&) = delete;
  void add(DeviceAddress a) { addresses_.push_back(a); }

 private:
  Device& device_;
  std::vector<DeviceAddress> addresses_;
};

// One allocation per buffer argument of `plan`; with `guarded`, each between
// guard zones (not yet written: write_guards does that).
Result<Buffers> allocate_buffers(Device& device, const LaunchPlan& plan, Allocations& owned,
                                 bool guarded);

// Uploads inputs (input and in/out buffers) and fills outputs and scratch with `poison`;
// copies the inputs from `staged` on the device where it holds them.
Status prepare_buffers(Device& device, const LaunchPlan& plan, const Buffers& buffers,
                       const HostData& inputs, uint8_t poison,
                       const StagedInputs* staged = nullptr);

// The bytes of every output and in/out buffer the plan's side writes
// (ArgPlan::compared; empty for the others).
Result<HostData> read_outputs(Device& device, const LaunchPlan& plan, const Buffers& buffers);

}  // namespace kgate
