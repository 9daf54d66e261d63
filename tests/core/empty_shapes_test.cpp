// Shapes with an empty dimension (K = 0): declared with "allow_empty": true,
// they load, and such a shape is checked, never timed. Without the flag a
// count or a grid of 0 stays an error, which names the flag.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "support/manifest_edit_test.h"
#include "support/test_support.h"

namespace kgate {
namespace {

const char* kManifest = R"~({
  "kernels": [{
    "name": "gemm",
    "impl": {"cuda": {"source": "gemm.cu", "entry": "gemm",
                      "launch": {"grid": ["ceil_div(N, 16)", "ceil_div(M, 16)"], "block": [16, 16]}}},
    "args": [
      {"name": "C", "type": "float*", "count": "M * N", "role": "output"},
      {"name": "A", "type": "const float*", "count": "M * K"},
      {"name": "B", "type": "const float*", "count": "K * N"},
      {"name": "M", "type": "int32", "value": "M"},
      {"name": "N", "type": "int32", "value": "N"},
      {"name": "K", "type": "int32", "value": "K"}
    ],
    "shapes": [{"name": "square", "M": 64, "N": 64, "K": 64},
               {"name": "k0", "M": 64, "N": 64, "K": 0, "allow_empty": true}],
    "reference": {"source": "gemm_ref.cpp", "entry": "gemm_ref"}
  }]
})~";

class EmptyShapesTest : public testing::ManifestEditTest {
 protected:
  EmptyShapesTest() : ManifestEditTest(kManifest, {"gemm.cu", "gemm_ref.cpp"}) {}
};

TEST_F(EmptyShapesTest, AnEmptyDimensionLoadsWithTheFlagAndIsNotTimed) {
  auto m = parse_after("", "");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Shape& k0 = m->kernels[0].shapes[1];
  EXPECT_TRUE(k0.allow_empty);
  EXPECT_EQ(k0.variables.at("K"), 0);
  EXPECT_EQ(m->gate.timing_of(k0), ShapeTiming::kOff);
  EXPECT_FALSE(m->kernels[0].shapes[0].allow_empty);
  EXPECT_EQ(m->gate.timing_of(m->kernels[0].shapes[0]), ShapeTiming::kGate);
  // A grid of 0 blocks (M = 0) loads too.
  auto grid0 = parse_after("\"M\": 64, \"N\": 64, \"K\": 0", "\"M\": 0, \"N\": 64, \"K\": 64");
  ASSERT_TRUE(grid0.ok()) << grid0.error().message;
}

TEST_F(EmptyShapesTest, WithoutTheFlagAZeroCountIsAnErrorNamingTheFlag) {
  auto m = parse_after(", \"allow_empty\": true", "");
  ASSERT_FALSE(m.ok());
  const std::string& e = m.error().message;
  EXPECT_NE(e.find("kernels[0].args[1].count"), std::string::npos) << e;
  EXPECT_NE(e.find("evaluates to 0 for shape 'k0'"), std::string::npos) << e;
  EXPECT_NE(e.find("\"allow_empty\": true"), std::string::npos) << e;
  // A grid of 0 blocks likewise.
  auto grid0 = parse_after("\"M\": 64, \"N\": 64, \"K\": 0, \"allow_empty\": true",
                           "\"M\": 64, \"N\": 64, \"K\": 0, \"allow_empty\": false");
  ASSERT_FALSE(grid0.ok());
  EXPECT_NE(grid0.error().message.find("allow_empty"), std::string::npos);
}

TEST_F(EmptyShapesTest, NegativeCountsAndBadFlagsStayErrors) {
  auto negative = parse_after("\"K\": 0,", "\"K\": -1,");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("evaluates to -"), std::string::npos)
      << negative.error().message;
  auto timed = parse_after("\"allow_empty\": true", "\"allow_empty\": true, \"timing\": \"gate\"");
  ASSERT_FALSE(timed.ok());
  EXPECT_NE(timed.error().message.find("never timed"), std::string::npos);
  auto off = parse_after("\"allow_empty\": true", "\"allow_empty\": true, \"timing\": \"off\"");
  EXPECT_TRUE(off.ok());
  auto word = parse_after("\"allow_empty\": true", "\"allow_empty\": \"yes\"");
  ASSERT_FALSE(word.ok());
  EXPECT_NE(word.error().message.find("shapes[1].allow_empty"), std::string::npos);
}

}  // namespace
}  // namespace kgate
