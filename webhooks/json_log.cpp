#include "webhooks/json_log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "core/redact.h"
#include "core/utc_time.h"

namespace kgate::webhooks {
namespace {
std::mutex log_mutex;
std::atomic<bool> enabled{true};

}  // namespace

void set_json_log_enabled(bool on) {
  enabled = on;
}

void json_log(nlohmann::json line) {
  if (!enabled) return;
  line["ts"] = utc_now_iso8601_ms();
  // Redacted: a job's error text or a request header may carry a secret.
  std::string text =
      redact(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "\n";
  std::lock_guard lock(log_mutex);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace kgate::webhooks
