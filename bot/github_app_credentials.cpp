#include "bot/github_app_credentials.h"

#include <cstdio>

#include "bot/app_jwt_credentials.h"
#include "core/redact.h"

namespace kgate::bot {

std::time_t parse_github_time(const std::string& s) {
  int y, mo, d, h, mi, sec;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &sec) != 6) return -1;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return timegm(&tm);
}

GitHubAppCredentials::GitHubAppCredentials(GitHubAppConfig config) : config_(std::move(config)) {
  register_secret(config_.private_key_pem);
  if (!config_.client.now) config_.client.now = [] { return std::time(nullptr); };
  config_.client.api_url = config_.api_url;
}

Result<std::string> GitHubAppCredentials::token() {
  std::lock_guard lock(mutex_);
  std::time_t now = config_.client.now();
  if (!token_.empty() && static_cast<double>(expires_at_ - now) > config_.renew_before_s)
    return token_;
  GitHubClient client(std::make_shared<AppJwtCredentials>(config_.app_id, config_.private_key_pem,
                                                          config_.client.now),
                      config_.client);
  std::string path = "/app/installations/" + config_.installation_id + "/access_tokens";
  Result<nlohmann::json> answer = client.call("POST", path, nlohmann::json::object());
  if (!answer.ok())
    return answer.error().with_context("getting an installation token for GitHub App " +
                                       config_.app_id);
  if (!answer->is_object() || !(*answer)["token"].is_string())
    return Error::infrastructure("GitHub answered the installation token request without a token");
  token_ = (*answer)["token"].get<std::string>();
  register_secret(token_);
  std::time_t expires = (*answer)["expires_at"].is_string()
                            ? parse_github_time((*answer)["expires_at"].get<std::string>())
                            : -1;
  expires_at_ = expires > 0 ? expires : now + 3600;
  ++exchanges_;
  return token_;
}

Result<std::string> GitHubAppCredentials::authorization() {
  Result<std::string> t = token();
  if (!t.ok()) return t.error();
  return "token " + *t;
}

Result<std::string> GitHubAppCredentials::git_password() {
  return token();
}

Result<std::string> GitHubAppCredentials::app_slug() {
  GitHubClient client(std::make_shared<AppJwtCredentials>(config_.app_id, config_.private_key_pem,
                                                          config_.client.now),
                      config_.client);
  Result<nlohmann::json> app = client.call("GET", "/app");
  if (!app.ok()) return app.error().with_context("reading GitHub App " + config_.app_id);
  if (!app->is_object() || !(*app)["slug"].is_string())
    return Error::infrastructure("GitHub described App " + config_.app_id + " without a slug");
  return (*app)["slug"].get<std::string>();
}

std::string GitHubAppCredentials::describe() const {
  return "GitHub App " + config_.app_id + " (installation " + config_.installation_id + ")";
}

}  // namespace kgate::bot
