// Whole episodes on real host kernels: real compiles, real runs, the real
// A/B gate. The tuner episode must find a measured improvement on the
// float32 RMSNorm fixture, leave a complete record, store lessons that the
// next episode retrieves, and resume an interrupted record. The command
// provider drives an episode from scripted answers through every failure.
#include <gtest/gtest.h>

#include <fstream>

#include "agent/experience_store.h"
#include "agent/optimize_job.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

std::filesystem::path fixtures() {
  return testing::fixtures_dir() / "agent";
}

std::filesystem::path copy_fixture(const testing::TempDir& dir) {
  std::filesystem::path repo = dir / "repo";
  std::filesystem::copy(fixtures() / "sumsq", repo, std::filesystem::copy_options::recursive);
  return repo;
}

OptimizeOptions quick_options(const std::filesystem::path& repo, const std::string& agent) {
  OptimizeOptions o;
  o.provider.name = agent;
  o.episode.backend = "host";
  o.episode.state_dir = repo / ".kgate";
  o.episode.max_iters = 4;
  o.episode.patience = 3;
  o.episode.seed = 7;
  o.ab.min_samples = 10;
  o.ab.max_samples = 40;
  o.ab.budget_s = 0.5;
  return o;
}

TEST(TunerEpisode, ImprovesRecordsLearnsAndResumes) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  const std::string original_hash = sha256_file(repo / "rmsnorm_f32.cpp");
  auto manifest = load_manifest(repo);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Kernel& kernel = *manifest->kernel("rmsnorm_f32");

  auto first = optimize_kernel(*manifest, kernel, quick_options(repo, "tuner"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  const EpisodeRecord& rec = first->episode.record;

  // A measured improvement, confirmed by the final A/B against the original.
  EXPECT_EQ(rec.status, "finished");
  ASSERT_GT(rec.best_iteration, 0) << "the tuner found nothing; stop reason: " << rec.stop_reason;
  ASSERT_TRUE(rec.final_evaluation);
  EXPECT_TRUE(rec.final_evaluation->improved) << rec.final_evaluation->summary;
  EXPECT_LT(rec.final_evaluation->geomean_ratio, 0.95);
  EXPECT_EQ(sha256_file(repo / "rmsnorm_f32.cpp"), original_hash)
      << "the original must never be written";

  // The record on disk is complete.
  auto disk = load_episode(first->episode.dir);
  ASSERT_TRUE(disk.ok()) << disk.error().message;
  ASSERT_TRUE(disk->baseline);
  ASSERT_FALSE(disk->iterations.empty());
  for (const IterationRecord& it : disk->iterations) {
    EXPECT_TRUE(it.done);
    EXPECT_NE(it.prompt.find("## Current best source"), std::string::npos);
    EXPECT_NE(it.prompt.find("## Profile"), std::string::npos);
    EXPECT_GT(it.context_sizes.value("total", 0), 0);
    EXPECT_FALSE(it.answer.empty());
    EXPECT_FALSE(it.plan.value("bottleneck", "").empty());
    EXPECT_TRUE(std::filesystem::exists(first->episode.dir / it.candidate_file))
        << it.candidate_file;
    ASSERT_TRUE(it.evaluation) << "iteration " << it.index;
    EXPECT_EQ(it.evaluation->shapes.size(), 2u);
    EXPECT_FALSE(it.reflection.empty());
    EXPECT_FALSE(it.outcome.empty());
  }
  if (disk->iterations.size() >= 2) {
    EXPECT_NE(disk->iterations[1].prompt.find("## Last results"), std::string::npos);
  }

  // What bounds the best, per gated shape (the host has no copy ceiling).
  ASSERT_TRUE(disk->bounds);
  ASSERT_EQ(disk->bounds->shapes.size(), 2u);
  for (const ShapeBound& b : disk->bounds->shapes) {
    EXPECT_EQ(b.bound, kBoundUnmeasured) << b.why;
    EXPECT_GT(b.bytes_per_s, 0);
  }
  EXPECT_NE(disk->bounds->ceiling_note.find("host backend"), std::string::npos);

  // The original and each new best were profiled in a child (the host's
  // degraded summary says it has no counters), and the prompt shows the
  // current best's profile.
  ASSERT_FALSE(disk->profiles.empty());
  EXPECT_EQ(disk->profiles.front().iteration, 0);
  EXPECT_EQ(disk->profiles.back().iteration, disk->best_iteration);
  for (const ProfileObservation& p : disk->profiles) {
    EXPECT_TRUE(p.ok()) << p.error;
    EXPECT_NE(p.summary.find("counters"), std::string::npos) << p.summary;
    EXPECT_FALSE(p.shape.empty());
  }
  EXPECT_NE(disk->iterations[0].prompt.find("Profile of the current best (the original) on shape"),
            std::string::npos)
      << disk->iterations[0].prompt;

  // The proposal for the bot.
  ASSERT_FALSE(first->proposal.empty());
  auto proposal = nlohmann::json::parse(testing::read(first->proposal));
  EXPECT_EQ(proposal["kernel"], "rmsnorm_f32");
  EXPECT_EQ(proposal["shapes"].size(), 2u);
  EXPECT_GT(proposal["speedup_geomean"].get<double>(), 1.05);
  EXPECT_TRUE(proposal["candidate"]["tunable_defaults_changed"].contains("ACCUMULATORS"));
  EXPECT_FALSE(proposal["plan"].empty());
  EXPECT_EQ(proposal["profiles"]["before"]["iteration"], 0);
  EXPECT_EQ(proposal["profiles"]["after"]["iteration"], rec.best_iteration);
  EXPECT_EQ(proposal["profiles"]["after"]["shape"], proposal["profiles"]["before"]["shape"]);

  // Lessons are stored ...
  auto store = ExperienceStore::open(repo / ".kgate" / "experience.sqlite");
  ASSERT_TRUE(store.ok());
  auto lessons = (*store)->list("normalization", 100);
  ASSERT_TRUE(lessons.ok());
  EXPECT_EQ(lessons->size(), rec.iterations.size());
  int64_t best_acc = rec.best_candidate["tunables"]["ACCUMULATORS"].get<int64_t>();
  store->reset();

  // ... and the next episode on the family starts from them.
  OptimizeOptions again = quick_options(repo, "tuner");
  again.episode.resume = false;
  again.episode.max_iters = 1;
  auto second = optimize_kernel(*manifest, kernel, again);
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_EQ(second->episode.record.iterations.size(), 1u);
  const IterationRecord& it = second->episode.record.iterations[0];
  EXPECT_NE(it.prompt.find("## Lessons from kernels of the family normalization"),
            std::string::npos);
  EXPECT_NE(it.answer.find("the family's lesson"), std::string::npos) << it.answer;
  // The largest improvement of the family comes first: the tuner tries a setting it names.
  EXPECT_NE(second->episode.record.id, rec.id);
  EXPECT_GT(it.candidate["tunables"]["ACCUMULATORS"].get<int64_t>(), 1);
  (void)best_acc;

  // Resume: mark the first episode interrupted mid-iteration and run again.
  EpisodeRecord crashed = *disk;
  crashed.status = "running";
  IterationRecord half;
  half.index = static_cast<int>(crashed.iterations.size()) + 1;
  half.prompt = "interrupted";
  crashed.iterations.push_back(half);
  crashed.final_evaluation.reset();
  ASSERT_TRUE(save_episode(first->episode.dir, crashed).ok());
  OptimizeOptions resume = quick_options(repo, "tuner");
  resume.episode.max_iters = static_cast<int>(disk->iterations.size()) + 1;
  resume.episode.patience = 0;
  auto resumed = optimize_kernel(*manifest, kernel, resume);
  ASSERT_TRUE(resumed.ok()) << resumed.error().message;
  EXPECT_TRUE(resumed->episode.resumed);
  EXPECT_EQ(resumed->episode.record.id, rec.id);
  ASSERT_EQ(resumed->episode.record.iterations.size(), disk->iterations.size() + 1);
  EXPECT_EQ(resumed->episode.record.iterations[0].started_at, disk->iterations[0].started_at);
  EXPECT_TRUE(resumed->episode.record.iterations.back().done);
  EXPECT_NE(resumed->episode.record.iterations.back().prompt, "interrupted");
  EXPECT_EQ(resumed->episode.record.status, "finished");
}

// A budget that timing the original alone uses up still gates one candidate,
// and then stops the episode.
TEST(TunerEpisode, ABudgetUsedUpByTheOriginalStillGatesOneCandidate) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  auto manifest = load_manifest(repo);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  OptimizeOptions o = quick_options(repo, "tuner");
  o.episode.budget_s = 1e-6;
  auto result = optimize_kernel(*manifest, *manifest->kernel("rmsnorm_f32"), o);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const EpisodeRecord& rec = result->episode.record;
  ASSERT_EQ(rec.iterations.size(), 1u) << rec.stop_reason;
  EXPECT_TRUE(rec.iterations[0].evaluation) << "the one candidate went through the gate";
  EXPECT_EQ(rec.stop_reason.rfind("time budget", 0), 0u) << rec.stop_reason;
}

