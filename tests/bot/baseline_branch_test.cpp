// Baselines recorded on a runner whose workspace is thrown away are kept on
// kgate/baselines: a root commit first, then commits on top holding only
// what each job recorded, pushed as fast-forwards to a real bare repository;
// two GPU models' jobs both land, a conflicting change is refused.
#include <gtest/gtest.h>

#include "bot/baseline_branch.h"
#include "bot/github_forge.h"
#include "bot_test_repo.h"
#include "fake_github.h"

namespace kgate::bot {
namespace {

using testing::BotRepo;
using testing::git;

const std::string kToken = "ghp_baselineBranchToken0123456789";

struct BaselineBranchTest : ::testing::Test {
  BotRepo repo;
  testing::FakeGitHub github{"octo", "kernels", kToken};
  std::unique_ptr<GitHubForge> forge;

  void SetUp() override {
    GitHubClientOptions options;
    options.api_url = github.url();
    options.retry.max_attempts = 1;
    forge = std::make_unique<GitHubForge>(
        std::make_shared<GitHubClient>(std::make_shared<TokenCredentials>(kToken), options),
        GitHubForgeConfig{.owner = "octo", .repo = "kernels", .git_url = repo.bare_url()});
  }
  std::string on_remote(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--git-dir", repo.bare.string()};
    all.insert(all.end(), args.begin(), args.end());
    return git(repo.tmp.path(), all);
  }
  // A job's folder: a copy of the branch as it was (restored_from), plus what it recorded.
  std::filesystem::path job_folder(const std::string& name, const std::string& restored_from) {
    auto dir = repo.tmp / name;
    std::filesystem::create_directories(dir);
    if (!restored_from.empty()) {
      for (const char* file : {"h100/rmsnorm.json", "a100/rmsnorm.json"}) {
        auto r = run_command({"git", "--git-dir", repo.bare.string(), "show",
                              restored_from + ":baselines/" + std::string(file)});
        if (r.ok() && r->succeeded()) testing::write(dir / file, r->out);
      }
      testing::write(dir / kRestoredFromFile, restored_from + "\n");
    }
    return dir;
  }
};

TEST_F(BaselineBranchTest, RootCommitThenFastForwardsWithOnlyWhatEachJobRecorded) {
  auto first = job_folder("first", "");
  testing::write(first / "h100/rmsnorm.json", "{\"history\":[1]}\n");
  testing::write(first / "a100/rmsnorm.json", "{\"history\":[1]}\n");
  auto published = publish_baselines(*forge, repo.work, first);
  ASSERT_TRUE(published.ok()) << published.error().message;
  EXPECT_TRUE(published->changed);
  EXPECT_EQ(published->files, 2u);
  const std::string root = on_remote({"rev-parse", "kgate/baselines"});
  EXPECT_EQ(root, published->commit_sha);
  // Its own history: no parent, only baselines/, never anything of main's.
  EXPECT_EQ(on_remote({"rev-list", "--count", "kgate/baselines"}), "1");
  EXPECT_EQ(on_remote({"ls-tree", "-r", "--name-only", "kgate/baselines"}),
            "baselines/a100/rmsnorm.json\nbaselines/h100/rmsnorm.json");

  // Two GPU models' jobs copied the branch at `root` and each recorded its own file.
  auto h100 = job_folder("h100", root);
  testing::write(h100 / "h100/rmsnorm.json", "{\"history\":[1,2]}\n");
  auto a100 = job_folder("a100", root);
  testing::write(a100 / "a100/rmsnorm.json", "{\"history\":[1,3]}\n");
  ASSERT_TRUE(publish_baselines(*forge, repo.work, h100).ok());
  auto second = publish_baselines(*forge, repo.work, a100);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->files, 1u);
  EXPECT_EQ(on_remote({"show", "kgate/baselines:baselines/h100/rmsnorm.json"}),
            "{\"history\":[1,2]}");
  EXPECT_EQ(on_remote({"show", "kgate/baselines:baselines/a100/rmsnorm.json"}),
            "{\"history\":[1,3]}");
  EXPECT_EQ(on_remote({"rev-list", "--count", "kgate/baselines"}), "3");
  EXPECT_EQ(on_remote({"log", "-1", "--format=%an", "kgate/baselines"}), "kgate[bot]");

  // A job that copied `root` and changed a file someone changed since: refused, nothing lost.
  auto stale = job_folder("stale", root);
  testing::write(stale / "h100/rmsnorm.json", "{\"history\":[1,9]}\n");
  const std::string before = on_remote({"rev-parse", "kgate/baselines"});
  auto refused = publish_baselines(*forge, repo.work, stale);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("changed on kgate/baselines"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(on_remote({"rev-parse", "kgate/baselines"}), before);

  // Nothing recorded: nothing pushed.
  auto idle = job_folder("idle", before);
  auto none = publish_baselines(*forge, repo.work, idle);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->files, 0u);
  EXPECT_EQ(on_remote({"rev-parse", "kgate/baselines"}), before);
}

}  // namespace
}  // namespace kgate::bot
