#include "core/retry_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "core/log.h"
#include "core/number_format.h"
#include "core/redact.h"

namespace kgate {
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

// A retry after `wait_s` unless the attempts are used up or the server's
// wait (`asked_s`, negative: none) is longer than kgate waits.
RetryDecision limited(double wait_s, double asked_s, const std::string& why, int attempt,
                      const RetryPolicy& policy) {
  RetryDecision d;
  d.wait_s = std::max(0.0, wait_s);
  if (attempt >= policy.max_attempts) {
    d.reason = why + "; gave up after " + std::to_string(attempt) + " attempts";
    return d;
  }
  if (asked_s > policy.max_wait_s) {
    d.reason = why + "; it resets in " + seconds_text(asked_s) + ", longer than the " +
               seconds_text(policy.max_wait_s) + " kgate waits";
    return d;
  }
  d.reason = why + "; retry in " + seconds_text(d.wait_s);
  d.retry = true;
  return d;
}

bool mentions_secondary_limit(std::string body) {
  std::transform(body.begin(), body.end(), body.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return body.find("secondary rate limit") != std::string::npos ||
         body.find("abuse") != std::string::npos;
}

}  // namespace

double parse_retry_after(const std::string& value, std::time_t now) {
  if (value.empty()) return -1;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end && end != value.c_str() && *end == '\0' && seconds >= 0) return seconds;
  time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return -1;
  if (now == 0) now = std::time(nullptr);
  return std::max(0.0, static_cast<double>(when - now));
}

double backoff_delay(double base_s, double max_s, int attempt, double jitter,
                     std::mt19937_64* rng) {
  double backoff = std::min(max_s, base_s * std::pow(2.0, std::max(0, attempt - 1)));
  if (!rng || jitter <= 0) return backoff;
  std::uniform_real_distribution<double> factor(1.0 - std::min(1.0, jitter), 1.0);
  return backoff * factor(*rng);
}

RetryDecision decide_retry(const HttpRequest& request, const Result<HttpResponse>& response,
                           HttpFailure failure, int attempt, const RetryPolicy& policy,
                           std::time_t now, std::mt19937_64& rng) {
  const double backoff =
      backoff_delay(policy.base_delay_s, policy.max_delay_s, attempt, policy.jitter, &rng);
  const bool idempotent = is_idempotent(request);
  if (!response.ok()) {
    const std::string& why = response.error().message;
    if (failure == HttpFailure::kNotSent) return limited(backoff, -1, why, attempt, policy);
    if (failure == HttpFailure::kTimedOut && !policy.retry_timeouts) return {};
    if (idempotent) return limited(backoff, -1, why, attempt, policy);
    return {};  // sent, maybe acted on: a second POST could act twice
  }
  const int status = response->status;
  const double retry_after = parse_retry_after(response->header("retry-after"), now);
  if (status == 403 || status == 429) {
    const std::string http = "HTTP " + std::to_string(status);
    if (retry_after >= 0)
      return limited(std::max(backoff, retry_after), retry_after,
                     "the server asked to slow down (" + http + ", retry-after)", attempt, policy);
    long long remaining = header_number(*response, "x-ratelimit-remaining");
    long long reset = header_number(*response, "x-ratelimit-reset");
    if (remaining == 0 && reset >= 0) {
      double until = static_cast<double>(reset - static_cast<long long>(now)) + 1;
      return limited(std::max(backoff, until), until, "rate limit exhausted (" + http + ")",
                     attempt, policy);
    }
    if (status == 429 || mentions_secondary_limit(response->body)) {
      double asked = policy.rate_limit_wait_s * std::pow(2.0, attempt - 1);
      return limited(std::max(backoff, asked), -1, "secondary rate limit (" + http + ")", attempt,
                     policy);
    }
    return {};  // a plain 403: permissions, not a limit
  }
  const bool server_error = status >= 500 && status <= 599;
  if (server_error || (policy.retry_408_409 && (status == 408 || status == 409))) {
    if (!idempotent) return {};  // the server may have acted on it
    return limited(std::max(backoff, retry_after), retry_after,
                   "the server answered HTTP " + std::to_string(status), attempt, policy);
  }
  return {};
}

HttpExchange send_with_retry(HttpRequest request, const RetryPolicy& policy,
                             const RetryHooks& hooks) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto left_s = [&] {
    return policy.deadline_s > 0
               ? policy.deadline_s - std::chrono::duration<double>(Clock::now() - start).count()
               : 1e300;
  };
  auto sleep = hooks.sleep ? hooks.sleep : [](double s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
  };
  auto now = hooks.now ? hooks.now : [] { return std::time(nullptr); };
  auto on_retry = hooks.on_retry ? hooks.on_retry : [](const std::string& line) { warn(line); };
  std::mt19937_64 rng(policy.seed);
  const HttpTimeouts timeouts = request.timeouts;
  HttpExchange exchange;
  for (int attempt = 1;; ++attempt) {
    const double left = left_s();
    if (left < kShortestRequestS) {
      if (exchange.attempts == 0)
        exchange.response = Error::infrastructure(
            redact(request.method + " " + request.url + ": no time left for the request (" +
                   format_number(policy.deadline_s) + " s allowed)"));
      return exchange;
    }
    request.timeouts.total_s = std::min(timeouts.total_s, left);
    request.timeouts.connect_s = std::min(timeouts.connect_s, request.timeouts.total_s);
    if (hooks.before_attempt) {
      Status ready = hooks.before_attempt(request);
      if (!ready.ok()) {
        exchange.response = ready.error();
        return exchange;
      }
    }
    exchange.response = http_send(request, &exchange.failure);
    exchange.attempts = attempt;
    RetryDecision decision =
        decide_retry(request, exchange.response, exchange.failure, attempt, policy, now(), rng);
    if (!decision.retry) {
      exchange.gave_up = redact(decision.reason);
      return exchange;
    }
    if (decision.wait_s >= left_s()) {
      exchange.gave_up = redact(decision.reason + "; no time left to wait (" +
                                format_number(policy.deadline_s) + " s allowed)");
      return exchange;
    }
    on_retry(redact(request.method + " " + request.url + ": " + decision.reason));
    sleep(decision.wait_s);
  }
}

}  // namespace kgate