// The sumsq fixture with its tunable renamed VEC (a width, in the tuner's
// reading of names): a memory-bound kernel whose widest value is far faster.
TEST(TunerEpisode, JumpsToTheWidestAccessFirstAndReportsBandwidth) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  std::string manifest_text = testing::read(repo / "kgate.json");
  const std::string from = "\"ACCUMULATORS\": [1, 2, 4, 8, 16]";
  ASSERT_NE(manifest_text.find(from), std::string::npos);
  manifest_text.replace(manifest_text.find(from), from.size(), "\"VEC\": [1, 2, 4, 8, 16]");
  testing::write(repo / "kgate.json", manifest_text);
  testing::write(repo / "rmsnorm_f32.cpp", "#ifdef VEC\n#define ACCUMULATORS VEC\n#endif\n" +
                                               testing::read(repo / "rmsnorm_f32.cpp"));
  auto manifest = load_manifest(repo);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  OptimizeOptions o = quick_options(repo, "tuner");
  o.episode.max_iters = 2;
  auto result = optimize_kernel(*manifest, *manifest->kernel("rmsnorm_f32"), o);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const EpisodeRecord& rec = result->episode.record;
  ASSERT_FALSE(rec.iterations.empty());
  const IterationRecord& first = rec.iterations[0];
  EXPECT_EQ(first.candidate["tunables"]["VEC"].get<int64_t>(), 16) << first.answer;
  EXPECT_NE(first.answer.find("widest access"), std::string::npos) << first.answer;
  EXPECT_TRUE(first.accepted) << first.outcome << ": " << first.reflection;
  EXPECT_NE(first.reflection.find("GB/s"), std::string::npos) << first.reflection;
  ASSERT_TRUE(rec.final_evaluation);
  EXPECT_LT(rec.final_evaluation->geomean_ratio, 0.95);
}

