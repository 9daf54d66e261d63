#pragma once
// A GitHub App installation: a JWT signed with the app's private key is
// exchanged for an installation token (POST /app/installations/{id}/access_tokens),
// which lasts an hour. The token is cached and renewed when less than
// `renew_before_s` of its life is left, so no request starts with a token
// that could expire in flight.
//
// Invariant: authorization() never returns a token whose expires_at is less
// than renew_before_s away (by the injected clock).
#include <ctime>
#include <functional>
#include <mutex>
#include <string>

#include "bot/github_client.h"
#include "bot/github_credentials.h"

namespace kgate::bot {

struct GitHubAppConfig {
  std::string app_id;
  std::string private_key_pem;
  std::string installation_id;
  std::string api_url = "https://api.github.com";
  double renew_before_s = 300;
  GitHubClientOptions client;  // retry, clock, sleep for the exchange (api_url is overridden)
};

class GitHubAppCredentials : public GitHubCredentials {
 public:
  explicit GitHubAppCredentials(GitHubAppConfig config);
  Result<std::string> authorization() override;
  Result<std::string> git_password() override;
  std::string describe() const override;
  bool is_app() const override { return true; }
  Result<std::string> app_slug() override;

  int exchanges() const { return exchanges_; }  // how many tokens were fetched

 private:
  Result<std::string> token();

  GitHubAppConfig config_;
  std::mutex mutex_;
  std::string token_;
  std::time_t expires_at_ = 0;
  int exchanges_ = 0;
};

// "2026-11-30T08:00:00Z" -> seconds since the epoch (UTC); -1 when malformed.
std::time_t parse_github_time(const std::string& iso8601);

}  // namespace kgate::bot
