#pragma once
// What a profile of one launch found, in a backend-neutral form, and the
// fixed-template summary an agent reads and a pull request shows. The
// summary names a bottleneck class with the numbers that support it, says
// which numbers are missing and why, and stays under 600 words.
//
// Everything here is a pure function of ProfileData, so it is tested on the
// CPU with constructed metric sets.
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
inline constexpr const char* kSmPct = "sm_pct";                         // SM speed of light
inline constexpr const char* kMemPct = "mem_pct";                       // memory speed of light
inline constexpr const char* kBranchUniformPct = "branch_uniform_pct";  // branch efficiency
inline constexpr const char* kFp32Flops = "fp32_flops";                 // fadd + fmul + 2 ffma
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
  size_t bytes_moved = 0;               // every buffer once (launch plan), 0 if unknown

  std::map<std::string, double> metrics;  // metric:: keys
  std::map<std::string, double> stalls;   // reason -> cycles per issued instruction
  std::vector<HotRegion> hot_regions;

  // Numbers that could not be read: what and why ("hardware counters":
  // "no permission (ERR_NVGPUCTRPERM) ..."). Always said in the summary.
  std::map<std::string, std::string> missing;

  std::optional<double> get(const char* key) const;
  nlohmann::json to_json() const;
  static ProfileData from_json(const nlohmann::json& j);
};

enum class Bottleneck {
  kMemoryPoorCoalescing,  // memory-bound, many sectors per request
  kMemoryEfficient,       // memory-bound, accesses already coalesced
  kComputeBound,
  kLatencyLowOccupancy,  // neither pipe busy, few warps resident
  kRegisterLimited,      // occupancy capped by registers, or spilling
  kLaunchBound,          // too little work: launch overhead dominates
  kLatencyBound,         // neither pipe busy although warps are resident
  kUnknown,              // not enough numbers to tell
};
std::string_view to_string(Bottleneck b);
// One of the lowercase class names as printed ("memory-bound, poor coalescing").
std::string_view describe(Bottleneck b);

struct Classification {
  Bottleneck bottleneck = Bottleneck::kUnknown;
  std::string evidence;  // one or two sentences with the supporting numbers
  std::string advice;    // what usually helps for this class
};

// Derived numbers, absent where an input is missing.
std::optional<double> sectors_per_request(const ProfileData& p, bool loads);
// Requested bytes / bytes moved in 32-byte sectors, in percent (100 = ideal).
std::optional<double> coalescing_pct(const ProfileData& p, bool loads);
std::optional<double> achieved_bandwidth(const ProfileData& p);  // bytes/s
std::optional<double> kernel_seconds(const ProfileData& p);      // counter time, else timed

Classification classify(const ProfileData& p);

// The fixed-template Markdown summary, at most 600 words.
std::string render_summary(const ProfileData& p);
// The summary's numbers as JSON: the data, the class and the derived values.
nlohmann::json summary_json(const ProfileData& p);
// A before/after comparison of two profiles for a pull request body.
std::string render_comparison(const ProfileData& before, const ProfileData& after);

// Counts words as a reader would: runs of non-space characters.
size_t count_words(const std::string& text);
inline constexpr size_t kMaxSummaryWords = 600;

}  // namespace kgate
