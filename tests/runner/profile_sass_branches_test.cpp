// Branch efficiency from the SASS metrics API's counts: the formula on the
// counts an H200 gave for the GPU test's kernels, the kernel without branch
// instructions, the fall-back when the API fails, and the per-metric child.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include "runner/profile/sass_branches.h"
#include "runner/profile_model/profile_summary.h"
#include "runner/profile_model/profile_table.h"
#include "runner/profile_model/profile_text.h"

namespace kgate::profile {
namespace {

using namespace profile_model;  // the data, its classification and text under test

// What the range profiler read on the H200 for kernels of 32768 warps: the
// patched counters agree with nothing (4194304 patched instructions against
// the hardware's count; the same branch counts for unrelated kernels).
ProfileData h200_profile(const char* kernel, double inst_executed, double threads_per_inst) {
  ProfileData p;
  p.kernel = kernel;
  p.shape = "n=2^20";
  p.backend = "cuda";
  p.device = "NVIDIA H200";
  p.multiprocessors = 132;
  p.dims.grid[0] = 4096;
  p.dims.block[0] = 256;
  p.metrics = {
      {metric::kDurationNs, 20000},
      {metric::kBranchUniform, 1398101.33},
      {metric::kBranchDivergent, 1398101.33},
      {metric::kBranchTargets, 2796202.67},
      {metric::kInstExecuted, inst_executed},
      {metric::kSassInstExecuted, 4194304},
      {metric::kThreadsPerInstruction, threads_per_inst},
  };
  return p;
}

Result<SassTotal> total(double sum, size_t instructions) {
  return SassTotal{sum, instructions};
}

// SASS metrics API counts on the H200 (the diagnostic's JSON): 15 branch
// instructions; 6815744 warp branches of which 524288 divergent in the
// divergent kernel, 3932160 and none divergent in the uniform one.
TEST(SassBranches, H200CountsGiveBranchEfficiency) {
  ProfileData div = h200_profile("divergent", 78675968, 17.18);
  ProfileData uni = h200_profile("uniform", 41189376, 32);
  ASSERT_FALSE(branch_efficiency(div).has_value());  // range profiler only: withheld
  record_sass_branches(div, total(6815744, 15), total(524288, 15));
  record_sass_branches(uni, total(3932160, 15), total(0, 15));

  ASSERT_TRUE(branch_efficiency(div) && branch_efficiency(uni));
  EXPECT_NEAR(*branch_efficiency(div), 100.0 * (6815744 - 524288) / 6815744, 1e-9);
  EXPECT_NEAR(*branch_efficiency(div), 92.3077, 1e-4);
  EXPECT_DOUBLE_EQ(*branch_efficiency(uni), 100.0);
  // The range profiler's disagreement no longer withholds the number.
  EXPECT_FALSE(number_problems(div).count("branch efficiency"));
  EXPECT_FALSE(number_problems(uni).count("branch efficiency"));

  std::string s = render_summary(div);
  EXPECT_NE(s.find("branch efficiency 92.3% (524288 of 6815744 warp branches divergent)"),
            std::string::npos)
      << s;
  EXPECT_NE(render_summary(uni).find("branch efficiency 100.0% (0 of 3932160"), std::string::npos);
  EXPECT_NEAR(summary_json(div)["derived"]["branch_efficiency_pct"].get<double>(), 92.3077, 1e-4);
  EXPECT_NE(render_profile_table({div, uni}).find("| 92.3% |"), std::string::npos);
  // The counts survive the child's JSON, as kgate profile carries them.
  ProfileData back = ProfileData::from_json(div.to_json());
  ASSERT_TRUE(branch_efficiency(back).has_value());
  EXPECT_DOUBLE_EQ(*branch_efficiency(back), *branch_efficiency(div));
}

// The plain copy on the H200: CUPTI patched no instruction for either branch
// metric; that is "no branch instructions", not 0% or 100%.
TEST(SassBranches, KernelWithoutBranchInstructionsSaysSo) {
  ProfileData copy = h200_profile("copy", 720896, 32);
  record_sass_branches(copy, total(0, 0), total(0, 0));
  EXPECT_TRUE(no_branch_instructions(copy));
  EXPECT_FALSE(branch_efficiency(copy).has_value());
  EXPECT_FALSE(number_problems(copy).count("branch efficiency"));
  EXPECT_EQ(text::branches(copy), "no branch instructions");
  EXPECT_NE(render_summary(copy).find("branch efficiency no branch instructions"),
            std::string::npos);
  EXPECT_NE(render_profile_table({copy}).find("| no branch instructions |"), std::string::npos);
  EXPECT_FALSE(summary_json(copy)["derived"].contains("branch_efficiency_pct"));

  // Branch instructions that never ran: a different statement.
  ProfileData idle = h200_profile("idle", 720896, 32);
  record_sass_branches(idle, total(0, 3), total(0, 3));
  EXPECT_FALSE(no_branch_instructions(idle));
  EXPECT_FALSE(branch_efficiency(idle).has_value());
  EXPECT_EQ(text::branches(idle), "no branch executed");
}

TEST(SassBranches, ImpossibleCountsAreWithheld) {
  ProfileData p = h200_profile("divergent", 78675968, 17.18);
  record_sass_branches(p, total(1000, 4), total(1500, 4));
  EXPECT_FALSE(branch_efficiency(p).has_value());
  std::string why = number_problems(p)["branch efficiency"];
  EXPECT_NE(why.find("1500 divergent branches counted but only 1000"), std::string::npos) << why;
  // Divergence while every instruction ran with all 32 threads.
  ProfileData q = h200_profile("uniform", 41189376, 32);
  record_sass_branches(q, total(1000, 4), total(10, 4));
  EXPECT_FALSE(branch_efficiency(q).has_value());
  EXPECT_NE(number_problems(q)["branch efficiency"].find("all 32 threads"), std::string::npos);
}

// When the API fails, the profile says why and falls back to the range
// profiler's counters: withheld on the H200, with its reason.
TEST(SassBranches, ApiFailureFallsBackToTheRangeProfiler) {
  ProfileData p = h200_profile("divergent", 78675968, 17.18);
  record_sass_branches(
      p, Error::infrastructure("CUPTI SASS metrics failed (cuptiSassMetricsEnable: X)"),
      total(5, 1));
  EXPECT_FALSE(p.get(metric::kSassApiBranchExecuted).has_value());
  EXPECT_NE(p.missing[kSassBranchesMissing].find("cuptiSassMetricsEnable"), std::string::npos);
  EXPECT_FALSE(branch_efficiency(p).has_value());
  std::string s = render_summary(p);
  EXPECT_NE(s.find("branch efficiency n/a (withheld"), std::string::npos) << s;
  EXPECT_NE(s.find("- branch counts (SASS metrics API): CUPTI SASS metrics failed"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("- branch efficiency: CUPTI's SASS-patched counters disagree"),
            std::string::npos)
      << s;
  EXPECT_NE(render_profile_table({p}).find("| withheld |"), std::string::npos);
}

// Each metric is counted in its own child; a child that dies costs the
// counts, not the profile.
TEST(SassBranches, EachMetricIsCountedInItsOwnChild) {
  ProfileData p = h200_profile("divergent", 78675968, 17.18);
  const pid_t parent = getpid();
  add_sass_branches(
      p,
      [parent](const std::string& metric) -> Result<SampledPcs> {
        if (getpid() == parent) return Error::infrastructure("counted in the parent");
        SampledPcs r;
        r.pcs.resize(15);
        r.samples = metric == kSassBranchMetric ? 6815744 : 524288;
        return r;
      },
      30);
  ASSERT_TRUE(branch_efficiency(p).has_value()) << p.missing[kSassBranchesMissing];
  EXPECT_DOUBLE_EQ(*p.get(metric::kSassApiBranchInstructions), 15);
  EXPECT_NEAR(*branch_efficiency(p), 92.3077, 1e-4);

  ProfileData q = h200_profile("divergent", 78675968, 17.18);
  add_sass_branches(
      q,
      [](const std::string& metric) -> Result<SampledPcs> {
        if (metric == kSassDivergentMetric) std::abort();
        return SampledPcs{};
      },
      30);
  EXPECT_FALSE(q.get(metric::kSassApiBranchExecuted).has_value());
  EXPECT_NE(q.missing[kSassBranchesMissing].find(kSassDivergentMetric), std::string::npos)
      << q.missing[kSassBranchesMissing];
  EXPECT_NE(q.missing[kSassBranchesMissing].find("signal"), std::string::npos)
      << q.missing[kSassBranchesMissing];
}

}  // namespace
}  // namespace kgate::profile
