#pragma once
// A before/after comparison of two profiles of one kernel and shape, for a
// pull request body: the class change on top, then a Markdown table of the
// numbers a reviewer weighs (time, bandwidth, coalescing, occupancy, spills).
#include <string>

#include "runner/profile_model/profile_data.h"

namespace kgate::profile_model {

std::string render_comparison(const ProfileData& before, const ProfileData& after);

}  // namespace kgate::profile_model
