#pragma once
// When to send an HTTP request again, and after how long: kgate's one retry
// policy, for the GitHub client (bot/github_client.h), the model providers
// (agent/chat_provider.h) and, through backoff_delay, the service's job and
// delivery queues (webhooks/worker_pool.h, webhooks/pending_router.h).
//
// - A request the server did not act on is sent again: one that never left
//   (DNS, connection refused), a 429, a 403 that is a rate limit (GitHub's
//   x-ratelimit-remaining: 0 with x-ratelimit-reset, a retry-after, or a
//   "secondary rate limit" body).
// - A request the server may have acted on (a 5xx, a 408/409, a connection
//   lost after sending, a timeout) is sent again only when it is idempotent
//   (core/http_transport.h: GET, PUT, DELETE, or a POST the caller marks):
//   a POST answered 502 may still have opened its pull request.
// - The wait is exponential backoff with jitter, capped, and never shorter
//   than what the server asked (retry-after in seconds or as an HTTP date,
//   or until x-ratelimit-reset); a server that asks for more than
//   max_wait_s is an error instead of a wait.
#include <cstdint>
#include <ctime>
#include <functional>
#include <random>
#include <string>

#include "core/http_transport.h"

namespace kgate {

// Under this much time left no request can be answered: send_with_retry sends
// none, and a caller's budget with less left counts as used.
constexpr double kShortestRequestS = 1e-3;

struct RetryPolicy {
  int max_attempts = 5;       // in total, the first included
  double base_delay_s = 1.0;  // backoff: base, 2*base, 4*base, ... each times a jitter factor
  double max_delay_s = 60;    // the backoff's cap
  double jitter = 0.5;        // a backoff d waits a uniform draw in [(1 - jitter) * d, d]
  uint64_t seed = 1;          // of the jitter
  double max_wait_s = 900;    // a server asking for a longer wait: give up instead
  // A 429 or rate-limit 403 that names no wait: rate_limit_wait_s,
  // doubling per attempt (GitHub's secondary limits ask for a minute). 0:
  // the backoff.
  double rate_limit_wait_s = 0;
  // 408 and 409 (a model server's "busy") are retried like 5xx; GitHub's
  // 409 is a conflict that the same request meets again.
  bool retry_408_409 = true;
  // A request that was sent and timed out is not sent again by default: a
  // server that did not answer within the total timeout is hung or
  // overloaded, and more waits of that length help no one.
  bool retry_timeouts = false;
  // Wall time for every attempt and wait of one call together; each
  // attempt's total timeout is cut to what is left. <= 0: no limit.
  double deadline_s = 0;
};

// Seconds from a retry-after value (delta-seconds or an HTTP date, read
// against `now`, 0: the clock); negative when absent or unreadable.
double parse_retry_after(const std::string& value, std::time_t now = 0);

// The backoff before attempt `attempt + 1` (`attempt` counts from 1):
// min(max_s, base_s * 2^(attempt-1)), times a draw from [1 - jitter, 1]
// when `rng` is given.
double backoff_delay(double base_s, double max_s, int attempt, double jitter, std::mt19937_64* rng);

struct RetryDecision {
  bool retry = false;
  double wait_s = 0;
  // Why, for progress lines and errors: "HTTP 503; retry in 2 s", "rate
  // limit exhausted; gave up after 5 attempts". Empty: the answer is final.
  std::string reason;
};

// After attempt `attempt` (from 1) of `request` ended in `response` (or in
// a transport error at `failure`).
RetryDecision decide_retry(const HttpRequest& request, const Result<HttpResponse>& response,
                           HttpFailure failure, int attempt, const RetryPolicy& policy,
                           std::time_t now, std::mt19937_64& rng);

struct RetryHooks {
  // Called before each attempt (a renewed Authorization header, a request
  // log); an Error stops the call with it.
  std::function<Status(HttpRequest&)> before_attempt;
  std::function<void(double seconds)> sleep;              // default: std::this_thread::sleep_for
  std::function<std::time_t()> now;                       // default: std::time
  std::function<void(const std::string& line)> on_retry;  // default: core/log.h's warn
};

struct HttpExchange {
  Result<HttpResponse> response = Error::infrastructure("no attempt made");  // the last one
  HttpFailure failure = HttpFailure::kNone;                                  // of the last attempt
  int attempts = 0;
  // Set when the last answer asked for another attempt that was not made
  // (attempts or deadline used up, a wait over max_wait_s): why.
  std::string gave_up;
};

// Sends `request` until decide_retry says stop. Progress lines and
// `gave_up` are redacted.
HttpExchange send_with_retry(HttpRequest request, const RetryPolicy& policy,
                             const RetryHooks& hooks = {});

}  // namespace kgate
