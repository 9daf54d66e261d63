#include "webhooks/actions_dispatcher.h"

#include <chrono>

namespace kgate::webhooks {
namespace {

bool is_gate(const JobSpec& spec) {
  return spec.kind == JobKind::kGate || spec.kind == JobKind::kAcceptRegression;
}

bool retryable_status(const bot::ApiResponse& response) {
  // 429, 5xx and rate-limit 403s are worth another attempt; other 4xx are configuration errors.
  return response.status >= 500 || response.status == 429 ||
         (response.status == 403 && response.raw.header("x-ratelimit-remaining") == "0");
}

}  // namespace

ActionsDispatcher::ActionsDispatcher(ActionsDispatchOptions options)
    : options_(std::move(options)) {
  if (!options_.credentials) return;
  bot::GitHubClientOptions client;
  client.api_url = options_.api_url;
  client.timeout_s = options_.timeout_s;
  client.retry.max_attempts = 1;  // the job queue retries, with its own backoff
  client.on_request = options_.on_request;
  client_ = std::make_shared<bot::GitHubClient>(options_.credentials, client);
}

std::string ActionsDispatcher::workflow_for(const JobSpec& spec) const {
  return is_gate(spec) ? options_.gate_workflow : options_.work_workflow;
}

nlohmann::json ActionsDispatcher::request_body(const StoredJob& job,
                                               const std::string& check_run) const {
  // workflow_dispatch inputs are strings; empty ones are left out, and each
  // workflow gets only the inputs it declares (GitHub refuses others with 422).
  const JobSpec& spec = job.spec;
  nlohmann::json inputs = {{"command", std::string(to_string(spec.kind))},
                           {"job_id", std::to_string(job.id)}};
  if (!spec.head.empty()) inputs["head"] = spec.head;
  if (spec.pull_number) inputs["pr"] = std::to_string(spec.pull_number);
  if (is_gate(spec)) {
    if (!spec.base.empty()) inputs["base"] = spec.base;
    if (!check_run.empty()) inputs["check_run"] = check_run;
  } else {
    if (!spec.kernel.empty()) inputs["kernel"] = spec.kernel;
    if (!spec.requested_by.empty()) inputs["requested_by"] = spec.requested_by;
  }
  return {{"ref", options_.ref}, {"inputs", inputs}, {"return_run_details", true}};
}

Result<std::string> ActionsDispatcher::queue_check_run(const StoredJob& job, std::string& note) {
  const JobSpec& spec = job.spec;
  nlohmann::json body = {
      {"name", options_.check_name},
      {"head_sha", spec.head},
      {"status", "queued"},
      {"external_id", "kgate-job-" + std::to_string(job.id)},
      {"output",
       {{"title", "kgate: queued on GitHub Actions"},
        {"summary", "kgate dispatched `" + workflow_for(spec) + "` on `" + options_.ref +
                        "` to gate this commit (" + spec.reason +
                        "). This check completes when the GPU runners are done."}}}};
  const std::string path = "/repos/" + spec.repository + "/check-runs";
  Result<bot::ApiResponse> created = client_->send("POST", path, body);
  if (!created.ok()) return created.error();
  if (created->status == 201 && created->json.is_object() &&
      created->json["id"].is_number_integer())
    return std::to_string(created->json["id"].get<long long>());
  if (retryable_status(*created))
    return Error::infrastructure(bot::describe_github_error("POST", path, *created));
  // A token (not an App) cannot create check runs: the workflow then creates its own.
  note = "no queued check run (" + bot::describe_github_error("POST", path, *created) + ")";
  return std::string();
}

void ActionsDispatcher::complete_check_run(const std::string& repository, const std::string& id,
                                           const std::string& conclusion,
                                           const std::string& summary) {
  (void)client_->send(
      "PATCH", "/repos/" + repository + "/check-runs/" + id,
      nlohmann::json{
          {"status", "completed"},
          {"conclusion", conclusion},
          {"output", {{"title", "kgate: the gate could not be started"}, {"summary", summary}}}});
}

JobResult ActionsDispatcher::execute(const StoredJob& job, const ExecutionContext&) {
  auto start = std::chrono::steady_clock::now();
  JobResult result;
  auto finish = [&] {
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (!client_) {
    result.retryable = false;
    result.outcome =
        "--dispatch actions needs a token in KGATE_GITHUB_TOKEN (or GITHUB_TOKEN) "
        "with actions:write on " +
        job.spec.repository + ", or the GitHub App's credentials";
    return finish();
  }
  std::string check_run, note;
  if (is_gate(job.spec) && !job.spec.head.empty()) {
    Result<std::string> queued = queue_check_run(job, note);
    if (!queued.ok()) {
      result.outcome = queued.error().message;
      return finish();
    }
    check_run = *queued;
  }

  const std::string workflow = workflow_for(job.spec);
  const std::string path =
      "/repos/" + job.spec.repository + "/actions/workflows/" + workflow + "/dispatches";
  Result<bot::ApiResponse> response = client_->send("POST", path, request_body(job, check_run));
  if (!response.ok() || (response->status != 200 && response->status != 204)) {
    std::string why =
        !response.ok()
            ? "workflow_dispatch to " + options_.api_url + " failed: " + response.error().message
            : "workflow_dispatch of " + workflow + " answered " + std::to_string(response->status) +
                  ": " + response->raw.body.substr(0, 300);
    result.retryable = !response.ok() || retryable_status(*response);
    result.outcome = why;
    if (!check_run.empty())
      complete_check_run(job.spec.repository, check_run, result.retryable ? "neutral" : "failure",
                         why + (result.retryable ? "\n\nkgate tries again." : ""));
    return finish();
  }
  result.ok = true;
  result.outcome = "dispatched";
  // 200 carries the run (return_run_details); 204 is a GitHub without it.
  const nlohmann::json& run = response->json;
  if (response->status == 200 && run.is_object() && run["html_url"].is_string()) {
    const std::string url = run["html_url"].get<std::string>();
    result.outcome += " run " +
                      (run["workflow_run_id"].is_number_integer()
                           ? std::to_string(run["workflow_run_id"].get<long long>())
                           : std::string("?")) +
                      " " + url;
    if (!check_run.empty()) {
      Result<bot::ApiResponse> linked =
          client_->send("PATCH", "/repos/" + job.spec.repository + "/check-runs/" + check_run,
                        nlohmann::json{{"details_url", url}});
      if (!linked.ok() || linked->status != 200)
        result.outcome += " (the check run does not link to it: " +
                          (linked.ok() ? std::to_string(linked->status) : linked.error().message) +
                          ")";
    }
  }
  if (!check_run.empty()) result.outcome += ", check run " + check_run;
  if (!note.empty()) result.outcome += "; " + note;
  return finish();
}

}  // namespace kgate::webhooks
