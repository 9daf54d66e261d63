// The one UTC clock-to-text helper (core/utc_time.h): each form has the
// shape its readers parse, and agrees with the clock.
#include "core/utc_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <regex>

namespace kgate {
namespace {

TEST(UtcTime, FormsHaveTheirShapes) {
  EXPECT_TRUE(
      std::regex_match(utc_now_iso8601(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")))
      << utc_now_iso8601();
  EXPECT_TRUE(std::regex_match(utc_now_iso8601_ms(),
                               std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)")))
      << utc_now_iso8601_ms();
  EXPECT_TRUE(std::regex_match(utc_now_compact(), std::regex(R"(\d{8}T\d{6}Z)")))
      << utc_now_compact();
}

TEST(UtcTime, IsUtcNotLocalTime) {
  // In a zone far from UTC, the stamp is still gmtime's (to the minute, on
  // either side of the call).
  setenv("TZ", "Asia/Kolkata", 1);  // +05:30 all year
  tzset();
  std::time_t before = std::time(nullptr);
  std::string stamp = utc_now_iso8601();
  std::time_t after = std::time(nullptr);
  auto format = [](std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M", &tm);
    return std::string(buf);
  };
  std::string minute = stamp.substr(0, 16);
  EXPECT_TRUE(minute == format(before) || minute == format(after)) << stamp;
  unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace kgate
