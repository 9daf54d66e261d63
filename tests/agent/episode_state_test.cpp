// A state directory survives anything a candidate or a crash leaves in it.
// Episodes run one after another in the same directory after a candidate
// that was wrong (its NaN timings stored as null), one that crashed and one
// that hung, an interrupted episode with those records is resumed, and the
// tuner and the sweep run after them. Damaged state files (a truncated
// record, a record of nulls whose best file is gone, a corrupt experience
// store, a truncated task list) are warnings naming the file, which is left
// as it is; nothing else is lost.
#include <gtest/gtest.h>

#include "agent/episode_record.h"
#include "support/test_support.h"

namespace kgate {
namespace {

std::filesystem::path fixtures() {
  return kgate::testing::fixtures_dir() / "agent";
}

// The sumsq fixture with a short hang limit.
std::filesystem::path copy_fixture(const testing::TempDir& dir) {
  std::filesystem::path repo = dir / "repo";
  std::filesystem::copy(fixtures() / "sumsq", repo, std::filesystem::copy_options::recursive);
  std::string text = testing::read(repo / "kgate.json");
  const std::string from = R"("tolerance": {"atol": 1e-4, "rtol": 1e-4})";
  EXPECT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               std::string(from) + R"(, "timing": {"time_limit_s": 3})");
  testing::write(repo / "kgate.json", text);
  return repo;
}

// The fixture's kernel with `body` inserted at the start of the function.
std::string variant(const std::filesystem::path& repo, const std::string& body) {
  std::string text = testing::read(repo / "rmsnorm_f32.cpp");
  const std::string open = "float eps) {\n";
  text.insert(text.find(open) + open.size(), body + "\n");
  return text;
}

// A command agent answering propose requests with the files named on its
// command line, in order ("HANG": sleep past the agent timeout).
std::string scripted_agent(const testing::TempDir& dir, const std::string& name,
                           const std::vector<std::string>& answers) {
  const std::filesystem::path state = dir / (name + "-state");
  std::string script =
      "#!/bin/sh\nreq=$(cat)\ncase \"$req\" in *'\"task\":\"reflect\"'*) "
      "echo 'It came out as measured.'; exit 0;; esac\n"
      "mkdir -p '" +
      state.string() +
      "'\n"
      "n=$(cat '" +
      state.string() +
      "/n' 2>/dev/null || echo 0); n=$((n + 1)); "
      "echo $n > '" +
      state.string() + "/n'\n";
  for (size_t i = 0; i < answers.size(); ++i) {
    script += "if [ $n = " + std::to_string(i + 1) + " ]; then ";
    if (answers[i] == "HANG") {
      script += "sleep 60; fi\n";
    } else {
      const std::filesystem::path file = dir / (name + "-" + std::to_string(i + 1) + ".cpp");
      testing::write(file, answers[i]);
      script += "printf 'CHANGE: scripted\\n```cpp\\n'; cat '" + file.string() +
                "'; printf '```\\n'; fi\n";
    }
  }
  testing::write(dir / (name + ".sh"), script);
  return "sh '" + (dir / (name + ".sh")).string() + "'";
}

std::vector<std::string> optimize_args(const std::filesystem::path& repo,
                                       const std::vector<std::string>& more) {
  std::vector<std::string> args = {"optimize",         "rmsnorm_f32", "--repo",     repo.string(),
                                   "--shape-budget-s", "0.3",         "--patience", "10"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(EpisodeState, EpisodesRunAfterWrongCrashingAndHangingCandidates) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  // Wrong only on the declared odd shape.
  const std::string wrong = variant(repo, "  if (cols == 4097) { out[0] = 1e30f; return; }");
  const std::string crash = variant(repo, "  *static_cast<volatile int*>(nullptr) = rows;");
  const std::string hang = variant(repo, "  if (cols == 4097) for (volatile int i = 0;; ++i) {}");

  // 1. A wrong candidate, then the agent hangs: the episode stops, resumable.
  auto first = testing::run_kgate(optimize_args(
      repo, {"--agent", "command", "--agent-command", scripted_agent(dir, "a", {wrong, "HANG"}),
             "--agent-timeout", "2", "--max-iters", "3"}));
  EXPECT_EQ(first.exit_code, 3) << first.err;
  auto running =
      find_unfinished_episode(repo / ".kgate" / "episodes", "rmsnorm_f32", "host", "command");
  ASSERT_TRUE(running.has_value()) << first.err;
  // The evaluators store an untimed side as 0 now; reading nulls back is
  // episode_record_test's. What matters here: the wrong one is on record.
  EXPECT_NE(testing::read(*running / "episode.json").find("\"verdict\": \"wrong\""),
            std::string::npos)
      << "the wrong candidate is on record";

  // 2. The same episode resumes over that record: a crash and a hang follow.
  auto second = testing::run_kgate(
      optimize_args(repo, {"--agent", "command", "--agent-command",
                           scripted_agent(dir, "b", {crash, hang}), "--max-iters", "3"}));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("resuming episode"), std::string::npos) << second.err;
  auto rec = load_episode(*running);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  EXPECT_EQ(rec->status, "finished");
  ASSERT_EQ(rec->iterations.size(), 3u);
  for (const IterationRecord& it : rec->iterations) {
    EXPECT_EQ(it.outcome, "wrong") << it.index << ": " << it.failure;
    EXPECT_EQ(it.candidate_file.rfind("candidate-", 0), 0u) << it.candidate_file;
    EXPECT_NE(it.candidate_file.find("-it" + std::to_string(it.index) + ".cpp"), std::string::npos)
        << it.candidate_file;
  }
  EXPECT_NE(rec->iterations[0].failure.find("odd-5x4097"), std::string::npos);
  EXPECT_NE(rec->iterations[2].failure.find("odd-5x4097"), std::string::npos)
      << "the hang is caught by the gate on the declared shape: " << rec->iterations[2].failure;
  EXPECT_NE(second.out.find("not proposed: no improvement: 3 wrong"), std::string::npos)
      << second.out;

  // 3. The tuner and the sweep in the same state directory.
  auto tuner = testing::run_kgate(optimize_args(repo, {"--max-iters", "1"}));
  EXPECT_EQ(tuner.exit_code, 0) << tuner.err;
  auto sweep =
      testing::run_kgate({"sweep", "--repo", repo.string(), "--no-baselines", "--max-iters", "1",
                          "--shapes", "odd-5x4097", "--shape-budget-s", "0.3"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("rmsnorm_f32"), std::string::npos) << sweep.out;
}

TEST(EpisodeState, DamagedStateFilesAreWarningsThatLoseNothing) {
  testing::TempDir dir;
  auto repo = copy_fixture(dir);
  const std::filesystem::path state = repo / ".kgate";
  // A record cut in half while it was written.
  EpisodeRecord r;
  r.id = "20200101T000000Z-rmsnorm_f32-aaaa";
  r.kernel = "rmsnorm_f32";
  r.backend = "host";
  r.agent = "tuner";
  ASSERT_TRUE(save_episode(state / "episodes" / r.id, r).ok());
  const std::string whole = testing::read(state / "episodes" / r.id / "episode.json");
  const std::string truncated = whole.substr(0, whole.size() / 2);
  testing::write(state / "episodes" / r.id / "episode.json", truncated);
  // A resumable record of nulls whose best candidate file is gone.
  const std::string nulls_id = "20200102T000000Z-rmsnorm_f32-bbbb";
  testing::write(state / "episodes" / nulls_id / "episode.json",
                 R"({"id": ")" + nulls_id + R"(", "kernel": "rmsnorm_f32", "backend": "host",
  "agent": "tuner", "status": "running", "elapsed_s": null, "seed": null,
  "best": {"iteration": 1, "file": "candidate-20200102T000000Z-it1.cpp", "speedup": null},
  "baseline": {"compiled": true, "correct": true, "geomean_ratio": null,
               "shapes": [{"shape": "odd-5x4097", "best_s": null, "ratio_ci": [null, 1]}]},
  "iterations": [{"index": 1, "done": true, "accepted": true, "outcome": "improved",
                  "gate": {"compiled": true, "correct": true, "geomean_ratio": null,
                           "shapes": [{"shape": "odd-5x4097", "candidate_s": null}]}}]})");
  // A corrupt experience store and a truncated task list.
  testing::write(state / "experience.sqlite", std::string(4096, '\x42'));
  testing::write(state / "workload" / "tasks.json", R"({"version": 1, "phases": [{"pha)");

  auto out =
      testing::run_kgate(optimize_args(repo, {"--max-iters", "1", "--shapes", "odd-5x4097"}));
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.err.find(r.id + "/episode.json is not valid JSON"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("cannot resume episode " + nulls_id), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("experience.sqlite"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("runs without lessons"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("tasks.json"), std::string::npos) << out.err;
  // Nothing was lost: the damaged files are as they were.
  EXPECT_EQ(testing::read(state / "episodes" / r.id / "episode.json"), truncated);
  EXPECT_EQ(testing::read(state / "experience.sqlite"), std::string(4096, '\x42'));
  EXPECT_EQ(testing::read(state / "workload" / "tasks.json"), R"({"version": 1, "phases": [{"pha)");
  // The record that could not be resumed is kept, marked so it is not tried again.
  auto abandoned = load_episode(state / "episodes" / nulls_id);
  ASSERT_TRUE(abandoned.ok()) << abandoned.error().message;
  EXPECT_EQ(abandoned->status, "failed");
  // And the sweep over the same directory.
  auto sweep =
      testing::run_kgate({"sweep", "--repo", repo.string(), "--no-baselines", "--max-iters", "1",
                          "--shapes", "odd-5x4097", "--shape-budget-s", "0.3"});
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
}

}  // namespace
}  // namespace kgate
