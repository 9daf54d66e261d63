#pragma once
// CUPTI PC sampling around one kernel's launches: which instructions the
// SMs' warps sat at, and why they stalled. Returns per-PC counts (fed to
// hot_regions.h) and a log line of what the sampler saw, so one run on a GPU
// tells whether sampling works there.
//
// On the H200 every sample once counted "in non-user kernels" and no PC was
// attributed to the kernel. CUPTI gives PC records only for functions of
// modules it saw loaded (its module-load callback registers the cubin and
// its CRC); the profiler loads the kernel's module before any CUPTI call
// (timing comes first), so CUPTI never saw that load. The sampled launches
// therefore run a fresh copy of the module, loaded after PC sampling is
// enabled on the context (`reload`); only PCs of that cubin (by CUPTI's CRC
// of it) are kept. Also:
// - the data of a start/stop range lands in the configured buffer at
//   cuptiPCSamplingStop: it is read right after each stop and drained with
//   cuptiPCSamplingGetData while CUPTI reports PCs remaining;
// - the period is chosen from the kernel's measured time for about 20000
//   samples a launch (a period of 2^5 cycles can fill the hardware buffer);
// - a launch of a few microseconds gives few samples: the launch is repeated
//   (one range each) until enough samples came or a bound is reached;
// - if kernel-serialized collection still sees nothing, continuous
//   collection is tried before giving up, and the log says why each saw
//   nothing (sampling_shortfall).
#include <cuda.h>

#include <cstdint>
#include <functional>
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

// Called once PC sampling is enabled on the context: loads a fresh copy of
// the kernel's module (so CUPTI sees the load) and returns its launch.
using ReloadForSampling = std::function<Result<LaunchOnce>()>;

// Samples PCs over repeated launches of what `reload` returns (of `launch`
// where `reload` is empty or fails, which the log says). `cubin` (may be
// empty) is the kernel's image: only PCs of it are kept. An Error carries
// the log so far; a result with no samples is returned as an Error that
// says what CUPTI saw and why nothing was attributed to the kernel.
Result<SampledPcs> sample_pcs(CUcontext context, const LaunchOnce& launch,
                              const SamplingOptions& options, const ReloadForSampling& reload = {},
                              const std::string& cubin = "");

// What CUPTI counted in one collection mode, and why none of it reached the
// kernel's PCs ("" when some did): no samples at all, all dropped, all in
// kernels CUPTI does not attribute to a module it saw loaded, all in other
// modules, or a full hardware buffer. Pure.
struct SamplingCounts {
  uint64_t cupti_total = 0, dropped = 0, non_user = 0;
  uint64_t kept = 0;         // samples at the kernel's PCs
  uint64_t other_cubin = 0;  // samples at PCs of other modules (helpers)
  bool buffer_full = false;
  bool reloaded = true;  // the sampled module was loaded after sampling was enabled
};
std::string sampling_shortfall(const SamplingCounts& counts);

// The period exponent (cycles = 2^result, 8..20) that gives about `target`
// samples for one launch of `seconds` on `multiprocessors` SMs at `clock_hz`.
uint32_t sampling_period_exponent(double seconds, double clock_hz, int multiprocessors,
                                  double target = 20000);

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard".
std::string short_stall_name(const std::string& cupti_name);

}  // namespace kgate::profile
