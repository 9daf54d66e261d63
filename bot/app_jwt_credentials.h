#pragma once
// A GitHub App acting as itself rather than as one of its installations:
// every request carries a freshly signed JWT ("Bearer eyJ..."). GitHub
// accepts it only on /app/... endpoints: the installation token exchange and
// the App's own webhook deliveries (listing and redelivering them).
#include <ctime>
#include <functional>
#include <string>

#include "bot/github_credentials.h"

namespace kgate::bot {

// Invariant: the private key is registered with redact() from construction
// on; a JWT is never reused, so none can expire in flight (they last 10 min).
class AppJwtCredentials : public GitHubCredentials {
 public:
  // `now` defaults to std::time.
  AppJwtCredentials(std::string app_id, std::string private_key_pem,
                    std::function<std::time_t()> now = {});
  Result<std::string> authorization() override;
  Result<std::string> git_password() override;
  std::string describe() const override { return "GitHub App " + app_id_ + " (JWT)"; }

 private:
  std::string app_id_;
  std::string private_key_pem_;
  std::function<std::time_t()> now_;
};

}  // namespace kgate::bot
