// The profile summary on constructed metric sets: one per bottleneck class,
// the 600-word bound, the before/after comparison and the missing-counter path.
#include <gtest/gtest.h>

#include <algorithm>

#include "runner/profile/occupancy.h"
#include "runner/profile/pc_sampling.h"
#include "runner/profile_model/profile_summary.h"
#include "runner/profile_model/profile_table.h"
#include "runner/profile_model/profile_text.h"

namespace kgate {
namespace {

using namespace profile_model;  // the data, its classification and text under test

using profile::SmLimits;
using profile::theoretical_occupancy;

// A large 1-D launch on an H200 with every counter present and nothing busy.
ProfileData base_profile() {
  ProfileData p;
  p.kernel = "k";
  p.shape = "s";
  p.backend = "cuda";
  p.device = "NVIDIA H200";
  p.multiprocessors = 132;
  p.dims.grid[0] = 16384;
  p.dims.block[0] = 256;
  p.resources.registers = 32;
  p.resources.spill_store_bytes = 0;
  p.resources.spill_load_bytes = 0;
  p.resources.shared_bytes = 0;
  p.resources.stack_bytes = 0;
  p.theoretical = theoretical_occupancy(SmLimits::h100_sxm(), p.resources, p.dims);
  p.ceilings = Ceilings{4.0e12, 60e12, "2026-11-30"};
  p.metrics = {
      {metric::kDurationNs, 200000},
      {metric::kDramPct, 20},
      {metric::kDramBytes, 2e8},
      {metric::kL1HitPct, 10},
      {metric::kL2HitSectors, 4e6},
      {metric::kL2MissSectors, 6e6},
      {metric::kLdSectors, 4e6},
      {metric::kLdRequests, 1e6},
      {metric::kLdBytesRequested, 128e6},
      {metric::kStSectors, 4e6},
      {metric::kStRequests, 1e6},
      {metric::kStBytesRequested, 128e6},
      {metric::kAchievedOccupancyPct, 80},
      {metric::kSmPct, 20},
      {metric::kMemPct, 20},
      {metric::kBranchTargets, 4e5},
      {metric::kBranchUniform, 4e5},
      {metric::kBranchDivergent, 0},
      // Patched and hardware instruction counts agree: patched counters trusted.
      {metric::kInstExecuted, 5e7},
      {metric::kSassInstExecuted, 5e7},
      {metric::kThreadsPerInstruction, 32},
      {metric::kFp32Flops, 1e6},
      {metric::kLocalBytes, 0},
  };
  p.stalls = {{"long_scoreboard", 12}, {"wait", 2}, {"selected", 1}, {"barrier", 0.5}};
  return p;
}

TEST(ProfileSummary, CopyLikeKernelIsMemoryBoundAndEfficient) {
  ProfileData p = base_profile();
  p.metrics[metric::kDramPct] = 91;
  p.metrics[metric::kMemPct] = 92;
  p.metrics[metric::kDramBytes] = 7.2e8;  // 3.6 TB/s over 200 us: 90% of 4 TB/s
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kMemoryEfficient) << c.evidence;
  std::string s = render_summary(p);
  EXPECT_NE(s.find("memory-bound and efficient"), std::string::npos) << s;
  EXPECT_NE(s.find("90% of the measured 4000 GB/s ceiling"), std::string::npos) << s;
}

// As measured on an H200: a plain copy at 56% of peak DRAM throughput is 63%
// of the measured copy ceiling, and reads memory-bound, not latency-bound.
TEST(ProfileSummary, PlainCopyBelowDatasheetPeakIsMemoryBoundAgainstTheMeasuredCeiling) {
  ProfileData p = base_profile();
  p.metrics[metric::kDramPct] = 56;
  p.metrics[metric::kMemPct] = 56;
  p.metrics[metric::kSmPct] = 24;
  p.metrics[metric::kDramBytes] = 5.04e8;  // 2.52 TB/s over 200 us: 63% of 4 TB/s
  p.stalls = {{"long_scoreboard", 41.5}, {"wait", 2.5}};
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryEfficient) << classify(p).evidence;
  p.ceilings.reset();  // without a measured ceiling, 56% of peak is not busy
  EXPECT_NE(classify(p).bottleneck, Bottleneck::kMemoryEfficient);
}

