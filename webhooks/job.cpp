#include "webhooks/job.h"

namespace kgate::webhooks {

std::string_view to_string(JobKind kind) {
  switch (kind) {
    case JobKind::kGate:
      return "gate";
    case JobKind::kOptimize:
      return "optimize";
    case JobKind::kBaseline:
      return "baseline";
    case JobKind::kSweep:
      return "sweep";
    case JobKind::kAcceptRegression:
      return "accept-regression";
    case JobKind::kRebase:
      return "rebase";
    case JobKind::kIgnore:
      return "ignore";
  }
  return "gate";
}

std::optional<JobKind> parse_job_kind(std::string_view text) {
  for (JobKind kind : {JobKind::kGate, JobKind::kOptimize, JobKind::kBaseline, JobKind::kSweep,
                       JobKind::kAcceptRegression, JobKind::kRebase, JobKind::kIgnore})
    if (to_string(kind) == text) return kind;
  return std::nullopt;
}

int job_priority(JobKind kind) {
  switch (kind) {
    case JobKind::kGate:
    case JobKind::kAcceptRegression:
      return 0;
    case JobKind::kBaseline:
    case JobKind::kIgnore:  // closes a pull request: seconds
      return 1;
    case JobKind::kOptimize:
    case JobKind::kRebase:  // a new episode
    case JobKind::kSweep:
      return kLongJobPriority;
  }
  return 1;
}

nlohmann::json JobSpec::to_json() const {
  nlohmann::json out = {{"kind", to_string(kind)}, {"repository", repository}};
  if (pull_number) out["pull_number"] = pull_number;
  if (!base.empty()) out["base"] = base;
  if (!head.empty()) out["head"] = head;
  if (!kernel.empty()) out["kernel"] = kernel;
  if (!reason.empty()) out["reason"] = reason;
  if (!requested_by.empty()) out["requested_by"] = requested_by;
  return out;
}

Result<JobSpec> JobSpec::from_json(const nlohmann::json& value) {
  if (!value.is_object()) return Error::bad_input("job: expected a JSON object");
  JobSpec spec;
  auto kind = parse_job_kind(value.value("kind", ""));
  if (!kind)
    return Error::bad_input(
        "job.kind: expected gate, optimize, baseline, sweep, accept-regression, rebase or "
        "ignore");
  spec.kind = *kind;
  try {
    spec.repository = value.value("repository", "");
    spec.pull_number = value.value("pull_number", int64_t{0});
    spec.base = value.value("base", "");
    spec.head = value.value("head", "");
    spec.kernel = value.value("kernel", "");
    spec.reason = value.value("reason", "");
    spec.requested_by = value.value("requested_by", "");
  } catch (const nlohmann::json::exception& e) {
    return Error::bad_input(std::string("job: ") + e.what());
  }
  return spec;
}

}  // namespace kgate::webhooks
