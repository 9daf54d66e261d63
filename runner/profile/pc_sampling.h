#pragma once
// CUPTI PC sampling around one kernel's launches: which instructions the
// SMs' warps sat at, and why they stalled. Returns per-PC counts (fed to
// hot_regions.h) and a log line of what the sampler saw, so one run on a GPU
// tells whether sampling works there.
//
// It once came back empty on the H200; what this does differently (which
// of the first two was the cause is not isolated yet):
// - the data of a start/stop range lands in the configured buffer at
//   cuptiPCSamplingStop; it was read only after cuptiPCSamplingDisable,
//   which leaves that buffer empty. It is now read right after each stop and
//   drained with cuptiPCSamplingGetData while CUPTI reports PCs remaining;
// - a period of 2^5 cycles (the smallest) on 132 SMs can fill the hardware
//   buffer, after which CUPTI reports zero PCs; the period is now chosen
//   from the kernel's measured time for about 20000 samples a launch;
// - a launch of a few microseconds gives few samples: the launch is repeated
//   (one range each) until enough samples came or a bound is reached;
// - if kernel-serialized collection still sees nothing, continuous
//   collection is tried before giving up, and the log names both.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/profile/counter_profiler.h"
#include "runner/profile/hot_regions.h"

namespace kgate::profile {

struct SamplingOptions {
  double kernel_seconds = 0;   // measured; picks the period (0: unknown)
  double sm_clock_hz = 1.5e9;  // for the period
  int multiprocessors = 100;
  uint64_t min_samples = 5000;  // repeat launches until this many samples...
  int max_launches = 32;        // ...or this many launches
  double max_seconds = 20;      // ...or this much wall time
};

struct SampledPcs {
  std::vector<PcCount> pcs;  // the kernel's PCs with their samples per stall reason
  uint64_t samples = 0;      // sum over pcs
  std::string log;           // "kernel-serialized, period 2^12 cycles: 3 launches, ..."
};

// Samples PCs over repeated launches. An Error carries the log so far; a
// result with no samples is returned as an Error that says what CUPTI saw.
Result<SampledPcs> sample_pcs(CUcontext context, const LaunchOnce& launch,
                              const SamplingOptions& options);

// The period exponent (cycles = 2^result, 8..20) that gives about `target`
// samples for one launch of `seconds` on `multiprocessors` SMs at `clock_hz`.
uint32_t sampling_period_exponent(double seconds, double clock_hz, int multiprocessors,
                                  double target = 20000);

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard".
std::string short_stall_name(const std::string& cupti_name);

}  // namespace kgate::profile
