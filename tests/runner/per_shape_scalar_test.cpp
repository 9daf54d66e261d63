// Per-shape float scalars on the host backend: the kernel and the reference
// both receive each shape's own value, so a kernel computing out = x * scale
// passes on two shapes of different scale, and one that hard-codes the first
// shape's scale fails on the second (tests/fixtures/per-shape-scalars).
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/kernel_run.h"
#include "runner/launch_plan.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class PerShapeScalarTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  void SetUp() override {
    auto manifest = load_manifest(testing::fixtures_dir() / "per-shape-scalars");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    manifest_ = *manifest;
  }
  KernelRunReport run(const std::string& kernel) {
    auto backend = make_host_backend();
    KernelRunOptions options;
    options.time = false;
    options.seed = 7;
    auto report = run_kernel(manifest_, *manifest_.kernel(kernel), *backend, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    return report.ok() ? *report : KernelRunReport{};
  }
  Manifest manifest_;
};

TEST_F(PerShapeScalarTest, TheLaunchPlanPassesEachShapesValue) {
  const Kernel& k = *manifest_.kernel("scaled");
  for (const Shape& shape : k.shapes) {
    auto plan = plan_launch(k, k.implementation("host"), shape, {});
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_DOUBLE_EQ(load_as_double(DType::kFloat32, plan->args[3].scalar.bytes, 0),
                     *shape.number("scale"))
        << shape.name;
  }
}

TEST_F(PerShapeScalarTest, AKernelUsingTheScalarPassesOnEveryShape) {
  KernelRunReport report = run("scaled");
  ASSERT_TRUE(report.compiled) << report.compile_error;
  ASSERT_EQ(report.shapes.size(), 2u);
  for (const ShapeMeasurement& m : report.shapes)
    EXPECT_EQ(m.status, MeasureStatus::kPass) << m.shape << ": " << m.reason;
}

TEST_F(PerShapeScalarTest, AKernelHardCodingOneScaleFailsOnTheOtherShape) {
  KernelRunReport report = run("fixed");
  ASSERT_TRUE(report.compiled) << report.compile_error;
  ASSERT_EQ(report.shapes.size(), 2u);
  for (const ShapeMeasurement& m : report.shapes) {
    if (m.shape == "decode") {
      EXPECT_EQ(m.status, MeasureStatus::kPass) << m.reason;
    } else {
      EXPECT_EQ(m.status, MeasureStatus::kFail);
      EXPECT_NE(m.reason.find("wrong result"), std::string::npos) << m.reason;
    }
  }
}

}  // namespace
}  // namespace kgate
