#include "runner/staged_inputs.h"

namespace kgate {

Result<StagedInputs> stage_inputs(Device& device, const LaunchPlan& plan, const HostData& inputs,
                                  Allocations& owned) {
  StagedInputs staged;
  staged.copies.assign(plan.args.size(), 0);
  staged.bytes.assign(plan.args.size(), 0);
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.arg->is_buffer || a.arg->role == ArgRole::kOutput || a.bytes == 0) continue;
    auto copy = device.allocate(a.bytes);
    if (!copy.ok()) return copy.error();
    owned.add(*copy);
    KGATE_RETURN_IF_ERROR(device.upload(*copy, inputs[i].data(), a.bytes));
    staged.copies[i] = *copy;
    staged.bytes[i] = a.bytes;
  }
  return staged;
}

Result<StagedInputs> draw_inputs(Device& device, const LaunchPlan& plan, uint64_t seed,
                                 Allocations& owned, HostData& host) {
  StagedInputs staged;
  staged.copies.assign(plan.args.size(), 0);
  staged.bytes.assign(plan.args.size(), 0);
  host.assign(plan.args.size(), Bytes());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.arg->is_buffer || a.arg->role == ArgRole::kOutput) continue;
    host[i].resize(a.bytes);
    if (a.bytes == 0) continue;
    auto copy = device.allocate(a.bytes);
    if (!copy.ok()) return copy.error();
    owned.add(*copy);
    KGATE_RETURN_IF_ERROR(device.draw(*copy, draw_spec(a, seed, i), a.bytes));
    KGATE_RETURN_IF_ERROR(device.download(host[i].data(), *copy, a.bytes));
    staged.copies[i] = *copy;
    staged.bytes[i] = a.bytes;
  }
  return staged;
}

}  // namespace kgate
