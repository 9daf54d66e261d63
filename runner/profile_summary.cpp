#include "runner/profile_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace kgate {
namespace {

// Thresholds of the classification. Speed-of-light numbers at or above
// kBusyPct mean that unit is the one holding the kernel back (the same
// reading Nsight Compute's "GPU Speed Of Light" section suggests).
constexpr double kBusyPct = 60;
constexpr double kLowOccupancyPct = 35;
constexpr double kPoorCoalescingPct = 50;  // under half of each sector used
constexpr double kPoorSectorsPerRequest = 16;
constexpr double kTinySeconds = 10e-6;
constexpr double kIdlePct = 40;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pct(std::optional<double> v) {
  return v ? fmt("%.1f%%", *v) : "n/a";
}
std::string num(std::optional<double> v, const char* f = "%.2f") {
  return v ? fmt(f, *v) : "n/a";
}

std::string seconds_text(double s) {
  if (s < 1e-3) return fmt("%.2f us", s * 1e6);
  if (s < 1) return fmt("%.3f ms", s * 1e3);
  return fmt("%.3f s", s);
}

std::string bytes_text(double b) {
  if (b >= 1e9) return fmt("%.2f GB", b / 1e9);
  if (b >= 1e6) return fmt("%.2f MB", b / 1e6);
  if (b >= 1e3) return fmt("%.1f KB", b / 1e3);
  return fmt("%.0f B", b);
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string rate_text(double bytes_per_s) {
  if (bytes_per_s < 1e9) return fmt("%.1f MB/s", bytes_per_s / 1e6);
  return fmt("%.0f GB/s", bytes_per_s / 1e9);
}

uint64_t grid_blocks(const LaunchDims& d) {
  return uint64_t(d.grid[0]) * d.grid[1] * d.grid[2];
}
uint64_t block_threads(const LaunchDims& d) {
  return uint64_t(d.block[0]) * d.block[1] * d.block[2];
}

bool spills(const ProfileData& p) {
  return p.resources.spill_store_bytes > 0 || p.resources.spill_load_bytes > 0;
}

std::optional<double> bandwidth_of_ceiling(const ProfileData& p) {
  auto bw = achieved_bandwidth(p);
  if (!bw || !p.ceilings || p.ceilings->bandwidth_bytes_per_s <= 0) return std::nullopt;
  return *bw / p.ceilings->bandwidth_bytes_per_s * 100;
}

std::optional<double> flops_rate(const ProfileData& p) {
  auto f = p.get(metric::kFp32Flops);
  auto s = kernel_seconds(p);
  if (!f || !s || *s <= 0) return std::nullopt;
  return *f / *s;
}

std::vector<std::pair<std::string, double>> top_stalls(const ProfileData& p, size_t n) {
  std::vector<std::pair<std::string, double>> v(p.stalls.begin(), p.stalls.end());
  // "selected" is the warp issuing, not a stall.
  std::erase_if(v, [](const auto& s) { return s.first == "selected"; });
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string coalescing_text(const ProfileData& p, bool loads) {
  auto spr = sectors_per_request(p, loads);
  auto eff = coalescing_pct(p, loads);
  if (!spr && !eff) return "n/a";
  std::string s = num(spr, "%.1f") + " sectors/request";
  if (eff) s += " (" + fmt("%.0f%%", *eff) + " of fetched bytes used)";
  return s;
}

}  // namespace

// ---- JSON ----

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
          {"top_stall", top_stall}, {"source", source},       {"sass", sass}};
}
HotRegion HotRegion::from_json(const nlohmann::json& j) {
  HotRegion h;
  h.function = j.value("function", "");
  h.pc_offset = j.value("pc_offset", uint64_t{0});
  h.share_pct = j.value("share_pct", 0.0);
  h.top_stall = j.value("top_stall", "");
  h.source = j.value("source", "");
  h.sass = j.value("sass", "");
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
                      {"hot_regions", nlohmann::json::array()}};
  if (theoretical) j["theoretical_occupancy"] = theoretical->to_json();
  if (ceilings) j["ceilings"] = ceilings->to_json();
  if (timed_seconds) j["timed_seconds"] = *timed_seconds;
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
  if (j.contains("hot_regions"))
    for (const auto& h : j["hot_regions"]) p.hot_regions.push_back(HotRegion::from_json(h));
  return p;
}