TEST(ProfileSummary, StridedKernelIsMemoryBoundWithPoorCoalescing) {
  ProfileData p = base_profile();
  p.metrics[metric::kMemPct] = 85;
  p.metrics[metric::kDramPct] = 70;
  p.metrics[metric::kLdSectors] = 32e6;  // 32 sectors per request: 1 of 8 words used
  p.metrics[metric::kLdBytesRequested] = 128e6;
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kMemoryPoorCoalescing) << c.evidence;
  EXPECT_NE(c.evidence.find("32.0 sectors/request"), std::string::npos) << c.evidence;
  EXPECT_NEAR(*coalescing_pct(p, true), 12.5, 1e-9);
}

TEST(ProfileSummary, PoorCoalescingFromSectorsAloneWhenBytesAreMissing) {
  ProfileData p = base_profile();
  p.metrics[metric::kMemPct] = 85;
  p.metrics.erase(metric::kLdBytesRequested);
  p.metrics.erase(metric::kStBytesRequested);
  p.metrics[metric::kLdSectors] = 32e6;
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryPoorCoalescing);
}

// Seen on an H200 (ggml's softmax with float4 loads): 16.1 sectors per
// request, bytes used withheld, DRAM moving 91% of what the buffers hold. A
// warp of 16-byte accesses takes 16 sectors: that is not waste, and calling
// it poor coalescing sent a model the wrong way. The same sectors with DRAM
// moving twice the buffers' bytes still read as poor.
TEST(ProfileSummary, SixteenSectorsPerRequestOfVectorAccessesAreNotPoorCoalescing) {
  ProfileData p = base_profile();
  p.metrics[metric::kMemPct] = 69;
  p.metrics[metric::kDramPct] = 69;
  p.metrics[metric::kSmPct] = 48;
  p.metrics.erase(metric::kLdBytesRequested);
  p.metrics.erase(metric::kStBytesRequested);
  p.metrics[metric::kLdSectors] = 16.1e6;
  p.metrics[metric::kStSectors] = 16.1e6;
  p.bytes_moved = 99'840'000;
  p.metrics[metric::kDramBytes] = 90.58e6;
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kMemoryEfficient) << c.evidence;
  EXPECT_NE(c.evidence.find("16.1 sectors/request"), std::string::npos) << c.evidence;
  EXPECT_NE(c.evidence.find("what a warp of 16-byte accesses takes"), std::string::npos)
      << c.evidence;
  EXPECT_NE(c.evidence.find("DRAM moves 91% of the bytes the buffers hold"), std::string::npos)
      << c.evidence;

  p.metrics[metric::kDramBytes] = 2 * 99.84e6;
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryPoorCoalescing) << classify(p).evidence;
  p.metrics.erase(metric::kDramBytes);  // no traffic to tell by: as before, poor
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryPoorCoalescing);
  p.metrics[metric::kDramBytes] = 90.58e6;
  p.metrics[metric::kLdSectors] = 24e6;  // more than any access width takes
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryPoorCoalescing);
}

TEST(ProfileSummary, ArithmeticKernelIsComputeBound) {
  ProfileData p = base_profile();
  p.metrics[metric::kSmPct] = 88;
  p.metrics[metric::kMemPct] = 10;
  p.metrics[metric::kFp32Flops] = 1e10;  // 50 TFLOP/s over 200 us
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kComputeBound) << c.evidence;
  EXPECT_NE(c.evidence.find("83% of the measured ceiling"), std::string::npos) << c.evidence;
}

TEST(ProfileSummary, FewWarpsReadAsLatencyBoundWithLowOccupancy) {
  ProfileData p = base_profile();
  p.metrics[metric::kAchievedOccupancyPct] = 12;
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kLatencyLowOccupancy) << c.evidence;
  EXPECT_NE(c.evidence.find("long_scoreboard"), std::string::npos) << c.evidence;
}

TEST(ProfileSummary, ResidentWarpsButIdleUnitsReadAsLatencyBound) {
  EXPECT_EQ(classify(base_profile()).bottleneck, Bottleneck::kLatencyBound);
}

