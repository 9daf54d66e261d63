#pragma once
// GitHub's REST API over kgate's HTTP transport (core/http_transport.h):
// authentication, JSON bodies, retries and rate limits per
// core/retry_policy.h, pagination through Link. Everything it returns or
// logs is redacted (core/redact.h).
//
// Invariant: a request is sent at most RetryPolicy::max_attempts times,
// never again after a 2xx or a 4xx that is not a rate limit, and a POST or
// PATCH that reached GitHub is never sent again (a second one could open a
// second pull request, comment or check run).
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bot/github_credentials.h"
#include "core/http_transport.h"
#include "core/retry_policy.h"
#include "core/status.h"

namespace kgate::bot {

// Five attempts, GitHub's rate limits (a minute at least on a secondary
// limit), no retry of a 409.
RetryPolicy github_retry_policy();

struct GitHubClientOptions {
  std::string api_url = "https://api.github.com";  // GitHub Enterprise: https://HOST/api/v3
  RetryPolicy retry = github_retry_policy();
  double timeout_s = 60;
  // Replaceable so tests can see the waits without spending them.
  std::function<void(double seconds)> sleep;  // empty: std::this_thread::sleep_for
  std::function<std::time_t()> now;           // empty: std::time
  // Called with every request just before it is sent (tests validate the bodies).
  std::function<void(const std::string& method, const std::string& url,
                     const std::optional<nlohmann::json>& body)>
      on_request;
};

struct ApiResponse {
  int status = 0;
  nlohmann::json json;  // null when the body is empty or not JSON
  HttpResponse raw;
};

class GitHubClient {
 public:
  GitHubClient(std::shared_ptr<GitHubCredentials> credentials, GitHubClientOptions options);

  // `path` is "/repos/o/r/..." (joined to api_url) or a full URL (a Link page).
  // Any HTTP status is a value here; only transport failures and exhausted
  // retries/rate limits are errors. `failure` (when given) says where the last
  // attempt's transport failed (kNone: an answer came, or nothing was sent
  // because the credentials failed): a caller that retries a POST itself
  // must know whether it may have reached GitHub.
  Result<ApiResponse> send(const std::string& method, const std::string& path,
                           const std::optional<nlohmann::json>& body = std::nullopt,
                           HttpFailure* failure = nullptr);
  // Like send(), but a status outside 2xx is an error carrying GitHub's message.
  Result<nlohmann::json> call(const std::string& method, const std::string& path,
                              const std::optional<nlohmann::json>& body = std::nullopt);
  // GET of a list, following rel="next" links; the pages' arrays concatenated.
  Result<nlohmann::json> get_all(const std::string& path);

  const std::string& api_url() const { return options_.api_url; }
  GitHubCredentials& credentials() { return *credentials_; }

 private:
  std::string url_for(const std::string& path) const;

  std::shared_ptr<GitHubCredentials> credentials_;
  GitHubClientOptions options_;
};

// "422 Validation Failed: name: invalid (https://docs.github.com/...)", from an error response.
std::string describe_github_error(const std::string& method, const std::string& path,
                                  const ApiResponse& response);

}  // namespace kgate::bot
