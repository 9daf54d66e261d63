// On a GPU: a shape whose grid evaluates to 0 blocks (M = 0, "allow_empty")
// is not launched (cuLaunchKernel would refuse it) and passes, K = 0 writes
// zeros and passes, and neither is timed. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(EmptyDimsGpuTest, AGridOfZeroBlocksIsNotLaunchedAndPasses) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch / "cache").c_str(), 1);
  setenv("KGATE_LOCK_DIR", (scratch / "locks").c_str(), 1);
  auto manifest = load_manifest(testing::fixtures_dir() / "empty-dims");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  Kernel kernel = *manifest->kernel("gemm");
  kernel.timing.warmup = 1;
  kernel.timing.samples = 3;
  KernelRunOptions options;
  options.seed = 20261202;
  auto report = run_kernel(*manifest, kernel, *make_cuda_backend(), options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->compiled) << report->compile_error;
  ASSERT_EQ(report->shapes.size(), 3u);
  for (const ShapeMeasurement& m : report->shapes) {
    EXPECT_EQ(m.status, MeasureStatus::kPass) << m.shape << ": " << m.reason;
    if (m.shape == "square")
      EXPECT_FALSE(m.head_seconds.empty());
    else
      EXPECT_TRUE(m.head_seconds.empty()) << m.shape << " is empty: checked, not timed";
  }
}

}  // namespace
}  // namespace kgate
