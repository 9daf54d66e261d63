#pragma once
// Reads hardware counters for one kernel launch in this process through the
// CUPTI range profiler (auto range, kernel replay: CUPTI saves and restores
// device memory and replays the launch once per pass). Needs only a CUDA
// context current on the calling thread and a callback that launches the
// kernel once, so it works with any loader of the kernel.
//
// Never mix with timing: replay and counter setup perturb the launch.
#include <cuda.h>

#include <functional>
#include <map>
#include <string>

#include "core/status.h"

namespace kgate::profile {

using LaunchOnce = std::function<Status()>;

struct CounterValues {
  std::string chip;                       // "GH100"
  size_t passes = 0;                      // replays CUPTI needed
  std::map<std::string, double> metrics;  // ProfileData::metrics keys
  std::map<std::string, double> stalls;   // reason -> cycles per issued instruction
};

// An Error says in plain words why counters cannot be read here (no
// permission: ERR_NVGPUCTRPERM, a virtualized GPU, an unsupported device),
// so the summary can say it.
Result<CounterValues> collect_counters(CUcontext context, CUdevice device,
                                       const LaunchOnce& launch);

}  // namespace kgate::profile
