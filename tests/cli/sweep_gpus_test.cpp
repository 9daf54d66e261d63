// `kgate sweep --gpus`: the same sweep run by one worker and by two gives
// the same table and the same pull requests, numbered in the sweep's order,
// although with two workers its first kernel (the one with the most work)
// ends last. The host backend's device indices are all the CPU: `--gpus 0,1`
// is two workers there, each on half the CPUs. The fixture's kernels get a
// 4x gain from one tunable, so which pull requests come is known.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bot/bot_test_repo.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::git;
using testing::run_kgate;

std::filesystem::path committed_fixture(const testing::TempDir& tmp) {
  std::filesystem::path work = tmp / "work";
  std::filesystem::copy(testing::fixtures_dir() / "sweep" / "passes", work,
                        std::filesystem::copy_options::recursive);
  git(work, {"init", "-q", "-b", "main"});
  git(work, {"add", "-A"});
  git(work, {"commit", "-q", "-m", "kernels"});
  return work;
}

std::vector<std::string> sweep_args(const std::filesystem::path& work, const std::string& gpus) {
  return {"sweep", "--repo",           work.string(), "--backend",
          "host",  "--max-iters",      "2",           "--patience",
          "2",     "--shape-budget-s", "0.3",         "--profile",
          "off",   "--no-baselines",   "--gpus",      gpus};
}

// The table's rows without the measured speedup, the repository's path as <repo>.
std::vector<std::vector<std::string>> table_rows(const std::string& out,
                                                 const std::filesystem::path& work) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    for (size_t at; (at = line.find(work.string())) != std::string::npos;)
      line.replace(at, work.string().size(), "<repo>");
    std::vector<std::string> cells;
    static const std::regex gap("  +");
    for (std::sregex_token_iterator it(line.begin(), line.end(), gap, -1), end; it != end; ++it)
      if (!it->str().empty()) cells.push_back(*it);
    if (cells.size() < 6 || cells[0] == "kernel") continue;
    cells.erase(cells.begin() + 3);  // the speedup: measured, so never the same twice
    rows.push_back(cells);
  }
  return rows;
}

std::map<int, std::string> pull_requests(const std::filesystem::path& work) {
  auto out = run_kgate({"prs", "--repo", work.string(), "--all", "--json"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  std::map<int, std::string> by_number;
  if (out.exit_code != 0) return by_number;
  for (const auto& pr : nlohmann::json::parse(out.out))
    by_number[pr["number"].get<int>()] = pr["branch"].get<std::string>();
  return by_number;
}

TEST(SweepGpus, TwoWorkersGiveTheTableAndPullRequestsOfOne) {
  testing::TempDir tmp_one, tmp_two;
  const auto one_repo = committed_fixture(tmp_one), two_repo = committed_fixture(tmp_two);
  auto one = run_kgate(sweep_args(one_repo, "0"), "", 900);
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  auto two = run_kgate(sweep_args(two_repo, "0,1"), "", 900);
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;

  // One worker writes as a sweep always did; two label their lines, and both worked.
  EXPECT_EQ(one.err.find("[host 0] "), std::string::npos) << one.err;
  EXPECT_NE(two.err.find("sweep: 2 workers: host 0 on "), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("[host 0] "), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("[host 1] "), std::string::npos) << two.err;
  // wide, first in the order, ended after narrow_b, which the other worker ran meanwhile...
  const size_t wide_done = two.err.find("proposals/wide.json");
  const size_t narrow_done = two.err.find("proposals/narrow_b.json");
  ASSERT_NE(wide_done, std::string::npos) << two.err;
  ASSERT_NE(narrow_done, std::string::npos) << two.err;
  EXPECT_LT(narrow_done, wide_done) << two.err;

  // ...and yet the table and the pull requests are the sweep's, in its order.
  const auto rows = table_rows(one.out, one_repo);
  ASSERT_EQ(rows.size(), 3u) << one.out;
  EXPECT_EQ(table_rows(two.out, two_repo), rows) << one.out << "\n" << two.out;
  EXPECT_EQ(rows[0][0], "wide");
  EXPECT_EQ(rows[0][4], "created #1 kgate/optimize/wide");
  EXPECT_EQ(rows[1][4], "created #2 kgate/optimize/narrow_b");
  EXPECT_EQ(rows[2][4], "created #3 kgate/optimize/narrow_c");
  const auto prs = pull_requests(one_repo);
  EXPECT_EQ(prs, (std::map<int, std::string>{{1, "kgate/optimize/wide"},
                                             {2, "kgate/optimize/narrow_b"},
                                             {3, "kgate/optimize/narrow_c"}}));
  EXPECT_EQ(pull_requests(two_repo), prs);
  for (const auto& [number, branch] : prs) {
    const std::string diff = git(one_repo, {"diff", "main", branch, "--", "kgate.json"});
    EXPECT_NE(diff.find("\"PASSES\": [1, 4]"), std::string::npos) << branch << "\n" << diff;
    EXPECT_EQ(git(two_repo, {"diff", "main", branch, "--", "kgate.json"}), diff) << branch;
  }
}

TEST(SweepGpus, BadGpuListsAreRefusedBeforeAnyWork) {
  testing::TempDir tmp;
  const auto repo = committed_fixture(tmp);
  for (const char* bad : {"0,0", "one", "2-1"}) {
    auto out = run_kgate(sweep_args(repo, bad), "", 120);
    EXPECT_EQ(out.exit_code, 2) << bad << out.err;
    EXPECT_NE(out.err.find("--gpus"), std::string::npos) << out.err;
    EXPECT_EQ(out.err.find("sweep: wide"), std::string::npos) << "no episode started";
  }
  auto shard =
      run_kgate({"sweep", "--repo", repo.string(), "--backend", "host", "--shard", "2/2"}, "", 120);
  EXPECT_EQ(shard.exit_code, 2) << shard.err;
  EXPECT_NE(shard.err.find("--shard 2/2"), std::string::npos) << shard.err;
}

}  // namespace
}  // namespace kgate
