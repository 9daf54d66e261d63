#include "runner/profile/launch_args.h"

#include <cstring>

#include "runner/inputs.h"

namespace kgate::profile {

Result<std::unique_ptr<LaunchArgs>> LaunchArgs::make(Device& device, const LaunchPlan& plan,
                                                     uint64_t seed) {
  std::unique_ptr<LaunchArgs> a(new LaunchArgs(device));
  a->slots_.resize(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& p = plan.args[i];
    if (!p.arg->is_buffer) {
      a->slots_[i] = p.scalar;
      continue;
    }
    auto buffer = device.allocate(p.bytes);
    if (!buffer.ok()) return buffer.error();
    a->buffers_.push_back(*buffer);
    if (p.arg->role == ArgRole::kOutput) {
      KGATE_RETURN_IF_ERROR(device.fill(*buffer, kPoisonByte, p.bytes));
    } else {
      auto host = make_input(p, seed, i);
      KGATE_RETURN_IF_ERROR(device.upload(*buffer, host.data(), host.size()));
    }
    DeviceAddress address = *buffer;
    std::memcpy(a->slots_[i].bytes, &address, sizeof address);
    a->slots_[i].size = sizeof address;
  }
  return a;
}

LaunchArgs::~LaunchArgs() {
  for (DeviceAddress b : buffers_) device_.release(b);
}

}  // namespace kgate::profile
