#include "webhooks/actions_dispatcher.h"

#include <chrono>

#include <httplib.h>

namespace kgate::webhooks {

std::string ActionsDispatcher::workflow_for(const JobSpec& spec) const {
  return spec.kind == JobKind::kGate || spec.kind == JobKind::kAcceptRegression
             ? options_.gate_workflow
             : options_.work_workflow;
}

nlohmann::json ActionsDispatcher::request_body(const StoredJob& job) const {
  // workflow_dispatch inputs are strings; empty ones are left out, and each
  // workflow gets only the inputs it declares (GitHub refuses others with 422).
  const JobSpec& spec = job.spec;
  nlohmann::json inputs = {{"command", std::string(to_string(spec.kind))},
                           {"job_id", std::to_string(job.id)}};
  if (!spec.head.empty()) inputs["head"] = spec.head;
  if (workflow_for(spec) == options_.gate_workflow) {
    if (spec.pull_number) inputs["pr"] = std::to_string(spec.pull_number);
    if (!spec.base.empty()) inputs["base"] = spec.base;
  } else if (!spec.kernel.empty()) {
    inputs["kernel"] = spec.kernel;
  }
  return {{"ref", options_.ref}, {"inputs", inputs}};
}

JobResult ActionsDispatcher::execute(const StoredJob& job, const ExecutionContext&) {
  auto start = std::chrono::steady_clock::now();
  JobResult result;
  if (options_.token.empty()) {
    result.retryable = false;
    result.outcome =
        "--dispatch actions needs a token in KGATE_GITHUB_TOKEN (or GITHUB_TOKEN) "
        "with actions:write on " +
        job.spec.repository;
    return result;
  }
  std::string path_prefix;
  std::string base = options_.api_url;
  // httplib's client takes scheme://host:port; a path (GitHub Enterprise's /api/v3) goes on each
  // request.
  if (size_t scheme = base.find("://"); scheme != std::string::npos) {
    size_t slash = base.find('/', scheme + 3);
    if (slash != std::string::npos) {
      path_prefix = base.substr(slash);
      base = base.substr(0, slash);
    }
  }
  while (!path_prefix.empty() && path_prefix.back() == '/') path_prefix.pop_back();
  httplib::Client client(base);
  client.set_connection_timeout(static_cast<time_t>(options_.timeout_s));
  client.set_read_timeout(static_cast<time_t>(options_.timeout_s));
  client.set_write_timeout(static_cast<time_t>(options_.timeout_s));
  httplib::Headers headers = {{"Authorization", "Bearer " + options_.token},
                              {"Accept", "application/vnd.github+json"},
                              {"X-GitHub-Api-Version", "2022-11-28"},
                              {"User-Agent", "kgate"}};
  std::string path = path_prefix + "/repos/" + job.spec.repository + "/actions/workflows/" +
                     workflow_for(job.spec) + "/dispatches";
  auto response = client.Post(path, headers, request_body(job).dump(), "application/json");
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!response) {
    result.outcome = "workflow_dispatch to " + options_.api_url +
                     " failed: " + httplib::to_string(response.error());
    return result;
  }
  if (response->status == 204 || response->status == 200) {
    result.ok = true;
    result.outcome = "dispatched";
    return result;
  }
  // 429, 5xx and rate-limit 403s are worth another attempt; other 4xx are configuration errors.
  bool rate_limited =
      response->status == 429 ||
      (response->status == 403 && response->get_header_value("x-ratelimit-remaining") == "0");
  result.retryable = response->status >= 500 || rate_limited;
  std::string body = response->body.substr(0, 300);
  result.outcome = "workflow_dispatch of " + workflow_for(job.spec) + " answered " +
                   std::to_string(response->status) + ": " + body;
  return result;
}

}  // namespace kgate::webhooks
