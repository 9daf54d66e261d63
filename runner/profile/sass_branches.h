#pragma once
// Branch efficiency's two counts through CUPTI's SASS metrics API: warp-level
// executions of branch instructions and the divergent ones, each counted in
// its own forked child because SASS patching lasts for the process
// (sass_counts.h). On the H200 the range profiler's smsp__sass_* counters
// read the same few values for unrelated metrics, while this API's
// instruction count equals the hardware's exactly.
#include <functional>
#include <string>

#include "core/status.h"
#include "runner/profile/pc_sampling.h"
#include "runner/profile_model/profile_data.h"

namespace kgate::profile {

inline constexpr const char* kSassBranchMetric = "smsp__sass_inst_executed_op_branch";
inline constexpr const char* kSassDivergentMetric = "smsp__sass_branch_targets_threads_divergent";
// ProfileData::missing key when the SASS metrics API could not count.
inline constexpr const char* kSassBranchesMissing = "branch counts (SASS metrics API)";

// One SASS metric's total over the kernel's launch and how many
// instructions CUPTI patched for it (0: the kernel has none it applies to).
struct SassTotal {
  double sum = 0;
  size_t instructions = 0;
};

// Pure: records both counts in `p` (metric::kSassApiBranch*), or, where
// either failed, why in p.missing[kSassBranchesMissing]; branch_efficiency
// then falls back to the range profiler's counters and their check.
void record_sass_branches(profile_model::ProfileData& p, const Result<SassTotal>& executed,
                          const Result<SassTotal>& divergent);

// Counts one SASS metric of the profiled launch. It runs in a fresh child
// and must open the GPU, load the kernel and its arguments itself, then
// call count_sass_metric.
using CountSassMetric = std::function<Result<SampledPcs>(const std::string& metric)>;

// Runs `count` for kSassBranchMetric and kSassDivergentMetric, each in its
// own forked child (at most `timeout_s` each), and records the result. The
// calling process must not hold a CUDA context (a forked child cannot use it).
void add_sass_branches(profile_model::ProfileData& p, const CountSassMetric& count,
                       double timeout_s);

}  // namespace kgate::profile
