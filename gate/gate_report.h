#pragma once
// The gate's results for people and machines: JSON, a Markdown summary (for
// check runs and job summaries), JUnit XML (for CI systems), and GitHub
// Actions workflow commands (::error annotations on the kernel source).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/ab_gate.h"

namespace kgate {

// Invariant: kernels holds every kernel gated, in the order gated.
struct GateReport {
  std::string repository;  // display name of the repository
  std::string base, head;  // revisions as given
  std::string base_commit, head_commit;
  std::string manifest_dir;  // manifest folder relative to the repository root ("" at root)
  int64_t pull_number = 0;   // the pull request gated (--pr); 0: none named
  std::vector<KernelGate> kernels;
  std::vector<std::string> notes;  // "no kernel changed", skipped kernels
  // The head's kgate.json does not load: a failed check of the change, with
  // the revision and the JSON path ("head (abc1234): kgate.json:
  // kernels[2].launch.grid[0]: evaluates to 0 for shape 'edge'"); nothing
  // was gated. Empty when it loads.
  std::string manifest_error;
  std::string manifest_file = "kgate.json";  // the head's manifest, relative to manifest_dir
  nlohmann::json workload;  // in-model validation (gate/workload_validation.h); null: not run

  bool passed() const;
  nlohmann::json to_json() const;
  static GateReport from_json(const nlohmann::json& j);
};

// Accepts the regressions of a gate (`/kgate accept-regression`): every shape
// that fails only for being slower passes, marked accepted_regression, with a
// note saying who accepted it. Incorrect, erroring and uncompiled kernels still
// fail. Returns how many shapes were accepted.
int accept_regressions(GateReport& report, const std::string& accepted_by);

// A per-shape table (kernel, shape, phase, base, head, change with interval,
// max error, verdict), failing rows first, then details of failures. Kept
// under `max_chars` (GitHub check runs allow 65535) by eliding rows.
std::string render_markdown(const GateReport& report, size_t max_chars = 65000);

// One <testsuite> per kernel, one <testcase> per shape; failing shapes are
// <failure>, errors <error>.
std::string render_junit(const GateReport& report);

// "::error file=...,line=1,title=...::message" lines for failing shapes and
// compile errors, paths relative to the repository root.
std::string render_github_annotations(const GateReport& report);

// Replaces `from` with `to` in every message of the report (reasons, notes,
// compile errors, the workload section): kgate gate reads revisions into a
// temporary folder whose path must not reach a report.
void rewrite_paths(GateReport& report, const std::string& from, const std::string& to);

// "+4.8% [+3.9, +5.6]"; "-" when there is no interval.
std::string format_change(const RatioInterval& interval);

}  // namespace kgate
