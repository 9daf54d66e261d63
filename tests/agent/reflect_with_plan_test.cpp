// One model turn per iteration (EpisodeOptions::reflect_with_next_plan): the
// agent reflects on an iteration at the start of its next plan, so a
// hand-off episode takes one round per iteration. The reflection lands in
// the iteration it is about, and its lesson in the experience store.
#include <gtest/gtest.h>

#include "agent/experience_store.h"
#include "agent/optimize_job.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(ReflectWithPlan, TheReflectionComesWithTheNextPlanAndFindsItsIteration) {
  testing::TempDir dir;
  std::filesystem::path repo = dir / "repo";
  std::filesystem::copy(testing::fixtures_dir() / "agent" / "sumsq", repo,
                        std::filesystem::copy_options::recursive);
  // Every answer is the fixture's last scripted one (a real improvement),
  // with a reflection first when the request asks for one.
  const std::filesystem::path answer =
      testing::fixtures_dir() / "agent" / "scripted" / "answers" / "06.txt";
  const std::filesystem::path script = dir / "model.sh";
  testing::write(script,
                 "req=$(cat)\n"
                 "n=$(cat '" +
                     (dir / "n").string() + "' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '" +
                     (dir / "n").string() +
                     "'\n"
                     "printf '%s' \"$req\" > '" +
                     (dir / "request-").string() +
                     "'$n.json\n"
                     "case \"$req\" in *'## Reflect first'*) echo \"REFLECTION: turn $n saw it.\"; "
                     "echo;; esac\n"
                     "cat '" +
                     answer.string() + "'\n");
  auto manifest = load_manifest(repo);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  OptimizeOptions o;
  o.provider.name = "command";
  o.provider.command = "sh '" + script.string() + "'";
  o.episode.backend = "host";
  o.episode.state_dir = repo / ".kgate";
  o.episode.max_iters = 3;
  o.episode.patience = 5;
  o.episode.seed = 7;
  o.episode.reflect_with_next_plan = true;
  o.ab.min_samples = 10;
  o.ab.max_samples = 20;
  o.ab.budget_s = 0.3;
  auto result = optimize_kernel(*manifest, *manifest->kernel("rmsnorm_f32"), o);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const auto& its = result->episode.record.iterations;
  ASSERT_EQ(its.size(), 3u);
  // Three turns, all proposes: no reflect turn was asked.
  EXPECT_EQ(testing::read(dir / "n"), "3\n");
  for (int n = 1; n <= 3; ++n)
    EXPECT_NE(testing::read(dir / ("request-" + std::to_string(n) + ".json"))
                  .find("\"task\":\"propose\""),
              std::string::npos);
  EXPECT_EQ(its[0].prompt.find("## Reflect first"), std::string::npos);
  EXPECT_NE(its[1].prompt.find("why iteration 1 came out as it did"), std::string::npos);
  // Iteration 1's reflection came with turn 2's plan, iteration 2's with turn 3's.
  EXPECT_EQ(its[0].reflection, "turn 2 saw it.");
  EXPECT_EQ(its[1].reflection, "turn 3 saw it.");
  EXPECT_EQ(its[2].reflection, "(the episode ended before its next plan)");
  for (const IterationRecord& it : its) {
    EXPECT_EQ(it.turns, 1) << it.index;
    EXPECT_FALSE(it.pending_lesson.is_object()) << it.index;
  }
  // The plan was parsed from behind the reflection line.
  EXPECT_FALSE(its[1].plan.value("bottleneck", "").empty());
  auto store = ExperienceStore::open(repo / ".kgate" / "experience.sqlite");
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto lessons = (*store)->list("", 10);
  ASSERT_TRUE(lessons.ok());
  ASSERT_EQ(lessons->size(), 3u);
  std::vector<std::string> reflections;
  for (const Lesson& l : *lessons) reflections.push_back(l.reflection);
  EXPECT_NE(std::find(reflections.begin(), reflections.end(), "turn 2 saw it."), reflections.end());
}

}  // namespace
}  // namespace kgate
