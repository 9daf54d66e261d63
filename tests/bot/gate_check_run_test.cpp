// The gate's report as a check run: conclusion, title, and one annotation on
// the kernel's source (path from the repository root) per failure.
#include <gtest/gtest.h>

#include "bot/gate_check_run.h"

namespace kgate::bot {
namespace {

ShapeGate shape(const std::string& name, Verdict verdict, bool fails, double estimate) {
  ShapeGate s;
  s.shape = name;
  s.verdict = verdict;
  s.fails = fails;
  s.interval.estimate = estimate;
  s.interval.low = estimate * 0.98;
  s.interval.high = estimate * 1.02;
  s.interval.pairs = 20;
  return s;
}

TEST(GateCheckRunTest, FailuresBecomeAnnotationsOnTheKernelSource) {
  GateReport report;
  report.manifest_dir = "kernels";
  KernelGate k;
  k.kernel = "rmsnorm";
  k.source = "csrc/rmsnorm.cu";
  k.source_line = 42;
  k.head_compiled = true;
  k.shapes = {shape("decode-b1", Verdict::kFaster, false, 0.8),
              shape("prefill-8k", Verdict::kSlower, true, 1.25),
              shape("odd", Verdict::kIncorrect, true, 1.0)};
  k.shapes[2].reason = "wrong result at element 7";
  KernelGate broken;
  broken.kernel = "softmax";
  broken.source = "csrc/softmax.cu";
  broken.source_line = 3;
  broken.head_compile_error = "softmax.cu(3): error: expected a ;";
  report.kernels = {k, broken};

  CheckRunReport check = gate_check_run(report, "## kgate: failed\n");
  EXPECT_EQ(check.conclusion, "failure");
  EXPECT_EQ(check.title, "kgate: 3 failures");
  EXPECT_EQ(check.summary_markdown, "## kgate: failed\n");
  ASSERT_EQ(check.annotations.size(), 3u);
  EXPECT_EQ(check.annotations[0].path, "kernels/csrc/rmsnorm.cu");
  EXPECT_EQ(check.annotations[0].line, 42);
  EXPECT_EQ(check.annotations[0].title, "kgate: rmsnorm slower on prefill-8k");
  EXPECT_EQ(check.annotations[0].message, "+25.0% [+22.5, +27.5]");
  EXPECT_EQ(check.annotations[1].message, "wrong result at element 7");
  EXPECT_EQ(check.annotations[2].path, "kernels/csrc/softmax.cu");
  EXPECT_EQ(check.annotations[2].title, "kgate: softmax does not compile");
  EXPECT_EQ(check.annotations[2].level, "failure");
}

TEST(GateCheckRunTest, MeasuringErrorsAreNeutralAndAPassIsSuccess) {
  GateReport report;
  KernelGate k;
  k.kernel = "gemv";
  k.source = "gemv.cu";
  k.head_compiled = true;
  k.shapes = {shape("a", Verdict::kSame, false, 1.0), shape("b", Verdict::kError, true, 1.0)};
  report.kernels = {k};
  CheckRunReport check = gate_check_run(report, "");
  EXPECT_EQ(check.conclusion, "neutral");
  EXPECT_EQ(check.title, "kgate: 1 shape could not be measured");
  EXPECT_TRUE(check.annotations.empty());

  report.kernels[0].shapes.pop_back();
  check = gate_check_run(report, "");
  EXPECT_EQ(check.conclusion, "success");
  EXPECT_EQ(check.title, "kgate: passed (1 shape)");
  EXPECT_EQ(gate_check_run(GateReport{}, "").title, "kgate: no kernel changed");
}

TEST(GateCheckRunTest, ABrokenHeadManifestIsAFailureOnTheManifest) {
  GateReport report;
  report.manifest_dir = "kernels";
  report.manifest_file = ".github/kgate.json";
  report.manifest_error = "head (abc1234): .github/kgate.json: kernels[0].args: missing";
  CheckRunReport check = gate_check_run(report, "## kgate: failed\n");
  EXPECT_EQ(check.conclusion, "failure");
  EXPECT_EQ(check.title, "kgate: the head's kgate.json does not load");
  ASSERT_EQ(check.annotations.size(), 1u);
  EXPECT_EQ(check.annotations[0].path, "kernels/.github/kgate.json");
  EXPECT_EQ(check.annotations[0].message, report.manifest_error);
}

}  // namespace
}  // namespace kgate::bot
