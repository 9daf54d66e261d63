#include "bot/app_jwt_credentials.h"

#include "bot/jwt.h"
#include "core/redact.h"

namespace kgate::bot {

AppJwtCredentials::AppJwtCredentials(std::string app_id, std::string private_key_pem,
                                     std::function<std::time_t()> now)
    : app_id_(std::move(app_id)),
      private_key_pem_(std::move(private_key_pem)),
      now_(std::move(now)) {
  register_secret(private_key_pem_);
  if (!now_) now_ = [] { return std::time(nullptr); };
}

Result<std::string> AppJwtCredentials::authorization() {
  Result<std::string> jwt = make_app_jwt(app_id_, private_key_pem_, now_());
  if (!jwt.ok()) return jwt.error();
  return "Bearer " + *jwt;
}

Result<std::string> AppJwtCredentials::git_password() {
  return Error::bad_input("a GitHub App JWT cannot be used for git (use an installation token)");
}

}  // namespace kgate::bot
