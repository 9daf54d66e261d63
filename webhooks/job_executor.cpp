#include "webhooks/job_executor.h"

#include <fstream>

#include "core/subprocess.h"

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
  switch (spec.kind) {
    case JobKind::kGate:
    case JobKind::kAcceptRegression:
      args = {"gate", "--repo", repo.string()};
      add_revisions();
      if (spec.pull_number) args.insert(args.end(), {"--pr", std::to_string(spec.pull_number)});
      if (spec.kind == JobKind::kAcceptRegression) args.push_back("--accept-regression");
      if (!forge.empty()) {
        args.insert(args.end(), {"--forge", forge});
        if (forge == "github" && !spec.repository.empty())
          args.insert(args.end(), {"--github-repo", spec.repository});
      }
      args.insert(args.end(), {"--json", (job_dir / "result.json").string()});
      break;
    case JobKind::kOptimize:
      args = {"optimize", spec.kernel, "--repo", repo.string()};
      if (!spec.head.empty()) args.insert(args.end(), {"--ref", spec.head});
      break;
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

JobResult CommandJobExecutor::execute(const StoredJob& job, const ExecutionContext& context) {
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
