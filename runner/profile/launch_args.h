#pragma once
// The buffers and arguments of one manifest kernel launch on a shape, on any
// Device: inputs drawn from a seed (inputs.h, as the harness draws them),
// outputs poisoned. Freed with the object.
#include <memory>
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/launch_plan.h"

namespace kgate::profile {

// Invariant: args() holds a device address for every buffer argument, valid
// while this object lives.
class LaunchArgs {
 public:
  static Result<std::unique_ptr<LaunchArgs>> make(Device& device, const LaunchPlan& plan,
                                                  uint64_t seed);
  ~LaunchArgs();
  LaunchArgs(const LaunchArgs&) = delete;
  LaunchArgs& operator=(const LaunchArgs&) = delete;
  const std::vector<ArgSlot>& args() const { return slots_; }

 private:
  explicit LaunchArgs(Device& device) : device_(device) {}
  Device& device_;
  std::vector<DeviceAddress> buffers_;
  std::vector<ArgSlot> slots_;
};

}  // namespace kgate::profile
