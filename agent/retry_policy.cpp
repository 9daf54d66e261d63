#include "agent/retry_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <thread>

#include "core/log.h"
#include "core/number_format.h"

namespace kgate {

bool is_retryable_status(long status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

double parse_retry_after(const std::string& value) {
  if (value.empty()) return -1;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end && *end == '\0' && seconds >= 0) return seconds;
  time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return -1;
  return std::max(0.0, static_cast<double>(when - std::time(nullptr)));
}

double retry_delay(const RetryPolicy& policy, int attempt, double retry_after_s,
                   std::mt19937_64& rng) {
  double backoff = std::min(policy.max_delay_s, policy.base_delay_s * std::pow(2.0, attempt));
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  double wait = backoff * jitter(rng);
  if (retry_after_s >= 0) wait = std::max(wait, std::min(retry_after_s, policy.max_delay_s));
  return wait;
}

Result<HttpResponse> post_with_retry(const std::string& url,
                                     const std::vector<std::string>& headers,
                                     const std::string& body, const HttpTimeouts& timeouts,
                                     const RetryPolicy& policy, int* attempts_used) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto left_s = [&]() {
    return policy.deadline_s > 0
               ? policy.deadline_s - std::chrono::duration<double>(Clock::now() - start).count()
               : 1e300;
  };
  std::mt19937_64 rng(policy.seed);
  std::optional<Error> last_error;
  const int attempts = std::max(1, policy.max_attempts);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (attempts_used) *attempts_used = attempt + 1;
    HttpTimeouts t = timeouts;
    const double left = left_s();
    if (left < 1e-3) break;  // under a millisecond: no request can be answered
    t.total_s = std::min(t.total_s, left);
    t.connect_s = std::min(t.connect_s, t.total_s);
    bool timed_out = false;
    auto response = http_post(url, headers, body, t, &timed_out);
    double retry_after = -1;
    if (response.ok()) {
      if (!is_retryable_status(response->status)) return response;
      auto it = response->headers.find("retry-after");
      if (it != response->headers.end()) retry_after = parse_retry_after(it->second);
      last_error.reset();
      if (attempt + 1 == attempts) return response;
      warn("model server answered " + std::to_string(response->status) + "; retrying");
    } else {
      last_error = response.error();
      if (timed_out && !policy.retry_timeouts) {
        return Error::infrastructure(
            response.error().message + "; not retried: a server that does not answer within " +
            format_number(t.total_s) +
            " s is hung or overloaded (KGATE_LLM_TIMEOUT_S sets the limit per request)");
      }
      if (attempt + 1 == attempts) break;
      warn(response.error().message + "; retrying");
    }
    double wait = retry_delay(policy, attempt, retry_after, rng);
    if (wait >= left_s()) {
      if (response.ok()) return response;
      break;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
  if (!last_error && left_s() < 1e-3)
    return Error::infrastructure("POST " + url + ": no time left for the request (" +
                                 format_number(policy.deadline_s) + " s allowed)");
  return last_error ? *last_error : Error::infrastructure("POST " + url + ": no attempt made");
}

}  // namespace kgate
