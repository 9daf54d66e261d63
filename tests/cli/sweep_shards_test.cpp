// The nightly workflow's fleet (workflows/kgate-nightly.yml) on the host: two
// shards of one sweep (`kgate sweep --shard J/2 --no-publish`, as two runners
// run them), their folders merged by `kgate merge-shards`, published by one
// `kgate publish`: one pull request per kernel, one commit on kgate/baselines
// holding every shard's baselines, each entry naming the device that
// recorded it. Then what the merge does where shards overlap: two GPU models'
// proposals for one kernel, one baseline file recorded by two shards, shards
// that started from different baselines commits.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "bot/bot_test_repo.h"
#include "gate/baseline_store.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::git;
using testing::run_kgate;
namespace fs = std::filesystem;

std::vector<std::string> shard_args(const fs::path& work, const fs::path& shard, int index) {
  return {"sweep",       "--repo",
          work.string(), "--backend",
          "host",        "--max-iters",
          "2",           "--patience",
          "2",           "--shape-budget-s",
          "0.3",         "--profile",
          "off",         "--no-publish",
          "--shard",     std::to_string(index) + "/2",
          "--state-dir", (shard / "state").string(),
          "--baselines", (shard / "baselines").string()};
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) out.push_back(it->path().lexically_relative(dir).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SweepShards, TwoShardsMergeIntoOnePublicationAndOneBaselinesCommit) {
  testing::TempDir tmp;
  const fs::path work = tmp / "work";
  fs::copy(testing::fixtures_dir() / "sweep" / "passes", work, fs::copy_options::recursive);
  git(work, {"init", "-q", "-b", "main"});
  git(work, {"add", "-A"});
  git(work, {"commit", "-q", "-m", "kernels"});

  const fs::path shard0 = tmp / "kgate-sweep-gpu-0", shard1 = tmp / "kgate-sweep-gpu-1";
  auto first = run_kgate(shard_args(work, shard0, 0), "", 900);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto second = run_kgate(shard_args(work, shard1, 1), "", 900);
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  // Every other kernel of the sweep's order: wide and narrow_c, then narrow_b.
  EXPECT_NE(first.err.find("shard 0/2: 2 of 3 kernels (wide, narrow_c)"), std::string::npos)
      << first.err;
  EXPECT_NE(second.err.find("shard 1/2: 1 of 3 kernels (narrow_b)"), std::string::npos)
      << second.err;
  EXPECT_EQ(first.out.find("narrow_b"), std::string::npos) << first.out;
  EXPECT_EQ(files_in(shard0 / "state" / "proposals"),
            (std::vector<std::string>{"narrow_c.json", "wide.json"}));
  EXPECT_EQ(files_in(shard1 / "state" / "proposals"), (std::vector<std::string>{"narrow_b.json"}));

  const fs::path merged = tmp / "merged";
  auto merge =
      run_kgate({"merge-shards", shard1.string(), shard0.string(), "--out", merged.string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
  EXPECT_EQ(files_in(merged / "state" / "proposals"),
            (std::vector<std::string>{"narrow_b.json", "narrow_c.json", "wide.json"}));
  const auto baselines = files_in(merged / "baselines");
  ASSERT_EQ(baselines.size(), 3u) << merge.err;
  for (const std::string& f : baselines) {
    auto file = load_baseline(merged / "baselines" / f);
    ASSERT_TRUE(file.ok() && file->has_value()) << f;
    const BaselineEnvironment& env = (*file)->history.back().environment;
    EXPECT_EQ(env.gpu_uuid, "host") << f;
    EXPECT_EQ(env.gpu_index, 0) << f;
  }
  // Each proposal's episode came along (the pull request links its record).
  for (const std::string kernel : {"wide", "narrow_b", "narrow_c"}) {
    auto p =
        nlohmann::json::parse(testing::read(merged / "state" / "proposals" / (kernel + ".json")));
    EXPECT_TRUE(fs::exists(merged / "state" / p["episode_record"].get<std::string>())) << kernel;
  }

  auto publish =
      run_kgate({"publish", "--repo", work.string(), "--state-dir", (merged / "state").string(),
                 "--baselines", (merged / "baselines").string()});
  ASSERT_EQ(publish.exit_code, 0) << publish.out << publish.err;
  auto prs = run_kgate({"prs", "--repo", work.string(), "--state-dir", (merged / "state").string(),
                        "--all", "--json"});
  ASSERT_EQ(prs.exit_code, 0) << prs.err;
  std::vector<std::string> branches;
  for (const auto& pr : nlohmann::json::parse(prs.out)) branches.push_back(pr["branch"]);
  std::sort(branches.begin(), branches.end());
  EXPECT_EQ(branches, (std::vector<std::string>{"kgate/optimize/narrow_b",
                                                "kgate/optimize/narrow_c", "kgate/optimize/wide"}));
  EXPECT_EQ(git(work, {"rev-list", "--count", "kgate/baselines"}), "1");
  const std::string tree = git(work, {"ls-tree", "-r", "--name-only", "kgate/baselines"});
  for (const std::string& f : baselines)
    EXPECT_NE(tree.find("baselines/" + f), std::string::npos) << f << "\n" << tree;
}

BaselineEntry entry(const std::string& date, double median_s, const std::string& uuid) {
  BaselineEntry e;
  e.environment.gpu = "NVIDIA H200";
  e.environment.date = date;
  e.environment.gpu_uuid = uuid;
  e.shapes.push_back(BaselineShape::from_samples("rows-16", "decode", {median_s}));
  return e;
}

void write_baseline(const fs::path& file, const std::vector<BaselineEntry>& history) {
  BaselineFile f;
  f.kernel = "wide";
  f.gpu = "NVIDIA H200";
  f.history = history;
  ASSERT_TRUE(save_baseline(file, f).ok());
}

TEST(SweepShards, OverlappingShardsKeepTheLargestGainAndBothHistories) {
  testing::TempDir tmp;
  const fs::path a = tmp / "a", b = tmp / "b";
  // Two GPU models proposed for the same kernel; the larger gain is published.
  testing::write(
      a / "state" / "proposals" / "wide.json",
      R"({"version": 1, "kernel": "wide", "speedup_geomean": 1.4, "from": "a", "candidate": {}})");
  testing::write(
      b / "state" / "proposals" / "wide.json",
      R"({"version": 1, "kernel": "wide", "speedup_geomean": 2.5, "from": "b", "candidate": {}})");
  // Both started from the same history (one entry) and each appended one.
  const BaselineEntry common = entry("2026-01-01T00:00:00Z", 1e-3, "GPU-common");
  write_baseline(a / "baselines" / "nvidia-h200" / "wide.json",
                 {common, entry("2026-01-03T00:00:00Z", 2e-3, "GPU-a")});
  write_baseline(b / "baselines" / "nvidia-h200" / "wide.json",
                 {common, entry("2026-01-02T00:00:00Z", 3e-3, "GPU-b")});
  for (const fs::path& shard : {a, b})
    testing::write(shard / "baselines" / "KGATE_RESTORED_FROM", std::string(40, 'c') + "\n");

  const fs::path merged = tmp / "merged";
  auto merge = run_kgate({"merge-shards", b.string(), a.string(), "--out", merged.string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
  auto chosen = nlohmann::json::parse(testing::read(merged / "state" / "proposals" / "wide.json"));
  EXPECT_EQ(chosen["from"], "b");
  EXPECT_NE(merge.out.find((a / "state" / "proposals" / "wide.json").string()), std::string::npos)
      << "the one passed over is named: " << merge.out;
  auto file = load_baseline(merged / "baselines" / "nvidia-h200" / "wide.json");
  ASSERT_TRUE(file.ok() && file->has_value());
  std::vector<std::string> uuids;
  for (const BaselineEntry& e : (*file)->history) uuids.push_back(e.environment.gpu_uuid);
  EXPECT_EQ(uuids,
            (std::vector<std::string>{"GPU-common", "GPU-b", "GPU-a"}));  // each once, by date
  EXPECT_EQ(testing::read(merged / "baselines" / "KGATE_RESTORED_FROM"),
            std::string(40, 'c') + "\n");

  // Shards restored from different commits: what each recorded cannot be told apart.
  testing::write(b / "baselines" / "KGATE_RESTORED_FROM", std::string(40, 'd') + "\n");
  auto refused =
      run_kgate({"merge-shards", a.string(), b.string(), "--out", (tmp / "m2").string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("different kgate/baselines commits"), std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace kgate
