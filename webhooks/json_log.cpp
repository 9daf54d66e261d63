#include "webhooks/json_log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "core/redact.h"

namespace kgate::webhooks {
namespace {
std::mutex log_mutex;
std::atomic<bool> enabled{true};

std::string now_iso() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buffer;
}
}  // namespace

void set_json_log_enabled(bool on) {
  enabled = on;
}

void json_log(nlohmann::json line) {
  if (!enabled) return;
  line["ts"] = now_iso();
  // Redacted: a job's error text or a request header may carry a secret.
  std::string text =
      redact(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "\n";
  std::lock_guard lock(log_mutex);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace kgate::webhooks
