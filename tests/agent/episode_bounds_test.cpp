// What bounds an episode's best, per shape: each class from the numbers the
// H200 episodes measured (2026-11-30), the JSON round trip, and no ceiling.
#include "agent/episode_bounds.h"

#include <gtest/gtest.h>

namespace kgate {
namespace {

constexpr double kH200Copy = 4215e9;  // the 1 GiB device-to-device copy, bytes/s

ShapeEvaluation timed(std::string shape, std::string phase, double seconds, size_t bytes) {
  ShapeEvaluation s;
  s.shape = std::move(shape);
  s.phase = std::move(phase);
  s.best_s = seconds;
  s.bytes_moved = bytes;
  return s;
}

std::vector<ShapeEvaluation> h200_shapes() {
  return {
      timed("prefill-8k", "prefill", 177.57e-6, 704'643'072),          // silu_and_mul: 94.1%
      timed("prefill-2k", "prefill", 14.05e-6, 33'570'816),            // rmsnorm: 57%, 8 us ideal
      timed("prefill-2k-vocab", "prefill", 370.78e-6, 1'050'673'152),  // softmax: 67%
      timed("decode-b1", "decode", 4.96e-6, 24'576),                   // rmsnorm: launch
      timed("no-args", "edge", 3e-6, 0),
  };
}

TEST(EpisodeBounds, NamesWhatBoundsEachShape) {
  ResourceReport res;
  res.registers = 64;
  res.spill_store_bytes = 0;
  EpisodeBounds b = episode_bounds(h200_shapes(), res, kH200Copy, "H200 copy", 8e-6);
  ASSERT_EQ(b.shapes.size(), 5u);
  EXPECT_EQ(b.shapes[0].bound, kBoundCeiling);
  ASSERT_TRUE(b.shapes[0].pct_of_copy);
  EXPECT_NEAR(*b.shapes[0].pct_of_copy, 94.1, 0.2);
  EXPECT_EQ(b.shapes[1].bound, kBoundSize);
  EXPECT_NE(b.shapes[1].why.find("at it these bytes would take 7.96 us"), std::string::npos)
      << b.shapes[1].why;
  EXPECT_EQ(b.shapes[2].bound, kBoundBelow);
  EXPECT_NEAR(*b.shapes[2].pct_of_copy, 67.2, 0.3);
  EXPECT_NE(b.shapes[2].why.find("64 registers/thread"), std::string::npos) << b.shapes[2].why;
  EXPECT_EQ(b.shapes[3].bound, kBoundLaunch);
  EXPECT_EQ(b.shapes[4].bound, kBoundNoTraffic);
  EXPECT_FALSE(b.shapes[4].pct_of_copy);
  // A shape that was not timed has no bandwidth either.
  EpisodeBounds untimed =
      episode_bounds({timed("decode-b1", "decode", 0, 24'576)}, res, kH200Copy, "", 8e-6);
  EXPECT_EQ(untimed.shapes[0].bound, kBoundNoTraffic);
  EXPECT_NE(untimed.shapes[0].why.find("not timed"), std::string::npos);

  // The text names every shape with its class, after where the ceiling came from.
  const std::string text = b.text();
  EXPECT_EQ(text.rfind("What bounds the best (H200 copy):", 0), 0u) << text;
  for (const ShapeBound& s : b.shapes)
    EXPECT_NE(text.find("- " + s.shape + " (" + s.phase + "), " + s.bound + ": "),
              std::string::npos)
        << text;
}

TEST(EpisodeBounds, WithoutACeilingGivesBandwidthOnly) {
  EpisodeBounds b =
      episode_bounds(h200_shapes(), ResourceReport{}, std::nullopt, "no copy ceiling stored", 8e-6);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.shapes[i].bound, kBoundUnmeasured) << b.shapes[i].shape;
    EXPECT_FALSE(b.shapes[i].pct_of_copy);
    EXPECT_GT(b.shapes[i].bytes_per_s, 0);
  }
  EXPECT_NE(b.shapes[0].why.find("= 3968 GB/s"), std::string::npos) << b.shapes[0].why;
}

TEST(EpisodeBounds, RoundTripsThroughJson) {
  EpisodeBounds b = episode_bounds(h200_shapes(), ResourceReport{}, kH200Copy, "note", 8e-6);
  EpisodeBounds back = EpisodeBounds::from_json(b.to_json());
  ASSERT_TRUE(back.copy_bytes_per_s);
  EXPECT_DOUBLE_EQ(*back.copy_bytes_per_s, kH200Copy);
  EXPECT_EQ(back.text(), b.text());
  ASSERT_EQ(back.shapes.size(), b.shapes.size());
  EXPECT_EQ(back.shapes[2].pct_of_copy, b.shapes[2].pct_of_copy);
  EXPECT_FALSE(back.shapes[4].pct_of_copy);
}

}  // namespace
}  // namespace kgate
