#pragma once
// Executed warp instructions per PC of one launch through CUPTI's SASS
// metrics API (CUPTI patches the kernel's SASS to count, so the numbers are
// exact, not sampled). The fallback for the hottest regions when PC
// sampling sees nothing: it ranks instructions by how often they ran, which
// names the hot loop but not why it stalls.
#include <cuda.h>

#include <string>

#include "core/status.h"
#include "runner/profile/counter_profiler.h"
#include "runner/profile/pc_sampling.h"

namespace kgate::profile {

// `device` is the CUDA ordinal of the context's GPU. Run it last: the
// patched module stays patched for the rest of the process.
Result<SampledPcs> count_instructions(CUcontext context, CUdevice device, const LaunchOnce& launch);

// The same for any SASS metric ("smsp__sass_branch_targets_threads_divergent"):
// per-PC values of one launch, their sum in `samples`. One metric per
// process, for the reason above. A metric that applies to no instruction of
// the kernel (branch metrics of a kernel without branches) gives no PCs and
// 0, not an error; only smsp__sass_inst_executed must patch something.
Result<SampledPcs> count_sass_metric(CUcontext context, CUdevice device, const LaunchOnce& launch,
                                     const std::string& metric);

}  // namespace kgate::profile
