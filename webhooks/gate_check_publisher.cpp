#include "webhooks/gate_check_publisher.h"

#include "bot/gate_check_run.h"
#include "core/file_util.h"
#include "gate/gate_report.h"
#include "webhooks/job_executor.h"
#include "webhooks/json_log.h"
#include "webhooks/public_text.h"

namespace kgate::webhooks {

Result<bot::Forge*> GateCheckPublisher::forge(const std::string& repository) {
  auto it = forges_.find(repository);
  if (it == forges_.end()) {
    auto made = factory_(repository);
    if (!made.ok()) return made.error().with_context("forge for " + repository);
    it = forges_.emplace(repository, std::move(made.value())).first;
  }
  return it->second.get();
}

std::string GateCheckPublisher::start(const JobSpec& spec) {
  std::lock_guard lock(mutex_);
  auto f = forge(spec.repository);
  Result<std::string> id = f.ok() ? (*f)->start_check(spec.head, "kgate") : f.error();
  if (!id.ok()) {
    json_log({{"msg", "cannot start the check run"},
              {"repository", spec.repository},
              {"head_sha", spec.head},
              {"error", id.error().message}});
    return "";
  }
  return *id;
}

Status GateCheckPublisher::finish(const JobSpec& spec, const std::string& check_id,
                                  const JobResult& result,
                                  const std::filesystem::path& result_json) {
  bot::CheckRunReport report;
  // What went wrong is logged here in full; GitHub is told without this
  // machine's paths (the pull request's readers are not its operators).
  auto unreadable = [&](const std::string& why, const std::string& detail) {
    json_log({{"msg", "cannot read the gate's report"},
              {"head_sha", spec.head},
              {"file", result_json.string()},
              {"error", detail}});
    report = {};
    report.summary_markdown =
        "kgate could not read the gate's report (" + why + "); the service's log has the details.";
  };
  if (result.ok) {
    auto text = read_file(result_json);
    auto json = text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (json.is_object()) {
      try {
        GateReport gate = GateReport::from_json(json);
        report = bot::gate_check_run(gate, render_markdown(gate));
      } catch (const std::exception& e) {
        unreadable("not a gate report", e.what());
      }
    } else if (text.ok()) {
      unreadable("not JSON", "not a JSON object");
    } else {
      unreadable("the job wrote none", text.error().message);
    }
  } else {
    report.summary_markdown = result.cancelled
                                  ? "kgate was restarted while gating; the gate runs again."
                                  : "kgate could not finish this gate: " + result.outcome +
                                        (result.retryable ? "\n\nIt is tried again." : "");
  }
  if (report.conclusion.empty()) {
    report.title = "kgate: could not finish";
    report.conclusion = "neutral";
  }
  report.title = without_local_paths(report.title);
  report.summary_markdown = without_local_paths(report.summary_markdown);
  report.details_markdown = without_local_paths(report.details_markdown);
  for (auto& annotation : report.annotations) {
    annotation.title = without_local_paths(annotation.title);
    annotation.message = without_local_paths(annotation.message);
  }
  std::lock_guard lock(mutex_);
  auto f = forge(spec.repository);
  if (!f.ok()) return f.error();
  return (*f)->finish_check(check_id, spec.head, report);
}

}  // namespace kgate::webhooks
