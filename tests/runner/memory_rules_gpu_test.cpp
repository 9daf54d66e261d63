// The memory rules on a GPU: guard zones and unchanged inputs catch the same
// planted CUDA kernels as the host ones (tests/fixtures/bad-kernels/kernels.cu),
// with the same reasons. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

struct RuleCase {
  const char* kernel;
  const char* shape;
  const char* reason;  // substring; empty: must pass
};

class MemoryRulesGpu : public ::testing::TestWithParam<RuleCase> {
 protected:
  void SetUp() override {
    auto inventory = cuda::gpu_inventory();
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
    setenv("KGATE_CACHE_DIR", (scratch_ / "cache").c_str(), 1);
    setenv("KGATE_LOCK_DIR", (scratch_ / "locks").c_str(), 1);
  }
  testing::TempDir scratch_;
};

TEST_P(MemoryRulesGpu, CaughtWithTheRightReason) {
  auto manifest = load_manifest(testing::fixtures_dir() / "bad-kernels");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_cuda_backend();
  KernelRunOptions options;
  options.shape = GetParam().shape;
  options.seed = 7;
  auto report = run_kernel(*manifest, *manifest->kernel(GetParam().kernel), *backend, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->compiled) << report->compile_error;
  ASSERT_EQ(report->shapes.size(), 1u);
  const ShapeMeasurement& m = report->shapes[0];
  if (std::string(GetParam().reason).empty()) {
    EXPECT_EQ(m.status, MeasureStatus::kPass) << m.reason;
    return;
  }
  EXPECT_EQ(m.status, MeasureStatus::kFail) << m.reason;
  EXPECT_NE(m.reason.find(GetParam().reason), std::string::npos) << m.reason;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MemoryRulesGpu,
    ::testing::Values(RuleCase{"past_end_odd", "small", ""},
                      RuleCase{"past_end_odd", "odd", "wrote 4 bytes past the end of 'out'"},
                      RuleCase{"before_start", "small", "wrote 16 bytes before the start of 'out'"},
                      RuleCase{"mutates_input", "small",
                               "changed its input 'x' (334 elements, first at index 0)"},
                      RuleCase{"reads_output", "small",
                               "reads 'out' before writing it: declare it \"role\": \"inout\""}),
    [](const ::testing::TestParamInfo<RuleCase>& info) {
      return std::string(info.param.kernel) + "_" + info.param.shape;
    });

}  // namespace
}  // namespace kgate
