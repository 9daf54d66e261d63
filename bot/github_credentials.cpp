#include "bot/github_credentials.h"

#include "bot/redact.h"

namespace kgate::bot {

TokenCredentials::TokenCredentials(std::string token) : token_(std::move(token)) {
  register_secret(token_);
}

}  // namespace kgate::bot
