#include "runner/profile_model/profile_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kgate::profile_model {

nlohmann::json Occupancy::to_json() const {
  return {{"blocks_per_sm", blocks_per_sm},
          {"warps_per_sm", warps_per_sm},
          {"max_warps_per_sm", max_warps_per_sm},
          {"pct", pct},
          {"limiter", limiter}};
}
Occupancy Occupancy::from_json(const nlohmann::json& j) {
  Occupancy o;
  o.blocks_per_sm = j.value("blocks_per_sm", 0);
  o.warps_per_sm = j.value("warps_per_sm", 0);
  o.max_warps_per_sm = j.value("max_warps_per_sm", 0);
  o.pct = j.value("pct", 0.0);
  o.limiter = j.value("limiter", "");
  return o;
}

nlohmann::json Ceilings::to_json() const {
  return {{"bandwidth_bytes_per_s", bandwidth_bytes_per_s},
          {"fp32_flops_per_s", fp32_flops_per_s},
          {"measured_at", measured_at}};
}
Ceilings Ceilings::from_json(const nlohmann::json& j) {
  Ceilings c;
  c.bandwidth_bytes_per_s = j.value("bandwidth_bytes_per_s", 0.0);
  c.fp32_flops_per_s = j.value("fp32_flops_per_s", 0.0);
  c.measured_at = j.value("measured_at", "");
  return c;
}

nlohmann::json HotRegion::to_json() const {
  return {{"function", function},   {"pc_offset", pc_offset}, {"share_pct", share_pct},
          {"top_stall", top_stall}, {"source", source},       {"sass", sass},
          {"samples", samples}};
}
HotRegion HotRegion::from_json(const nlohmann::json& j) {
  HotRegion h;
  h.function = j.value("function", "");
  h.pc_offset = j.value("pc_offset", uint64_t{0});
  h.share_pct = j.value("share_pct", 0.0);
  h.top_stall = j.value("top_stall", "");
  h.source = j.value("source", "");
  h.sass = j.value("sass", "");
  h.samples = j.value("samples", uint64_t{0});
  return h;
}

