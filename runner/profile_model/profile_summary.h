#pragma once
// The fixed-template summary of one profiled launch, what an agent reads and
// a pull request shows: the bottleneck class with its numbers first, then
// launch, compiler report, occupancy, speed of light, memory, coalescing,
// compute, stalls and hottest regions; which numbers are missing and why;
// at most 600 words. JSON with the same numbers beside it.
//
// Includes the data and the classification so a caller needs one header.
#include <string>

#include <nlohmann/json.hpp>

#include "runner/profile_model/bottleneck.h"
#include "runner/profile_model/profile_comparison.h"
#include "runner/profile_model/profile_data.h"

namespace kgate::profile_model {

// The fixed-template Markdown summary, at most 600 words.
std::string render_summary(const ProfileData& p);
// The summary's numbers as JSON: the data, the class and the derived values.
nlohmann::json summary_json(const ProfileData& p);

// Counts words as a reader would: runs of non-space characters.
size_t count_words(const std::string& text);
inline constexpr size_t kMaxSummaryWords = 600;

}  // namespace kgate::profile_model
