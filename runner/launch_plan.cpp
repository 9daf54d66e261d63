#include "runner/launch_plan.h"

#include <limits>

namespace kgate {

size_t LaunchPlan::total_bytes() const {
  size_t total = 0;
  for (const ArgPlan& a : args) total += a.bytes;
  return total;
}

size_t LaunchPlan::traffic_bytes() const {
  size_t total = 0;
  for (const ArgPlan& a : args)
    if (a.arg && a.buffer() && a.used && a.arg->role != ArgRole::kScratch)
      total += a.arg->role == ArgRole::kInOut ? 2 * a.bytes : a.bytes;
  return total;
}

Result<LaunchPlan> plan_launch(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                               const Variables& tunables) {
  LaunchPlan plan;
  Variables full_tunables = impl ? impl->default_tunables() : Variables{};
  for (const auto& [k, v] : tunables) full_tunables[k] = v;
  auto variables = kernel.variables(shape, full_tunables);
  if (!variables.ok()) return variables.error();
  plan.variables = std::move(variables.value());
  const Variables& vars = plan.variables;
  auto where = [&](const std::string& path) {
    return kernel.name + " (" + path + ", shape '" + shape.name + "')";
  };
  auto arguments = plan_arguments(kernel, shape, vars);
  if (!arguments.ok()) return arguments.error();
  plan.args = std::move(arguments->args);
  plan.params = std::move(arguments->params);
  if (impl && !impl->launch.grid.empty()) {
    // A grid of 0 blocks is an empty launch (LaunchDims::empty) on shapes
    // that allow it; a block of 0 threads never is.
    auto dim = [&](const Expression& e, const std::string& path, uint32_t& out,
                   int64_t least) -> Status {
      auto value = e.evaluate(vars);
      if (!value.ok()) return value.error().with_context(where(path));
      if (*value < least || *value > std::numeric_limits<uint32_t>::max())
        return Error::bad_input(where(path) + ": launch dimension " + std::to_string(*value) +
                                " is out of range");
      out = static_cast<uint32_t>(*value);
      return {};
    };
    for (size_t i = 0; i < impl->launch.grid.size(); ++i)
      KGATE_RETURN_IF_ERROR(dim(impl->launch.grid[i],
                                impl->json_path + ".launch.grid[" + std::to_string(i) + "]",
                                plan.dims.grid[i], shape.allow_empty ? 0 : 1));
    for (size_t i = 0; i < impl->launch.block.size(); ++i)
      KGATE_RETURN_IF_ERROR(dim(impl->launch.block[i],
                                impl->json_path + ".launch.block[" + std::to_string(i) + "]",
                                plan.dims.block[i], 1));
    auto shared = impl->launch.shared_bytes.evaluate(vars);
    if (!shared.ok())
      return shared.error().with_context(where(impl->json_path + ".launch.shared_bytes"));
    if (*shared < 0 || *shared > (1 << 30))
      return Error::bad_input(where(impl->json_path + ".launch.shared_bytes") + ": out of range");
    plan.dims.shared_bytes = static_cast<uint32_t>(*shared);
  }
  return plan;
}

}  // namespace kgate
