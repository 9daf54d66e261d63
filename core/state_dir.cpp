#include "core/state_dir.h"

#include <cstdlib>

namespace kgate {

std::filesystem::path default_state_dir(const std::filesystem::path& repo) {
  if (const char* env = std::getenv("KGATE_STATE_DIR"); env && *env) return env;
  return repo / ".kgate";
}

}  // namespace kgate
