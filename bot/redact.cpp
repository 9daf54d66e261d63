#include "bot/redact.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace kgate::bot {
namespace {

std::mutex& secrets_mutex() {
  static std::mutex m;
  return m;
}
// Longest first, so a secret that contains another is replaced whole.
struct LongerFirst {
  bool operator()(const std::string& a, const std::string& b) const {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  }
};
std::set<std::string, LongerFirst>& secrets() {
  static std::set<std::string, LongerFirst> s;
  return s;
}

}  // namespace

void register_secret(std::string_view secret) {
  if (secret.size() < kMinSecretLength) return;
  std::lock_guard lock(secrets_mutex());
  secrets().emplace(secret);
}

std::string redact(std::string_view text) {
  std::string out(text);
  std::lock_guard lock(secrets_mutex());
  for (const std::string& s : secrets()) {
    for (size_t at = out.find(s); at != std::string::npos; at = out.find(s, at)) {
      out.replace(at, s.size(), "***");
      at += 3;
    }
  }
  return out;
}

}  // namespace kgate::bot
