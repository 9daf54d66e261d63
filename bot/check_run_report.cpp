#include "bot/check_run_report.h"

#include <algorithm>
#include <array>

namespace kgate::bot {

bool is_valid_conclusion(const std::string& conclusion) {
  static const std::array<const char*, 7> kValid = {
      "success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required"};
  return std::any_of(kValid.begin(), kValid.end(), [&](const char* v) { return conclusion == v; });
}

}  // namespace kgate::bot
