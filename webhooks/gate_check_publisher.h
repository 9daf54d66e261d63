#pragma once
// Gate verdicts published by the service, not by the job. A gate job runs
// pull-request code, so it gets no GitHub credentials (job_environment.h);
// the service starts the `kgate` check run on the head commit before the job
// (in progress), and after it completes the run from the report the job
// wrote (STATE/jobs/ID/result.json), or as neutral with the reason when the
// job did not finish.
// Invariant: a check run started here is completed here, whatever the job
// did; a forge that cannot be reached costs the job nothing but the check run.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "bot/forge.h"
#include "webhooks/job.h"

namespace kgate::webhooks {

struct JobResult;

class GateCheckPublisher {
 public:
  using ForgeFactory = std::function<Result<std::unique_ptr<bot::Forge>>(const std::string&)>;
  explicit GateCheckPublisher(ForgeFactory factory) : factory_(std::move(factory)) {}

  // The check run's id, or empty when it could not be started (logged).
  std::string start(const JobSpec& spec);
  // Completes the check run `check_id` of `spec` with the job's report.
  Status finish(const JobSpec& spec, const std::string& check_id, const JobResult& result,
                const std::filesystem::path& result_json);

 private:
  Result<bot::Forge*> forge(const std::string& repository);

  ForgeFactory factory_;
  std::mutex mutex_;  // forges are shared by the workers
  std::map<std::string, std::unique_ptr<bot::Forge>> forges_;
};

}  // namespace kgate::webhooks
