// Empty dimensions on the host backend (tests/fixtures/empty-dims): a GEMM
// whose shapes include K = 0 and M = 0 with "allow_empty". Buffers of 0
// elements are allocated and checked; the empty shapes are checked against
// the reference and never timed; a kernel that skips its output on K = 0 is
// caught (the reference writes zeros there).
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/kernel_run.h"
#include "runner/launch_plan.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class EmptyDimsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  void SetUp() override {
    auto manifest = load_manifest(testing::fixtures_dir() / "empty-dims");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    manifest_ = *manifest;
  }
  std::map<std::string, ShapeMeasurement> run(const std::string& kernel) {
    auto backend = make_host_backend();
    KernelRunOptions options;
    options.seed = 11;
    Kernel k = *manifest_.kernel(kernel);
    k.timing.warmup = 1;
    k.timing.samples = 3;
    auto report = run_kernel(manifest_, k, *backend, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    std::map<std::string, ShapeMeasurement> by_shape;
    if (!report.ok()) return by_shape;
    EXPECT_TRUE(report->compiled) << report->compile_error;
    for (const ShapeMeasurement& m : report->shapes) by_shape[m.shape] = m;
    return by_shape;
  }
  Manifest manifest_;
};

TEST_F(EmptyDimsTest, TheLaunchPlanHasZeroElementBuffersAndAnEmptyGrid) {
  const Kernel& k = *manifest_.kernel("gemm");
  auto k0 = plan_launch(k, k.implementation("cuda"), *k.shape("k0"), {});
  ASSERT_TRUE(k0.ok()) << k0.error().message;
  EXPECT_EQ(k0->args[0].count, 33 * 17);
  EXPECT_EQ(k0->args[1].count, 0);
  EXPECT_EQ(k0->args[1].bytes, 0u);
  EXPECT_FALSE(k0->dims.empty());
  auto m0 = plan_launch(k, k.implementation("cuda"), *k.shape("m0"), {});
  ASSERT_TRUE(m0.ok()) << m0.error().message;
  EXPECT_EQ(m0->args[0].count, 0);
  EXPECT_EQ(m0->dims.grid[1], 0u);
  EXPECT_TRUE(m0->dims.empty());
  // The same shape without the flag is refused, naming it.
  Shape strict = *k.shape("m0");
  strict.allow_empty = false;
  auto refused = plan_launch(k, k.implementation("cuda"), strict, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("allow_empty"), std::string::npos);
}

TEST_F(EmptyDimsTest, EmptyShapesAreCheckedNotTimed) {
  auto shapes = run("gemm");
  ASSERT_EQ(shapes.size(), 3u);
  for (const auto& [name, m] : shapes)
    EXPECT_EQ(m.status, MeasureStatus::kPass) << name << ": " << m.reason;
  EXPECT_FALSE(shapes["square"].head_seconds.empty());  // a full shape is timed
  EXPECT_TRUE(shapes["k0"].head_seconds.empty());
  EXPECT_TRUE(shapes["m0"].head_seconds.empty());
  EXPECT_TRUE(shapes["k0"].check.passed);  // C compared with the reference: all zeros
}

TEST_F(EmptyDimsTest, AKernelThatSkipsAnEmptyReductionFails) {
  auto shapes = run("gemm_early_exit");
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes["square"].status, MeasureStatus::kPass) << shapes["square"].reason;
  EXPECT_EQ(shapes["m0"].status, MeasureStatus::kPass) << shapes["m0"].reason;
  EXPECT_EQ(shapes["k0"].status, MeasureStatus::kFail);
  EXPECT_NE(shapes["k0"].reason.find("'C'"), std::string::npos) << shapes["k0"].reason;
}

}  // namespace
}  // namespace kgate
