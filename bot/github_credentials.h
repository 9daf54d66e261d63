#pragma once
// What kgate presents to GitHub: the Authorization header for REST calls and
// the password for git over HTTPS. A personal or Actions token is used as
// is; a GitHub App exchanges its JWT for an installation token
// (github_app_credentials.h).
#include <memory>
#include <string>

#include "core/status.h"

namespace kgate::bot {

class GitHubCredentials {
 public:
  virtual ~GitHubCredentials() = default;
  // "token ghp_..." or "Bearer eyJ...". Registered with redact() before it is returned.
  virtual Result<std::string> authorization() = 0;
  // The token git uses as its HTTPS password (user "x-access-token").
  virtual Result<std::string> git_password() = 0;
  // "a token", "GitHub App 123 (installation 456)": for messages, never the secret.
  virtual std::string describe() const = 0;
  // A GitHub App installation (acting as its bot user "<slug>[bot]").
  virtual bool is_app() const { return false; }
  // The App's slug (GET /app); empty for anything but an App.
  virtual Result<std::string> app_slug() { return std::string(); }
};

// A fixed token (GITHUB_TOKEN, a personal access token).
// Invariant: the token is registered with redact() from construction on.
class TokenCredentials : public GitHubCredentials {
 public:
  explicit TokenCredentials(std::string token);
  Result<std::string> authorization() override { return "token " + token_; }
  Result<std::string> git_password() override { return token_; }
  std::string describe() const override { return "a token"; }

 private:
  std::string token_;
};

}  // namespace kgate::bot
