#include "runner/device_buffers.h"

#include "runner/guard_zones.h"
#include "runner/staged_inputs.h"

namespace kgate {

Allocations::~Allocations() {
  for (DeviceAddress a : addresses_) device_.release(a);
}

Result<Buffers> allocate_buffers(Device& device, const LaunchPlan& plan, Allocations& owned,
                                 bool guarded) {
  Buffers b;
  b.guarded = guarded;
  for (const ArgPlan& a : plan.args) {
    if (!a.buffer()) {
      b.addresses.push_back(0);
      b.allocations.push_back(0);
      continue;
    }
    size_t bytes = guarded ? kFrontGuardBytes + a.bytes + back_guard_bytes(a.bytes) : a.bytes;
    auto allocation = device.allocate(bytes);
    if (!allocation.ok()) return allocation.error();
    owned.add(*allocation);
    DeviceAddress address = guarded ? *allocation + kFrontGuardBytes : *allocation;
    b.allocations.push_back(*allocation);
    b.addresses.push_back(address);
  }
  return b;
}

Status prepare_buffers(Device& device, const LaunchPlan& plan, const Buffers& buffers,
                       const HostData& inputs, uint8_t poison, const StagedInputs* staged) {
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.buffer()) continue;
    if (a.poisoned()) {
      KGATE_RETURN_IF_ERROR(device.fill(buffers.addresses[i], poison, a.bytes));
    } else if (DeviceAddress copy = staged ? staged->copy_of(i, a.bytes) : 0; copy != 0) {
      KGATE_RETURN_IF_ERROR(device.copy(buffers.addresses[i], copy, a.bytes));
    } else {
      KGATE_RETURN_IF_ERROR(device.upload(buffers.addresses[i], inputs[i].data(), a.bytes));
    }
  }
  return {};
}

Result<HostData> read_outputs(Device& device, const LaunchPlan& plan, const Buffers& buffers) {
  HostData out(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.compared()) continue;
    out[i].resize(a.bytes);
    KGATE_RETURN_IF_ERROR(device.download(out[i].data(), buffers.addresses[i], a.bytes));
  }
  return out;
}

}  // namespace kgate
