#pragma once
// The hottest instruction regions of one launch, from CUPTI PC sampling
// (kernel-serialized, around the launch callback), each mapped to a source
// line where the cubin carries line information (-lineinfo). A region is a
// source line, or a 64-byte window of SASS without line info.
#include <cuda.h>

#include <string>
#include <vector>

#include "core/status.h"
#include "runner/profile/counter_profiler.h"
#include "runner/profile_summary.h"

namespace kgate::profile {

// `cubin` is the loaded image (for source correlation; may be empty).
Result<std::vector<HotRegion>> hot_regions(CUcontext context, const LaunchOnce& launch,
                                           const std::string& cubin, size_t top = 3);

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard".
std::string short_stall_name(const std::string& cupti_name);

}  // namespace kgate::profile
