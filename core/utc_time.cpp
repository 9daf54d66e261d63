#include "core/utc_time.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace kgate {
namespace {

std::string format_utc(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

std::string utc_now_iso8601() {
  return format_utc(std::time(nullptr), "%Y-%m-%dT%H:%M:%SZ");
}

std::string utc_now_iso8601_ms() {
  auto now = std::chrono::system_clock::now();
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::string seconds = format_utc(std::chrono::system_clock::to_time_t(now), "%Y-%m-%dT%H:%M:%S");
  char buf[80];
  std::snprintf(buf, sizeof buf, "%s.%03dZ", seconds.c_str(), static_cast<int>(ms));
  return buf;
}

std::string utc_now_compact() {
  return format_utc(std::time(nullptr), "%Y%m%dT%H%M%SZ");
}

}  // namespace kgate
