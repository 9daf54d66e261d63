#pragma once
// The manifest's `workload` section: the end-to-end program that the
// kernels serve (docs/workload.md). `kgate extract` traces it for the task
// list; candidates are validated inside it before they become proposals.
//
// Invariants after parse_workload_spec: command and output are non-empty;
// every comparison names a field and a known rule with non-negative
// tolerances; runs >= 2; timeout_s > 0.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/status.h"

namespace kgate {

// How one field of the workload's output JSON must agree between the base
// and a candidate: "equal" (same JSON value), or "close" (arrays of numbers,
// or a number, within atol + rtol * |base| element by element).
struct OutputComparison {
  std::string field;
  std::string rule = "equal";
  double atol = 0, rtol = 0;
};

struct WorkloadSpec {
  std::string build;    // shell command run in the manifest folder first; may be empty
  std::string command;  // shell command; {output} expands to the output file's path
  std::string output;   // the output file, relative to the manifest folder
  std::vector<std::string> phases = {"prefill", "decode"};  // NVTX range names
  std::vector<OutputComparison> compare;
  std::string latency;               // output field: {phase: ms or [ms...]}; empty: not timed
  int runs = 4;                      // base and candidate runs each, interleaved
  std::string sanitize_command;      // replaces `command` under compute-sanitizer; empty: command
  double timeout_s = 600;            // per build or run
  std::optional<double> confidence;  // of the latency interval; default: the gate's
  std::optional<double> max_regression;  // per phase; default: the gate's
};

// Reads the section; errors name `file` and the JSON path ("workload.compare[1].rule").
Result<WorkloadSpec> parse_workload_spec(const nlohmann::json& section, const std::string& file);

// The manifest's workload section, checked; nullopt when it has none. The
// loader rejects a bad section, so one that does not parse here (a Manifest
// built by hand) also reads as none.
std::optional<WorkloadSpec> workload_spec(const Manifest& manifest);

// `command` with every {output} replaced by `output_path`.
std::string expand_output(const std::string& command, const std::string& output_path);

}  // namespace kgate