TEST(ProfileSummary, HeavyRegistersReadAsRegisterLimited) {
  ProfileData p = base_profile();
  p.resources.registers = 168;
  p.theoretical = theoretical_occupancy(SmLimits::h100_sxm(), p.resources, p.dims);
  ASSERT_EQ(p.theoretical->limiter, "registers");
  p.metrics[metric::kAchievedOccupancyPct] = 22;
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kRegisterLimited) << c.evidence;
  EXPECT_NE(c.evidence.find("168 registers"), std::string::npos);
}

TEST(ProfileSummary, SpillsAreShown) {
  ProfileData p = base_profile();
  p.resources.registers = 255;
  p.resources.spill_store_bytes = 96;
  p.resources.spill_load_bytes = 120;
  p.metrics[metric::kLocalBytes] = 5e7;
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kRegisterLimited);
  std::string s = render_summary(p);
  EXPECT_NE(s.find("spills 96 B stored / 120 B loaded (SPILLS)"), std::string::npos) << s;
  EXPECT_NE(s.find("local-memory traffic 50.00 MB"), std::string::npos) << s;
}

TEST(ProfileSummary, TinyLaunchIsLaunchBound) {
  ProfileData p = base_profile();
  p.dims.grid[0] = 1;
  p.dims.block[0] = 32;
  p.metrics[metric::kDurationNs] = 2500;
  p.metrics[metric::kSmPct] = 1;
  p.metrics[metric::kMemPct] = 1;
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kLaunchBound) << c.evidence;
  EXPECT_NE(c.evidence.find("2.50 us"), std::string::npos) << c.evidence;
}

TEST(ProfileSummary, MissingCountersAreNamedWithTheirReason) {
  ProfileData p = base_profile();
  p.metrics.clear();
  p.stalls.clear();
  p.timed_seconds = 150e-6;
  p.bytes_moved = 64 << 20;
  p.missing["hardware counters"] =
      "no permission to read GPU performance counters (ERR_NVGPUCTRPERM)";
  Classification c = classify(p);
  EXPECT_EQ(c.bottleneck, Bottleneck::kUnknown) << c.evidence;
  std::string s = render_summary(p);
  EXPECT_NE(s.find("Missing numbers"), std::string::npos);
  EXPECT_NE(s.find("ERR_NVGPUCTRPERM"), std::string::npos) << s;
  EXPECT_NE(s.find("150.00 us"), std::string::npos) << s;  // timing still reported
  EXPECT_NE(s.find("DRAM n/a"), std::string::npos) << s;
}

TEST(ProfileSummary, WithoutCountersRooflineStillTellsMemoryBound) {
  ProfileData p = base_profile();
  p.metrics.clear();
  p.timed_seconds = 100e-6;
  p.bytes_moved = 350'000'000;  // 3.5 TB/s of a 4 TB/s ceiling
  p.missing["hardware counters"] = "the GPU is virtualized";
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryEfficient);
}

TEST(ProfileSummary, StaysUnderSixHundredWordsEvenWithLongReasons) {
  ProfileData p = base_profile();
  for (int i = 0; i < 6; ++i) {
    HotRegion h;
    h.function = "kernel";
    h.pc_offset = 0x100 * i;
    h.share_pct = 30 - i;
    h.top_stall = "long_scoreboard";
    h.source = "csrc/k.cu:" + std::to_string(10 + i);
    h.sass = "LDG.E.128 R4, [R2.64]";
    p.hot_regions.push_back(h);
  }
  std::string long_reason;
  for (int i = 0; i < 400; ++i) long_reason += "word ";
  for (int i = 0; i < 12; ++i) p.missing["thing " + std::to_string(i)] = long_reason;
  std::string s = render_summary(p);
  EXPECT_LE(count_words(s), kMaxSummaryWords);
  EXPECT_LE(count_words(render_summary(base_profile())), 400u);
}

