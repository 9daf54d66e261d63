#include "runner/reference_cost.h"

#include <algorithm>
#include <chrono>
#include <cmath>
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

double work_exponent(double t_a, int64_t e_a, double t_b, int64_t e_b) {
  if (t_a <= 0 || t_b <= 0 || e_a <= 0 || e_b <= 0 || e_a == e_b) return 1;
  double p = std::log(t_a / t_b) / std::log(static_cast<double>(e_a) / static_cast<double>(e_b));
  return std::isfinite(p) ? std::clamp(p, 1.0, 2.0) : 1.0;
}

Result<std::vector<ReferenceCost>> estimate_reference_costs(const Kernel& kernel,
                                                            const Program& reference,
                                                            const std::vector<std::string>& shapes,
                                                            double limit_s) {
  // The calibration shapes: the largest of at most kCalibrationElements (not
  // an empty one, whose time is no work), and the largest of at most half
  // its elements. Timing a larger shape would pay what the estimate is
  // meant to warn of.
  auto largest_up_to = [&](int64_t most) -> std::pair<const Shape*, int64_t> {
    std::pair<const Shape*, int64_t> best{nullptr, 0};
    for (const Shape& s : kernel.shapes) {
      int64_t e = shape_elements(kernel, s);
      if (s.allow_empty || e <= 0 || e > most) continue;
      if (!best.first || e > best.second) best = {&s, e};
    }
    return best;
  };
  const auto [big, big_elements] = largest_up_to(kCalibrationElements);
  if (!big)
    return Error::bad_input(kernel.name + " has no shape of at most " +
                            std::to_string(kCalibrationElements) +
                            " buffer elements to time its reference on");
  const auto [small, small_elements] = largest_up_to(big_elements / 2);
  ChildOutcome child = run_in_child(
      [&, big = big, small = small]() {
        std::string out;
        for (const Shape* s : {big, small}) {
          if (!s) break;
          auto seconds = time_reference(kernel, reference, *s);
          if (!seconds.ok()) return "error: " + seconds.error().message;
          out += std::to_string(*seconds) + " ";
        }
        return out;
      },
      limit_s);
  if (!child.completed || child.payload.rfind("error: ", 0) == 0)
    return Error::bad_input("the reference of " + kernel.name + " on shape '" + big->name + "': " +
                            (child.completed ? child.payload.substr(7) : child.describe(limit_s)));
  double t_big = 0, t_small = 0;
  std::sscanf(child.payload.c_str(), "%lf %lf", &t_big, &t_small);
  const double power = small ? work_exponent(t_big, big_elements, t_small, small_elements) : 1.0;
  std::string fitted = "power ";
  char power_text[32];
  std::snprintf(power_text, sizeof power_text, "%.2f", power);
  fitted += std::string(power_text) +
            (small ? " fitted with shape '" + small->name + "'" : " (one shape small enough)");
  std::vector<ReferenceCost> costs;
  for (const Shape& s : kernel.shapes) {
    if (!shapes.empty() && std::find(shapes.begin(), shapes.end(), s.name) == shapes.end())
      continue;
    double ratio = static_cast<double>(std::max<int64_t>(shape_elements(kernel, s), 1)) /
                   static_cast<double>(big_elements);
    ReferenceCost cost;
    cost.shape = s.name;
    cost.seconds = t_big * std::pow(ratio, power);
    char ratio_text[32];
    std::snprintf(ratio_text, sizeof ratio_text, "%.3g", ratio);
    cost.basis = "timed " + format_seconds(t_big) + " on shape '" + big->name + "', elements x" +
                 ratio_text + ", " + fitted;
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
