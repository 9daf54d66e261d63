#include "runner/staged_inputs.h"

#include <functional>

namespace kgate {
namespace {

// One pristine device copy per input and in/out buffer of `plan` (none for
// empty ones), each allocated into `owned` and then filled by
// fill(argument index, copy).
Result<StagedInputs> stage_each(Device& device, const LaunchPlan& plan, Allocations& owned,
                                const std::function<Status(size_t, DeviceAddress)>& fill) {
  StagedInputs staged;
  staged.copies.assign(plan.args.size(), 0);
  staged.bytes.assign(plan.args.size(), 0);
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.drawn() || a.bytes == 0) continue;
    auto copy = device.allocate(a.bytes);
    if (!copy.ok()) return copy.error();
    owned.add(*copy);
    KGATE_RETURN_IF_ERROR(fill(i, *copy));
    staged.copies[i] = *copy;
    staged.bytes[i] = a.bytes;
  }
  return staged;
}

}  // namespace

Result<StagedInputs> stage_inputs(Device& device, const LaunchPlan& plan, const HostData& inputs,
                                  Allocations& owned) {
  return stage_each(device, plan, owned, [&](size_t i, DeviceAddress copy) {
    return device.upload(copy, inputs[i].data(), plan.args[i].bytes);
  });
}

Result<StagedInputs> draw_inputs(Device& device, const LaunchPlan& plan, uint64_t seed,
                                 Allocations& owned, HostData& host) {
  // Every input and in/out argument has its host bytes, an empty buffer too.
  host.assign(plan.args.size(), Bytes());
  for (size_t i = 0; i < plan.args.size(); ++i)
    if (plan.args[i].drawn()) host[i].resize(plan.args[i].bytes);
  return stage_each(device, plan, owned, [&](size_t i, DeviceAddress copy) -> Status {
    const ArgPlan& a = plan.args[i];
    KGATE_RETURN_IF_ERROR(put_input(device, copy, a, seed, i, plan.variables));
    return device.download(host[i].data(), copy, a.bytes);
  });
}

}  // namespace kgate
