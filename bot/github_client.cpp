#include "bot/github_client.h"

#include "bot/link_header.h"
#include "core/log.h"
#include "core/redact.h"

namespace kgate::bot {

RetryPolicy github_retry_policy() {
  RetryPolicy policy;
  policy.max_attempts = 5;
  policy.base_delay_s = 1;
  policy.rate_limit_wait_s = 60;  // GitHub: wait at least a minute on a secondary limit
  policy.retry_408_409 = false;   // GitHub's 409 is a conflict the same request meets again
  policy.retry_timeouts = true;   // idempotent requests only (core/retry_policy.h)
  return policy;
}

GitHubClient::GitHubClient(std::shared_ptr<GitHubCredentials> credentials,
                           GitHubClientOptions options)
    : credentials_(std::move(credentials)), options_(std::move(options)) {
  while (!options_.api_url.empty() && options_.api_url.back() == '/') options_.api_url.pop_back();
}

std::string GitHubClient::url_for(const std::string& path) const {
  if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) return path;
  return options_.api_url + (path.empty() || path[0] != '/' ? "/" : "") + path;
}

Result<ApiResponse> GitHubClient::send(const std::string& method, const std::string& path,
                                       const std::optional<nlohmann::json>& body,
                                       HttpFailure* failure) {
  HttpRequest request;
  request.method = method;
  request.url = url_for(path);
  request.timeouts.total_s = options_.timeout_s;
  // Bodies are redacted as a whole: nothing kgate writes to GitHub carries a secret.
  std::optional<nlohmann::json> sent_body;
  if (body) {
    request.body = redact(body->dump());
    sent_body = nlohmann::json::parse(request.body);
  }
  RetryHooks hooks;
  hooks.sleep = options_.sleep;
  hooks.now = options_.now;
  hooks.on_retry = [](const std::string& line) { progress("GitHub " + line); };
  hooks.before_attempt = [&](HttpRequest& r) -> Status {
    // Asked per attempt: an App's installation token may be renewed between attempts.
    Result<std::string> authorization = credentials_->authorization();
    if (!authorization.ok()) return authorization.error();
    r.headers = {{"Accept", "application/vnd.github.v3+json"},
                 {"Authorization", *authorization},
                 {"X-GitHub-Api-Version", "2022-11-28"}};
    if (body) r.headers.push_back({"Content-Type", "application/json; charset=utf-8"});
    if (options_.on_request) options_.on_request(method, r.url, sent_body);
    return {};
  };
  HttpExchange exchange = send_with_retry(std::move(request), options_.retry, hooks);
  if (failure) *failure = exchange.failure;
  if (!exchange.response.ok()) return exchange.response.error();
  if (!exchange.gave_up.empty())  // a limit or an error we will not wait out
    return Error::infrastructure(redact("GitHub " + method + " " + path + ": " + exchange.gave_up));
  ApiResponse response;
  response.status = exchange.response->status;
  response.raw = std::move(*exchange.response);
  if (!response.raw.body.empty())
    response.json = nlohmann::json::parse(response.raw.body, nullptr, /*allow_exceptions=*/false);
  if (response.json.is_discarded()) response.json = nullptr;
  return response;
}

std::string describe_github_error(const std::string& method, const std::string& path,
                                  const ApiResponse& response) {
  std::string text =
      "GitHub " + method + " " + path + " answered HTTP " + std::to_string(response.status);
  const nlohmann::json& j = response.json;
  if (j.is_object()) {
    if (j.contains("message") && j["message"].is_string())
      text += ": " + j["message"].get<std::string>();
    else  // not GitHub's error shape (a proxy, a mock): show what came
      text += ": " + response.raw.body.substr(0, 500);
    if (j.contains("errors") && j["errors"].is_array()) {
      for (const auto& e : j["errors"]) {
        if (e.is_object()) {
          text += "; " + e.value("resource", std::string()) + "." +
                  e.value("field", std::string()) + " " + e.value("code", std::string());
          if (e.contains("message") && e["message"].is_string())
            text += " (" + e["message"].get<std::string>() + ")";
        } else if (e.is_string()) {
          text += "; " + e.get<std::string>();
        }
      }
    }
    if (j.contains("documentation_url") && j["documentation_url"].is_string())
      text += " (see " + j["documentation_url"].get<std::string>() + ")";
  } else if (!response.raw.body.empty()) {
    text += ": " + response.raw.body.substr(0, 300);
  }
  if (response.status == 401)
    text += "; the credentials were refused: check GITHUB_TOKEN or the GitHub App settings";
  if (response.status == 403 || response.status == 404)
    text +=
        "; check that the token or App installation can access this repository with the "
        "needed permissions";
  return redact(text);
}

Result<nlohmann::json> GitHubClient::call(const std::string& method, const std::string& path,
                                          const std::optional<nlohmann::json>& body) {
  Result<ApiResponse> response = send(method, path, body);
  if (!response.ok()) return response.error();
  if (response->status < 200 || response->status > 299) {
    std::string message = describe_github_error(method, path, *response);
    if (response->status >= 500) return Error::infrastructure(message);
    return Error::bad_input(message);
  }
  return std::move(response->json);
}

Result<nlohmann::json> GitHubClient::get_all(const std::string& path) {
  nlohmann::json all = nlohmann::json::array();
  std::string next = path;
  for (int page = 0; page < 1000; ++page) {  // bound against a link loop
    Result<ApiResponse> response = send("GET", next);
    if (!response.ok()) return response.error();
    if (response->status != 200)
      return Error::bad_input(describe_github_error("GET", next, *response));
    const nlohmann::json& items = response->json;
    if (items.is_array()) {
      for (const auto& item : items) all.push_back(item);
    } else if (items.is_object()) {  // list endpoints that wrap: {"total_count", "check_runs":
                                     // [...]}
      for (auto it = items.begin(); it != items.end(); ++it)
        if (it.value().is_array())
          for (const auto& item : it.value()) all.push_back(item);
    }
    std::optional<std::string> link = next_page_url(response->raw.header("link"));
    if (!link) return all;
    next = *link;
  }
  return Error::infrastructure(redact("GitHub pagination of " + path + " did not end"));
}

}  // namespace kgate::bot