std::optional<double> ProfileData::get(const char* key) const {
  auto it = metrics.find(key);
  if (it == metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

nlohmann::json ProfileData::to_json() const {
  nlohmann::json j = {{"kernel", kernel},
                      {"shape", shape},
                      {"backend", backend},
                      {"device", device},
                      {"multiprocessors", multiprocessors},
                      {"grid", {dims.grid[0], dims.grid[1], dims.grid[2]}},
                      {"block", {dims.block[0], dims.block[1], dims.block[2]}},
                      {"dynamic_shared_bytes", dims.shared_bytes},
                      {"resources", resources.to_json()},
                      {"bytes_moved", bytes_moved},
                      {"metrics", metrics},
                      {"stalls", stalls},
                      {"missing", missing},
                      {"sampler", sampler},
                      {"hot_regions_note", hot_regions_note},
                      {"hot_regions", nlohmann::json::array()}};
  if (theoretical) j["theoretical_occupancy"] = theoretical->to_json();
  if (ceilings) j["ceilings"] = ceilings->to_json();
  if (timed_seconds) j["timed_seconds"] = *timed_seconds;
  if (max_shared_per_block > 0) j["max_shared_per_block"] = max_shared_per_block;
  for (const HotRegion& h : hot_regions) j["hot_regions"].push_back(h.to_json());
  return j;
}

ProfileData ProfileData::from_json(const nlohmann::json& j) {
  ProfileData p;
  p.kernel = j.value("kernel", "");
  p.shape = j.value("shape", "");
  p.backend = j.value("backend", "");
  p.device = j.value("device", "");
  p.multiprocessors = j.value("multiprocessors", 0);
  p.max_shared_per_block = j.value("max_shared_per_block", int64_t{0});
  for (int i = 0; i < 3; ++i) {
    if (j.contains("grid")) p.dims.grid[i] = j["grid"].at(i).get<uint32_t>();
    if (j.contains("block")) p.dims.block[i] = j["block"].at(i).get<uint32_t>();
  }
  p.dims.shared_bytes = j.value("dynamic_shared_bytes", 0u);
  if (j.contains("resources")) p.resources = ResourceReport::from_json(j["resources"]);
  p.bytes_moved = j.value("bytes_moved", size_t{0});
  if (j.contains("metrics")) p.metrics = j["metrics"].get<std::map<std::string, double>>();
  if (j.contains("stalls")) p.stalls = j["stalls"].get<std::map<std::string, double>>();
  if (j.contains("missing")) p.missing = j["missing"].get<std::map<std::string, std::string>>();
  if (j.contains("theoretical_occupancy"))
    p.theoretical = Occupancy::from_json(j["theoretical_occupancy"]);
  if (j.contains("ceilings")) p.ceilings = Ceilings::from_json(j["ceilings"]);
  if (j.contains("timed_seconds")) p.timed_seconds = j["timed_seconds"].get<double>();
  p.sampler = j.value("sampler", "");
  p.hot_regions_note = j.value("hot_regions_note", "");
  if (j.contains("hot_regions"))
    for (const auto& h : j["hot_regions"]) p.hot_regions.push_back(HotRegion::from_json(h));
  return p;
}

namespace {

// A derived number, or why it is withheld though its counters were read
// (`why` empty and no value: an input was simply not measured).
struct Derived {
  std::optional<double> value;
  std::string why;
};

Derived withheld(std::string why) {
  return {std::nullopt, std::move(why)};
}

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}
std::string pct1(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f%%", v);
  return b;
}

// Hardware percentages above 100 (or below 0) are impossible; a value a
// hair over 100 from rounding is shown as 100.
constexpr double kPctSlack = 0.5;

Derived checked_pct(std::optional<double> v, const std::string& what) {
  if (!v) return {};
  if (*v < -kPctSlack || *v > 100 + kPctSlack)
    return withheld("the counters give an impossible " + what + " of " + pct1(*v));
  return {std::clamp(*v, 0.0, 100.0), ""};
}

Derived coalescing(const ProfileData& p, bool loads) {
  auto s = p.get(loads ? metric::kLdSectors : metric::kStSectors);
  auto b = p.get(loads ? metric::kLdBytesRequested : metric::kStBytesRequested);
  if (!s || !b || *s <= 0) return {};
  if (std::string why = patched_counter_problem(p); !why.empty()) return withheld(why);
  double pct = *b / (*s * 32) * 100;
  if (pct > 100 + kPctSlack)
    return withheld("threads requested " + num(*b) + " B but only " + num(*s) +
                    " sectors of 32 B were fetched (" + pct1(pct) + "): the counters disagree");
  return {std::min(100.0, pct), ""};
}

Derived l2_hits(const ProfileData& p) {
  auto hit = p.get(metric::kL2HitSectors), miss = p.get(metric::kL2MissSectors);
  if (hit && miss) {
    if (*hit < 0 || *miss < 0) return withheld("negative L2 sector counts");
    if (*hit + *miss <= 0) return {};  // no L2 lookup at all: nothing to rate
    return {*hit / (*hit + *miss) * 100, ""};
  }
  // Profiles written before the sector counts: CUPTI's ratio, if possible.
  return checked_pct(p.get(metric::kL2HitPct), "L2 hit rate");
}

Derived occupancy(const ProfileData& p) {
  Derived d = checked_pct(p.get(metric::kAchievedOccupancyPct), "achieved occupancy");
  if (d.value && p.theoretical && p.theoretical->pct > 0 &&
      *d.value > p.theoretical->pct + 1)  // one point: the average's sampling noise
    return withheld("achieved occupancy " + pct1(*d.value) + " exceeds the theoretical " +
                    pct1(p.theoretical->pct) + ", which is impossible");
  return d;
}

Derived flops(const ProfileData& p) {
  auto f = p.get(metric::kFp32Flops);
  auto s = kernel_seconds(p);
  if (!f || !s || *s <= 0) return {};
  if (std::string why = patched_counter_problem(p); !why.empty()) return withheld(why);
  return {*f / *s, ""};
}

// (executed - divergent) / executed, unless the counts are impossible.
Derived branch_ratio(const ProfileData& p, double executed, double divergent) {
  if (executed < 0 || divergent < 0) return withheld("negative branch counts");
  if (divergent > executed)
    return withheld(num(divergent) + " divergent branches counted but only " + num(executed) +
                    " branches executed: the branch counters are wrong");
  if (executed <= 0) return {};  // no branch executed: the text says so
  // A divergent branch runs each side with part of the warp, so some
  // instruction must then execute with fewer than 32 threads.
  auto tpi = p.get(metric::kThreadsPerInstruction);
  if (divergent > 0 && tpi && *tpi >= 32 - 1e-6)
    return withheld(num(divergent) +
                    " divergent branches counted, yet every warp instruction ran with all 32 "
                    "threads (warp execution efficiency 100%): the branch counters are wrong");
  return {(executed - divergent) / executed * 100, ""};
}

Derived branches(const ProfileData& p) {
  // The SASS metrics API first: on the H200 its counts are right where the
  // range profiler's patched counters are not.
  auto api_executed = p.get(metric::kSassApiBranchExecuted);
  auto api_divergent = p.get(metric::kSassApiBranchDivergent);
  if (api_executed && api_divergent) {
    if (no_branch_instructions(p)) return {};
    return branch_ratio(p, *api_executed, *api_divergent);
  }
  auto uniform = p.get(metric::kBranchUniform), divergent = p.get(metric::kBranchDivergent);
  if (!uniform || !divergent) return {};
  if (std::string why = patched_counter_problem(p); !why.empty()) return withheld(why);
  return branch_ratio(p, *uniform + *divergent, *divergent);
}

}  // namespace

std::optional<double> sectors_per_request(const ProfileData& p, bool loads) {
  auto s = p.get(loads ? metric::kLdSectors : metric::kStSectors);
  auto r = p.get(loads ? metric::kLdRequests : metric::kStRequests);
  if (!s || !r || *r <= 0) return std::nullopt;
  return *s / *r;
}

std::optional<double> coalescing_pct(const ProfileData& p, bool loads) {
  return coalescing(p, loads).value;
}

std::optional<double> l2_hit_rate(const ProfileData& p) {
  return l2_hits(p).value;
}

std::optional<double> l1_hit_rate(const ProfileData& p) {
  return checked_pct(p.get(metric::kL1HitPct), "L1 hit rate").value;
}

std::optional<double> throughput_pct(const ProfileData& p, const char* key) {
  return checked_pct(p.get(key), key).value;
}

std::optional<double> achieved_occupancy(const ProfileData& p) {
  return occupancy(p).value;
}

std::optional<double> kernel_seconds(const ProfileData& p) {
  if (auto ns = p.get(metric::kDurationNs); ns && *ns > 0) return *ns * 1e-9;
  return p.timed_seconds;
}

std::optional<double> achieved_bandwidth(const ProfileData& p) {
  auto s = kernel_seconds(p);
  if (!s || *s <= 0) return std::nullopt;
  if (auto b = p.get(metric::kDramBytes)) return *b / *s;
  if (p.bytes_moved > 0) return double(p.bytes_moved) / *s;
  return std::nullopt;
}

std::optional<double> bandwidth_of_ceiling(const ProfileData& p) {
  auto bw = achieved_bandwidth(p);
  if (!bw || !p.ceilings || p.ceilings->bandwidth_bytes_per_s <= 0) return std::nullopt;
  return *bw / p.ceilings->bandwidth_bytes_per_s * 100;
}

std::optional<double> flops_rate(const ProfileData& p) {
  return flops(p).value;
}

std::optional<double> branch_efficiency(const ProfileData& p) {
  return branches(p).value;
}

bool no_branch_instructions(const ProfileData& p) {
  auto n = p.get(metric::kSassApiBranchInstructions);
  return n && *n <= 0 && p.get(metric::kSassApiBranchExecuted) &&
         p.get(metric::kSassApiBranchDivergent);
}

std::optional<double> warp_efficiency(const ProfileData& p) {
  auto t = p.get(metric::kThreadsPerInstruction);
  if (!t || *t <= 0) return std::nullopt;
  return std::min(100.0, *t / 32 * 100);
}

std::string patched_counter_problem(const ProfileData& p) {
  auto hw = p.get(metric::kInstExecuted), sass = p.get(metric::kSassInstExecuted);
  if (!hw || !sass)
    return "cannot check CUPTI's SASS-patched counters: the profile lacks the warp instruction "
           "counts (smsp__inst_executed, smsp__sass_inst_executed) they are checked against";
  // Both count every warp instruction of the launch; patching that works
  // agrees with the hardware to within rounding.
  if (std::abs(*sass - *hw) > 0.02 * std::max(*hw, 1.0))
    return "CUPTI's SASS-patched counters disagree with the hardware (" + num(*sass) +
           " warp instructions counted by patching, " + num(*hw) +
           " by the hardware), so numbers from them are withheld";
  return "";
}

std::map<std::string, std::string> number_problems(const ProfileData& p) {
  std::map<std::string, std::string> out;
  auto note = [&](const char* what, const Derived& d) {
    if (!d.value && !d.why.empty()) out[what] = d.why;
  };
  note("branch efficiency", branches(p));
  note("load coalescing (bytes used)", coalescing(p, true));
  note("store coalescing (bytes used)", coalescing(p, false));
  note("FP32 rate", flops(p));
  note("L2 hit rate", l2_hits(p));
  note("L1 hit rate", checked_pct(p.get(metric::kL1HitPct), "L1 hit rate"));
  note("achieved occupancy", occupancy(p));
  note("SM speed of light", checked_pct(p.get(metric::kSmPct), "SM throughput"));
  note("memory speed of light", checked_pct(p.get(metric::kMemPct), "memory throughput"));
  note("DRAM throughput", checked_pct(p.get(metric::kDramPct), "DRAM throughput"));
  return out;
}

bool spills(const ProfileData& p) {
  return p.resources.spill_store_bytes > 0 || p.resources.spill_load_bytes > 0;
}

uint64_t grid_blocks(const LaunchDims& d) {
  return uint64_t(d.grid[0]) * d.grid[1] * d.grid[2];
}
uint64_t block_threads(const LaunchDims& d) {
  return uint64_t(d.block[0]) * d.block[1] * d.block[2];
}

}  // namespace kgate::profile_model
