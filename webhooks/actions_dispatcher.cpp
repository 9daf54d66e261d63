#include "webhooks/actions_dispatcher.h"

#include <chrono>

#include "core/http_transport.h"
#include "webhooks/public_text.h"

namespace kgate::webhooks {
namespace {

bool is_gate(const JobSpec& spec) {
  return spec.kind == JobKind::kGate || spec.kind == JobKind::kAcceptRegression;
}

bool rate_limited(const bot::ApiResponse& response) {
  return response.status == 429 ||
         (response.status == 403 && response.raw.header("x-ratelimit-remaining") == "0");
}

bool retryable_status(const bot::ApiResponse& response) {
  // 429, 5xx and rate-limit 403s are worth another attempt; other 4xx are configuration errors.
  return response.status >= 500 || rate_limited(response);
}

// Whether GitHub may have acted on a dispatch that got no 2xx: a 5xx, or a
// connection that failed or timed out after the request left. The run may
// have started, so the job must not send it again (a second run would gate
// or optimize twice). A request that never left, a rate limit and a refusal
// started nothing.
bool may_have_started(const Result<bot::ApiResponse>& response, HttpFailure failure) {
  if (!response.ok())
    return failure == HttpFailure::kTimedOut || failure == HttpFailure::kAfterSending;
  return response->status >= 500;
}

// `gh workflow run ...` that dispatches the job again by hand (its inputs
// without the check run, which the workflow then creates itself).
std::string rerun_command(const std::string& repository, const std::string& workflow,
                          const nlohmann::json& body) {
  std::string command = "gh workflow run " + workflow + " --repo " + repository + " --ref " +
                        body["ref"].get<std::string>();
  for (const auto& [name, value] : body["inputs"].items())
    command += " -f " + name + "=" + value.get<std::string>();
  return command;
}

// What finds a job's check run again on a later attempt.
std::string check_run_external_id(const StoredJob& job) {
  return "kgate-job-" + std::to_string(job.id);
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

Result<std::string> ActionsDispatcher::find_queued_check_run(const StoredJob& job) {
  const JobSpec& spec = job.spec;
  const std::string path = "/repos/" + spec.repository + "/commits/" + spec.head +
                           "/check-runs?check_name=" + url_escape(options_.check_name) +
                           "&filter=all&per_page=100";
  Result<bot::ApiResponse> listed = client_->send("GET", path);
  if (!listed.ok()) return listed.error();
  if (retryable_status(*listed))
    return Error::infrastructure(bot::describe_github_error("GET", path, *listed));
  // Credentials that cannot read check runs cannot have created one either.
  if (listed->status != 200 || !listed->json.is_object() || !listed->json["check_runs"].is_array())
    return std::string();
  for (const nlohmann::json& run : listed->json["check_runs"]) {
    // A const object's operator[] must only see keys it has (nlohmann::json).
    if (!run.is_object() || !run.contains("id") || !run["id"].is_number_integer()) continue;
    // A completed one was closed by a failed attempt ("kgate tries again"): a new one is queued.
    if (run.value("external_id", nlohmann::json()) == check_run_external_id(job) &&
        run.value("status", nlohmann::json()) != "completed")
      return std::to_string(run["id"].get<long long>());
  }
  return std::string();
}

Result<std::string> ActionsDispatcher::queue_check_run(const StoredJob& job, std::string& note) {
  const JobSpec& spec = job.spec;
  // An earlier attempt's POST may have created the check run and still got
  // a 5xx or lost its answer: that run is used, not a second one queued.
  Result<std::string> existing = find_queued_check_run(job);
  if (!existing.ok()) return existing.error();
  if (!existing->empty()) return *existing;
  nlohmann::json body = {
      {"name", options_.check_name},
      {"head_sha", spec.head},
      {"status", "queued"},
      {"external_id", check_run_external_id(job)},
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
  (void)client_->send("PATCH", "/repos/" + repository + "/check-runs/" + id,
                      nlohmann::json{{"status", "completed"},
                                     {"conclusion", conclusion},
                                     {"output",
                                      {{"title", "kgate: the gate could not be started"},
                                       {"summary", without_local_paths(summary)}}}});
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
  HttpFailure failure = HttpFailure::kNone;
  Result<bot::ApiResponse> response =
      client_->send("POST", path, request_body(job, check_run), &failure);
  if (!response.ok() || (response->status != 200 && response->status != 204)) {
    std::string why =
        !response.ok()
            ? "workflow_dispatch to " + options_.api_url + " failed: " + response.error().message
            : "workflow_dispatch of " + workflow + " answered " + std::to_string(response->status) +
                  (response->raw.body.empty() ? "" : ": " + response->raw.body.substr(0, 300));
    const bool started = may_have_started(response, failure);
    // Sent again only where GitHub cannot have started a run (nothing left,
    // a rate limit); a refusal (4xx) is a configuration error.
    result.retryable = !started && (!response.ok() || rate_limited(*response));
    if (started)
      why += "; not sent again because GitHub may have started the run: look for a run of " +
             workflow + " with job_id " + std::to_string(job.id) + " in " + job.spec.repository +
             "'s Actions, and if there is none, re-run with `" +
             rerun_command(job.spec.repository, workflow, request_body(job)) + "`";
    result.outcome = why;
    if (!check_run.empty())
      complete_check_run(job.spec.repository, check_run,
                         result.retryable || started ? "neutral" : "failure",
                         why + (result.retryable ? "\n\nkgate tries again." : ""));
    return finish();
  }
  result.ok = true;
  result.outcome = "dispatched";
  // 200 carries the run (return_run_details); 204 is a GitHub without it.
  const nlohmann::json& run = response->json;
  if (response->status == 200 && run.is_object() && run.contains("html_url") &&
      run["html_url"].is_string()) {
    const std::string url = run["html_url"].get<std::string>();
    result.outcome += " run " +
                      (run.contains("workflow_run_id") && run["workflow_run_id"].is_number_integer()
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
