#include "bot/retry_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace kgate::bot {
namespace {

// A header holding a non-negative integer, or -1.
long long header_number(const HttpResponse& response, const std::string& name) {
  std::string v = response.header(name);
  if (v.empty()) return -1;
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  return (end && *end == '\0' && n >= 0) ? n : -1;
}

std::string seconds_text(double s) {
  return std::to_string(static_cast<long long>(std::ceil(s))) + " s";
}

RetryDecision limited(double wait_s, std::string why, int attempt, const RetryPolicy& policy) {
  RetryDecision d;
  d.wait_s = std::max(0.0, wait_s);
  d.reason = std::move(why) + "; retry in " + seconds_text(d.wait_s);
  if (attempt >= policy.max_attempts) {
    d.reason = why + "; gave up after " + std::to_string(attempt) + " attempts";
    return d;
  }
  if (d.wait_s > policy.max_wait_s) {
    d.reason = why + "; it resets in " + seconds_text(d.wait_s) + ", longer than the " +
               seconds_text(policy.max_wait_s) + " kgate waits";
    return d;
  }
  d.retry = true;
  return d;
}

}  // namespace

RetryDecision decide_retry(const HttpResponse& response, int attempt, const RetryPolicy& policy,
                           std::time_t now) {
  const int status = response.status;
  if (status == 403 || status == 429) {
    long long retry_after = header_number(response, "retry-after");
    if (retry_after >= 0)
      return limited(static_cast<double>(retry_after),
                     "GitHub asked to slow down (HTTP " + std::to_string(status) + ", retry-after)",
                     attempt, policy);
    long long remaining = header_number(response, "x-ratelimit-remaining");
    long long reset = header_number(response, "x-ratelimit-reset");
    if (remaining == 0 && reset >= 0)
      return limited(static_cast<double>(reset - static_cast<long long>(now)) + 1,
                     "GitHub rate limit exhausted", attempt, policy);
    std::string body = response.body;
    std::transform(body.begin(), body.end(), body.begin(), ::tolower);
    if (body.find("secondary rate limit") != std::string::npos ||
        body.find("abuse") != std::string::npos || status == 429)
      return limited(policy.secondary_wait_s * std::pow(2.0, attempt - 1),
                     "GitHub secondary rate limit", attempt, policy);
    return {};  // a plain 403: permissions, not a limit
  }
  if (status >= 500 && status <= 599)
    return limited(policy.base_backoff_s * std::pow(2.0, attempt - 1),
                   "GitHub answered HTTP " + std::to_string(status), attempt, policy);
  return {};
}

}  // namespace kgate::bot
