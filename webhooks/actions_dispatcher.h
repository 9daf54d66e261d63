#pragma once
// --dispatch actions: a job is not run here but handed to GitHub Actions by
// triggering workflow_dispatch of the repository's kgate workflow on the
// default branch, so that self-hosted GPU runners do the work with the
// workflow file of that branch (a pull request cannot change it). A
// dispatch that GitHub accepted is a finished job for this service.
//
// A gate reports back on the pull request's head commit, not on the
// dispatch ref: before dispatching, the service creates the `kgate` check
// run there, queued (it replaces a "waiting for approval" check of a fork's
// commit); the workflow gets its id and completes it (`kgate publish-check
// --check-run`). The dispatch asks for the run's id and address
// (return_run_details) and the check run links to the run (details_url).
//
// Invariants: a check run this dispatcher created is never left queued by a
// failed dispatch: it is completed with what went wrong. A dispatch that may
// have reached GitHub (a 5xx, a connection lost after sending) is never sent
// again, by the client or by the job queue (JobResult::retryable false): it
// may have started the run, and a second one would gate or optimize twice.
// The job's outcome says how to look for the run and start it by hand.
// A job queues at most one open check run per head: its creation (a POST
// that a 5xx may hide) is preceded by a look-up of the run an earlier
// attempt queued (external_id `kgate-job-<id>`), which is then used.
#include <memory>
#include <string>

#include "bot/github_client.h"
#include "webhooks/job_executor.h"

namespace kgate::webhooks {

struct ActionsDispatchOptions {
  std::string api_url = "https://api.github.com";  // GitHub Enterprise: https://HOST/api/v3
  // KGATE_GITHUB_TOKEN (or GITHUB_TOKEN) with actions:write, or the GitHub
  // App (which can also create the check runs; a token cannot).
  std::shared_ptr<bot::GitHubCredentials> credentials;
  std::string ref = "main";                          // the branch whose workflow file runs
  std::string gate_workflow = "kgate-gate.yml";      // gate and accept-regression jobs
  std::string work_workflow = "kgate-optimize.yml";  // optimize, rebase, ignore, baseline, sweep
  std::string check_name = "kgate";
  double timeout_s = 30;
  // Tests: validate request bodies, see the requests.
  std::function<void(const std::string& method, const std::string& url,
                     const std::optional<nlohmann::json>& body)>
      on_request;
};

class ActionsDispatcher : public JobExecutor {
 public:
  explicit ActionsDispatcher(ActionsDispatchOptions options);
  JobResult execute(const StoredJob& job, const ExecutionContext& context) override;

  // The workflow file and the request body for a job (`check_run`: the id of
  // the check run queued for a gate, sent as the `check_run` input).
  std::string workflow_for(const JobSpec& spec) const;
  nlohmann::json request_body(const StoredJob& job, const std::string& check_run = "") const;

 private:
  // The queued check run on the gate's head; empty (and `note` says why)
  // when the credentials cannot create one. An error: try the job again.
  Result<std::string> queue_check_run(const StoredJob& job, std::string& note);
  // The id of a check run an earlier attempt of this job queued on its head
  // (found by external_id); empty when there is none or it cannot be read.
  Result<std::string> find_queued_check_run(const StoredJob& job);
  void complete_check_run(const std::string& repository, const std::string& id,
                          const std::string& conclusion, const std::string& summary);

  ActionsDispatchOptions options_;
  std::shared_ptr<bot::GitHubClient> client_;  // null without credentials
};

}  // namespace kgate::webhooks
