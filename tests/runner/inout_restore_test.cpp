// Every timed sample starts from the same data: in/out buffers are restored
// from a pristine copy before each launch. Before, each launch of an in/out
// kernel (fused_add_rmsnorm's residual += input) worked on what the previous
// launches left, so its data drifted over the samples (to infinities in
// half precision) and so could its time; this kernel's time grows with
// that drift, about 4x over 40 samples without the restore.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

// The fastest of a group: a busy machine only adds time, drifted data makes
// every sample of the group slower (without the restore, the last ten run
// ~6x the passes of the first ten).
double fastest_of(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}

TEST(InOutRestore, TimedSamplesOfAnInOutKernelDoNotDrift) {
  testing::use_private_compile_cache();
  auto manifest = load_manifest(testing::fixtures_dir() / "bias-kernels");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_host_backend();
  KernelRunOptions options;
  options.seed = 99;
  auto report = run_kernel(*manifest, *manifest->kernel("drift"), *backend, options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->compiled) << report->compile_error;
  ASSERT_EQ(report->shapes.size(), 1u);
  const ShapeMeasurement& m = report->shapes[0];
  ASSERT_EQ(m.status, MeasureStatus::kPass) << m.reason;
  ASSERT_EQ(m.head_seconds.size(), 40u);
  std::vector<double> first(m.head_seconds.begin(), m.head_seconds.begin() + 10);
  std::vector<double> last(m.head_seconds.end() - 10, m.head_seconds.end());
  EXPECT_LT(fastest_of(last), 1.8 * fastest_of(first))
      << "the last samples ran on drifted data: " << fastest_of(first) << " s then "
      << fastest_of(last) << " s";
}

}  // namespace
}  // namespace kgate