TEST(CommandEpisode, ScriptedAnswersThroughEveryFailure) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  auto manifest = load_manifest(repo);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Kernel& kernel = *manifest->kernel("rmsnorm_f32");
  OptimizeOptions o = quick_options(repo, "command");
  std::filesystem::path state = dir / "agent-state";
  o.provider.command = "sh '" + (fixtures() / "scripted" / "scripted_agent.sh").string() + "' '" +
                       (fixtures() / "scripted" / "answers").string() + "' '" + state.string() +
                       "'";
  o.provider.command_timeout_s = 30;
  o.episode.max_iters = 6;
  o.episode.patience = 10;
  auto result = optimize_kernel(*manifest, kernel, o);
  ASSERT_TRUE(result.ok()) << result.error().message;
  const auto& its = result->episode.record.iterations;
  ASSERT_EQ(its.size(), 6u);
  // 1-3: compile failures, each digest fed back to the next prompt.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(its[i].outcome, "compile-error") << i;
    EXPECT_NE(its[i].compile_digest.find("error"), std::string::npos) << its[i].compile_digest;
    EXPECT_NE(its[i + 1].prompt.find("## The previous iteration failed"), std::string::npos);
    EXPECT_NE(its[i + 1].prompt.find(its[i].compile_digest.substr(0, 40)), std::string::npos);
  }
  EXPECT_TRUE(its[1].replan_prompt.empty());
  EXPECT_TRUE(its[2].replan_prompt.empty());
  // 4: a re-plan was forced before the code, and the candidate was wrong.
  EXPECT_NE(its[3].replan_prompt.find("Re-plan required"), std::string::npos);
  EXPECT_NE(its[3].replan_answer.find("start again from the current best"), std::string::npos);
  EXPECT_NE(its[3].prompt.find("## Your re-plan"), std::string::npos);
  EXPECT_EQ(its[3].outcome, "wrong");
  ASSERT_TRUE(its[3].evaluation);
  EXPECT_FALSE(its[3].evaluation->correct);
  EXPECT_FALSE(its[3].accepted);
  // 5: no code: the iteration fails and the agent is told.
  EXPECT_EQ(its[4].outcome, "no-code");
  EXPECT_NE(its[5].prompt.find("no usable kernel"), std::string::npos);
  // 6: a real improvement is kept.
  EXPECT_EQ(its[5].outcome, "improved")
      << (its[5].evaluation ? its[5].evaluation->summary : its[5].failure);
  EXPECT_TRUE(its[5].accepted);
  EXPECT_EQ(result->episode.record.best_iteration, 6);
  EXPECT_NE(result->episode.best_source.find("partial[8]"), std::string::npos);
  for (const IterationRecord& it : its)
    EXPECT_NE(it.reflection.find("The gate measured it"), std::string::npos);
  // The command got the request as JSON with the structured context.
  auto req = nlohmann::json::parse(testing::read(state / "request-1.json"));
  EXPECT_EQ(req["task"], "propose");
  EXPECT_EQ(req["context"]["kernel"], "rmsnorm_f32");
  EXPECT_FALSE(req["context"]["best"]["source"].get<std::string>().empty());
}

