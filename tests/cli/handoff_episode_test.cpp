// Hand-off episodes (docs/agent.md, "Hand-off episodes") on the host
// backend, through the kgate binary: an episode stops at every model turn
// with exit code 4 and its request in a file; it is moved, mid-iteration
// (waiting for a reflection on a candidate gated on the first machine), to a
// fresh copy of the repository and state under other absolute paths, the
// first machine's folder is deleted, and it finishes there with the same
// result as an uninterrupted episode given the same answers by the command
// provider. Its recorded turns then replay the episode without a model, and
// its pull request on the local forge carries the plan, the per-shape
// evidence and both profiles.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "agent/episode_record.h"
#include "bot/bot_test_repo.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::git;
using testing::run_kgate;

// The fixture, committed on main of a fresh repository at `dir`/repo.
std::filesystem::path repo_at(const std::filesystem::path& dir) {
  const std::filesystem::path repo = dir / "repo";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(testing::fixtures_dir() / "agent" / "sumsq", repo,
                        std::filesystem::copy_options::recursive);
  git(repo, {"init", "-q"});
  git(repo, {"add", "-A"});
  git(repo, {"commit", "-q", "-m", "kernels"});
  return repo;
}

std::vector<std::string> episode_args(const std::filesystem::path& dir,
                                      const std::vector<std::string>& agent) {
  std::vector<std::string> args = {"optimize",         "rmsnorm_f32",
                                   "--repo",           (dir / "repo").string(),
                                   "--state-dir",      (dir / "state").string(),
                                   "--backend",        "host",
                                   "--max-iters",      "3",
                                   "--patience",       "10",
                                   "--shape-budget-s", "0.3",
                                   "--seed",           "7"};
  args.insert(args.end(), agent.begin(), agent.end());
  return args;
}

// The answers a model gives, by task and iteration: a wrong kernel, eight
// partial sums (faster on any CPU), one that does not compile; every
// reflection names its iteration.
struct Answers {
  std::vector<std::string> propose;
  std::string reflect(int iteration) const {
    return "Reflection " + std::to_string(iteration) + ": it came out as measured.";
  }
  std::string to(const nlohmann::json& request) const {
    const int iteration = request["context"]["iteration"].get<int>();
    return request["task"] == "reflect" ? reflect(iteration) : propose.at(iteration - 1);
  }
};

Answers model_answers() {
  const std::string original =
      testing::read(testing::fixtures_dir() / "agent" / "sumsq" / "rmsnorm_f32.cpp");
  std::string wrong = original;
  const std::string open = "float eps) {\n";
  wrong.insert(wrong.find(open) + open.size(), "  out[0] = 1e30f;\n  return;\n");
  return {{"BOTTLENECK: the loop is fine.\nCHANGE: return early.\n```cpp\n" + wrong + "```\n",
           testing::read(testing::fixtures_dir() / "agent" / "scripted" / "answers" / "06.txt"),
           "BOTTLENECK: unknown.\nCHANGE: a rewrite.\n```cpp\nvoid rmsnorm_f32(float* out) { "
           "this does not compile }\n```\n"}};
}

// What a stopped run printed: where its request is and where the answer goes.
struct Stop {
  CommandOutcome run;
  std::filesystem::path request, answer;
};

Stop run_until_stop(const std::filesystem::path& dir) {
  Stop s{run_kgate(episode_args(dir, {"--agent", "handoff"}), "", 600), {}, {}};
  std::istringstream lines(s.run.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("request: ", 0) == 0) s.request = line.substr(9);
    if (line.rfind("answer:  ", 0) == 0) s.answer = line.substr(9);
  }
  return s;
}

// Answers each request the episode in `dir` stops at until it has stopped
// `stops` times (or has ended); returns the last run.
Stop answer_turns(const std::filesystem::path& dir, const Answers& answers, int stops,
                  std::vector<std::string>* waited) {
  Stop s = run_until_stop(dir);
  for (int i = 0; i < stops && s.run.exit_code == 4; ++i) {
    waited->push_back(s.request.filename().string());
    testing::write(s.answer, answers.to(nlohmann::json::parse(testing::read(s.request))));
    s = run_until_stop(dir);
  }
  return s;
}

EpisodeRecord only_episode(const std::filesystem::path& state) {
  std::vector<std::filesystem::path> dirs;
  for (const auto& e : std::filesystem::directory_iterator(state / "episodes"))
    if (e.is_directory()) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u);
  auto r = load_episode(dirs.at(0));
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : EpisodeRecord{};
}

// Files under `dir` whose text contains `needle`.
std::vector<std::string> files_naming(const std::filesystem::path& dir, const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && testing::read(e.path()).find(needle) != std::string::npos)
      found.push_back(e.path().string());
  return found;
}

