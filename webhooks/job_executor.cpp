#include "webhooks/job_executor.h"

#include <fstream>

#include "bot/pull_head_fetch.h"
#include "core/subprocess.h"
#include "webhooks/json_log.h"

namespace kgate::webhooks {

std::vector<std::string> CommandJobExecutor::job_arguments(const StoredJob& job,
                                                           const std::filesystem::path& repo,
                                                           const std::filesystem::path& job_dir,
                                                           const std::string& backend,
                                                           const std::string& forge) {
  const JobSpec& spec = job.spec;
  std::vector<std::string> args;
  auto add_revisions = [&] {
    if (!spec.base.empty()) args.insert(args.end(), {"--base", spec.base});
    if (!spec.head.empty()) args.insert(args.end(), {"--head", spec.head});
  };
  // Where the job publishes: the service's forge, on the job's repository.
  auto add_forge = [&] {
    if (forge.empty()) return;
    args.insert(args.end(), {"--forge", forge});
    if (forge == "github" && !spec.repository.empty())
      args.insert(args.end(), {"--github-repo", spec.repository});
  };
  switch (spec.kind) {
    case JobKind::kGate:
    case JobKind::kAcceptRegression:
      args = {"gate", "--repo", repo.string()};
      add_revisions();
      if (spec.pull_number) args.insert(args.end(), {"--pr", std::to_string(spec.pull_number)});
      if (spec.kind == JobKind::kAcceptRegression) args.push_back("--accept-regression");
      add_forge();
      args.insert(args.end(), {"--json", (job_dir / "result.json").string()});
      break;
    case JobKind::kOptimize:
    case JobKind::kRebase:
      args = {"optimize", spec.kernel, "--repo", repo.string()};
      if (!spec.head.empty()) args.insert(args.end(), {"--ref", spec.head});
      // `/kgate rebase`: a new episode, and the branch taken over from whoever pushed to it.
      if (spec.kind == JobKind::kRebase) args.insert(args.end(), {"--new", "--take-over"});
      if (!spec.requested_by.empty()) args.push_back("--unignore");
      add_forge();
      break;
    case JobKind::kIgnore:
      args = {"prs",      "--repo",   repo.string(), "--ignore", std::to_string(spec.pull_number),
              "--kernel", spec.kernel};
      if (!spec.requested_by.empty()) args.insert(args.end(), {"--by", spec.requested_by});
      add_forge();
      return args;  // no backend: nothing is measured
    case JobKind::kBaseline:
      args = {"baseline", "record", "--repo", repo.string()};
      if (!spec.kernel.empty()) args.insert(args.end(), {"--kernel", spec.kernel});
      if (!spec.head.empty()) args.insert(args.end(), {"--ref", spec.head});
      break;
    case JobKind::kSweep:
      args = {"sweep", "--repo", repo.string()};
      break;
  }
  if (backend != "auto") args.insert(args.end(), {"--backend", backend});
  return args;
}

bool CommandJobExecutor::prepare_pull_head(const StoredJob& job, JobResult& result) {
  const JobSpec& spec = job.spec;
  bool gate = spec.kind == JobKind::kGate || spec.kind == JobKind::kAcceptRegression;
  if (!gate || spec.pull_number <= 0 || spec.head.empty() || options_.fetch_remote.empty() ||
      !bot::is_git_repository(options_.repo))
    return true;
  bot::PullHeadRequest request{.repo_dir = options_.repo,
                               .pull_number = spec.pull_number,
                               .head_sha = spec.head,
                               .base_sha = spec.base.size() == 40 ? spec.base : "",
                               .remote = options_.fetch_remote};
  std::string pr = "pull request #" + std::to_string(spec.pull_number);
  std::lock_guard lock(fetch_mutex_);
  if (options_.git_password) {
    Result<std::string> password = options_.git_password();
    if (password.ok()) request.password = *password;
  }
  Result<bot::PullHead> head = bot::ensure_pull_head(request);
  if (!head.ok()) {
    // A network or credential failure may pass; a missing remote or a
    // malformed commit id will not.
    result.retryable = head.error().kind == ExitCode::kInfrastructure;
    result.outcome = "fetching the head of " + pr + ": " + head.error().message;
    return false;
  }
  if (head->commit != spec.head) {
    // The head moved (a newer push): gating it here would gate a commit
    // nobody approved for this job; its own synchronize event queues it.
    result.retryable = false;
    result.outcome = pr + "'s head is now " + head->commit.substr(0, 12) + ", not " +
                     spec.head.substr(0, 12) +
                     " (pushed since this event): not gated; the event for the new head gates it";
    return false;
  }
  if (head->fetched)
    json_log({{"msg", "pull request head fetched"},
              {"job", job.id},
              {"pull_number", spec.pull_number},
              {"head_sha", spec.head},
              {"ref", head->ref}});
  return true;
}

JobResult CommandJobExecutor::execute(const StoredJob& job, const ExecutionContext& context) {
  {
    JobResult refused;
    if (!prepare_pull_head(job, refused)) return refused;
  }
  std::filesystem::path job_dir = options_.state_dir / "jobs" / std::to_string(job.id);
  std::error_code ec;
  std::filesystem::create_directories(job_dir, ec);
  std::vector<std::string> argv = options_.program;
  auto args = job_arguments(job, options_.repo, job_dir, options_.backend, options_.forge);
  argv.insert(argv.end(), args.begin(), args.end());

  CommandOptions command;
  command.cwd = options_.repo.string();
  command.timeout_s = options_.timeout_s;
  command.cancel = context.cancel;
  command.env = {{"KGATE_JOB_ID", std::to_string(job.id)},
                 {"KGATE_JOB_ATTEMPT", std::to_string(job.attempts)},
                 {"KGATE_JOB_KIND", std::string(to_string(job.spec.kind))},
                 {"KGATE_JOB_DIR", job_dir.string()},
                 {"KGATE_DELIVERY", job.delivery},
                 {"KGATE_JOB_REASON", job.spec.reason}};
  if (context.gpu) command.env["CUDA_VISIBLE_DEVICES"] = std::to_string(*context.gpu);

  JobResult result;
  auto outcome = run_command(argv, command);
  if (!outcome.ok()) {
    result.outcome = outcome.error().message;
    return result;
  }
  result.seconds = outcome->seconds;
  // Keep the job's output next to its result for whoever investigates.
  std::ofstream(job_dir / "stdout.txt", std::ios::binary) << outcome->out;
  std::ofstream(job_dir / "stderr.txt", std::ios::binary) << outcome->err;
  if (outcome->cancelled) {
    result.cancelled = true;
    result.outcome = "cancelled by shutdown";
    return result;
  }
  if (outcome->succeeded()) {
    result.ok = true;
    result.outcome = "passed";
  } else if (!outcome->timed_out && outcome->signal == 0 && outcome->exit_code == 1) {
    result.ok = true;
    result.outcome = "check-failed";
  } else {
    result.retryable = !(outcome->signal == 0 && !outcome->timed_out && outcome->exit_code == 2);
    std::string tail =
        outcome->err.size() > 400 ? outcome->err.substr(outcome->err.size() - 400) : outcome->err;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    result.outcome = args.front() + " " + outcome->describe(command.timeout_s) +
                     (tail.empty() ? "" : ": " + tail);
  }
  return result;
}

}  // namespace kgate::webhooks
