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
  EXPECT_EQ(b.shapes[1].bound, kBoundSize) << b.shapes[1].why;
  EXPECT_NE(b.shapes[1].why.find("at the ceiling these bytes would take 7.96 us"),
            std::string::npos)
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

// A shape is too small only below what fills the GPU and when its size
// explains the gap; a 50 MB shape at 5% of the copy ceiling has room,
// whatever its ideal time (12 us) says.
TEST(EpisodeBounds, TooSmallOnlyWhenTheSizeExplainsTheGap) {
  EXPECT_NEAR(gpu_fill_bytes(kH200Copy), 190e6, 2e6);
  EXPECT_EQ(gpu_fill_bytes(0), 0);
  const size_t fifty_mb = 50'000'000;
  const double at_5pct = fifty_mb / (0.05 * kH200Copy);
  EpisodeBounds b =
      episode_bounds({timed("prefill-2k", "prefill", at_5pct, fifty_mb),
                      timed("prefill-8k", "prefill", 37.82e-6, 134'283'264),
                      timed("small", "prefill", 10e-6, 4'000'000),
                      timed("copy-1g", "prefill", 1.07e9 / (0.6 * kH200Copy), 1'070'000'000)},
                     ResourceReport{}, kH200Copy, "H200 copy", 8e-6);
  EXPECT_EQ(b.shapes[0].bound, kBoundBelow) << b.shapes[0].why;
  EXPECT_EQ(b.shapes[0].why.rfind("below the ceiling with room: 5% of copy bandwidth", 0), 0u)
      << b.shapes[0].why;
  EXPECT_EQ(b.shapes[0].why.find("too small"), std::string::npos) << b.shapes[0].why;
  // 134 MB at 84%: a kernel of that size reaches 86% at best; the size is the bound.
  EXPECT_EQ(b.shapes[1].bound, kBoundSize) << b.shapes[1].why;
  EXPECT_EQ(b.shapes[2].bound, kBoundSize) << b.shapes[2].why;
  EXPECT_NE(b.shapes[2].why.find("too small to fill the GPU"), std::string::npos);
  // Above what fills the GPU, never too small.
  EXPECT_EQ(b.shapes[3].bound, kBoundBelow) << b.shapes[3].why;
  EXPECT_NE(b.shapes[3].why.find("large enough to fill the GPU"), std::string::npos);
}

// Records written before NaN timings were stored as null read back without a throw.
TEST(EpisodeBounds, NullAndMistypedFieldsReadAsUnknown) {
  auto j = nlohmann::json::parse(R"({"copy_bytes_per_s": null, "ceiling_note": 3,
      "shapes": [{"shape": "a", "best_s": null, "bytes_moved": null, "bytes_per_s": "x",
                  "pct_of_copy": null}, 7, null]})");
  EpisodeBounds b = EpisodeBounds::from_json(j);
  EXPECT_FALSE(b.copy_bytes_per_s);
  ASSERT_EQ(b.shapes.size(), 1u);
  EXPECT_EQ(b.shapes[0].shape, "a");
  EXPECT_EQ(b.shapes[0].best_s, 0);
  EXPECT_FALSE(b.shapes[0].pct_of_copy);
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
