#include "runner/input_integrity.h"

#include <cstring>

#include "runner/staged_inputs.h"

namespace kgate {

std::string describe_input_change(const ArgPlan& arg, std::span<const unsigned char> uploaded,
                                  std::span<const unsigned char> found) {
  if (uploaded.size() != found.size() ||
      std::memcmp(uploaded.data(), found.data(), found.size()) == 0)
    return "";
  size_t esize = dtype_size(arg.arg->dtype);
  int64_t changed = 0, first = -1;
  for (int64_t i = 0; i < arg.count; ++i) {
    if (std::memcmp(uploaded.data() + i * esize, found.data() + i * esize, esize) == 0) continue;
    if (first < 0) first = i;
    ++changed;
  }
  return "changed its input '" + arg.arg->name + "' (" + std::to_string(changed) + " element" +
         (changed == 1 ? "" : "s") + ", first at index " + std::to_string(first) +
         "); declare it \"role\": \"inout\" if it is meant to be written";
}

Result<std::string> check_inputs_unchanged(Device& device, const LaunchPlan& plan,
                                           const Buffers& buffers, const HostData& inputs,
                                           const StagedInputs* staged) {
  std::string out;
  std::vector<unsigned char> found;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.buffer() || a.arg->role != ArgRole::kInput) continue;
    if (DeviceAddress copy = staged ? staged->copy_of(i, a.bytes) : 0; copy != 0) {
      auto same = device.equal(buffers.addresses[i], copy, a.bytes);
      if (!same.ok()) return same.error();
      if (*same) continue;
    }
    found.resize(a.bytes);
    KGATE_RETURN_IF_ERROR(device.download(found.data(), buffers.addresses[i], a.bytes));
    std::string change = describe_input_change(a, inputs[i], found);
    if (change.empty()) continue;
    if (!out.empty()) out += "; ";
    out += change;
  }
  return out;
}

}  // namespace kgate
