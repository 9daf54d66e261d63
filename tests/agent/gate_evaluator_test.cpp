// The episode's gate-backed evaluator on the example's host rmsnorm: an
// untimed shape is checked (no time, ratio 1, not counted), a report-only
// shape is timed but neither wins nor loses, the geomean counts only the
// shapes whose time gates, and the evaluation survives its JSON round trip
// (an untimed shape once wrote a NaN median, read back as a crash).
#include "agent/gate_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(GateEvaluator, UntimedAndReportOnlyShapesNeitherWinNorLose) {
  testing::use_private_compile_cache();
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Kernel& kernel = *manifest->kernel("rmsnorm");
  auto backend = make_host_backend();
  AbOptions options;
  options.seed = 3;
  options.budget_s = 0.2;
  options.shapes = {"decode-b1", "edge-1x1", "odd-3x4097"};
  GateEvaluator evaluator(*manifest, kernel, *backend, options);
  Candidate original, vectorized;
  vectorized.tunables = {{"VEC", 8}};
  auto e = evaluator.evaluate(original, vectorized);
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_TRUE(e->correct) << e->summary;
  ASSERT_EQ(e->shapes.size(), 3u);
  const ShapeEvaluation *decode = nullptr, *one = nullptr, *odd = nullptr;
  for (const ShapeEvaluation& s : e->shapes)
    (s.shape == "decode-b1" ? decode : s.shape == "edge-1x1" ? one : odd) = &s;
  ASSERT_TRUE(decode && one && odd);
  EXPECT_EQ(one->verdict, ShapeVerdict::kChecked);
  EXPECT_FALSE(one->counts);
  EXPECT_EQ(one->candidate_s, 0);
  EXPECT_EQ(one->ratio, 1);
  EXPECT_FALSE(odd->counts);
  EXPECT_EQ(odd->reason, "report only: edge shape");
  EXPECT_GT(odd->candidate_s, 0);
  EXPECT_TRUE(decode->counts);
  // Only decode-b1's time counts toward the geomean.
  EXPECT_NEAR(e->geomean_ratio, decode->ratio, 1e-12);
  Evaluation back = Evaluation::from_json(nlohmann::json::parse(e->to_json().dump()));
  ASSERT_EQ(back.shapes.size(), 3u);
  for (const ShapeEvaluation& s : back.shapes)
    if (s.shape == "edge-1x1") {
      EXPECT_EQ(s.verdict, ShapeVerdict::kChecked);
      EXPECT_FALSE(s.counts);
    }
  unsetenv("KGATE_CACHE_DIR");
}

}  // namespace
}  // namespace kgate
