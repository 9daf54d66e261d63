#include "webhooks/job_executor.h"

#include <fstream>
#include <mutex>

#include "core/file_shield.h"
#include "core/redact.h"
#include "core/subprocess.h"
#include "gate/pull_head_fetch.h"
#include "webhooks/gate_check_publisher.h"
#include "webhooks/job_environment.h"
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
  // Where a job that may publish does: the service's forge, on the job's
  // repository. Gates run pull-request code and never get it.
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
      !is_git_repository(options_.repo))
    return true;
  PullHeadRequest request{.repo_dir = options_.repo,
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
  Result<PullHead> head = ensure_pull_head(request);
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

std::map<std::string, std::string> CommandJobExecutor::job_env(
    const StoredJob& job, const std::filesystem::path& job_dir,
    const ExecutionContext& context) const {
  bool pull_request_code =
      job.spec.kind == JobKind::kGate || job.spec.kind == JobKind::kAcceptRegression;
  std::map<std::string, std::string> env =
      job_environment(pull_request_code ? std::vector<std::string>{} : options_.env_extra);
  env["KGATE_JOB_ID"] = std::to_string(job.id);
  env["KGATE_JOB_ATTEMPT"] = std::to_string(job.attempts);
  env["KGATE_JOB_KIND"] = std::string(to_string(job.spec.kind));
  env["KGATE_JOB_DIR"] = job_dir.string();
  env["KGATE_DELIVERY"] = job.delivery;
  env["KGATE_JOB_REASON"] = job.spec.reason;
  env["TMPDIR"] = (job_dir / "tmp").string();
  if (context.gpu) env["CUDA_VISIBLE_DEVICES"] = std::to_string(*context.gpu);
  return env;
}

JobResult CommandJobExecutor::execute(const StoredJob& job, const ExecutionContext& context) {
  {
    JobResult refused;
    if (!prepare_pull_head(job, refused)) return refused;
  }
  std::filesystem::path job_dir = options_.state_dir / "jobs" / std::to_string(job.id);
  std::error_code ec;
  std::filesystem::create_directories(job_dir / "tmp", ec);
  std::vector<std::string> argv = options_.program;
  auto args = job_arguments(job, options_.repo, job_dir, options_.backend, options_.forge);
  argv.insert(argv.end(), args.begin(), args.end());

  JobResult result;
  // Built per job: the shield lists the folders around the secret files as they are now.
  auto shield = FileShield::make(options_.hidden_files);
  if (!shield.ok()) {
    static std::once_flag warned;
    std::call_once(warned, [&] {
      json_log({{"msg", "jobs can read the service's secret files"},
                {"reason", shield.error().message},
                {"advice",
                 "run kgate serve as a user that owns no secret the jobs may not read, "
                 "on Linux 5.19 or later"}});
    });
  }
  CommandOptions command;
  command.cwd = options_.repo.string();
  command.timeout_s = options_.timeout_s;
  command.cancel = context.cancel;
  command.clean_env = true;
  command.close_other_fds = true;
  command.env = job_env(job, job_dir, context);
  command.landlock_ruleset_fd = shield.ok() ? shield->ruleset_fd() : -1;

  bool gate = job.spec.kind == JobKind::kGate || job.spec.kind == JobKind::kAcceptRegression;
  std::string check_id;
  if (gate && options_.publisher && !job.spec.head.empty())
    check_id = options_.publisher->start(job.spec);

  auto outcome = run_command(argv, command);
  std::filesystem::remove_all(job_dir / "tmp", ec);
  if (!outcome.ok()) {
    result.outcome = redact(outcome.error().message);
  } else {
    result.seconds = outcome->seconds;
    // Keep the job's output next to its result for whoever investigates,
    // without a secret the job may have come across.
    std::ofstream(job_dir / "stdout.txt", std::ios::binary) << redact(outcome->out);
    std::ofstream(job_dir / "stderr.txt", std::ios::binary) << redact(outcome->err);
    if (outcome->cancelled) {
      result.cancelled = true;
      result.outcome = "cancelled by shutdown";
    } else if (outcome->succeeded()) {
      result.ok = true;
      result.outcome = "passed";
    } else if (!outcome->timed_out && outcome->signal == 0 && outcome->exit_code == 1) {
      result.ok = true;
      result.outcome = "check-failed";
    } else {
      result.retryable = !(outcome->signal == 0 && !outcome->timed_out && outcome->exit_code == 2);
      std::string err = redact(outcome->err);
      std::string tail = err.size() > 400 ? err.substr(err.size() - 400) : err;
      while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
      result.outcome = args.front() + " " + outcome->describe(command.timeout_s) +
                       (tail.empty() ? "" : ": " + tail);
    }
  }
  if (!check_id.empty()) {
    Status published =
        options_.publisher->finish(job.spec, check_id, result, job_dir / "result.json");
    if (!published.ok())
      json_log({{"msg", "cannot complete the check run"},
                {"job", job.id},
                {"error", published.error().message}});
  }
  return result;
}

}  // namespace kgate::webhooks
