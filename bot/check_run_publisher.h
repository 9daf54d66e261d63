#pragma once
// Publishing the gate's verdict on a commit through any forge: a check run
// started in progress and completed with the report (or, for a forge set to
// commit statuses, a pending status then the final one).
#include <string>

#include "bot/check_run_report.h"
#include "bot/forge.h"

namespace kgate::bot {

// For callers that start the check when measuring begins and finish it later.
class CheckRunHandle {
 public:
  CheckRunHandle(Forge& forge, std::string head_sha, std::string id)
      : forge_(forge), head_sha_(std::move(head_sha)), id_(std::move(id)) {}
  Status finish(const CheckRunReport& report) {
    return forge_.finish_check(id_, head_sha_, report);
  }
  const std::string& id() const { return id_; }

 private:
  Forge& forge_;
  std::string head_sha_;
  std::string id_;
};

Result<CheckRunHandle> start_check_run(Forge& forge, const std::string& head_sha,
                                       const std::string& name = "kgate");

// Start and finish in one go, when the report is already complete.
Status publish_check_run(Forge& forge, const std::string& head_sha, const CheckRunReport& report);

}  // namespace kgate::bot
