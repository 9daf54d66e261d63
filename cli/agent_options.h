#pragma once
// Options shared by `kgate optimize` and `kgate sweep`: the agent, the
// episode's limits and the A/B sampling.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "agent/optimize_job.h"

namespace kgate::cli {

struct AgentCliOptions {
  std::string repo = ".";
  std::string state_dir;  // empty: <repo>/.kgate (or KGATE_STATE_DIR)
  std::string backend = "auto";
  std::string agent = "tuner";
  std::string agent_command;
  double agent_timeout_s = 600;
  std::string answers;  // --agent replay: a folder of recorded turns
  int max_iters = 8;
  int patience = 4;
  bool reflect_with_plan = false;  // one model turn per iteration
  double budget_s = 0;
  uint64_t seed = 1;
  bool fresh = false;
  int min_samples = 10;
  int max_samples = 30;
  double shape_budget_s = 0;  // 0: the manifest's gate budget_s
  std::string shapes;         // comma-separated; empty: every shape
  std::string phases;         // comma-separated; empty: every phase
  std::string evaluator = "gate";
  bool no_in_model = false;    // skip validation inside the manifest's workload
  bool sanitize = false;       // in-model: one candidate run under compute-sanitizer
  std::string profile = "on";  // "on", "timing" (no CUPTI counters) or "off"
};

void add_agent_options(CLI::App& app, AgentCliOptions& o);
// Resolves backend "auto" and the state dir; fills OptimizeOptions.
OptimizeOptions to_optimize_options(const AgentCliOptions& o, const Manifest& manifest,
                                    const std::string& backend);
std::string resolve_backend(const std::string& backend);

}  // namespace kgate::cli
