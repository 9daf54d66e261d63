#include "gate/calibration.h"

#include <cmath>

#include "core/log.h"
#include "gate/paired_ratio.h"
#include "runner/measure_setup.h"

namespace kgate {

nlohmann::json ShapeCalibration::to_json() const {
  return {{"shape", shape},
          {"phase", phase},
          {"runs", runs},
          {"false_alarms", false_alarms},
          {"false_alarm_rate", false_alarm_rate()},
          {"inconclusive", inconclusive},
          {"errors", errors},
          {"noise_floor", noise_floor},
          {"median_half_width", median_half_width},
          {"median_rounds", median_rounds},
          {"mean_seconds", mean_seconds},
          {"estimates", estimates}};
}

nlohmann::json KernelCalibration::to_json() const {
  nlohmann::json j = {{"kernel", kernel},
                      {"backend", backend},
                      {"device", device},
                      {"policy",
                       {{"max_regression", policy.max_regression},
                        {"min_improvement", policy.min_improvement},
                        {"confidence", policy.confidence},
                        {"budget_s", policy.budget_s},
                        {"resolution", policy.resolution}}},
                      {"shapes", nlohmann::json::array()}};
  for (const ShapeCalibration& s : shapes) j["shapes"].push_back(s.to_json());
  return j;
}

Result<KernelCalibration> calibrate_kernel(const Manifest& manifest, const Kernel& kernel,
                                           Backend& backend, int runs, const GateOptions& options) {
  const Implementation* impl = kernel.implementation(backend.name());
  if (!impl)
    return Error::bad_input(kernel.name + " has no \"" + backend.name() + "\" implementation");
  auto compiled = compile_implementation(kernel, *impl, backend, manifest.root);
  if (!compiled.ok()) return compiled.error();
  if (!compiled->ok)
    return Error::bad_input(kernel.name + " does not compile:\n" + compiled->digest());

  KernelCalibration out;
  out.kernel = kernel.name;
  out.backend = backend.name();
  out.policy = options.policy.value_or(manifest.gate);
  GateSources sources;
  sources.head.program = compiled->program;
  sources.base = sources.head;  // A/A: the same program on both sides
  std::vector<std::vector<double>> half_widths, rounds, seconds;
  for (int run = 0; run < runs; ++run) {
    progress("A/A run " + std::to_string(run + 1) + " of " + std::to_string(runs) + " for " +
             kernel.name);
    GateOptions o = options;
    if (o.seed) o.seed += static_cast<uint64_t>(run) * 100003;
    auto gated = gate_kernel(manifest, kernel, backend, sources, o);
    if (!gated.ok()) return gated.error();
    if (out.device.empty()) out.device = gated->device.name;
    for (size_t i = 0; i < gated->shapes.size(); ++i) {
      const ShapeGate& s = gated->shapes[i];
      if (out.shapes.size() <= i) {
        out.shapes.push_back({s.shape, s.phase});
        half_widths.emplace_back();
        rounds.emplace_back();
        seconds.emplace_back();
      }
      ShapeCalibration& c = out.shapes[i];
      ++c.runs;
      if (s.verdict == Verdict::kSlower || s.verdict == Verdict::kFaster) ++c.false_alarms;
      if (s.verdict == Verdict::kInconclusive) ++c.inconclusive;
      if (s.verdict == Verdict::kError || s.verdict == Verdict::kIncorrect) {
        ++c.errors;
        continue;
      }
      c.estimates.push_back(s.interval.estimate);
      if (std::isfinite(s.interval.high) && s.interval.low > 0)
        half_widths[i].push_back((s.interval.high - s.interval.low) / 2);
      rounds[i].push_back(s.rounds);
      seconds[i].push_back(s.timing_seconds);
    }
  }
  for (size_t i = 0; i < out.shapes.size(); ++i) {
    ShapeCalibration& c = out.shapes[i];
    std::vector<double> deviations;
    for (double e : c.estimates) deviations.push_back(std::abs(e - 1));
    c.noise_floor = deviations.empty() ? 0 : quantile(deviations, 0.95);
    c.median_half_width = half_widths[i].empty() ? 0 : quantile(half_widths[i], 0.5);
    c.median_rounds = rounds[i].empty() ? 0 : quantile(rounds[i], 0.5);
    double total = 0;
    for (double s : seconds[i]) total += s;
    c.mean_seconds = seconds[i].empty() ? 0 : total / seconds[i].size();
  }
  return out;
}

}  // namespace kgate
