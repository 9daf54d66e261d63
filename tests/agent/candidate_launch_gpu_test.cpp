// On a GPU: a rewrite that needs its own launch (one warp per row, eight
// rows per block, instead of one block per row) is checked and timed with
// that launch while the original runs with the manifest's (the gate's
// per-revision rule); the same code with the manifest's launch is wrong.
// And an episode's profile of the original on the GPU carries counters.
#include <gtest/gtest.h>

#include "agent/candidate_rules.h"
#include "agent/episode_profile.h"
#include "agent/gate_evaluator.h"
#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"

namespace kgate {
namespace {

const char* kWarpPerRow = R"(#include <cuda_fp16.h>
// One warp per row, blockDim.y rows per block.
extern "C" __global__ void rmsnorm(__half* out, const __half* x, const __half* weight, int rows,
                                   int cols, float eps) {
  const long long row = (long long)blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  const __half* xr = x + row * cols;
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) {
    float v = __half2float(xr[c]);
    sum += v * v;
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float scale = rsqrtf(sum / cols + eps);
  for (int c = threadIdx.x; c < cols; c += 32)
    out[row * cols + c] = __float2half(__half2float(xr[c]) * scale * __half2float(weight[c]));
}
)";

TEST(CandidateLaunchGpu, ARewriteIsMeasuredWithItsOwnLaunch) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  testing::use_private_compile_cache();
  auto m = load_manifest(testing::example_dir());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm");
  auto backend = make_backend("cuda");
  ASSERT_TRUE(backend.ok()) << backend.error().message;
  AbOptions o;
  o.seed = 5;
  o.shapes = {"decode-b64", "odd-17x1023"};
  o.min_samples = 5;
  o.max_samples = 20;
  o.budget_s = 0.5;
  GateEvaluator evaluator(*m, k, **backend, o);
  Candidate original;
  original.tunables = k.implementation("cuda")->default_tunables();
  auto base = evaluator.baseline(original);
  ASSERT_TRUE(base.ok()) << base.error().message;
  ASSERT_TRUE(base->correct) << base->summary;

  Candidate rewrite = original;
  rewrite.source_text = kWarpPerRow;
  rewrite.launch =
      CandidateLaunch::from_json({{"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}});
  ASSERT_EQ(launch_rule_failure(rewrite, k, "cuda", 0), "");
  auto e = evaluator.evaluate(original, rewrite);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_TRUE(e->correct) << e->summary;
  for (const ShapeEvaluation& s : e->shapes) EXPECT_GT(s.candidate_s, 0) << s.shape;

  // The same code launched as the manifest says (one block of 256 threads
  // per row, blockDim.y = 1) computes rows the grid does not cover.
  Candidate manifest_launch = rewrite;
  manifest_launch.launch.reset();
  auto wrong = evaluator.evaluate(original, manifest_launch);
  ASSERT_TRUE(wrong.ok()) << wrong.error().message;
  EXPECT_FALSE(wrong->correct) << wrong->summary;
}

TEST(CandidateLaunchGpu, TheEpisodesProfileOfTheOriginalHasCounters) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  testing::use_private_compile_cache();
  auto m = load_manifest(testing::example_dir());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm");
  auto backend = make_backend("cuda");
  ASSERT_TRUE(backend.ok()) << backend.error().message;
  ChildProfiler profiler(*m, **backend, ChildProfilerOptions{});
  Candidate original;
  original.tunables = k.implementation("cuda")->default_tunables();
  ProfileObservation o = profiler.profile(original, k, "prefill-2k");
  ASSERT_TRUE(o.ok()) << o.error;
  EXPECT_NE(o.bottleneck, "unknown") << o.summary;
  ASSERT_TRUE(o.profile().has_value());
  EXPECT_GT(o.profile()->max_shared_per_block, 0);
  EXPECT_FALSE(o.profile()->metrics.empty()) << o.summary;
  EXPECT_FALSE(o.profile()->hot_regions.empty()) << o.profile()->sampler;
}

}  // namespace
}  // namespace kgate
