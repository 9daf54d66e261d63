#include "runner/profile_model/bottleneck.h"

#include <algorithm>

#include "runner/profile_model/profile_text.h"

namespace kgate::profile_model {
namespace {

using text::coalescing;
using text::fmt;
using text::pct;
using text::rate;
using text::seconds;
using text::top_stalls;

// Thresholds of the classification. Speed-of-light numbers at or above
// kBusyPct mean that unit is the one holding the kernel back (the same
// reading Nsight Compute's "GPU Speed Of Light" section suggests).
constexpr double kBusyPct = 60;
constexpr double kLowOccupancyPct = 35;
constexpr double kPoorCoalescingPct = 50;  // under half of each sector used
// Sectors per request judge coalescing only with the access width, which the
// counters do not give: a warp of 4-byte accesses needs 4 sectors, of 16-byte
// (float4) ones 16, or 17 on rows not aligned to 32 bytes. Above that every
// width wastes sectors; between, DRAM traffic near what the buffers hold says
// the sectors fetched are the ones needed.
constexpr double kWidestSectorsPerRequest = 17;
constexpr double kNarrowSectorsPerRequest = 4.5;
constexpr double kTrafficSlack = 1.25;  // DRAM bytes / declared traffic still counted as no waste
constexpr double kTinySeconds = 10e-6;
constexpr double kIdlePct = 40;

}  // namespace

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

Classification classify(const ProfileData& p) {
  Classification c;
  auto secs = kernel_seconds(p);
  auto sm = throughput_pct(p, metric::kSmPct);
  auto mem = throughput_pct(p, metric::kMemPct);
  auto dram = throughput_pct(p, metric::kDramPct);
  auto occ = achieved_occupancy(p);
  uint64_t blocks = grid_blocks(p.dims);
  bool few_blocks = p.multiprocessors > 0 && blocks < uint64_t(p.multiprocessors);
  bool register_capped =
      p.theoretical && p.theoretical->limiter == "registers" && p.theoretical->pct < 50;

  // Launch-bound: so little work that the fixed cost of a launch dominates.
  if (secs && *secs < kTinySeconds &&
      (few_blocks || (sm && mem && std::max(*sm, *mem) < kIdlePct) || (!sm && !mem))) {
    c.bottleneck = Bottleneck::kLaunchBound;
    c.evidence = "The launch takes " + seconds(*secs) + " with " + std::to_string(blocks) +
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
      // Bytes used where known (and trusted), else sectors per request beside
      // the DRAM traffic (see kWidestSectorsPerRequest).
      auto dram_bytes = p.get(metric::kDramBytes);
      const bool traffic_as_declared =
          dram_bytes && p.bytes_moved > 0 && *dram_bytes <= kTrafficSlack * double(p.bytes_moved);
      enum class Side { kCoalesced, kPoor, kWidthAmbiguous };
      auto side = [&](std::optional<double> used, std::optional<double> spr) {
        if (used) return *used < kPoorCoalescingPct ? Side::kPoor : Side::kCoalesced;
        if (!spr || *spr <= kNarrowSectorsPerRequest) return Side::kCoalesced;
        if (*spr > kWidestSectorsPerRequest || !traffic_as_declared) return Side::kPoor;
        return Side::kWidthAmbiguous;
      };
      const Side loads = side(ld, ld_spr), stores = side(st, st_spr);
      const bool poor = loads == Side::kPoor || stores == Side::kPoor;
      const bool width_ambiguous =
          loads == Side::kWidthAmbiguous || stores == Side::kWidthAmbiguous;
      std::string base = "Memory throughput is " + pct(mem) + " of peak (DRAM " + pct(dram) +
                         ", SM " + pct(sm) + ")";
      if (auto of = bandwidth_of_ceiling(p))
        base += ", " + fmt("%.0f%%", *of) + " of the bandwidth this GPU really reaches";
      if (poor) {
        c.bottleneck = Bottleneck::kMemoryPoorCoalescing;
        c.evidence = base + "; global loads use " + coalescing(p, true) + ", stores " +
                     coalescing(p, false) + ".";
        c.advice =
            "Make neighbouring threads touch neighbouring addresses (transpose the "
            "index, stage through shared memory); each wasted sector is bandwidth lost.";
      } else {
        c.bottleneck = Bottleneck::kMemoryEfficient;
        c.evidence = base + "; accesses are coalesced (loads " + coalescing(p, true) + ").";
        if (width_ambiguous)
          c.evidence = base + "; global loads use " + coalescing(p, true) + ", stores " +
                       coalescing(p, false) +
                       ": what a warp of 16-byte accesses takes (4-byte "
                       "ones take 4), and DRAM moves " +
                       fmt("%.0f%%", *dram_bytes * 100 / double(p.bytes_moved)) +
                       " of the bytes the buffers hold, so no sector "
                       "is wasted there.";
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
                 rate(*achieved_bandwidth(p)) + ", " + fmt("%.0f%%", *of) +
                 " of the bandwidth this GPU really reaches (coalescing unknown).";
    c.advice = "Move fewer bytes; a counter profile would tell more.";
    return c;
  }
  c.bottleneck = Bottleneck::kUnknown;
  c.evidence =
      "Hardware counters were not read, and timing alone does not single out a "
      "bottleneck";
  if (auto bw = achieved_bandwidth(p))
    c.evidence += " (buffers move at " + rate(*bw) + " effective)";
  c.evidence += ".";
  c.advice = "Profile on a GPU with counter access for a diagnosis.";
  return c;
}

}  // namespace kgate::profile_model
