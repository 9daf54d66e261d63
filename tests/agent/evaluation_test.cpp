// How an evaluation concludes: kept only when faster without a slower shape,
// and a rejected candidate's summary names the shapes that lost.
#include <gtest/gtest.h>

#include "agent/candidate_evaluator.h"

namespace kgate {
namespace {

ShapeEvaluation shape(const std::string& name, ShapeVerdict verdict, double ratio) {
  ShapeEvaluation s;
  s.shape = name;
  s.verdict = verdict;
  s.ratio = ratio;
  return s;
}

TEST(Evaluation, ASlowerShapeRejectsAndIsNamed) {
  Evaluation e;
  e.compiled = e.correct = true;
  e.shapes = {shape("up-b1", ShapeVerdict::kSlower, 1.031),
              shape("up-b8", ShapeVerdict::kFaster, 0.4),
              shape("qkv-b1", ShapeVerdict::kSame, 1.0)};
  e.geomean_ratio = 0.8;
  e.conclude(/*any_faster=*/true, /*any_worse=*/true, 0.02);
  EXPECT_FALSE(e.improved);
  EXPECT_NE(e.summary.find("slower on some shapes (up-b1 x1.03)"), std::string::npos) << e.summary;
  EXPECT_EQ(e.summary.find("up-b8"), std::string::npos) << e.summary;
}

TEST(Evaluation, FasterWithoutLossesIsKeptOnlyPastTheThreshold) {
  Evaluation e;
  e.compiled = e.correct = true;
  e.shapes = {shape("a", ShapeVerdict::kFaster, 0.9)};
  e.geomean_ratio = 0.9;
  e.conclude(true, false, 0.02);
  EXPECT_TRUE(e.improved);
  EXPECT_EQ(e.summary.rfind("improved", 0), 0u) << e.summary;
  e.geomean_ratio = 0.99;
  e.conclude(true, false, 0.02);
  EXPECT_FALSE(e.improved);
  EXPECT_EQ(e.summary.rfind("no gain", 0), 0u) << e.summary;
}

}  // namespace
}  // namespace kgate
