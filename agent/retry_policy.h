#pragma once
// When and how long to wait before asking a model server again: retry on
// 408, 409, 429 and 5xx (529 "overloaded" included) and on transport
// failures; never on 400, 401, 403 or other 4xx. The wait is exponential
// with jitter, and never shorter than the server's retry-after.
#include <cstdint>
#include <functional>
#include <random>
#include <string>

#include "agent/http_client.h"

namespace kgate {

struct RetryPolicy {
  int max_attempts = 5;
  double base_delay_s = 1.0;
  double max_delay_s = 60.0;
  uint64_t seed = 1;  // jitter
  // A request that timed out is not sent again: a server that did not answer
  // within the total timeout is hung or overloaded, and five more waits of
  // that length (25 minutes at the defaults) help no one.
  bool retry_timeouts = false;
  // Wall time for every attempt and wait of one call together; each
  // attempt's total timeout is cut to what is left. <= 0: no limit.
  double deadline_s = 0;
};

bool is_retryable_status(long status);
// Seconds from a retry-after value (delta-seconds or an HTTP date); negative
// when absent or unreadable.
double parse_retry_after(const std::string& value);

// The wait before attempt `attempt + 1` (attempt counts from 0).
double retry_delay(const RetryPolicy& policy, int attempt, double retry_after_s,
                   std::mt19937_64& rng);

// POSTs until a non-retryable answer, the attempts run out, a timeout (see
// retry_timeouts) or the deadline. The last response (any status) is
// returned; an Error when the attempts failed in transport.
Result<HttpResponse> post_with_retry(const std::string& url,
                                     const std::vector<std::string>& headers,
                                     const std::string& body, const HttpTimeouts& timeouts,
                                     const RetryPolicy& policy, int* attempts_used = nullptr);

}  // namespace kgate
