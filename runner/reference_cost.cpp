#include "runner/reference_cost.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/log.h"
#include "core/number_format.h"
#include "core/subprocess.h"
#include "runner/host/host_library.h"
#include "runner/launch_plan.h"
#include "runner/oracle_choice.h"
#include "runner/reference.h"

namespace kgate {
namespace {

// CPU seconds of this thread: on a loaded machine wall time over a few
// milliseconds is mostly other processes' turns.
double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU seconds per call of the reference function on `shape`, the call alone:
// filling its outputs and converting in/out buffers (run_reference's setup)
// is left out, so a tiny shape measures the reference's work, not a fixed
// setup that a scaled estimate would multiply. Runs in the calling process.
Result<double> time_reference(const Kernel& kernel, const Program& reference, const Shape& shape) {
  auto library = HostLibrary::open(reference.artifact);
  if (!library.ok()) return library.error();
  auto plan = plan_launch(kernel, nullptr, shape, {});
  if (!plan.ok()) return plan.error();
  HostData inputs = make_inputs(*plan, 1);
  // As run_reference lays them out: inputs in place, outputs and in/out
  // buffers in double (in/out ones restored before every call).
  DoubleData outputs(plan->args.size()), fresh(plan->args.size());
  HostData scratch(plan->args.size());
  std::vector<ArgSlot> slots;
  for (size_t i = 0; i < plan->args.size(); ++i) {
    const ArgPlan& a = plan->args[i];
    if (!a.buffer()) {
      slots.push_back(a.scalar);
      continue;
    }
    void* pointer = const_cast<unsigned char*>(inputs[i].data());
    if (a.arg->role == ArgRole::kScratch) {
      scratch[i].resize(a.bytes);
      pointer = scratch[i].data();
    } else if (a.arg->role != ArgRole::kInput) {
      outputs[i].assign(a.count, std::nan(""));
      if (a.arg->role == ArgRole::kInOut) {
        convert_to_doubles(a.arg->dtype, inputs[i].data(), a.count, outputs[i].data());
        fresh[i] = outputs[i];
      }
      pointer = outputs[i].data();
    }
    slots.push_back(leaf_slot(a, reinterpret_cast<uint64_t>(pointer)));
  }
  std::vector<void*> pointers;
  for (ArgSlot& slot : slots) pointers.push_back(slot.data());
  // Batches of 1, 2, 4, ... calls between two clock reads (a tiny shape's
  // call is shorter than reading the clock) until one takes 10 ms.
  double per_call = 0;
  for (int batch = 1;; batch *= 2) {
    const double start = thread_cpu_seconds();
    for (int c = 0; c < batch; ++c) {
      for (size_t i = 0; i < fresh.size(); ++i)
        if (!fresh[i].empty())  // in place: the slots hold the buffers' addresses
          std::memcpy(outputs[i].data(), fresh[i].data(), fresh[i].size() * sizeof(double));
      (*library)->call(pointers.data());
    }
    const double took = thread_cpu_seconds() - start;
    per_call = took / batch;
    if (took >= 0.01 || batch >= (1 << 20)) break;
  }
  return per_call;
}

}  // namespace

double work_exponent(double t_a, int64_t e_a, double t_b, int64_t e_b) {
  if (t_a <= 0 || t_b <= 0 || e_a <= 0 || e_b <= 0 || e_a == e_b) return 1;
  double p = std::log(t_a / t_b) / std::log(static_cast<double>(e_a) / static_cast<double>(e_b));
  return std::isfinite(p) ? std::clamp(p, 1.0, 1.5) : 1.0;
}

Result<std::vector<ReferenceCost>> estimate_reference_costs(const Kernel& kernel,
                                                            const Program& reference,
                                                            const std::vector<std::string>& shapes,
                                                            double limit_s) {
  // The calibration shapes: the largest of at most kCalibrationElements (not
  // an empty one, whose time is no work), and the largest of at most a
  // quarter of its elements. Timing a larger shape would pay what the estimate is
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
  const auto [small, small_elements] = largest_up_to(big_elements / 4);
  ChildOutcome child = run_in_child(
      [&, big = big, small = small]() {
        std::string out;
        for (const Shape* s : {big, small}) {
          if (!s) break;
          auto seconds = time_reference(kernel, reference, *s);
          if (!seconds.ok()) return "error: " + seconds.error().message;
          char text[32];  // every digit: a tiny shape's time is microseconds
          std::snprintf(text, sizeof text, "%.9g ", *seconds);
          out += text;
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
  // A shape no larger than the calibration shape costs about what timing it
  // would: only larger ones are worth the child that estimates them, so an
  // ordinary run of small shapes pays nothing for the estimate.
  std::vector<std::string> larger;
  for (const std::string& name : shapes)
    if (const Shape* s = kernel.shape(name); s && shape_elements(kernel, *s) > kCalibrationElements)
      larger.push_back(name);
  if (larger.empty()) return;
  auto costs = estimate_reference_costs(kernel, reference, larger, time_limit_s);
  if (!costs.ok()) {
    // Not knowing the cost changes nothing that runs: a note, not a warning.
    progress("the host reference's cost is not estimated: " + costs.error().message);
    return;
  }
  for (const ReferenceCost& cost : *costs)
    if (std::string w = reference_cost_warning(kernel, cost, time_limit_s); !w.empty()) warn(w);
}

}  // namespace kgate
