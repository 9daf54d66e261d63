#include "core/number_format.h"

#include <cmath>
#include <cstdio>

namespace kgate {

std::string format_seconds(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char buffer[32];
  if (seconds < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.2f us", seconds * 1e6);
  else if (seconds < 1)
    std::snprintf(buffer, sizeof buffer, "%.3f ms", seconds * 1e3);
  else
    std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
  return buffer;
}

std::string format_error(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return "inf";
  if (value == 0) return "0";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1e", value);
  return buffer;
}

std::string format_percent(double fraction, bool percent_sign) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, percent_sign ? "%+.1f%%" : "%+.1f", fraction * 100);
  return buffer;
}

std::string format_speedup(double factor) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2fx", factor);
  return buffer;
}

std::string format_number(double value, int significant) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, value);
  return buffer;
}

}  // namespace kgate
