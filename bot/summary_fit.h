#pragma once
// GitHub refuses check-run summaries over 65535 characters. A gate report
// for many shapes can exceed that; what a reviewer must still see are the
// failures. fit_summary() drops passing table rows first (from the end),
// says how many it dropped, and cuts the remaining text only as a last resort.
//
// Invariant: the result is at most `limit` bytes, valid UTF-8 when the input
// is, and every failure row survives whenever the non-row text plus failure
// rows fit.
#include <cstddef>
#include <string>

namespace kgate::bot {

inline constexpr size_t kGitHubSummaryLimit = 65535;

// A table row ("| ... |") that reports a failure: it mentions fail, slower,
// regress, error, mismatch, crash, timeout, or carries ❌ / ✗.
bool is_failure_row(const std::string& line);

std::string fit_summary(const std::string& markdown, size_t limit = kGitHubSummaryLimit);

// Cuts `text` to at most `limit` bytes without splitting a UTF-8 character.
std::string utf8_prefix(const std::string& text, size_t limit);

}  // namespace kgate::bot
