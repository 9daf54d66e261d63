#include "core/log.h"

#include <atomic>
#include <cstdio>

namespace kgate {
namespace {
std::atomic<bool> g_quiet{false};
}

void set_quiet(bool quiet) {
  g_quiet = quiet;
}

void progress(const std::string& line) {
  if (!g_quiet) std::fprintf(stderr, "kgate: %s\n", line.c_str());
}

void warn(const std::string& line) {
  std::fprintf(stderr, "kgate: warning: %s\n", line.c_str());
}

}  // namespace kgate
