// The reference kernels on a real GPU: on every example kernel and shape,
// the small shapes are judged by the host reference with the reference
// kernel checked against it, the large ones by the reference kernel; an 8k
// gate's check and timing fit the 1 s; the launch floor is measured
// beside the samples. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "gate/ab_gate.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/kernel_run.h"
#include "runner/oracle_choice.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class ReferenceKernelsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    auto inventory = cuda::gpu_inventory();
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
    setenv("KGATE_CACHE_DIR", (scratch / "cache").c_str(), 1);
    setenv("KGATE_LOCK_DIR", (scratch / "locks").c_str(), 1);
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = *m;
    backend = make_cuda_backend();
  }
  testing::TempDir scratch;
  Manifest manifest;
  std::unique_ptr<Backend> backend;
};

TEST_F(ReferenceKernelsGpu, JudgeTheLargeShapesAndAgreeWithTheHostOnTheSmallOnes) {
  int small = 0, large = 0;
  for (const Kernel& kernel : manifest.kernels) {
    KernelRunOptions options;
    options.seed = 20261201;
    options.time = false;
    auto report = run_kernel(manifest, kernel, *backend, options);
    ASSERT_TRUE(report.ok()) << kernel.name << ": " << report.error().message;
    for (const ShapeMeasurement& m : report->shapes) {
      EXPECT_EQ(m.status, MeasureStatus::kPass)
          << kernel.name << "/" << m.shape << ": " << m.reason;
      const Shape& shape = *kernel.shape(m.shape);
      if (host_reference_judges(kernel, shape, manifest.gate)) {
        ++small;
        EXPECT_EQ(m.oracle, "host reference") << kernel.name << "/" << m.shape;
        ASSERT_TRUE(m.oracle_check.has_value()) << kernel.name << "/" << m.shape;
        EXPECT_TRUE(m.oracle_check->passed)
            << kernel.name << "/" << m.shape << ": " << m.oracle_check->reason;
        std::printf("  %-18s %-16s reference kernel vs host: max rel %.3g\n", kernel.name.c_str(),
                    m.shape.c_str(), m.oracle_check->max_rel_error);
      } else {
        ++large;
        EXPECT_EQ(m.oracle, "cuda reference") << kernel.name << "/" << m.shape;
      }
    }
  }
  // Both oracles judged several shapes of the example (24 small and 9 large
  // ones on the H200, 2026-12-02).
  EXPECT_GE(small, 20);
  EXPECT_GE(large, 8);
}

TEST_F(ReferenceKernelsGpu, AnEightKGateChecksAndTimesWithinASecond) {
  for (const char* name : {"fused_add_rmsnorm", "rmsnorm", "silu_and_mul", "rotary_embedding"}) {
    const Kernel& kernel = *manifest.kernel(name);
    GateSources sources;
    sources.base = GateSide{};
    GateOptions options;
    options.shape = "prefill-8k";
    options.seed = 7;
    auto gate = gate_kernel(manifest, kernel, *backend, sources, options);
    ASSERT_TRUE(gate.ok()) << gate.error().message;
    ASSERT_EQ(gate->shapes.size(), 1u);
    const ShapeGate& s = gate->shapes[0];
    EXPECT_NE(s.verdict, Verdict::kIncorrect) << s.reason;
    EXPECT_NE(s.verdict, Verdict::kError) << s.reason;
    EXPECT_EQ(s.oracle, "cuda reference");
    std::printf("  %-18s prefill-8k: %s in %.2f s (%d rounds)\n", name,
                std::string(to_string(s.verdict)).c_str(), s.timing_seconds, s.rounds);
    // The target is 1 s of check and timing per verdict; the child's start and the
    // device context come on top, so the bound here leaves them room.
    EXPECT_LT(s.timing_seconds, 2.0) << name;
  }
}

TEST_F(ReferenceKernelsGpu, TheLaunchFloorIsMeasuredBesideTheSamples) {
  const Kernel& kernel = *manifest.kernel("rmsnorm");
  GateSources sources;
  sources.base = GateSide{};
  GateOptions options;
  options.shape = "odd-17x1023";
  options.seed = 7;
  auto gate = gate_kernel(manifest, kernel, *backend, sources, options);
  ASSERT_TRUE(gate.ok()) << gate.error().message;
  ASSERT_EQ(gate->shapes.size(), 1u);
  const ShapeGate& s = gate->shapes[0];
  std::printf("  launch floor %.2f us, shape median %.2f us\n", s.launch_floor_s * 1e6,
              s.head_median_s * 1e6);
  EXPECT_GT(s.launch_floor_s, 0.5e-6);
  EXPECT_LT(s.launch_floor_s, s.head_median_s);
  EXPECT_EQ(s.timing, ShapeTiming::kReport);
  EXPECT_FALSE(s.counts);
}

}  // namespace
}  // namespace kgate