TEST(ProfileSummary, JsonRoundTripsAndCarriesTheClass) {
  ProfileData p = base_profile();
  p.metrics[metric::kMemPct] = 85;
  nlohmann::json j = summary_json(p);
  EXPECT_EQ(j["bottleneck"], "memory_efficient");
  EXPECT_NEAR(j["derived"]["ld_sectors_per_request"].get<double>(), 4.0, 1e-9);
  ProfileData q = ProfileData::from_json(j);
  EXPECT_EQ(q.metrics, p.metrics);
  EXPECT_EQ(q.stalls, p.stalls);
  EXPECT_EQ(q.dims.grid[0], 16384u);
  EXPECT_EQ(q.theoretical->limiter, p.theoretical->limiter);
  EXPECT_EQ(render_summary(q), render_summary(p));
}

TEST(ProfileSummary, BeforeAfterComparisonShowsTheChange) {
  ProfileData before = base_profile();
  before.metrics[metric::kMemPct] = 85;
  before.metrics[metric::kLdSectors] = 32e6;
  ProfileData after = base_profile();
  after.metrics[metric::kMemPct] = 90;
  after.metrics[metric::kDurationNs] = 50000;
  std::string s = render_comparison(before, after);
  EXPECT_NE(s.find("memory-bound with poor coalescing -> memory-bound and efficient"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("4.00x faster"), std::string::npos) << s;
  EXPECT_NE(s.find("| load sectors/request | 32.0 | 4.0 | -28.0 |"), std::string::npos) << s;
  EXPECT_LE(count_words(s), kMaxSummaryWords);
}

TEST(ProfileSummary, BranchEfficiencyIsNonDivergentOverAllWarpBranches) {
  ProfileData p = base_profile();
  // A kernel whose odd and even lanes part ways at one of four branches.
  p.metrics[metric::kBranchTargets] = 1250;
  p.metrics[metric::kBranchUniform] = 750;
  p.metrics[metric::kBranchDivergent] = 250;
  p.metrics[metric::kThreadsPerInstruction] = 20;
  ASSERT_TRUE(branch_efficiency(p).has_value());
  EXPECT_DOUBLE_EQ(*branch_efficiency(p), 75.0);  // (1000 - 250) / 1000
  EXPECT_DOUBLE_EQ(*warp_efficiency(p), 62.5);
  std::string s = render_summary(p);
  EXPECT_NE(s.find("branch efficiency 75.0% (250 of 1000 warp branches divergent)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("warp execution efficiency 62.5%"), std::string::npos) << s;
  EXPECT_DOUBLE_EQ(summary_json(p)["derived"]["branch_efficiency_pct"].get<double>(), 75.0);

  // A kernel without a single branch (predicated code) has no efficiency to
  // report, not 0%.
  p.metrics[metric::kBranchUniform] = 0;
  p.metrics[metric::kBranchDivergent] = 0;
  EXPECT_FALSE(branch_efficiency(p).has_value());
  EXPECT_NE(render_summary(p).find("branch efficiency no branch executed"), std::string::npos);
  p.metrics.erase(metric::kBranchUniform);
  EXPECT_NE(render_summary(p).find("branch efficiency n/a"), std::string::npos);
  EXPECT_TRUE(number_problems(p).empty());  // not measured is not withheld
}

// The counters of a one-warp copy (`if (i < n) out[i] = in[i]`, no divergent
// branch) as kgate read them on an H200: 64 uniform and 128 divergent branch
// executions, all 32 threads active in every instruction. The old formula
// printed "branch efficiency 33.3%"; the divergent count contradicts the
// hardware, so the number is withheld and the summary says why.
TEST(ProfileSummary, BranchCountsContradictingWarpEfficiencyAreWithheld) {
  ProfileData p = base_profile();
  p.dims.grid[0] = 1;
  p.dims.block[0] = 32;
  p.metrics[metric::kBranchTargets] = 192;
  p.metrics[metric::kBranchUniform] = 64;
  p.metrics[metric::kBranchDivergent] = 128;
  p.metrics[metric::kThreadsPerInstruction] = 32;
  EXPECT_FALSE(branch_efficiency(p).has_value());
  std::string why = number_problems(p)["branch efficiency"];
  EXPECT_NE(why.find("128 divergent branches counted"), std::string::npos) << why;
  std::string s = render_summary(p);
  EXPECT_EQ(s.find("33.3%"), std::string::npos) << s;
  EXPECT_NE(s.find("branch efficiency n/a (withheld"), std::string::npos) << s;
  EXPECT_NE(s.find("- branch efficiency: 128 divergent branches counted"), std::string::npos) << s;
  EXPECT_FALSE(summary_json(p)["derived"].contains("branch_efficiency_pct"));
  EXPECT_EQ(summary_json(p)["withheld"]["branch efficiency"].get<std::string>(), why);
  EXPECT_NE(render_profile_table({p}).find("| withheld |"), std::string::npos);
}

// Branch counts, bytes requested and FLOPs come from CUPTI's SASS patching;
// when its instruction count disagrees with the hardware's, none is shown.
TEST(ProfileSummary, PatchedCountersDisagreeingWithTheHardwareAreWithheld) {
  ProfileData p = base_profile();
  p.metrics[metric::kBranchUniform] = 900;
  p.metrics[metric::kBranchDivergent] = 100;
  p.metrics[metric::kThreadsPerInstruction] = 28;
  ASSERT_TRUE(branch_efficiency(p) && coalescing_pct(p, true) && flops_rate(p));
  p.metrics[metric::kSassInstExecuted] = 8e7;  // hardware: 5e7
  EXPECT_FALSE(branch_efficiency(p).has_value());
  EXPECT_FALSE(coalescing_pct(p, true).has_value());
  EXPECT_FALSE(coalescing_pct(p, false).has_value());
  EXPECT_FALSE(flops_rate(p).has_value());
  EXPECT_TRUE(sectors_per_request(p, true).has_value());  // hardware counters: kept
  auto problems = number_problems(p);
  for (const char* what : {"branch efficiency", "load coalescing (bytes used)",
                           "store coalescing (bytes used)", "FP32 rate"})
    EXPECT_NE(problems[what].find("disagree with the hardware (80000000"), std::string::npos)
        << what << ": " << problems[what];
  // Within 2%: rounding, trusted.
  p.metrics[metric::kSassInstExecuted] = 5.05e7;
  EXPECT_TRUE(branch_efficiency(p).has_value());
  // Profiles without the two counts cannot be checked: withheld, said so.
  p.metrics.erase(metric::kInstExecuted);
  EXPECT_FALSE(flops_rate(p).has_value());
  EXPECT_NE(number_problems(p)["FP32 rate"].find("cannot check"), std::string::npos);
}

// gemv up-b1 as recorded on the H200: 14336 stores of one float per row, one
// sector each, yet 234881024 bytes "requested" (the load count): 51200% of
// the fetched bytes, which the old clamp printed as 100%.
TEST(ProfileSummary, MoreBytesRequestedThanFetchedIsWithheld) {
  ProfileData p = base_profile();
  p.metrics[metric::kStSectors] = 14336;
  p.metrics[metric::kStRequests] = 14336;
  p.metrics[metric::kStBytesRequested] = 234881024;
  EXPECT_FALSE(coalescing_pct(p, false).has_value());
  EXPECT_TRUE(coalescing_pct(p, true).has_value());
  EXPECT_NE(number_problems(p)["store coalescing (bytes used)"].find("51200.0%"),
            std::string::npos);
  std::string s = render_summary(p);
  EXPECT_NE(s.find("stores 1.0 sectors/request.\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("stores 1.0 sectors/request (100%"), std::string::npos) << s;
  // One sector a hair over from rounding is still a valid 100%.
  p.metrics[metric::kStBytesRequested] = 14336 * 32 * 1.001;
  EXPECT_DOUBLE_EQ(*coalescing_pct(p, false), 100.0);
}

TEST(ProfileSummary, L2HitRateIsHitsOverLookedUpSectors) {
  ProfileData p = base_profile();
  EXPECT_DOUBLE_EQ(*l2_hit_rate(p), 40.0);  // 4e6 of 1e7
  EXPECT_NE(render_summary(p).find("L2 hit 40.0%"), std::string::npos);
  // A one-block launch: few sectors, all hits; a ratio of counts cannot pass 100%.
  p.metrics[metric::kL2HitSectors] = 2797;
  p.metrics[metric::kL2MissSectors] = 0;
  EXPECT_DOUBLE_EQ(*l2_hit_rate(p), 100.0);
  p.metrics[metric::kL2HitSectors] = 0;
  EXPECT_FALSE(l2_hit_rate(p).has_value());  // no lookup: nothing to rate
  EXPECT_TRUE(number_problems(p).empty());
}

// softmax decode-b1 as recorded on the H200 with the old metric
// (lts__t_sector_hit_rate.pct): 104.37%. An old profile keeps its number
// only where it is possible.
TEST(ProfileSummary, ImpossibleRecordedL2HitRateIsWithheld) {
  ProfileData p = base_profile();
  p.metrics.erase(metric::kL2HitSectors);
  p.metrics.erase(metric::kL2MissSectors);
  p.metrics[metric::kL2HitPct] = 104.37135019527618;
  EXPECT_FALSE(l2_hit_rate(p).has_value());
  std::string s = render_summary(p);
  EXPECT_EQ(s.find("L2 hit 10"), std::string::npos) << s;
  EXPECT_NE(s.find("L2 hit n/a."), std::string::npos) << s;
  EXPECT_NE(s.find("- L2 hit rate: the counters give an impossible L2 hit rate of 104.4%"),
            std::string::npos)
      << s;
  EXPECT_NE(render_profile_table({p}).find("| n/a |"), std::string::npos);
  p.metrics[metric::kL2HitPct] = 67.6;  // rmsnorm decode-b1: possible, kept
  EXPECT_DOUBLE_EQ(*l2_hit_rate(p), 67.6);
  p.metrics[metric::kL2HitPct] = 100.3;  // rounding over 100: shown as 100
  EXPECT_DOUBLE_EQ(*l2_hit_rate(p), 100.0);
}

TEST(ProfileSummary, ImpossibleOccupancyAndThroughputAreWithheld) {
  ProfileData p = base_profile();
  ASSERT_TRUE(p.theoretical.has_value());
  p.theoretical->pct = 50;
  p.metrics[metric::kAchievedOccupancyPct] = 49.5;
  EXPECT_DOUBLE_EQ(*achieved_occupancy(p), 49.5);
  p.metrics[metric::kAchievedOccupancyPct] = 62;
  EXPECT_FALSE(achieved_occupancy(p).has_value());
  EXPECT_NE(number_problems(p)["achieved occupancy"].find("exceeds the theoretical 50.0%"),
            std::string::npos);
  p.metrics[metric::kDramPct] = 130;
  p.metrics[metric::kL1HitPct] = -3;
  EXPECT_FALSE(throughput_pct(p, metric::kDramPct).has_value());
  EXPECT_FALSE(l1_hit_rate(p).has_value());
  std::string s = render_summary(p);
  EXPECT_NE(s.find("DRAM n/a"), std::string::npos) << s;
  EXPECT_NE(s.find("- DRAM throughput: the counters give an impossible DRAM throughput of 130.0%"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("- L1 hit rate: "), std::string::npos) << s;
}

TEST(ProfileTable, OneRowPerProfileWithTheNumbersThatMatter) {
  ProfileData copy = base_profile();
  copy.kernel = "rmsnorm";
  copy.shape = "prefill-8k";
  copy.metrics[metric::kDramPct] = 91;
  copy.metrics[metric::kMemPct] = 92;
  copy.metrics[metric::kDramBytes] = 7.2e8;  // 90% of the 4 TB/s ceiling
  copy.metrics[metric::kBranchDivergent] = 1e5;
  copy.metrics[metric::kBranchUniform] = 3e5;         // of 4e5 warp branches: 75%
  copy.metrics[metric::kThreadsPerInstruction] = 27;  // divergence idles lanes
  HotRegion h;
  h.function = "rmsnorm";
  h.source = "csrc/rmsnorm.cu:31";
  h.share_pct = 42;
  copy.hot_regions = {h};
  ProfileData host;
  host.kernel = "softmax";
  host.shape = "decode|b1";  // a '|' must not break the table
  host.backend = "host";
  host.missing["hardware counters"] = "host backend";

  std::string t = render_profile_table({copy, host});
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = t.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(t.substr(at, nl - at));
  ASSERT_EQ(lines.size(), 4u) << t;  // header, rule, two rows
  auto cells = [](const std::string& line) { return std::count(line.begin(), line.end(), '|'); };
  for (const std::string& l : lines) EXPECT_EQ(cells(l), 11) << l;
  EXPECT_EQ(lines[2],
            "| rmsnorm | prefill-8k | memory-bound and efficient | 90% | 40% | 4.0 / 4.0 | "
            "80% / " +
                text::fmt("%.0f%%", copy.theoretical->pct) + " (" + copy.theoretical->limiter +
                ") | long_scoreboard 12.0 | 75.0% | 42% rmsnorm.cu:31 |");
  EXPECT_NE(lines[3].find("| softmax | decode/b1 | "), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("n/a / n/a | n/a | n/a | n/a |"), std::string::npos) << lines[3];
}

TEST(Occupancy, H100LimitersFromTheOccupancyCalculator) {
  SmLimits h100 = SmLimits::h100_sxm();
  ResourceReport r;
  LaunchDims d;
  d.block[0] = 256;
  r.registers = 32;
  r.shared_bytes = 0;
  Occupancy o = theoretical_occupancy(h100, r, d);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.pct, 100);

  r.registers = 128;  // 128*32 = 4096 regs/warp -> 16 warps -> 2 blocks of 8 warps
  o = theoretical_occupancy(h100, r, d);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(o.pct, 25);

  r.registers = 32;
  r.shared_bytes = 100 * 1024;  // 101 KiB with the reserve -> 2 blocks
  o = theoretical_occupancy(h100, r, d);
  EXPECT_EQ(o.limiter, "shared memory");
  EXPECT_EQ(o.blocks_per_sm, 2);

  r.shared_bytes = 0;
  d.block[0] = 32;  // 1 warp per block: 32 blocks/SM cap -> 50%
  o = theoretical_occupancy(h100, r, d);
  EXPECT_EQ(o.limiter, "blocks per SM");
  EXPECT_DOUBLE_EQ(o.pct, 50);

  d.block[0] = 2048;
  EXPECT_EQ(theoretical_occupancy(h100, r, d).blocks_per_sm, 0);
}

// Hot lines that did not come from PC sampling say where they came from and
// why sampling gave nothing (runner/profile/pc_sampling.h).
TEST(ProfileSummary, HotLinesFromTheFallbackSayWhySamplingGaveNothing) {
  ProfileData p = base_profile();
  HotRegion h;
  h.function = "k";
  h.share_pct = 60;
  h.source = "csrc/k.cu:12";
  p.hot_regions.push_back(h);
  EXPECT_EQ(render_summary(p).find("(From "), std::string::npos) << "PC samples need no note";
  profile::SamplingCounts c;
  c.cupti_total = 20000;
  c.non_user = 20000;
  p.hot_regions_note = "executed-instruction counts (SASS metrics; no stall reasons), because " +
                       profile::sampling_shortfall(c);
  const std::string s = render_summary(p);
  EXPECT_NE(s.find("(From executed-instruction counts"), std::string::npos) << s;
  EXPECT_NE(s.find("non-user kernels"), std::string::npos) << s;
  EXPECT_LE(count_words(s), kMaxSummaryWords);
}

TEST(ProfileSummary, SamplingShortfallNamesWhatCuptiSaw) {
  profile::SamplingCounts c;
  EXPECT_NE(profile::sampling_shortfall(c).find("no sample at all"), std::string::npos);
  c.cupti_total = 1000;
  c.buffer_full = true;
  EXPECT_NE(profile::sampling_shortfall(c).find("hardware buffer filled"), std::string::npos);
  c.buffer_full = false;
  c.dropped = 1000;
  EXPECT_NE(profile::sampling_shortfall(c).find("dropped"), std::string::npos);
  c.dropped = 10;
  c.non_user = 990;
  EXPECT_NE(profile::sampling_shortfall(c).find("loaded after sampling was enabled"),
            std::string::npos);
  c.reloaded = false;
  EXPECT_NE(profile::sampling_shortfall(c).find("never registered it"), std::string::npos);
  c.kept = 5;
  EXPECT_EQ(profile::sampling_shortfall(c), "") << "samples reached the kernel";
}

}  // namespace
}  // namespace kgate
