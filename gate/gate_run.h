#pragma once
// What `kgate gate` does, without the command line: write out the base and
// head revisions of a git repository (gate/revision_checkout.h), load each
// revision's kgate.json, pick the kernels the change touches
// (gate/kernel_changes.h), gate each (gate/ab_gate.h) against the stored
// baselines, and return the report with the exit status. cli/cmd_gate.cpp
// parses flags, publishes the check run and prints; tests call this in
// process.
//
// It runs in two steps so that a caller can show "in progress" on the head
// commit between them (the check run): `GateRun::prepare` reads the
// revisions and decides what is gated; `GateRun::measure` measures.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "gate/gate_report.h"
#include "gate/kernel_changes.h"
#include "gate/revision_checkout.h"
#include "runner/backend.h"

namespace kgate {

struct GateRunOptions {
  bool all = false;                          // every kernel, changed or not
  std::string kernel;                        // "a" or "a,b": only these; empty: every kernel gated
  std::string backend = "auto";              // host, cuda, or auto (cuda when a GPU is found)
  std::filesystem::path baselines;           // empty: <head manifest folder>/baselines
  double budget_s = 0;                       // per kernel-shape; 0: the manifest's
  std::optional<GatePolicy::Oracle> oracle;  // nullopt: the manifest's gate.oracle
  uint64_t seed = 0;                         // 0: drawn from the clock
  int gpu = 0;
  // compute-sanitizer tools on the head's check of each shape; nullopt: the
  // manifest's gate.sanitize.
  std::optional<std::vector<std::string>> sanitize_kernels;
  bool workload = false;    // also validate head inside the manifest's workload
  bool sanitize = false;    // with `workload`: one head run under compute-sanitizer
  int64_t pull_number = 0;  // the pull request gated (0: none), named in the report
  // Set: a shape that is only slower passes, recorded as accepted by this
  // (a maintainer's `/kgate accept-regression`, or "--accept-regression").
  std::optional<std::string> accept_regression_by;
};

// Invariant: exit_code() is 1 (ExitCode::kCheckFailed) when the change fails
// the check (the head's kgate.json does not load, a head does not compile, a
// shape fails), else 3 (kInfrastructure) when a shape could not be measured,
// else 0.
struct GateResult {
  GateReport report;  // paths read as in the repository, never the checkouts'
  bool failed_check = false;
  bool infrastructure_error = false;
  int exit_code() const;
};

// Invariant: between prepare and destruction, the two checkouts exist and
// the manifests' roots point into them.
class GateRun {
 public:
  // Opens the repository (any folder inside it), resolves both revisions
  // (errors say "--base" / "--head"), writes them out, loads both manifests
  // and picks the kernels to gate. Errors here are the caller's input or the
  // machine: nothing has been measured. A head whose kgate.json does not load
  // is not an error: it is a failed check in the report.
  static Result<GateRun> prepare(const std::filesystem::path& repo, const std::string& base,
                                 const std::string& head, const GateRunOptions& options);
  GateRun(GateRun&&) noexcept;
  GateRun& operator=(GateRun&&) = delete;
  ~GateRun();

  const std::string& head_commit() const;
  // Gates the picked kernels. An Error stops the gate; its message names no
  // temporary folder.
  Result<GateResult> measure();

 private:
  struct State;
  explicit GateRun(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// prepare, then measure.
Result<GateResult> run_gate(const std::filesystem::path& repo, const std::string& base,
                            const std::string& head, const GateRunOptions& options);

}  // namespace kgate