void expect_same_episode(const EpisodeRecord& a, const EpisodeRecord& b) {
  EXPECT_EQ(a.status, "finished");
  EXPECT_EQ(b.status, "finished");
  EXPECT_EQ(a.stop_reason, b.stop_reason);
  ASSERT_EQ(a.iterations.size(), b.iterations.size());
  for (size_t i = 0; i < a.iterations.size(); ++i) {
    const IterationRecord &x = a.iterations[i], &y = b.iterations[i];
    EXPECT_EQ(x.outcome, y.outcome)
        << "iteration " << x.index << ": " << x.failure << " / " << y.failure;
    EXPECT_EQ(x.accepted, y.accepted) << x.index;
    EXPECT_EQ(x.answer, y.answer) << x.index;
    EXPECT_EQ(x.reflection, y.reflection) << x.index;
    EXPECT_EQ(x.candidate, y.candidate) << x.index;
    EXPECT_EQ(x.turns, 2) << x.index;
  }
  EXPECT_EQ(a.best_iteration, b.best_iteration);
  EXPECT_EQ(a.best_candidate, b.best_candidate);
  ASSERT_TRUE(a.final_evaluation && b.final_evaluation);
  EXPECT_TRUE(a.final_evaluation->improved) << a.final_evaluation->summary;
  EXPECT_TRUE(b.final_evaluation->improved) << b.final_evaluation->summary;
}

