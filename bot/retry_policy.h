#pragma once
// When to send a GitHub request again, and after how long. GitHub signals
// three kinds of "not now": the primary rate limit (403/429 with
// x-ratelimit-remaining: 0 and x-ratelimit-reset), secondary limits (403/429
// with retry-after, or a "secondary rate limit" message without it: wait at
// least a minute), and server errors (5xx: back off exponentially).
#include <ctime>
#include <string>

#include "bot/http_transport.h"

namespace kgate::bot {

struct RetryPolicy {
  int max_attempts = 5;          // in total, the first included
  double base_backoff_s = 1.0;   // 5xx: base, 2*base, 4*base, ...
  double secondary_wait_s = 60;  // secondary limit without retry-after
  double max_wait_s = 900;       // a longer wait is an error instead
};

struct RetryDecision {
  bool retry = false;
  double wait_s = 0;
  std::string reason;  // "rate limit exhausted; resets in 42 s", for progress lines and errors
};

// `attempt` counts from 1 (the request that produced `response`).
RetryDecision decide_retry(const HttpResponse& response, int attempt, const RetryPolicy& policy,
                           std::time_t now);

}  // namespace kgate::bot
