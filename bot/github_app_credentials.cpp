#include "bot/github_app_credentials.h"

#include <cstdio>

#include "bot/jwt.h"
#include "bot/redact.h"

namespace kgate::bot {
namespace {

// Signs a fresh JWT for every request: the exchange is the only call made with it.
class JwtCredentials : public GitHubCredentials {
 public:
  JwtCredentials(const GitHubAppConfig& config, std::function<std::time_t()> now)
      : config_(config), now_(std::move(now)) {}
  Result<std::string> authorization() override {
    Result<std::string> jwt = make_app_jwt(config_.app_id, config_.private_key_pem, now_());
    if (!jwt.ok()) return jwt.error();
    return "Bearer " + *jwt;
  }
  Result<std::string> git_password() override {
    return Error::bad_input("a GitHub App JWT cannot be used for git");
  }
  std::string describe() const override { return "GitHub App " + config_.app_id + " (JWT)"; }

 private:
  const GitHubAppConfig& config_;
  std::function<std::time_t()> now_;
};

}  // namespace

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
  GitHubClient client(std::make_shared<JwtCredentials>(config_, config_.client.now),
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

std::string GitHubAppCredentials::describe() const {
  return "GitHub App " + config_.app_id + " (installation " + config_.installation_id + ")";
}

}  // namespace kgate::bot
