#include "runner/reference_cost.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/log.h"
#include "core/number_format.h"
#include "core/subprocess.h"
#include "runner/host/host_library.h"
#include "runner/launch_plan.h"
#include "runner/oracle_choice.h"
#include "runner/reference.h"

namespace kgate {
namespace {

// The product of the shape's integer variables (each at least 1), in double.
double variable_product(const Shape& shape) {
  double product = 1;
  for (const auto& [name, value] : shape.variables)
    product *= static_cast<double>(std::max<int64_t>(value, 1));
  return product;
}

// Seconds per call of the reference on `shape`: repeated until 20 ms have
// passed (or 3 calls, or one call of 1 s), so a tiny shape's time is not
// one clock tick. Runs in the calling process.
Result<double> time_reference(const Kernel& kernel, const Program& reference, const Shape& shape) {
  auto library = HostLibrary::open(reference.artifact);
  if (!library.ok()) return library.error();
  auto plan = plan_launch(kernel, nullptr, shape, {});
  if (!plan.ok()) return plan.error();
  HostData inputs = make_inputs(*plan, 1);
  double total = 0;
  int calls = 0;
  while (calls < 3 || (total < 0.02 && total < 1.0)) {
    auto start = std::chrono::steady_clock::now();
    DoubleData out = run_reference(**library, *plan, inputs);
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++calls;
    if (total >= 1.0) break;
  }
  return total / calls;
}

}  // namespace

Result<std::vector<ReferenceCost>> estimate_reference_costs(const Kernel& kernel,
                                                            const Program& reference,
                                                            const std::vector<std::string>& shapes,
                                                            double limit_s) {
  // The calibration shape: the largest of at most kCalibrationElements (not
  // an empty one, whose time is no work). Timing a larger shape would pay
  // what the estimate is meant to warn of.
  const Shape* calibration = nullptr;
  int64_t calibration_elements = 0;
  for (const Shape& s : kernel.shapes) {
    int64_t e = shape_elements(kernel, s);
    if (s.allow_empty || e <= 0 || e > kCalibrationElements) continue;
    if (!calibration || e > calibration_elements) {
      calibration = &s;
      calibration_elements = e;
    }
  }
  if (!calibration)
    return Error::bad_input(kernel.name + " has no shape of at most " +
                            std::to_string(kCalibrationElements) +
                            " buffer elements to time its reference on");
  ChildOutcome child = run_in_child(
      [&]() {
        auto seconds = time_reference(kernel, reference, *calibration);
        return seconds.ok() ? std::to_string(*seconds) : "error: " + seconds.error().message;
      },
      limit_s);
  if (!child.completed || child.payload.rfind("error: ", 0) == 0)
    return Error::bad_input(
        "the reference of " + kernel.name + " on shape '" + calibration->name +
        "': " + (child.completed ? child.payload.substr(7) : child.describe(limit_s)));
  const double seconds = std::stod(child.payload);
  const double elements = static_cast<double>(std::max<int64_t>(calibration_elements, 1));
  const double product = variable_product(*calibration);
  std::vector<ReferenceCost> costs;
  for (const Shape& s : kernel.shapes) {
    if (!shapes.empty() && std::find(shapes.begin(), shapes.end(), s.name) == shapes.end())
      continue;
    double work = std::max(static_cast<double>(shape_elements(kernel, s)) / elements,
                           variable_product(s) / product);
    ReferenceCost cost;
    cost.shape = s.name;
    cost.seconds = seconds * work;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3g", work);
    cost.basis = "timed " + format_seconds(seconds) + " on shape '" + calibration->name +
                 "', work x" + ratio;
    costs.push_back(std::move(cost));
  }
  return costs;
}

std::string reference_cost_warning(const Kernel& kernel, const ReferenceCost& cost,
                                   double time_limit_s) {
  const double threshold = std::min(kSlowReferenceS, time_limit_s / 4);
  if (cost.seconds < threshold) return "";
  std::string text = kernel.name + " / " + cost.shape + ": the host reference will take about " +
                     format_seconds(cost.seconds) + " per input set (" + cost.basis + ")";
  if (cost.seconds >= time_limit_s)
    text += ", more than the shape's time limit (" + format_seconds(time_limit_s) +
            "): the shape will be killed as a hang";
  text +=
      ". Remedies: a reference kernel for the GPU (\"reference\": {\"cuda\": ...}), the base as "
      "oracle (\"gate\": {\"oracle\": \"base\"} for shapes above "
      "gate.host_reference_max_elements), or references kept in $KGATE_CACHE_DIR/references "
      "(runs with the same seeds compute them once)";
  if (cost.seconds >= time_limit_s) text += "; or raise the kernel's timing.time_limit_s";
  return text;
}

std::vector<std::string> host_judged_shapes(const Kernel& kernel, const GatePolicy& policy,
                                            const std::string& backend, bool device_reference,
                                            const std::string& only) {
  std::vector<std::string> names;
  for (const Shape& s : kernel.shapes) {
    if ((!only.empty() && s.name != only) || !s.runs_on(backend)) continue;
    if (host_reference_judges(kernel, s, policy) || !device_reference) names.push_back(s.name);
  }
  return names;
}

void warn_slow_references(const Kernel& kernel, const Program& reference,
                          const std::vector<std::string>& shapes, double time_limit_s) {
  if (shapes.empty()) return;
  auto costs = estimate_reference_costs(kernel, reference, shapes, time_limit_s);
  if (!costs.ok()) {
    // Not knowing the cost changes nothing that runs: a note, not a warning.
    progress("the host reference's cost is not estimated: " + costs.error().message);
    return;
  }
  for (const ReferenceCost& cost : *costs)
    if (std::string w = reference_cost_warning(kernel, cost, time_limit_s); !w.empty()) warn(w);
}

}  // namespace kgate
