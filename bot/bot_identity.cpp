#include "bot/bot_identity.h"

#include <algorithm>
#include <cctype>

namespace kgate::bot {
namespace {

constexpr const char* kNoreplyDomain = "@users.noreply.github.com";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

bool BotIdentity::is_author_email(const std::string& address) const {
  const std::string a = lower(address);
  return a == lower(email) || (!login.empty() && a == lower(noreply_email(0, login))) ||
         a == lower(noreply_email(0, name));
}

std::string noreply_email(int64_t user_id, const std::string& login) {
  return (user_id > 0 ? std::to_string(user_id) + "+" : std::string()) + login + kNoreplyDomain;
}

std::string login_from_noreply_email(const std::string& address) {
  const std::string domain = kNoreplyDomain;
  if (address.size() <= domain.size() ||
      lower(address.substr(address.size() - domain.size())) != domain)
    return "";
  std::string local = address.substr(0, address.size() - domain.size());
  size_t plus = local.find('+');
  if (plus != std::string::npos) {
    bool digits = plus > 0 && std::all_of(local.begin(), local.begin() + plus,
                                          [](unsigned char c) { return std::isdigit(c); });
    if (!digits) return "";
    local = local.substr(plus + 1);
  }
  return local;
}

std::string bot_login_for_slug(const std::string& slug) {
  return slug + "[bot]";
}

}  // namespace kgate::bot
