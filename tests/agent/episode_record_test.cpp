// Reading persisted episode records whatever happened to them: NaN timings
// written as null (a wrong, crashed or hung candidate), fields of the wrong
// type, arrays where objects belong, a truncated file. Each costs the field,
// never the record or the run. And the one-line explanation of an episode
// that proposed nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "agent/episode_explanation.h"
#include "agent/episode_record.h"
#include "support/test_support.h"

namespace kgate {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ShapeEvaluation shape(const std::string& name, ShapeVerdict verdict, double ratio) {
  ShapeEvaluation s;
  s.shape = name;
  s.verdict = verdict;
  s.ratio = ratio;
  s.best_s = 1e-3;
  s.candidate_s = ratio * 1e-3;
  return s;
}

// A record whose wrong iteration carries NaN everywhere a number goes.
EpisodeRecord record_with_a_wrong_candidate() {
  EpisodeRecord r;
  r.id = "20261130T072232Z-k-0001";
  r.kernel = "k";
  r.backend = "host";
  IterationRecord it;
  it.index = 1;
  it.done = true;
  it.outcome = "wrong";
  Evaluation e;
  e.compiled = true;
  e.geomean_ratio = kNaN;
  ShapeEvaluation s = shape("odd-5x4097", ShapeVerdict::kWrong, kNaN);
  s.best_s = s.candidate_s = s.ratio_lo = s.ratio_hi = s.max_abs_error = kNaN;
  e.shapes = {s};
  it.evaluation = e;
  it.seconds = kNaN;
  r.iterations.push_back(it);
  r.elapsed_s = kNaN;
  return r;
}

TEST(EpisodeRecordFile, NanTimingsRoundTripAsNull) {
  testing::TempDir dir;
  ASSERT_TRUE(save_episode(dir.path(), record_with_a_wrong_candidate()).ok());
  const std::string text = testing::read(dir / "episode.json");
  EXPECT_NE(text.find("\"ratio\": null"), std::string::npos) << "the file has the nulls";
  auto back = load_episode(dir.path());
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->iterations.size(), 1u);
  ASSERT_TRUE(back->iterations[0].evaluation);
  EXPECT_EQ(back->iterations[0].evaluation->shapes[0].ratio, 0);
  EXPECT_EQ(back->iterations[0].evaluation->geomean_ratio, 1);
  EXPECT_EQ(back->iterations[0].outcome, "wrong");
}

TEST(EpisodeRecordFile, DamagedFieldsCostTheFieldNotTheRecord) {
  // Everything a hand edit or another version could leave.
  auto j = nlohmann::json::parse(R"({
    "id": "20261130T072232Z-k-0002", "kernel": "k", "version": null, "seed": "seven",
    "status": null, "options": [1, 2], "elapsed_s": "long",
    "best": {"iteration": 9, "file": null, "candidate": "x", "speedup": null},
    "baseline": {"compiled": "yes", "geomean_ratio": null, "shapes": {"not": "an array"},
                 "resources": {"registers": null, "spill_store_bytes": "many"}, "device": 3},
    "final": [1, 2, 3],
    "bounds": {"shapes": [null, 4, {"shape": "a", "best_s": null}]},
    "extra_shapes": "none",
    "iterations": [null, 7, "text", {"index": "one", "done": null, "seconds": null,
                    "plan": [], "candidate": null, "gate": {"shapes": [null, {"ratio": null,
                    "ratio_ci": [null, null], "bytes_moved": -3, "samples": 2.5}]}},
                   {"index": 5, "done": true, "outcome": 3, "context_sizes": null}]
  })");
  auto r = EpisodeRecord::from_json(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, "running");
  EXPECT_EQ(r->seed, 0u);
  EXPECT_TRUE(r->options.is_object());
  EXPECT_EQ(r->best_iteration, 0) << "a best past the iterations read is the original";
  ASSERT_TRUE(r->baseline);
  EXPECT_FALSE(r->baseline->compiled);
  EXPECT_TRUE(r->baseline->shapes.empty());
  EXPECT_EQ(r->baseline->resources.registers, -1);
  EXPECT_FALSE(r->final_evaluation);
  ASSERT_TRUE(r->bounds);
  EXPECT_EQ(r->bounds->shapes.size(), 1u);
  ASSERT_EQ(r->iterations.size(), 2u);
  EXPECT_EQ(r->iterations[0].index, 1);
  EXPECT_EQ(r->iterations[1].index, 2) << "indexes follow positions";
  ASSERT_TRUE(r->iterations[0].evaluation);
  ASSERT_EQ(r->iterations[0].evaluation->shapes.size(), 1u);
  EXPECT_EQ(r->iterations[0].evaluation->shapes[0].bytes_moved, 0u);
  EXPECT_EQ(r->iterations[0].evaluation->shapes[0].samples, 2);
  EXPECT_TRUE(r->iterations[0].plan.is_object());
  EXPECT_TRUE(r->iterations[1].context_sizes.is_object());
  // Not a record at all: an Error, not an exception.
  EXPECT_FALSE(EpisodeRecord::from_json(nlohmann::json::array()).ok());
  EXPECT_FALSE(EpisodeRecord::from_json(nlohmann::json::parse(R"({"id": null})")).ok());
}

