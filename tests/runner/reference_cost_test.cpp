// The host reference's cost is known before it is paid
// (runner/reference_cost.h): timed on the small shape of a deliberately slow
// reference (tests/fixtures/slow-reference) and scaled to the huge one,
// which is never run; the warning names kernel, shape, estimate, the time
// limit it exceeds and the remedies.
#include "runner/reference_cost.h"

#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/reference.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class ReferenceCostTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  void SetUp() override {
    auto manifest = load_manifest(testing::fixtures_dir() / "slow-reference");
    ASSERT_TRUE(manifest.ok()) << manifest.error().message;
    manifest_ = *manifest;
  }
  Manifest manifest_;
};

TEST_F(ReferenceCostTest, TheSmallShapeIsTimedAndTheHugeOneScaled) {
  const Kernel& k = manifest_.kernels.at(0);
  auto reference = build_reference(k, manifest_.root);
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  ASSERT_TRUE(reference->ok) << reference->digest();
  auto costs = estimate_reference_costs(k, reference->program, {});
  ASSERT_TRUE(costs.ok()) << costs.error().message;
  ASSERT_EQ(costs->size(), 3u);
  const ReferenceCost& small = (*costs)[0];
  const ReferenceCost& huge = (*costs)[1];
  EXPECT_EQ(small.shape, "small");
  EXPECT_GT(small.seconds, 0);
  EXPECT_NE(small.basis.find("on shape 'small'"), std::string::npos) << small.basis;
  EXPECT_NE(small.basis.find("fitted with shape 'tiny'"), std::string::npos) << small.basis;
  // 2^26 / 2^8 = 262144 times the elements, to a power of at least 1.
  EXPECT_GE(huge.seconds / small.seconds, 262144 * 0.999);
  EXPECT_NE(huge.basis.find("elements x2.62e+05"), std::string::npos) << huge.basis;
  // 2000 sin steps per element cost far more than 60 s over 2^26 elements on any CPU.
  EXPECT_GT(huge.seconds, 60) << huge.basis;
  std::string w = reference_cost_warning(k, huge, k.timing.time_limit_s);
  EXPECT_NE(w.find("copy / huge"), std::string::npos) << w;
  EXPECT_NE(w.find("more than the shape's time limit"), std::string::npos) << w;
  EXPECT_EQ(reference_cost_warning(k, small, k.timing.time_limit_s), "");
  // Only the shapes asked for.
  auto one = estimate_reference_costs(k, reference->program, {"huge"});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].shape, "huge");
}

TEST(ReferenceCostModel, ThePowerIsFittedToTwoTimesAndClamped) {
  EXPECT_NEAR(work_exponent(8, 4096, 1, 1024), 1.5, 1e-9);  // a square GEMM: n^3 over n^2
  EXPECT_NEAR(work_exponent(4, 4096, 1, 1024), 1.0, 1e-9);  // row-wise
  EXPECT_EQ(work_exponent(1.5, 4096, 1, 1024), 1.0);        // overhead-bound: at least linear
  EXPECT_EQ(work_exponent(1000, 4096, 1, 1024), 1.5);       // noise: at most n^3 over n^2
  EXPECT_EQ(work_exponent(0, 4096, 1, 1024), 1.0);
  EXPECT_EQ(work_exponent(2, 1024, 1, 1024), 1.0);
}

TEST_F(ReferenceCostTest, TheWarningHasAThresholdAndNamesTheRemedies) {
  const Kernel& k = manifest_.kernels.at(0);
  ReferenceCost cost{"huge", 5, "timed 1 ms on shape 'small', elements x5000, power 1.00"};
  EXPECT_EQ(reference_cost_warning(k, cost, 60), "");  // under 10 s
  EXPECT_NE(reference_cost_warning(k, cost, 16), "");  // over a quarter of a 16 s limit
  cost.seconds = 12;
  std::string w = reference_cost_warning(k, cost, 60);
  EXPECT_NE(w.find("copy / huge: the host reference will take about 12"), std::string::npos) << w;
  EXPECT_NE(w.find("elements x5000"), std::string::npos) << w;
  EXPECT_EQ(w.find("time limit"), std::string::npos) << w;  // 12 s < 60 s
  EXPECT_NE(w.find("\"reference\": {\"cuda\": ...}"), std::string::npos) << w;
  EXPECT_NE(w.find("\"oracle\": \"base\""), std::string::npos) << w;
  EXPECT_NE(w.find("$KGATE_CACHE_DIR/references"), std::string::npos) << w;
}

TEST_F(ReferenceCostTest, WithoutASmallShapeNothingIsRunAndTheReasonIsGiven) {
  Kernel k = manifest_.kernels.at(0);
  k.shapes = {*k.shape("huge")};  // timing it would pay the cost
  auto reference = build_reference(k, manifest_.root);
  ASSERT_TRUE(reference.ok() && reference->ok);
  auto costs = estimate_reference_costs(k, reference->program, {});
  ASSERT_FALSE(costs.ok());
  EXPECT_NE(costs.error().message.find("no shape of at most 65536"), std::string::npos);
}

TEST_F(ReferenceCostTest, TheHostJudgesSmallShapesAndLargeOnesWithoutAReferenceKernel) {
  const Kernel& k = manifest_.kernels.at(0);
  GatePolicy policy;  // the host reference judges up to 2^22 elements
  EXPECT_EQ(host_judged_shapes(k, policy, "host", false),
            (std::vector<std::string>{"small", "huge", "tiny"}));
  EXPECT_EQ(host_judged_shapes(k, policy, "host", true),
            (std::vector<std::string>{"small", "tiny"}));
  EXPECT_EQ(host_judged_shapes(k, policy, "host", false, "huge"),
            (std::vector<std::string>{"huge"}));
}

}  // namespace
}  // namespace kgate
