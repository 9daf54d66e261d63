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

namespace kgate::profile_model {

// Keys of ProfileData::metrics. A key that is absent was not measured.
namespace metric {
inline constexpr const char* kDurationNs = "duration_ns";  // GPU time of the launch
inline constexpr const char* kDramPct = "dram_pct";        // DRAM throughput, % of peak
inline constexpr const char* kDramBytes = "dram_bytes";    // bytes read + written in DRAM
inline constexpr const char* kL1HitPct = "l1_hit_pct";     // L1/TEX sector hit rate
// L2 sectors the SMs' loads and stores looked up, that hit and that missed:
// the hit rate is a ratio of these two counts (l2_hit_rate). kL2HitPct is
// CUPTI's ready-made lts__t_sector_hit_rate, which read 104% on a tiny
// launch; only profiles written before the counts exist carry it.
inline constexpr const char* kL2HitSectors = "l2_hit_sectors";
inline constexpr const char* kL2MissSectors = "l2_miss_sectors";
inline constexpr const char* kL2HitPct = "l2_hit_pct";
inline constexpr const char* kLdSectors = "ld_sectors";    // global load sectors (32 B)
inline constexpr const char* kLdRequests = "ld_requests";  // global load requests
inline constexpr const char* kLdBytesRequested = "ld_bytes_requested";  // bytes threads asked for
inline constexpr const char* kStSectors = "st_sectors";
inline constexpr const char* kStRequests = "st_requests";
inline constexpr const char* kStBytesRequested = "st_bytes_requested";
inline constexpr const char* kAchievedOccupancyPct = "achieved_occupancy_pct";
inline constexpr const char* kSmPct = "sm_pct";    // SM speed of light
inline constexpr const char* kMemPct = "mem_pct";  // memory speed of light
// Warp-level branch executions (SASS-patched counters): where the active
// threads agreed on the target (uniform), where they split (divergent), and
// the unique targets taken. kBranchInstructions (BRA, JMP, CALL, RET...;
// EXIT excluded) and kBranchUniformPctReported (CUPTI's own ratio) are kept
// for diagnosis only.
inline constexpr const char* kBranchTargets = "branch_targets";
inline constexpr const char* kBranchUniform = "branch_uniform";
inline constexpr const char* kBranchDivergent = "branch_divergent";
inline constexpr const char* kBranchInstructions = "branch_instructions";
inline constexpr const char* kBranchUniformPctReported = "branch_uniform_pct_reported";
// Branch counts through CUPTI's SASS metrics API (sass_branches.h), each in
// its own process: warp-level executions of branch instructions
// (smsp__sass_inst_executed_op_branch), those where the warp's threads took
// different targets (smsp__sass_branch_targets_threads_divergent), and how
// many branch instructions were patched (0: the kernel has none). On the
// H200 these agree with the hardware where the range profiler's same-named
// counters do not; where present they decide branch_efficiency.
inline constexpr const char* kSassApiBranchExecuted = "sass_api_branch_executed";
inline constexpr const char* kSassApiBranchDivergent = "sass_api_branch_divergent";
inline constexpr const char* kSassApiBranchInstructions = "sass_api_branch_instructions";
// Warp instructions executed, counted by the hardware and by SASS patching:
// they must agree, or no number from a patched counter (branches, bytes
// requested, FLOPs) is trusted (patched_counter_problem).
inline constexpr const char* kInstExecuted = "inst_executed";
inline constexpr const char* kSassInstExecuted = "sass_inst_executed";
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
  // Dynamic shared memory one block may use on this GPU (the opt-in limit);
  // 0 where unknown (the host, a profile that could not open the GPU).
  int64_t max_shared_per_block = 0;
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
  // Where the hot regions come from when not from PC sampling, and why
  // ("executed-instruction counts ...: PC sampling attributed no sample to
  // the kernel: every sample fell in ..."); empty for PC samples.
  std::string hot_regions_note;

  // Numbers that could not be read: what and why ("hardware counters":
  // "no permission (ERR_NVGPUCTRPERM) ..."). Always said in the summary.
  std::map<std::string, std::string> missing;

  std::optional<double> get(const char* key) const;
  nlohmann::json to_json() const;
  static ProfileData from_json(const nlohmann::json& j);
};

// Derived numbers, absent where an input is missing or where the inputs
// give an impossible value (a hit rate above 100%, more bytes requested than
// fetched): such a number is never shown; number_problems says why.
std::optional<double> sectors_per_request(const ProfileData& p, bool loads);
// Requested bytes / bytes moved in 32-byte sectors, in percent (100 = ideal).
std::optional<double> coalescing_pct(const ProfileData& p, bool loads);
// L2 hits / (hits + misses) over the sectors the SMs looked up, in percent.
std::optional<double> l2_hit_rate(const ProfileData& p);
// L1 hit rate and achieved occupancy, absent where impossible (above 100%,
// or achieved above the theoretical occupancy).
std::optional<double> l1_hit_rate(const ProfileData& p);
std::optional<double> achieved_occupancy(const ProfileData& p);
// A "% of peak" metric (kSmPct, kMemPct, kDramPct), absent where impossible.
std::optional<double> throughput_pct(const ProfileData& p, const char* key);
std::optional<double> achieved_bandwidth(const ProfileData& p);  // bytes/s
std::optional<double> kernel_seconds(const ProfileData& p);      // counter time, else timed
// Achieved bandwidth as a share of the measured copy ceiling, in percent.
std::optional<double> bandwidth_of_ceiling(const ProfileData& p);
std::optional<double> flops_rate(const ProfileData& p);  // FP32 FLOP/s
// (branches - divergent branches) / branches over warp-level branch
// executions, in percent (NVIDIA's "branch efficiency"). From the SASS
// metrics API's counts where present (branches = executions of branch
// instructions), else from the range profiler's (branches = uniform +
// divergent executions, trusted only if patched_counter_problem is empty).
// Absent when the kernel has no branch instruction or executed none, or
// when the counts are impossible (more divergent branches than branches;
// divergent branches while every instruction ran with all 32 threads).
std::optional<double> branch_efficiency(const ProfileData& p);
// True when the SASS metrics API found no branch instruction in the kernel.
bool no_branch_instructions(const ProfileData& p);
// Active threads per warp instruction / 32, in percent ("warp execution
// efficiency"): divergence lowers it whether or not branches were counted.
std::optional<double> warp_efficiency(const ProfileData& p);
// Why CUPTI's SASS-patched counters cannot be trusted in `p`; empty if they can.
std::string patched_counter_problem(const ProfileData& p);
// Numbers whose counters were read but which are withheld, and why
// ("branch efficiency" -> "..."): the summary lists them as missing.
std::map<std::string, std::string> number_problems(const ProfileData& p);
bool spills(const ProfileData& p);
uint64_t grid_blocks(const LaunchDims& d);
uint64_t block_threads(const LaunchDims& d);

}  // namespace kgate::profile_model
