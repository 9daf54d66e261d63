// bench/handoff/answer_loop.sh, the lead's tool for hand-off episodes, on a
// host kernel: it lists nothing where no episode waits, the request a
// waiting episode waits for (and where its answer goes), and --loop answers
// every turn with a model command until `kgate optimize --agent handoff`
// ends.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace kgate {
namespace {

CommandOutcome answer_loop(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      "sh", (testing::source_dir() / "bench/handoff/answer_loop.sh").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandOptions options;
  options.timeout_s = 600;
  auto outcome = run_command(argv, options);
  EXPECT_TRUE(outcome.ok());
  return outcome.ok() ? *outcome : CommandOutcome{};
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

TEST(HandoffLoop, NothingWaitsAndBadUsageIsExitCode2) {
  testing::TempDir tmp;
  auto none = answer_loop({tmp.path().string()});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(answer_loop({}).exit_code, 2);
  EXPECT_EQ(answer_loop({"--loop", tmp.path().string(), "cat"}).exit_code, 2);
}

TEST(HandoffLoop, ListsTheWaitingRequestAndLoopsAModelCommandToTheEnd) {
  testing::TempDir tmp;
  const std::filesystem::path repo = tmp / "repo", state = tmp / "state";
  std::filesystem::copy(testing::fixtures_dir() / "agent" / "sumsq", repo,
                        std::filesystem::copy_options::recursive);
  // A model that sees only the request: eight partial sums, then STOP; a
  // sentence for each reflection.
  const std::filesystem::path faster =
      testing::fixtures_dir() / "agent" / "scripted" / "answers" / "06.txt";
  testing::write(tmp / "model.sh",
                 "req=$(cat)\ncase \"$req\" in *'\"task\":\"reflect\"'*) echo 'Reflected.'; exit "
                 "0;; esac\nif [ -f '" +
                     (tmp / "proposed").string() +
                     "' ]; then echo 'STOP: nothing left to try.'; "
                     "else touch '" +
                     (tmp / "proposed").string() + "'; cat '" + faster.string() + "'; fi\n");
  const std::vector<std::string> optimize = {testing::kgate_binary(),
                                             "optimize",
                                             "rmsnorm_f32",
                                             "--repo",
                                             repo.string(),
                                             "--state-dir",
                                             state.string(),
                                             "--agent",
                                             "handoff",
                                             "--backend",
                                             "host",
                                             "--max-iters",
                                             "3",
                                             "--shapes",
                                             "rows-64",
                                             "--shape-budget-s",
                                             "0.3"};
  auto first =
      testing::run_kgate(std::vector<std::string>(optimize.begin() + 1, optimize.end()), "", 600);
  ASSERT_EQ(first.exit_code, 4) << first.out << first.err;

  auto listed = answer_loop({state.string()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const std::string request = first_line(listed.out);
  EXPECT_NE(first.out.find("request: " + request + "\n"), std::string::npos) << first.out;
  EXPECT_EQ(nlohmann::json::parse(testing::read(request))["task"], "propose");
  auto paired = answer_loop({"--with-answer", state.string()});
  const std::string line = first_line(paired.out);
  ASSERT_NE(line.find('\t'), std::string::npos) << paired.out;
  EXPECT_EQ(line.substr(0, line.find('\t')), request);
  EXPECT_NE(first.out.find("answer:  " + line.substr(line.find('\t') + 1) + "\n"),
            std::string::npos)
      << first.out;

  std::vector<std::string> loop = {"--loop", state.string(), "sh " + (tmp / "model.sh").string(),
                                   "--"};
  loop.insert(loop.end(), optimize.begin(), optimize.end());
  auto done = answer_loop(loop);
  ASSERT_EQ(done.exit_code, 0) << done.out << done.err;
  EXPECT_NE(done.out.find("best: iteration 1"), std::string::npos) << done.out;
  EXPECT_EQ(answer_loop({state.string()}).out, "") << "nothing waits any more";
  std::filesystem::path episode;
  for (const auto& e : std::filesystem::directory_iterator(state / "episodes")) episode = e.path();
  auto rec = nlohmann::json::parse(testing::read(episode / "episode.json"));
  EXPECT_EQ(rec["status"], "finished");
  EXPECT_EQ(rec["stop_reason"].get<std::string>().rfind("the agent stopped: nothing left", 0), 0u)
      << rec["stop_reason"];
  ASSERT_EQ(rec["iterations"].size(), 1u);
  EXPECT_EQ(rec["iterations"][0]["outcome"], "improved");
  EXPECT_EQ(rec["iterations"][0]["reflection"], "Reflected.\n");
}

}  // namespace
}  // namespace kgate
