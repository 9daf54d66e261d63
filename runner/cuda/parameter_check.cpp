#include "runner/cuda/parameter_check.h"

#include "core/argument_plan.h"

namespace kgate::cuda {

std::string parameter_mismatch(const std::vector<size_t>& kernel_sizes,
                               const std::vector<const Arg*>& declared, const std::string& entry,
                               const std::string& json_path) {
  if (kernel_sizes.empty()) return "";
  auto listing = [&]() {
    std::string out;
    for (size_t i = 0; i < kernel_sizes.size(); ++i)
      out += (i ? ", " : "") + std::to_string(kernel_sizes[i]);
    return "the kernel's parameter sizes in bytes: " + out;
  };
  if (kernel_sizes.size() != declared.size())
    return json_path + ": " + entry + " takes " + std::to_string(kernel_sizes.size()) +
           " parameters, kgate.json declares " + std::to_string(declared.size()) + " (" +
           listing() + "); did the kernel's signature change?";
  for (size_t i = 0; i < declared.size(); ++i) {
    const size_t want = param_size(*declared[i]);
    if (want == kernel_sizes[i]) continue;
    return declared[i]->json_path + ": '" + declared[i]->name + "' is " + std::to_string(want) +
           " bytes in kgate.json, but parameter " + std::to_string(i) + " of " + entry + " is " +
           std::to_string(kernel_sizes[i]) + " bytes (" + listing() + ")";
  }
  return "";
}

}  // namespace kgate::cuda
