#include "bot/github_credentials.h"

#include "core/redact.h"

namespace kgate::bot {

TokenCredentials::TokenCredentials(std::string token) : token_(std::move(token)) {
  register_secret(token_);
}

}  // namespace kgate::bot
