#include "bot/check_run_publisher.h"

namespace kgate::bot {

Result<CheckRunHandle> start_check_run(Forge& forge, const std::string& head_sha,
                                       const std::string& name) {
  Result<std::string> id = forge.start_check(head_sha, name);
  if (!id.ok()) return id.error();
  return CheckRunHandle(forge, head_sha, *id);
}

Status publish_check_run(Forge& forge, const std::string& head_sha, const CheckRunReport& report) {
  if (!is_valid_conclusion(report.conclusion))
    return Error::bad_input("'" + report.conclusion + "' is not a check-run conclusion");
  Result<CheckRunHandle> handle = start_check_run(forge, head_sha, report.name);
  if (!handle.ok()) return handle.error();
  return handle->finish(report);
}

}  // namespace kgate::bot
