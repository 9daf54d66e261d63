#pragma once
// One compact Markdown table over many profiles (a row per kernel and shape),
// for docs/BENCHMARKS.md and a quick look across a repository: class, DRAM
// share of the measured ceiling, L2 hit, sectors per request, occupancy,
// top stall, branch efficiency and the hottest region.
#include <string>
#include <vector>

#include "runner/profile_model/profile_data.h"

namespace kgate::profile_model {

std::string render_profile_table(const std::vector<ProfileData>& profiles);

}  // namespace kgate::profile_model