TEST(EpisodeRecordFile, ATruncatedFileIsAnErrorAndIsLeftAsItIs) {
  testing::TempDir dir;
  ASSERT_TRUE(save_episode(dir.path(), record_with_a_wrong_candidate()).ok());
  std::string text = testing::read(dir / "episode.json");
  const std::string half = text.substr(0, text.size() / 2);
  testing::write(dir / "episode.json", half);
  auto r = load_episode(dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("episode.json"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("not valid JSON"), std::string::npos) << r.error().message;
  EXPECT_EQ(testing::read(dir / "episode.json"), half);
}

TEST(EpisodeExplanation, SaysWhichShapeOrCheckHeldTheResultBack) {
  EpisodeRecord r;
  r.id = "x";
  r.kernel = "k";
  // No candidate kept; the closest one was 1.63x on prefill-2k but slower on decode-b1.
  IterationRecord wrong;
  wrong.index = 1;
  wrong.outcome = "wrong";
  Evaluation we;
  we.compiled = true;
  we.shapes = {shape("misaligned-4097x3", ShapeVerdict::kWrong, 0)};
  wrong.evaluation = we;
  IterationRecord slower;
  slower.index = 2;
  slower.outcome = "slower";
  Evaluation se;
  se.compiled = se.correct = true;
  se.shapes = {shape("prefill-2k", ShapeVerdict::kFaster, 1 / 1.63),
               shape("decode-b1", ShapeVerdict::kSlower, 1.05)};
  se.geomean_ratio = 0.79;
  slower.evaluation = se;
  r.iterations = {wrong, slower};
  EXPECT_EQ(no_proposal_reason(r, nullptr),
            "1.63x on prefill-2k (iteration 2), rejected: slower on decode-b1 x1.05");

  // A gain within noise is no gain: no shape is named for it.
  IterationRecord noise = slower;
  noise.outcome = "no-gain";
  noise.evaluation->shapes = {shape("edge-1x1", ShapeVerdict::kSame, 0.96)};
  noise.evaluation->geomean_ratio = 0.98;
  r.iterations = {noise};
  EXPECT_EQ(no_proposal_reason(r, nullptr),
            "no improvement: the closest, 1.02x (iteration 2), had no shape faster beyond noise "
            "and the gate's threshold (geomean 1.02x)");

  // Only wrong candidates: the count, and the shape that caught the last.
  r.iterations = {wrong};
  EXPECT_EQ(no_proposal_reason(r, nullptr),
            "no improvement: 1 wrong; last rejection: wrong on misaligned-4097x3");

  // A best the final gate rejected.
  r.iterations = {wrong, slower};
  r.iterations[1].accepted = true;
  r.best_iteration = 2;
  r.final_evaluation = se;
  EXPECT_EQ(no_proposal_reason(r, nullptr),
            "1.63x on prefill-2k, rejected by the final gate: slower on decode-b1 x1.05");
  // Kept by the final gate, refused inside the workload.
  r.final_evaluation->improved = true;
  r.final_evaluation->shapes.pop_back();
  EXPECT_EQ(no_proposal_reason(r, {{"passed", false}, {"reason", "decode 3% slower"}}),
            "1.63x on prefill-2k, rejected inside the workload: decode 3% slower");
}

}  // namespace
}  // namespace kgate
