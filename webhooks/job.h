#pragma once
// A unit of work the service runs (or dispatches): gate a pull request,
// optimize a kernel, re-record baselines, sweep, accept a regression, and
// the bot commands on kgate's own pull requests (rebase, ignore).
// Invariant: a JobSpec round-trips through to_json/from_json unchanged; the
// JSON form is what the queue stores and what workflow_dispatch receives.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace kgate::webhooks {

enum class JobKind { kGate, kOptimize, kBaseline, kSweep, kAcceptRegression, kRebase, kIgnore };

// "gate", "optimize", "baseline", "sweep", "accept-regression", "rebase", "ignore"
std::string_view to_string(JobKind kind);
std::optional<JobKind> parse_job_kind(std::string_view text);

// Order in the queue, lowest first: gates and accept-regression (a person
// waits on the pull request) 0, baselines 1, optimize and sweep 2 (long).
int job_priority(JobKind kind);
inline constexpr int kLongJobPriority = 2;

struct JobSpec {
  JobKind kind = JobKind::kGate;
  std::string repository;  // owner/name
  int64_t pull_number = 0;
  std::string base;    // commit id or branch the head is compared against
  std::string head;    // commit id under test
  std::string kernel;  // optimize/baseline of one kernel; empty: all
  std::string reason;  // what asked for it: "pull_request synchronize", "/kgate rerun by alice"
  // The login whose `/kgate` command asked for it (empty: an event did). An
  // optimize someone asked for proposes even for a kernel `/kgate ignore`d.
  std::string requested_by;

  nlohmann::json to_json() const;
  static Result<JobSpec> from_json(const nlohmann::json& value);
  bool operator==(const JobSpec&) const = default;
};

}  // namespace kgate::webhooks
