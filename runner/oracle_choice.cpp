#include "runner/oracle_choice.h"

#include <algorithm>

#include "runner/launch_plan.h"

namespace kgate {

int64_t shape_elements(const Kernel& kernel, const Shape& shape) {
  auto plan = plan_launch(kernel, nullptr, shape, {});
  if (!plan.ok()) return 0;
  int64_t total = 0;
  for (const ArgPlan& a : plan->args)
    if (a.buffer()) total += a.count;
  return total;
}

bool host_reference_judges(const Kernel& kernel, const Shape& shape, const GatePolicy& policy) {
  return shape_elements(kernel, shape) <= policy.host_reference_max_elements;
}

std::vector<size_t> gating_order(const Kernel& kernel, const GatePolicy& policy) {
  std::vector<size_t> order(kernel.shapes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) {
    return host_reference_judges(kernel, kernel.shapes[i], policy);
  });
  return order;
}

OracleKind choose_oracle(const Kernel& kernel, const Shape& shape, const GatePolicy& policy,
                         const OracleState& state, std::string* note) {
  if (note) note->clear();
  if (host_reference_judges(kernel, shape, policy)) return OracleKind::kHostReference;
  if (state.device_reference) return OracleKind::kDeviceReference;
  if (policy.oracle != GatePolicy::Oracle::kBase) return OracleKind::kHostReference;
  if (state.base_trusted()) return OracleKind::kBase;
  if (note)
    *note = !state.base_available ? "no base to judge with: the host reference judged"
            : state.base_checks_failed > 0
                ? "the base failed its own check on a small shape: the host "
                  "reference judged"
                : "no small shape checked the base: the host reference judged";
  return OracleKind::kHostReference;
}

}  // namespace kgate
