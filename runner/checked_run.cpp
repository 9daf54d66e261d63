#include "runner/checked_run.h"

#include <cstring>

#include "runner/guard_zones.h"
#include "runner/input_integrity.h"
#include "runner/inputs.h"

namespace kgate {
namespace {

// A second poison: zeros, which a kernel that reads its output as an
// accumulator (C = alpha * A * B + beta * C) turns into a plausible result.
constexpr uint8_t kSecondPoisonByte = 0x00;

bool holds(const unsigned char* data, size_t element_size, size_t index, uint8_t byte) {
  const unsigned char* p = data + index * element_size;
  for (size_t i = 0; i < element_size; ++i)
    if (p[i] != byte) return false;
  return true;
}

}  // namespace

Result<CheckedRun> checked_run(Device& device, LoadedKernel& kernel, const LaunchPlan& plan,
                               const Buffers& buffers, const HostData& inputs, uint8_t poison,
                               const StagedInputs* staged) {
  KGATE_RETURN_IF_ERROR(write_guards(device, plan, buffers));
  KGATE_RETURN_IF_ERROR(prepare_buffers(device, plan, buffers, inputs, poison, staged));
  KGATE_RETURN_IF_ERROR(device.launch(kernel, plan.dims, param_slots(plan, buffers.addresses)));
  CheckedRun run;
  auto guards = check_guards(device, plan, buffers);
  if (!guards.ok()) return guards.error();
  auto changed = check_inputs_unchanged(device, plan, buffers, inputs, staged);
  if (!changed.ok()) return changed.error();
  run.violation = *guards;
  if (!changed->empty()) run.violation += (run.violation.empty() ? "" : "; ") + *changed;
  auto outputs = read_outputs(device, plan, buffers);
  if (!outputs.ok()) return outputs.error();
  run.outputs = std::move(outputs.value());
  return run;
}

Result<std::string> output_read_before_written(Device& device, LoadedKernel& kernel,
                                               const LaunchPlan& plan, const Buffers& buffers,
                                               const HostData& inputs,
                                               const HostData& first_outputs,
                                               const StagedInputs* staged) {
  auto other = checked_run(device, kernel, plan, buffers, inputs, kSecondPoisonByte, staged);
  if (!other.ok()) return other.error();
  auto again = checked_run(device, kernel, plan, buffers, inputs, kPoisonByte, staged);
  if (!again.ok()) return again.error();
  std::string names;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.compared() || a.arg->role != ArgRole::kOutput) continue;
    const auto &first = first_outputs[i], &second = other->outputs[i], &third = again->outputs[i];
    // Runs that differ under the same poison say nothing about the poison.
    if (first.size() != third.size() || std::memcmp(first.data(), third.data(), first.size()) != 0)
      return std::string();
    size_t esize = dtype_size(a.arg->dtype);
    bool depends = false;
    for (int64_t e = 0; e < a.count && !depends; ++e) {
      if (std::memcmp(first.data() + e * esize, second.data() + e * esize, esize) == 0) continue;
      // Unwritten: each run left its own poison there.
      bool unwritten = holds(first.data(), esize, e, kPoisonByte) &&
                       holds(second.data(), esize, e, kSecondPoisonByte);
      depends = !unwritten;
    }
    if (depends) names += (names.empty() ? "'" : ", '") + a.arg->name + "'";
  }
  if (names.empty()) return std::string();
  return "reads " + names + " before writing it: declare it \"role\": \"inout\" (its result " +
         "depends on what the buffer held before the launch)";
}

}  // namespace kgate
