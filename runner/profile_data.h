#pragma once
// What a profile of one launch found, in a backend-neutral form: the metric
// keys, the data and its JSON, and the numbers derived from it. Pure: the
// classification (bottleneck.h), the summary (profile_summary.h), the
// before/after comparison and the benchmark table read only this.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/device.h"
#include "runner/program.h"

namespace kgate {

// Keys of ProfileData::metrics. A key that is absent was not measured.
namespace metric {
inline constexpr const char* kDurationNs = "duration_ns";  // GPU time of the launch
inline constexpr const char* kDramPct = "dram_pct";        // DRAM throughput, % of peak
inline constexpr const char* kDramBytes = "dram_bytes";    // bytes read + written in DRAM
inline constexpr const char* kL1HitPct = "l1_hit_pct";     // L1/TEX sector hit rate
inline constexpr const char* kL2HitPct = "l2_hit_pct";     // L2 sector hit rate
inline constexpr const char* kLdSectors = "ld_sectors";    // global load sectors (32 B)
inline constexpr const char* kLdRequests = "ld_requests";  // global load requests
inline constexpr const char* kLdBytesRequested = "ld_bytes_requested";  // bytes threads asked for
inline constexpr const char* kStSectors = "st_sectors";
inline constexpr const char* kStRequests = "st_requests";
inline constexpr const char* kStBytesRequested = "st_bytes_requested";
inline constexpr const char* kAchievedOccupancyPct = "achieved_occupancy_pct";
inline constexpr const char* kSmPct = "sm_pct";    // SM speed of light
inline constexpr const char* kMemPct = "mem_pct";  // memory speed of light
// Branch targets a warp took (smsp__sass_branch_targets), those where the
// active threads agreed (uniform) and those where they split (divergent).
inline constexpr const char* kBranchTargets = "branch_targets";
inline constexpr const char* kBranchUniform = "branch_uniform";
inline constexpr const char* kBranchDivergent = "branch_divergent";
// Active threads per executed warp instruction (32 = no divergence at all).
inline constexpr const char* kThreadsPerInstruction = "threads_per_instruction";
inline constexpr const char* kFp32Flops = "fp32_flops";    // fadd + fmul + 2 ffma
inline constexpr const char* kLocalBytes = "local_bytes";  // local memory traffic (spills)
}  // namespace metric

// Theoretical occupancy and what limits it.
struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double pct = 0;       // warps_per_sm / max_warps_per_sm * 100
  std::string limiter;  // "registers", "shared memory", "threads per block", "blocks per SM"
  nlohmann::json to_json() const;
  static Occupancy from_json(const nlohmann::json& j);
};

// Ceilings this GPU really reaches, measured by kgate (roofline.h).
struct Ceilings {
  double bandwidth_bytes_per_s = 0;  // device-to-device copy
  double fp32_flops_per_s = 0;       // FMA-bound kernel
  std::string measured_at;           // ISO date
  nlohmann::json to_json() const;
  static Ceilings from_json(const nlohmann::json& j);
};

// One hot SASS region, mapped to a source line where line info was built.
struct HotRegion {
  std::string function;
  uint64_t pc_offset = 0;  // first instruction of the region
  double share_pct = 0;    // of all samples
  std::string top_stall;   // the stall reason most seen there
  std::string source;      // "csrc/x.cu:42", empty without line info
  std::string sass;        // the first instruction, for orientation
  uint64_t samples = 0;    // samples (or executed instructions) in the region
  nlohmann::json to_json() const;
  static HotRegion from_json(const nlohmann::json& j);
};

struct ProfileData {
  std::string kernel, shape, backend;
  std::string device;  // "NVIDIA H200", "host: ..."
  int multiprocessors = 0;
  LaunchDims dims;
  ResourceReport resources;
  std::optional<Occupancy> theoretical;
  std::optional<Ceilings> ceilings;
  std::optional<double> timed_seconds;  // median of timed samples, taken apart from profiling
  size_t bytes_moved = 0;               // LaunchPlan::traffic_bytes (in/out twice), 0 if unknown

  std::map<std::string, double> metrics;  // metric:: keys
  std::map<std::string, double> stalls;   // reason -> cycles per issued instruction
  std::vector<HotRegion> hot_regions;
  // How the hot regions were found and what the sampler saw ("pc sampling:
  // 3 ranges, 20480 samples, 0 dropped, ..."), for diagnosing an empty list.
  std::string sampler;

  // Numbers that could not be read: what and why ("hardware counters":
  // "no permission (ERR_NVGPUCTRPERM) ..."). Always said in the summary.
  std::map<std::string, std::string> missing;

  std::optional<double> get(const char* key) const;
  nlohmann::json to_json() const;
  static ProfileData from_json(const nlohmann::json& j);
};

// Derived numbers, absent where an input is missing.
std::optional<double> sectors_per_request(const ProfileData& p, bool loads);
// Requested bytes / bytes moved in 32-byte sectors, in percent (100 = ideal).
std::optional<double> coalescing_pct(const ProfileData& p, bool loads);
std::optional<double> achieved_bandwidth(const ProfileData& p);  // bytes/s
std::optional<double> kernel_seconds(const ProfileData& p);      // counter time, else timed
// Achieved bandwidth as a share of the measured copy ceiling, in percent.
std::optional<double> bandwidth_of_ceiling(const ProfileData& p);
std::optional<double> flops_rate(const ProfileData& p);  // FP32 FLOP/s
// Uniform branch targets / all branch targets, in percent (nvprof's "branch
// efficiency"); absent without branch counters or when no branch executed.
std::optional<double> branch_efficiency(const ProfileData& p);
// Active threads per warp instruction / 32, in percent ("warp execution
// efficiency"): divergence lowers it whether or not branches were counted.
std::optional<double> warp_efficiency(const ProfileData& p);
bool spills(const ProfileData& p);
uint64_t grid_blocks(const LaunchDims& d);
uint64_t block_threads(const LaunchDims& d);

}  // namespace kgate