TEST(HandoffEpisode, MovedToAnotherMachineMidIterationItEndsAsAnUninterruptedOne) {
  testing::TempDir tmp;
  const Answers answers = model_answers();
  const std::filesystem::path a = tmp / "machine-a", b = tmp / "machine-b";
  repo_at(a);

  // Turn 1: the run stops at the first propose with exit code 4.
  Stop first = run_until_stop(a);
  ASSERT_EQ(first.run.exit_code, 4) << first.run.out << first.run.err;
  EXPECT_NE(first.run.out.find("waiting for the answer to request 1 (propose, iteration 1)"),
            std::string::npos)
      << first.run.out;
  ASSERT_TRUE(std::filesystem::exists(first.request)) << first.run.out;
  EXPECT_EQ(first.answer.parent_path(), first.request.parent_path());
  // The request is the command provider's JSON, complete for a model that sees only it.
  const auto request = nlohmann::json::parse(testing::read(first.request));
  EXPECT_EQ(request.size(), 4u) << request.dump().substr(0, 300);
  EXPECT_EQ(request["task"], "propose");
  EXPECT_NE(request["system"].get<std::string>().find("Answer with:"), std::string::npos);
  EXPECT_NE(request["prompt"].get<std::string>().find("## Current best source"), std::string::npos);
  EXPECT_EQ(request["context"]["kernel"], "rmsnorm_f32");
  EXPECT_EQ(only_episode(a / "state").status, "waiting");

  // Run again with no answer in place: it says what it still waits for, and changes nothing.
  Stop again = run_until_stop(a);
  EXPECT_EQ(again.run.exit_code, 4) << again.run.err;
  EXPECT_EQ(again.request, first.request);
  EXPECT_NE(again.run.err.find("continuing episode"), std::string::npos) << again.run.err;
  // An answer to another request (copied from another episode): refused, exit code 2.
  const std::filesystem::path stray = first.request.parent_path() / "answer-1-0123456789ab.txt";
  testing::write(stray, answers.propose[2]);
  Stop refused = run_until_stop(a);
  EXPECT_EQ(refused.run.exit_code, 2) << refused.run.out << refused.run.err;
  EXPECT_NE(refused.run.err.find("answer-1-0123456789ab.txt answers no request of this episode"),
            std::string::npos)
      << refused.run.err;
  EXPECT_EQ(only_episode(a / "state").status, "waiting") << "a refused answer loses nothing";
  std::filesystem::remove(stray);

  // Turns 1-3 answered on machine A: it stops waiting for the reflection on
  // iteration 2, whose candidate A compiled and timed.
  std::vector<std::string> waited;
  Stop on_a = answer_turns(a, answers, 3, &waited);
  ASSERT_EQ(on_a.run.exit_code, 4) << on_a.run.out << on_a.run.err;
  EXPECT_NE(on_a.run.out.find("waiting for the answer to request 4 (reflect, iteration 2)"),
            std::string::npos)
      << on_a.run.out;
  const IterationRecord gated_on_a = only_episode(a / "state").iterations.back();
  EXPECT_EQ(gated_on_a.outcome, "improved");
  ASSERT_TRUE(gated_on_a.evaluation);

  // Moved: the state folder as an archive, the repository as a fresh copy,
  // under another path; nothing of machine A is left to reach.
  std::filesystem::create_directories(b);
  CommandOptions shell;
  shell.timeout_s = 60;
  auto tar =
      run_command({"tar", "-C", a.string(), "-czf", (tmp / "state.tgz").string(), "state"}, shell);
  ASSERT_TRUE(tar.ok() && tar->succeeded()) << (tar.ok() ? tar->err : tar.error().message);
  repo_at(b);
  auto untar = run_command({"tar", "-C", b.string(), "-xzf", (tmp / "state.tgz").string()}, shell);
  ASSERT_TRUE(untar.ok() && untar->succeeded());
  std::filesystem::remove_all(a);

  Stop done = answer_turns(b, answers, 3, &waited);
  ASSERT_EQ(done.run.exit_code, 0) << done.run.out << done.run.err;
  EXPECT_EQ(waited.size(), 6u);
  EXPECT_NE(done.run.out.find("best: iteration 2"), std::string::npos) << done.run.out;
  EXPECT_NE(done.run.out.find("proposal: "), std::string::npos) << done.run.out;
  const EpisodeRecord handed_off = only_episode(b / "state");
  EXPECT_FALSE(handed_off.waiting);
  EXPECT_EQ(handed_off.iterations.at(0).outcome, "wrong");
  EXPECT_EQ(handed_off.iterations.at(1).outcome, "improved");
  EXPECT_EQ(handed_off.iterations.at(2).outcome, "compile-error");
  // B did not time iteration 2 again: its gate is A's, and the reflection answered on B is on it.
  ASSERT_TRUE(handed_off.iterations.at(1).evaluation);
  EXPECT_EQ(handed_off.iterations.at(1).evaluation->to_json(), gated_on_a.evaluation->to_json());
  EXPECT_EQ(handed_off.iterations.at(1).reflection, answers.reflect(2))
      << "the reflection answered on B belongs to the candidate gated on A";
  EXPECT_TRUE(files_naming(b / "state", a.string()).empty())
      << "a path of machine A: " << files_naming(b / "state", a.string()).at(0);

  // The same answers, uninterrupted, through the command provider.
  const std::filesystem::path c = tmp / "uninterrupted";
  repo_at(c);
  for (size_t i = 0; i < answers.propose.size(); ++i)
    testing::write(c / ("propose-" + std::to_string(i + 1) + ".txt"), answers.propose[i]);
  testing::write(
      c / "agent.sh",
      "req=$(cat); d='" + c.string() +
          "'\n"
          "case \"$req\" in *'\"task\":\"reflect\"'*) n=$(cat \"$d/r\" 2>/dev/null || echo "
          "0); n=$((n + 1)); echo $n > \"$d/r\"; printf 'Reflection %s: it came out as "
          "measured.' $n; exit 0;; esac\n"
          "n=$(cat \"$d/p\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$d/p\"; cat "
          "\"$d/propose-$n.txt\"\n");
  auto straight = run_kgate(
      episode_args(c, {"--agent", "command", "--agent-command", "sh " + (c / "agent.sh").string()}),
      "", 600);
  ASSERT_EQ(straight.exit_code, 0) << straight.out << straight.err;
  expect_same_episode(handed_off, only_episode(c / "state"));

  // The recorded turns replay the episode without a model.
  const std::filesystem::path d = tmp / "replay";
  repo_at(d);
  const std::filesystem::path turns = b / "state" / "episodes" / handed_off.id / "turns";
  auto replayed =
      run_kgate(episode_args(d, {"--agent", "replay", "--answers", turns.string()}), "", 600);
  ASSERT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  expect_same_episode(handed_off, only_episode(d / "state"));

  // The pull request of the accepted candidate (local forge, on machine B's repository).
  auto prs = run_kgate({"prs", "--repo", (b / "repo").string(), "--state-dir",
                        (b / "state").string(), "--show", "1"});
  ASSERT_EQ(prs.exit_code, 0) << prs.out << prs.err;
  for (const char* part :
       {"## Per shape", "| rows-64 | decode |", "## Profile", "<summary>before</summary>",
        "<summary>after</summary>", "## How the agent got there", "Eight independent partial sums",
        "Reflection 2: it came out as measured.", "| agent | handoff, 3 iterations"})
    EXPECT_NE(prs.out.find(part), std::string::npos) << part << "\n" << prs.out;
  const std::string diff = git(b / "repo", {"diff", "main", "kgate/optimize/rmsnorm_f32"});
  EXPECT_NE(diff.find("+    float partial[8] = {};"), std::string::npos) << diff;
}

}  // namespace
}  // namespace kgate
