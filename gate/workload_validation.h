#pragma once
// In-model validation: a candidate is run inside the end-to-end workload
// before it is proposed (or a pull request's head before it merges). Two
// prepared trees, base and candidate (a kernel's source replaced), are built
// with the workload's build command and run interleaved, alternating which
// goes first, `runs` times each. Every candidate output must match the
// base's by the manifest's rules; per phase, the end-to-end latency samples
// are paired round by round and the ratio candidate/base gets a confidence
// interval (gate/paired_ratio.h). Optionally one candidate run goes under
// compute-sanitizer. docs/workload.md describes the section it produces.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workload_spec.h"
#include "gate/paired_ratio.h"
#include "gate/workload_comparison.h"

namespace kgate {

struct PhaseLatency {
  std::string phase;
  std::vector<double> base_ms, candidate_ms;  // paired by index
  double base_median_ms = 0, candidate_median_ms = 0;
  RatioInterval ratio;  // candidate / base
  // "faster" (interval below 1), "slower" (above 1 + max_regression),
  // "same" (inside the noise), "inconclusive" (too few samples).
  std::string verdict = "inconclusive";
};

// Invariant: proposable() only when status is "passed".
struct WorkloadValidation {
  // "passed", "output_changed", "slower", "no_gain" (nothing faster end to
  // end), "sanitizer" (compute-sanitizer found errors), "failed" (the
  // candidate's build or run failed).
  std::string status = "failed";
  std::string reason;              // one sentence for people
  int runs = 0;                    // per side
  OutputComparisonResult outputs;  // the worst candidate run against the base
  bool base_deterministic = true;  // the base's runs agree with each other
  std::string base_disagreement;
  std::vector<PhaseLatency> phases;
  std::optional<bool> sanitizer_clean;  // set when --sanitize ran
  std::string sanitizer_report;         // its tail when not clean
  std::vector<std::string> notes;

  bool proposable() const { return status == "passed"; }
  nlohmann::json to_json() const;
};

struct WorkloadValidationOptions {
  int runs = 0;                // 0: the spec's
  double confidence = 0;       // 0: the spec's, else 0.95
  double max_regression = -1;  // < 0: the spec's, else 0.03
  bool require_gain = true;    // a proposal must be faster end to end; a PR gate needs not
  bool sanitize = false;
  bool build = true;
};

// The verdict on paired latency samples of one phase.
PhaseLatency compare_phase_latency(const std::string& phase, const std::vector<double>& base_ms,
                                   const std::vector<double>& candidate_ms, double confidence,
                                   double max_regression);

// Latency samples of `phase` in one output: a number or an array of numbers
// at output[latency_field][phase]; empty when absent.
std::vector<double> latency_samples(const nlohmann::json& output, const std::string& latency_field,
                                    const std::string& phase);

// Decides status and reason from the comparisons and phase verdicts already filled in.
void decide(WorkloadValidation& v, bool require_gain);

// Builds and runs both trees (manifest folders). An Error only when the base
// cannot be built or run (infrastructure or a broken workload); a failing
// candidate is a WorkloadValidation with status "failed".
Result<WorkloadValidation> validate_in_workload(const WorkloadSpec& spec,
                                                const std::filesystem::path& base_root,
                                                const std::filesystem::path& candidate_root,
                                                const WorkloadValidationOptions& options);

// The "In-model validation" Markdown section of gate reports and pull requests.
std::string workload_validation_markdown(const nlohmann::json& validation);

}  // namespace kgate
