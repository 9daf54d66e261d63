// `kgate sweep --agent handoff` (docs/agent.md, "Hand-off episodes"): every
// kernel's episode runs to its first model turn and the sweep exits 4 with
// each waiting request in its table; while one waits, a sweep continues only
// the unfinished episodes and records no baselines again, so a kernel that
// finished is not started over; once none waits, the sweep exits 0.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace kgate {
namespace {

// The sumsq fixture with a second kernel of the same source ("twin").
std::filesystem::path two_kernels(const testing::TempDir& tmp) {
  const std::filesystem::path repo = tmp / "repo";
  std::filesystem::copy(testing::fixtures_dir() / "agent" / "sumsq", repo,
                        std::filesystem::copy_options::recursive);
  auto manifest = nlohmann::json::parse(testing::read(repo / "kgate.json"), nullptr, true, true);
  nlohmann::json twin = manifest["kernels"][0];
  twin["name"] = "twin";
  manifest["kernels"].push_back(twin);
  testing::write(repo / "kgate.json", manifest.dump(2));
  return repo;
}

std::vector<std::string> sweep_args(const std::filesystem::path& repo) {
  return {"sweep",   "--repo",      repo.string(), "--backend",   "host",
          "--agent", "handoff",     "--shapes",    "rows-64",     "--shape-budget-s",
          "0.3",     "--max-iters", "2",           "--no-publish"};
}

// The answer file each waiting episode's record names, by kernel.
std::map<std::string, std::filesystem::path> waiting_answers(const std::filesystem::path& state) {
  std::map<std::string, std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(state / "episodes")) {
    auto r = nlohmann::json::parse(testing::read(e.path() / "episode.json"));
    if (r["status"] == "waiting") out[r["kernel"]] = e.path() / r["waiting"]["answer"];
  }
  return out;
}

int episodes_of(const std::filesystem::path& state, const std::string& kernel) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(state / "episodes"))
    n += e.path().filename().string().find("-" + kernel + "-") != std::string::npos;
  return n;
}

TEST(HandoffSweep, WaitsPerKernelAndContinuesOnlyItsUnfinishedEpisodes) {
  testing::TempDir tmp;
  const auto repo = two_kernels(tmp);
  const auto state = repo / ".kgate";

  auto first = testing::run_kgate(sweep_args(repo), "", 600);
  ASSERT_EQ(first.exit_code, 4) << first.out << first.err;
  EXPECT_NE(first.err.find("baseline recorded"), std::string::npos) << first.err;
  for (const char* kernel : {"rmsnorm_f32", "twin"})
    EXPECT_NE(first.out.find(std::string(kernel) + " "), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("waiting for the answer to request 1 (propose, iteration 1)"),
            std::string::npos)
      << first.out;
  auto waiting = waiting_answers(state);
  ASSERT_EQ(waiting.size(), 2u);

  // twin's model says stop; rmsnorm_f32's answer does not come yet.
  testing::write(waiting["twin"], "STOP: nothing to try.");
  auto second = testing::run_kgate(sweep_args(repo), "", 600);
  EXPECT_EQ(second.exit_code, 4) << second.out << second.err;
  EXPECT_NE(second.err.find("continuing the hand-off sweep: 2 unfinished episodes"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("baseline recorded"), std::string::npos) << second.err;
  EXPECT_EQ(waiting_answers(state).count("twin"), 0u) << "twin's episode ended";

  // Still waiting for rmsnorm_f32: twin is not started over.
  auto third = testing::run_kgate(sweep_args(repo), "", 600);
  EXPECT_EQ(third.exit_code, 4) << third.out << third.err;
  EXPECT_NE(third.out.find("done earlier in this hand-off sweep"), std::string::npos) << third.out;
  EXPECT_EQ(episodes_of(state, "twin"), 1);

  testing::write(waiting_answers(state).at("rmsnorm_f32"), "STOP: nothing to try either.");
  auto last = testing::run_kgate(sweep_args(repo), "", 600);
  EXPECT_EQ(last.exit_code, 0) << last.out << last.err;
  EXPECT_TRUE(waiting_answers(state).empty());
  EXPECT_EQ(episodes_of(state, "rmsnorm_f32"), 1);
}

}  // namespace
}  // namespace kgate
