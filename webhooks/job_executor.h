#pragma once
// Running one job. The service never runs a gate or an agent in its own
// process: a job is the kgate executable itself run as a subprocess (`kgate
// gate ...`, `kgate optimize KERNEL`, ...), so a job that crashes or hangs
// cannot take the service down, and the same commands run by hand or in
// GitHub Actions. A job runs code nobody reviewed (a pull request's kernels,
// generated candidates): it gets an allow-listed environment, no descriptor
// of the service, and the service's secret files hidden (job_environment.h);
// whatever it prints is redacted of known secrets before it is kept.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "webhooks/job_queue.h"

namespace kgate::webhooks {

class GateCheckPublisher;

struct ExecutionContext {
  int worker = 0;
  std::optional<int> gpu;                     // CUDA_VISIBLE_DEVICES for this worker
  const std::atomic<bool>* cancel = nullptr;  // shutdown: stop and give the job back
};

struct JobResult {
  bool ok = false;  // the job finished (a failed gate verdict is still ok)
  // For !ok: worth another attempt (infrastructure, timeout). False where the
  // job sent a request that must not be sent twice (a workflow dispatch) and
  // the server may have acted on it: the job fails, its outcome says how to
  // re-run it by hand.
  bool retryable = true;
  bool cancelled = false;  // stopped by shutdown; queued again
  std::string outcome;     // ok: "passed", "check-failed", "dispatched"; !ok: the reason
  double seconds = 0;
};

class JobExecutor {
 public:
  virtual ~JobExecutor() = default;
  virtual JobResult execute(const StoredJob& job, const ExecutionContext& context) = 0;
};

struct CommandExecutorOptions {
  std::vector<std::string> program;  // kgate itself ("/proc/self/exe" resolved) or a test script
  std::filesystem::path repo;
  std::filesystem::path state_dir;  // job outputs go to state_dir/jobs/<id>/
  double timeout_s = 3600;
  std::string backend = "auto";  // passed as --backend unless "auto" (kgate serve --backend)
  // Gate jobs' verdicts become check runs through this publisher, from the
  // service (the job holds no credentials); null: they publish nothing.
  GateCheckPublisher* publisher = nullptr;
  // Optimize, rebase and ignore jobs (trusted code of the default branch and
  // kgate's own candidates) open and close pull requests through this forge
  // (`--forge KIND --github-repo OWNER/NAME`); its credentials reach them only
  // through env_extra. Gates never get it. Empty: they publish nothing.
  std::string forge;
  // Variables passed to optimize, baseline and sweep jobs on top of the
  // allow-list (an agent's API key); never to gates, which run pull-request code.
  std::vector<std::string> env_extra;
  // Files and folders jobs must not read (secret_files() of the service).
  std::vector<std::filesystem::path> hidden_files;
  // Gate jobs of a pull request whose head is not in `repo` fetch it from
  // this remote (refs/pull/<N>/head, gate/pull_head_fetch.h) before running;
  // empty: never fetch. A `repo` that is not a git repository is left alone
  // (the job reports that itself).
  std::string fetch_remote = "origin";
  // The HTTPS password for that fetch (a private repository); null: none.
  std::function<Result<std::string>()> git_password;
};

// Runs `program + job_arguments(job)` through core/subprocess.h under a time
// limit. Exit 0 passed, 1 check failed (a verdict, not retried), 2 bad input
// (not retried), anything else (3, a signal, a time-out) is retried.
class CommandJobExecutor : public JobExecutor {
 public:
  explicit CommandJobExecutor(CommandExecutorOptions options) : options_(std::move(options)) {}
  JobResult execute(const StoredJob& job, const ExecutionContext& context) override;

  // The subcommand and its arguments for a job (without the program).
  static std::vector<std::string> job_arguments(const StoredJob& job,
                                                const std::filesystem::path& repo,
                                                const std::filesystem::path& job_dir,
                                                const std::string& backend = "auto",
                                                const std::string& forge = "");
  // The environment a job runs with (job_environment.h plus KGATE_JOB_*).
  std::map<std::string, std::string> job_env(const StoredJob& job,
                                             const std::filesystem::path& job_dir,
                                             const ExecutionContext& context) const;

 private:
  // Fills `result` and returns false when the job must not run.
  bool prepare_pull_head(const StoredJob& job, JobResult& result);

  CommandExecutorOptions options_;
  std::mutex fetch_mutex_;  // one fetch into the clone at a time (workers share it)
};

}  // namespace kgate::webhooks
