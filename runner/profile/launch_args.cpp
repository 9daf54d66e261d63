#include "runner/profile/launch_args.h"

#include "runner/inputs.h"

namespace kgate::profile {

Result<std::unique_ptr<LaunchArgs>> LaunchArgs::make(Device& device, const LaunchPlan& plan,
                                                     uint64_t seed) {
  std::unique_ptr<LaunchArgs> a(new LaunchArgs(device));
  std::vector<DeviceAddress> addresses(plan.args.size(), 0);
  HostData inputs = make_inputs(plan, seed);
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& p = plan.args[i];
    if (!p.buffer()) continue;
    auto buffer = device.allocate(p.bytes);
    if (!buffer.ok()) return buffer.error();
    a->buffers_.push_back(*buffer);
    addresses[i] = *buffer;
    if (p.poisoned())
      KGATE_RETURN_IF_ERROR(device.fill(*buffer, kPoisonByte, p.bytes));
    else
      KGATE_RETURN_IF_ERROR(device.upload(*buffer, inputs[i].data(), p.bytes));
  }
  a->slots_ = param_slots(plan, addresses);
  return a;
}

LaunchArgs::~LaunchArgs() {
  for (DeviceAddress b : buffers_) device_.release(b);
}

}  // namespace kgate::profile