// ---- derived numbers ----

std::optional<double> sectors_per_request(const ProfileData& p, bool loads) {
  auto s = p.get(loads ? metric::kLdSectors : metric::kStSectors);
  auto r = p.get(loads ? metric::kLdRequests : metric::kStRequests);
  if (!s || !r || *r <= 0) return std::nullopt;
  return *s / *r;
}

std::optional<double> coalescing_pct(const ProfileData& p, bool loads) {
  auto s = p.get(loads ? metric::kLdSectors : metric::kStSectors);
  auto b = p.get(loads ? metric::kLdBytesRequested : metric::kStBytesRequested);
  if (!s || !b || *s <= 0) return std::nullopt;
  return std::min(100.0, *b / (*s * 32) * 100);
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

std::string_view to_string(Bottleneck b) {
  switch (b) {
    case Bottleneck::kMemoryPoorCoalescing:
      return "memory_poor_coalescing";
    case Bottleneck::kMemoryEfficient:
      return "memory_efficient";
    case Bottleneck::kComputeBound:
      return "compute_bound";
    case Bottleneck::kLatencyLowOccupancy:
      return "latency_low_occupancy";
    case Bottleneck::kRegisterLimited:
      return "register_limited";
    case Bottleneck::kLaunchBound:
      return "launch_bound";
    case Bottleneck::kLatencyBound:
      return "latency_bound";
    case Bottleneck::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view describe(Bottleneck b) {
  switch (b) {
    case Bottleneck::kMemoryPoorCoalescing:
      return "memory-bound with poor coalescing";
    case Bottleneck::kMemoryEfficient:
      return "memory-bound and efficient";
    case Bottleneck::kComputeBound:
      return "compute-bound";
    case Bottleneck::kLatencyLowOccupancy:
      return "latency-bound with low occupancy";
    case Bottleneck::kRegisterLimited:
      return "register-limited";
    case Bottleneck::kLaunchBound:
      return "launch-bound";
    case Bottleneck::kLatencyBound:
      return "latency-bound";
    case Bottleneck::kUnknown:
      return "unknown (too few numbers to tell)";
  }
  return "unknown";
}

// ---- classification ----

Classification classify(const ProfileData& p) {
  Classification c;
  auto secs = kernel_seconds(p);
  auto sm = p.get(metric::kSmPct);
  auto mem = p.get(metric::kMemPct);
  auto dram = p.get(metric::kDramPct);
  auto occ = p.get(metric::kAchievedOccupancyPct);
  uint64_t blocks = grid_blocks(p.dims);
  bool few_blocks = p.multiprocessors > 0 && blocks < uint64_t(p.multiprocessors);
  bool register_capped =
      p.theoretical && p.theoretical->limiter == "registers" && p.theoretical->pct < 50;

  // Launch-bound: so little work that the fixed cost of a launch dominates.
  if (secs && *secs < kTinySeconds &&
      (few_blocks || (sm && mem && std::max(*sm, *mem) < kIdlePct) || (!sm && !mem))) {
    c.bottleneck = Bottleneck::kLaunchBound;
    c.evidence = "The launch takes " + seconds_text(*secs) + " with " + std::to_string(blocks) +
                 " block(s) of " + std::to_string(block_threads(p.dims)) + " threads" +
                 (p.multiprocessors ? " on " + std::to_string(p.multiprocessors) + " SMs" : "") +
                 (sm && mem ? "; SM " + pct(sm) + " and memory " + pct(mem) + " of peak" : "") +
                 ".";
    c.advice =
        "Fuse it with its neighbours, batch more work per launch, or use CUDA graphs; "
        "tuning the kernel body will not show.";
    return c;
  }

  if (sm && mem) {
    // Busy against the bandwidth this GPU really reaches (its measured copy
    // ceiling), not only against the datasheet peak: on an H200 a plain copy
    // runs at 56% of peak DRAM throughput but 63% of the measured ceiling.
    auto of_ceiling = bandwidth_of_ceiling(p);
    bool memory_busy = (*mem >= kBusyPct && *mem >= *sm) || (dram && *dram >= kBusyPct) ||
                       (of_ceiling && *of_ceiling >= kBusyPct && *mem >= *sm);
    if (memory_busy) {
      auto ld = coalescing_pct(p, true), st = coalescing_pct(p, false);
      auto ld_spr = sectors_per_request(p, true), st_spr = sectors_per_request(p, false);
      bool poor = (ld && *ld < kPoorCoalescingPct) || (st && *st < kPoorCoalescingPct);
      if (!ld && !st)
        poor = (ld_spr && *ld_spr > kPoorSectorsPerRequest) ||
               (st_spr && *st_spr > kPoorSectorsPerRequest);
      std::string base = "Memory throughput is " + pct(mem) + " of peak (DRAM " + pct(dram) +
                         ", SM " + pct(sm) + ")";
      if (auto of = bandwidth_of_ceiling(p))
        base += ", " + fmt("%.0f%%", *of) + " of the bandwidth this GPU really reaches";
      if (poor) {
        c.bottleneck = Bottleneck::kMemoryPoorCoalescing;
        c.evidence = base + "; global loads use " + coalescing_text(p, true) + ", stores " +
                     coalescing_text(p, false) + ".";
        c.advice =
            "Make neighbouring threads touch neighbouring addresses (transpose the "
            "index, stage through shared memory); each wasted sector is bandwidth lost.";
      } else {
        c.bottleneck = Bottleneck::kMemoryEfficient;
        c.evidence = base + "; accesses are coalesced (loads " + coalescing_text(p, true) + ").";
        c.advice =
            "Move fewer bytes: fuse with neighbours, keep data in registers or shared "
            "memory, use narrower types; wider vector accesses help only a little.";
      }
      return c;
    }
    if (*sm >= kBusyPct && *sm > *mem) {
      c.bottleneck = Bottleneck::kComputeBound;
      c.evidence = "SM throughput is " + pct(sm) + " of peak against memory " + pct(mem) + ".";
      if (auto f = flops_rate(p)) {
        c.evidence += " FP32 rate " + fmt("%.1f TFLOP/s", *f / 1e12);
        if (p.ceilings && p.ceilings->fp32_flops_per_s > 0)
          c.evidence +=
              fmt(" (%.0f%% of the measured ceiling)", *f / p.ceilings->fp32_flops_per_s * 100);
        c.evidence += ".";
      }
      c.advice =
          "Do less arithmetic per output (hoist, reuse), use faster instructions "
          "(intrinsics, FMA, tensor cores), cut integer index math.";
      return c;
    }
  }

  if (spills(p) || register_capped) {
    c.bottleneck = Bottleneck::kRegisterLimited;
    c.evidence = std::to_string(p.resources.registers) + " registers per thread";
    if (p.theoretical)
      c.evidence += " cap theoretical occupancy at " + fmt("%.0f%%", p.theoretical->pct) +
                    " (limited by " + p.theoretical->limiter + ")";
    if (spills(p))
      c.evidence += "; the compiler spills " + std::to_string(p.resources.spill_store_bytes) +
                    " B stored / " + std::to_string(p.resources.spill_load_bytes) +
                    " B loaded per thread to local memory";
    if (occ) c.evidence += "; achieved occupancy " + pct(occ);
    c.evidence += ".";
    c.advice =
        "Cap registers (__launch_bounds__, -maxrregcount), shrink per-thread arrays, "
        "or recompute values instead of keeping them live.";
    return c;
  }

  if (sm && mem) {
    bool low = (occ && *occ < kLowOccupancyPct) ||
               (p.theoretical && p.theoretical->pct < kLowOccupancyPct) || few_blocks;
    auto stalls = top_stalls(p, 1);
    std::string stall = stalls.empty()
                            ? ""
                            : " The top stall is " + stalls[0].first +
                                  fmt(" (%.1f cycles per issued instruction).", stalls[0].second);
    if (low) {
      c.bottleneck = Bottleneck::kLatencyLowOccupancy;
      c.evidence = "Neither unit is busy (SM " + pct(sm) + ", memory " + pct(mem) +
                   ") and few warps are resident: achieved occupancy " + pct(occ) +
                   (p.theoretical ? ", theoretical " + fmt("%.0f%%", p.theoretical->pct) : "") +
                   ", " + std::to_string(blocks) + " blocks." + stall;
      c.advice =
          "Give the GPU more parallel work: more blocks (split rows), more warps per "
          "block, or more independent loads in flight per thread.";
    } else {
      c.bottleneck = Bottleneck::kLatencyBound;
      c.evidence = "Neither unit is busy (SM " + pct(sm) + ", memory " + pct(mem) +
                   ") although achieved occupancy is " + pct(occ) + "." + stall;
      c.advice =
          "Break dependency chains: more independent loads per thread, unrolling, "
          "fewer barriers and serial reductions.";
    }
    return c;
  }

  // No speed-of-light counters: say what timing and the roofline can.
  if (auto of = bandwidth_of_ceiling(p); of && *of >= kBusyPct) {
    c.bottleneck = Bottleneck::kMemoryEfficient;
    c.evidence = "Without counters: the kernel moves its buffers at " +
                 rate_text(*achieved_bandwidth(p)) + ", " + fmt("%.0f%%", *of) +
                 " of the bandwidth this GPU really reaches (coalescing unknown).";
    c.advice = "Move fewer bytes; a counter profile would tell more.";
    return c;
  }
  c.bottleneck = Bottleneck::kUnknown;
  c.evidence =
      "Hardware counters were not read, and timing alone does not single out a "
      "bottleneck";
  if (auto bw = achieved_bandwidth(p))
    c.evidence += " (buffers move at " + rate_text(*bw) + " effective)";
  c.evidence += ".";
  c.advice = "Profile on a GPU with counter access for a diagnosis.";
  return c;
}

// ---- the summary ----

size_t count_words(const std::string& text) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

std::string render_summary(const ProfileData& p) {
  Classification c = classify(p);
  std::ostringstream o;
  o << "### Profile: " << p.kernel << " / " << p.shape << " on " << p.device << " (" << p.backend
    << ")\n\n";
  o << "**Bottleneck: " << describe(c.bottleneck) << ".** " << c.evidence << "\n";
  o << "What usually helps: " << c.advice << "\n\n";

  const LaunchDims& d = p.dims;
  if (p.backend == "host")
    o << "- Launch: one call on the CPU (host backend, no grid)";
  else
    o << "- Launch: grid (" << d.grid[0] << ", " << d.grid[1] << ", " << d.grid[2] << "), block ("
      << d.block[0] << ", " << d.block[1] << ", " << d.block[2] << "), dynamic shared "
      << d.shared_bytes << " B";
  if (auto s = kernel_seconds(p)) o << "; kernel time " << seconds_text(*s);
  if (p.timed_seconds && p.get(metric::kDurationNs))
    o << " (timed median " << seconds_text(*p.timed_seconds) << ")";
  o << ".\n";

  const ResourceReport& r = p.resources;
  auto known = [](int v) { return v >= 0 ? std::to_string(v) : std::string("n/a"); };
  o << "- Compiler: " << known(r.registers) << " registers/thread, " << known(r.shared_bytes)
    << " B static shared/block, stack " << known(r.stack_bytes) << " B, spills "
    << known(r.spill_store_bytes) << " B stored / " << known(r.spill_load_bytes) << " B loaded";
  if (spills(p)) o << " (SPILLS)";
  if (r.local_bytes > 0) o << ", local memory " << r.local_bytes << " B/thread";
  if (auto lb = p.get(metric::kLocalBytes); lb && *lb > 0)
    o << "; local-memory traffic " << bytes_text(*lb);
  o << ".\n";

  o << "- Occupancy: achieved " << pct(p.get(metric::kAchievedOccupancyPct));
  if (p.theoretical)
    o << " vs theoretical " << fmt("%.0f%%", p.theoretical->pct) << " ("
      << p.theoretical->blocks_per_sm << " blocks/SM, limited by " << p.theoretical->limiter << ")";
  else
    o << " vs theoretical n/a";
  o << ".\n";

  o << "- Speed of light: SM " << pct(p.get(metric::kSmPct)) << ", memory "
    << pct(p.get(metric::kMemPct)) << ", DRAM " << pct(p.get(metric::kDramPct)) << ".\n";

  o << "- Memory: ";
  if (auto b = p.get(metric::kDramBytes))
    o << bytes_text(*b) << " moved in DRAM";
  else if (p.bytes_moved)
    o << bytes_text(double(p.bytes_moved)) << " in buffers (launch plan)";
  else
    o << "bytes n/a";
  if (auto bw = achieved_bandwidth(p)) {
    o << ", " << rate_text(*bw);
    if (auto of = bandwidth_of_ceiling(p))
      o << " = " << fmt("%.0f%%", *of) << " of the measured "
        << rate_text(p.ceilings->bandwidth_bytes_per_s) << " ceiling";
  }
  o << "; L1 hit " << pct(p.get(metric::kL1HitPct)) << ", L2 hit " << pct(p.get(metric::kL2HitPct))
    << ".\n";
  o << "- Coalescing: loads " << coalescing_text(p, true) << "; stores "
    << coalescing_text(p, false) << ".\n";

  o << "- Compute: FP32 ";
  if (auto f = flops_rate(p)) {
    o << fmt("%.2f TFLOP/s", *f / 1e12);
    if (p.ceilings && p.ceilings->fp32_flops_per_s > 0)
      o << fmt(" (%.0f%% of measured ceiling)", *f / p.ceilings->fp32_flops_per_s * 100);
  } else {
    o << "n/a";
  }
  o << "; branch efficiency " << pct(p.get(metric::kBranchUniformPct)) << ".\n";

  auto stalls = top_stalls(p, 3);
  o << "- Top stalls (cycles per issued instruction): ";
  if (stalls.empty()) o << "n/a";
  for (size_t i = 0; i < stalls.size(); ++i)
    o << (i ? ", " : "") << stalls[i].first << fmt(" %.1f", stalls[i].second);
  o << ".\n";

  o << "- Hottest regions: ";
  if (p.hot_regions.empty()) o << "n/a";
  for (size_t i = 0; i < p.hot_regions.size() && i < 3; ++i) {
    const HotRegion& h = p.hot_regions[i];
    o << (i ? "; " : "") << fmt("%.0f%%", h.share_pct) << " at "
      << (h.source.empty() ? h.function + "+" + hex(h.pc_offset) : h.source);
    if (!h.top_stall.empty()) o << " (" << h.top_stall << ")";
    if (!h.sass.empty()) o << " `" << h.sass.substr(0, 40) << "`";
  }
  o << ".\n";

  if (!p.missing.empty()) {
    o << "\nMissing numbers:\n";
    size_t shown = 0;
    for (const auto& [what, why] : p.missing) {
      if (++shown > 8) break;
      o << "- " << what << ": " << why.substr(0, 300) << "\n";
    }
  }

  std::string text = o.str();
  if (count_words(text) <= kMaxSummaryWords) return text;
  // Over the bound (long reasons or names): keep the first words, say so.
  std::istringstream in(text);
  std::string out, w;
  for (size_t n = 0; n + 3 < kMaxSummaryWords && in >> w; ++n) out += w + " ";
  return out + "(summary truncated)\n";
}

nlohmann::json summary_json(const ProfileData& p) {
  Classification c = classify(p);
  nlohmann::json j = p.to_json();
  j["bottleneck"] = std::string(to_string(c.bottleneck));
  j["bottleneck_text"] = std::string(describe(c.bottleneck));
  j["evidence"] = c.evidence;
  j["advice"] = c.advice;
  nlohmann::json derived = nlohmann::json::object();
  auto put = [&](const char* k, std::optional<double> v) {
    if (v) derived[k] = *v;
  };
  put("kernel_seconds", kernel_seconds(p));
  put("achieved_bandwidth_bytes_per_s", achieved_bandwidth(p));
  put("bandwidth_pct_of_ceiling", bandwidth_of_ceiling(p));
  put("fp32_flops_per_s", flops_rate(p));
  put("ld_sectors_per_request", sectors_per_request(p, true));
  put("st_sectors_per_request", sectors_per_request(p, false));
  put("ld_coalescing_pct", coalescing_pct(p, true));
  put("st_coalescing_pct", coalescing_pct(p, false));
  j["derived"] = derived;
  return j;
}

std::string render_comparison(const ProfileData& before, const ProfileData& after) {
  Classification cb = classify(before), ca = classify(after);
  std::ostringstream o;
  o << "### Profile before / after: " << after.kernel << " / " << after.shape << "\n\n";
  o << "Bottleneck: " << describe(cb.bottleneck) << " -> " << describe(ca.bottleneck) << "\n\n";
  o << "| metric | before | after | change |\n|---|---|---|---|\n";
  auto row_pct = [&](const char* name, std::optional<double> b, std::optional<double> a) {
    o << "| " << name << " | " << pct(b) << " | " << pct(a) << " | "
      << (a && b ? fmt("%+.1f pts", *a - *b) : "n/a") << " |\n";
  };
  auto row_num = [&](const char* name, std::optional<double> b, std::optional<double> a) {
    o << "| " << name << " | " << num(b, "%.1f") << " | " << num(a, "%.1f") << " | "
      << (a && b ? fmt("%+.1f", *a - *b) : "n/a") << " |\n";
  };
  auto tb = kernel_seconds(before), ta = kernel_seconds(after);
  o << "| kernel time | " << (tb ? seconds_text(*tb) : "n/a") << " | "
    << (ta ? seconds_text(*ta) : "n/a") << " | "
    << (ta && tb && *ta > 0 ? fmt("%.2fx faster", *tb / *ta) : "n/a") << " |\n";
  auto bw = [](const ProfileData& p) -> std::optional<double> {
    auto v = achieved_bandwidth(p);
    return v ? std::optional<double>(*v / 1e9) : std::nullopt;
  };
  row_num("bandwidth (GB/s)", bw(before), bw(after));
  row_pct("bandwidth of measured ceiling", bandwidth_of_ceiling(before),
          bandwidth_of_ceiling(after));
  row_pct("DRAM throughput", before.get(metric::kDramPct), after.get(metric::kDramPct));
  row_pct("memory speed of light", before.get(metric::kMemPct), after.get(metric::kMemPct));
  row_pct("SM speed of light", before.get(metric::kSmPct), after.get(metric::kSmPct));
  row_num("load sectors/request", sectors_per_request(before, true),
          sectors_per_request(after, true));
  row_num("store sectors/request", sectors_per_request(before, false),
          sectors_per_request(after, false));
  row_pct("L2 hit rate", before.get(metric::kL2HitPct), after.get(metric::kL2HitPct));
  row_pct("achieved occupancy", before.get(metric::kAchievedOccupancyPct),
          after.get(metric::kAchievedOccupancyPct));
  auto theo = [](const ProfileData& p) -> std::optional<double> {
    return p.theoretical ? std::optional<double>(p.theoretical->pct) : std::nullopt;
  };
  row_pct("theoretical occupancy", theo(before), theo(after));
  auto reg = [](const ProfileData& p) -> std::optional<double> {
    return p.resources.registers >= 0 ? std::optional<double>(p.resources.registers) : std::nullopt;
  };
  row_num("registers/thread", reg(before), reg(after));
  auto spill = [](const ProfileData& p) -> std::optional<double> {
    if (p.resources.spill_store_bytes < 0) return std::nullopt;
    return double(p.resources.spill_store_bytes + std::max(0, p.resources.spill_load_bytes));
  };
  row_num("spill bytes", spill(before), spill(after));
  if (!before.missing.empty() || !after.missing.empty())
    o << "\nSome numbers are missing (n/a); the profiles say why.\n";
  return o.str();
}

}  // namespace kgate
