#include "core/redact.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

namespace kgate {
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

// "scheme://user:PASSWORD@host" -> "scheme://user:***@host".
void scrub_url_passwords(std::string& out) {
  for (size_t scheme = out.find("://"); scheme != std::string::npos;
       scheme = out.find("://", scheme + 3)) {
    size_t start = scheme + 3;
    size_t end = out.find_first_of("/ \t\r\n\"'<>", start);
    if (end == std::string::npos) end = out.size();
    size_t at = out.rfind('@', end);
    if (at == std::string::npos || at < start) continue;
    size_t colon = out.find(':', start);
    if (colon == std::string::npos || colon > at || at - colon <= 1) continue;
    if (out.compare(colon + 1, at - colon - 1, "***") == 0) continue;
    out.replace(colon + 1, at - colon - 1, "***");
  }
}

// "Authorization: Bearer xyz" -> "Authorization: ***" (any case, to the end of the line).
void scrub_authorization_headers(std::string& out) {
  static const std::string name = "authorization:";
  std::string lower(out.size(), ' ');
  std::transform(out.begin(), out.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t shift = 0;  // how much shorter `out` is than `lower` before the current match
  for (size_t at = lower.find(name); at != std::string::npos; at = lower.find(name, at + 1)) {
    size_t value = at - shift + name.size();
    while (value < out.size() && out[value] == ' ') ++value;
    size_t end = out.find_first_of("\r\n", value);
    if (end == std::string::npos) end = out.size();
    if (end == value || out.compare(value, end - value, "***") == 0) continue;
    shift += end - value - 3;
    out.replace(value, end - value, "***");
  }
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
  scrub_url_passwords(out);
  scrub_authorization_headers(out);
  return out;
}

}  // namespace kgate
