#pragma once
// --dispatch actions: a job is not run here but handed to GitHub Actions by
// triggering workflow_dispatch of the repository's kgate workflow, so that
// self-hosted GPU runners do the work. A dispatch that GitHub accepted is a
// finished job for this service.
#include <string>

#include "webhooks/job_executor.h"

namespace kgate::webhooks {

struct ActionsDispatchOptions {
  std::string api_url = "https://api.github.com";    // GitHub Enterprise: https://HOST/api/v3
  std::string token;                                 // KGATE_GITHUB_TOKEN or GITHUB_TOKEN
  std::string ref = "main";                          // the branch whose workflow file runs
  std::string gate_workflow = "kgate-gate.yml";      // gate and accept-regression jobs
  std::string work_workflow = "kgate-optimize.yml";  // optimize, baseline, sweep jobs
  double timeout_s = 30;
};

class ActionsDispatcher : public JobExecutor {
 public:
  explicit ActionsDispatcher(ActionsDispatchOptions options) : options_(std::move(options)) {}
  JobResult execute(const StoredJob& job, const ExecutionContext& context) override;

  // The workflow file and the request body for a job.
  std::string workflow_for(const JobSpec& spec) const;
  nlohmann::json request_body(const StoredJob& job) const;

 private:
  ActionsDispatchOptions options_;
};

}  // namespace kgate::webhooks
