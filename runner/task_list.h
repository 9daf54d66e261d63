#pragma once
// The task list: what a workload spends its GPU time on, per phase, built
// from a launch trace. Each kernel that ran gets its share of the phase's
// and of the whole trace's GPU time, its launch count and its most frequent
// grid and block, and is matched by entry name to a manifest kernel; hot
// kernels that are not in the manifest (cuBLAS, the workload's own) stay
// listed as such, so the shares add up to the traced total.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "runner/launch_trace.h"

namespace kgate {

struct TaskKernel {
  std::string name;    // demangled launch name
  std::string kernel;  // the manifest kernel it is; empty when not in the manifest
  int64_t launches = 0;
  uint64_t total_ns = 0;
  double share_of_phase = 0;  // of the phase's GPU time (whole trace for TaskList::kernels)
  double share_of_total = 0;  // of the whole trace's GPU time
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};  // the most frequent launch
  int configs = 0;                                        // distinct (grid, block) seen

  nlohmann::json to_json() const;
  static TaskKernel from_json(const nlohmann::json& j);
};

// Launches outside every declared phase go to this phase.
inline constexpr const char* kOutsidePhases = "(outside phases)";

struct PhaseTasks {
  std::string phase;
  uint64_t total_ns = 0;
  double share = 0;                 // of the whole trace
  std::vector<TaskKernel> kernels;  // by GPU time, largest first
};

struct TaskList {
  uint64_t total_ns = 0;
  int64_t launches = 0;
  bool nvtx = false;                // the trace had NVTX ranges
  long dropped_records = 0;         // non-zero: shares are incomplete
  std::vector<PhaseTasks> phases;   // in order of first appearance
  std::vector<TaskKernel> kernels;  // whole trace, by GPU time

  // Share of the whole trace's GPU time of a manifest kernel (summed over its launches).
  double kernel_share(const std::string& kernel) const;
  nlohmann::json to_json() const;
  static Result<TaskList> from_json(const nlohmann::json& j);
};

// The manifest kernel whose cuda (else any) entry `launch_name` launches, or empty.
// Matches the exact entry or a demangled C++ name starting with "entry(" or "entry<".
std::string match_manifest_kernel(const std::string& launch_name, const Manifest& manifest);

// A launch belongs to the first component of its range path that is one of
// `phases`; with no such component, to its outermost range; with no range, to
// kOutsidePhases. An empty `phases` takes the outermost range.
std::string phase_of(const std::string& range_path, const std::vector<std::string>& phases);

TaskList build_task_list(const LaunchTrace& trace, const Manifest& manifest);

// Terminal table: phase, kernel, manifest kernel, share, launches, grid, block.
std::string render_task_list(const TaskList& tasks, size_t max_per_phase = 12);

}  // namespace kgate
