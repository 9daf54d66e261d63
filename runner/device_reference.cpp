#include "runner/device_reference.h"

#include <cstring>

#include "runner/reference.h"

namespace kgate {
namespace {

Doubles as_double(DType dtype, const unsigned char* bytes, int64_t count) {
  Doubles out(count);
  convert_to_doubles(dtype, bytes, count, out.data());
  return out;
}

}  // namespace

DoubleData outputs_as_double(const LaunchPlan& plan, const HostData& outputs) {
  DoubleData out(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.compared()) continue;
    out[i] = as_double(a.arg->dtype, outputs[i].data(), a.count);
  }
  return out;
}

Result<DoubleData> run_device_reference(Device& device, LoadedKernel& reference,
                                        const LaunchDims& dims, const LaunchPlan& plan,
                                        const HostData& inputs, const StagedInputs* staged) {
  struct Owned {
    Device& device;
    std::vector<DeviceAddress> addresses;
    ~Owned() {
      for (DeviceAddress a : addresses) device.release(a);
    }
  } owned{device, {}};
  std::vector<ArgSlot> slots;
  std::vector<DeviceAddress> where(plan.args.size(), 0);
  // The leaves this side uses, in order, as the host reference takes them.
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.used) continue;
    if (!a.buffer()) {
      slots.push_back(a.scalar);
      continue;
    }
    const bool doubles = a.compared();
    const size_t bytes = doubles ? static_cast<size_t>(a.count) * sizeof(double) : a.bytes;
    auto address = device.allocate(bytes);
    if (!address.ok()) return address.error();
    owned.addresses.push_back(*address);
    where[i] = *address;
    slots.push_back(leaf_slot(a, *address));
    if (a.arg->role == ArgRole::kInput) {
      // A copy of the staged inputs (device to device), never the staged
      // copy itself: a reference that wrote its input would change what
      // every later run of the set is given.
      if (DeviceAddress copy = staged ? staged->copy_of(i, bytes) : 0; copy != 0)
        KGATE_RETURN_IF_ERROR(device.copy(*address, copy, bytes));
      else
        KGATE_RETURN_IF_ERROR(device.upload(*address, inputs[i].data(), bytes));
    } else if (a.arg->role == ArgRole::kOutput || a.arg->role == ArgRole::kScratch) {
      KGATE_RETURN_IF_ERROR(device.fill(*address, kPoisonByte, bytes));  // NaN in double
    } else {
      Doubles start = as_double(a.arg->dtype, inputs[i].data(), a.count);
      KGATE_RETURN_IF_ERROR(device.upload(*address, start.data(), bytes));
    }
  }
  KGATE_RETURN_IF_ERROR(device.launch(reference, dims, slots));
  DoubleData outputs(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.compared()) continue;
    outputs[i].resize(a.count);
    KGATE_RETURN_IF_ERROR(
        device.download(outputs[i].data(), where[i], outputs[i].size() * sizeof(double)));
  }
  return outputs;
}

}  // namespace kgate