TEST(CommandEpisode, AHangingAgentIsAnErrorAndTheEpisodeResumable) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  auto manifest = load_manifest(repo);
  ASSERT_TRUE(manifest.ok());
  OptimizeOptions o = quick_options(repo, "command");
  o.provider.command = "sleep 30";
  o.provider.command_timeout_s = 1;
  o.ab.shapes = {"odd-5x4097"};
  auto result = optimize_kernel(*manifest, *manifest->kernel("rmsnorm_f32"), o);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("timed out"), std::string::npos) << result.error().message;
  auto unfinished =
      find_unfinished_episode(repo / ".kgate" / "episodes", "rmsnorm_f32", "host", "command");
  EXPECT_TRUE(unfinished.has_value());
}

TEST(OptimizeCommand, RefusesNumericsFlagsAndListsLessons) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  // A command agent that asks for fast math: refused by the policy, fed back.
  std::filesystem::path script = dir / "fastmath.sh";
  testing::write(script,
                 "#!/bin/sh\nreq=$(cat)\ncase \"$req\" in *'\"task\":\"reflect\"'*) echo refused; "
                 "exit 0;; esac\n"
                 "printf 'CHANGE: fast math\\n```cpp\\n'\ncat '" +
                     (repo / "rmsnorm_f32.cpp").string() +
                     "'\nprintf '```\\n```json\\n{\"flags\": [\"-ffast-math\"]}\\n```\\n'\n");
  auto out = testing::run_kgate({"optimize", "rmsnorm_f32", "--repo", repo.string(), "--agent",
                                 "command", "--agent-command", "sh " + script.string(),
                                 "--max-iters", "1", "--shapes", "odd-5x4097"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("refused"), std::string::npos) << out.out;
  auto list = testing::run_kgate({"experience", "list", "--repo", repo.string(), "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto lessons = nlohmann::json::parse(list.out);
  ASSERT_EQ(lessons.size(), 1u);
  EXPECT_EQ(lessons[0]["outcome"], "refused");
  EXPECT_NE(lessons[0]["change"].get<std::string>().find("-ffast-math"), std::string::npos);
  // Usage errors are exit code 2.
  EXPECT_EQ(testing::run_kgate({"optimize", "nope", "--repo", repo.string()}).exit_code, 2);
}

TEST(SweepCommand, RecordsBaselinesRunsEpisodesAndWritesProposals) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  auto out = testing::run_kgate({"sweep", "--repo", repo.string(), "--backend", "host",
                                 "--max-iters", "2", "--patience", "2", "--shapes", "rows-64",
                                 "--shape-budget-s", "0.5", "--total-budget-s", "120"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  // No task list: the one kernel gets the whole sweep budget.
  EXPECT_NE(out.err.find("sweep: rmsnorm_f32 (budget 120 s of the 120 s left of 120 s)"),
            std::string::npos)
      << out.err;
  EXPECT_NE(out.out.find("rmsnorm_f32"), std::string::npos) << out.out;
  EXPECT_TRUE(std::filesystem::is_directory(repo / "baselines")) << out.err;
  EXPECT_TRUE(std::filesystem::is_directory(repo / ".kgate" / "episodes"));
  // ACCUMULATORS 1 -> 2 or 4 is faster on any CPU; when the gate agrees, a proposal is written.
  if (std::filesystem::exists(repo / ".kgate" / "proposals" / "rmsnorm_f32.json")) {
    EXPECT_NE(out.out.find("proposals"), std::string::npos);
  }
}

}  // namespace
}  // namespace kgate
