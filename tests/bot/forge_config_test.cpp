// Building the forge from options and the environment, and `kgate prs`.
#include <gtest/gtest.h>

#include <map>

#include "bot/forge_config.h"
#include "bot/local_forge.h"
#include "bot/pull_request_publisher.h"
#include "bot_test_repo.h"

namespace kgate::bot {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ForgeConfigTest, LocalIsTheDefault) {
  auto forge = make_forge({.repo_dir = "/tmp/x"}, env_of({}));
  ASSERT_TRUE(forge.ok());
  EXPECT_NE((*forge)->describe().find("local forge (/tmp/x/.kgate)"), std::string::npos);
}

TEST(ForgeConfigTest, GitHubNeedsARepositoryAndCredentials) {
  auto no_repo = make_forge({.kind = "github"}, env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"}}));
  ASSERT_FALSE(no_repo.ok());
  EXPECT_NE(no_repo.error().message.find("--github-repo OWNER/NAME"), std::string::npos);
  auto bad_repo =
      make_forge({.github_repo = "just-a-name"}, env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"}}));
  ASSERT_FALSE(bad_repo.ok());
  auto no_token = make_forge({.github_repo = "octo/kernels"}, env_of({}));
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.error().message.find("GITHUB_TOKEN"), std::string::npos);
  auto half_app = make_forge({.github_repo = "octo/kernels"}, env_of({{"KGATE_APP_ID", "1"}}));
  ASSERT_FALSE(half_app.ok());
  EXPECT_NE(half_app.error().message.find("KGATE_INSTALLATION_ID"), std::string::npos);
}

TEST(ForgeConfigTest, TokenFromTheEnvironmentAndRepositoryFromActions) {
  auto forge = make_forge({.kind = "github"}, env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"},
                                                      {"GITHUB_REPOSITORY", "octo/kernels"}}));
  ASSERT_TRUE(forge.ok()) << forge.error().message;
  EXPECT_EQ((*forge)->describe(), "GitHub octo/kernels (a token)");
}

// In GitHub Actions, GITHUB_REPOSITORY names the repository: kgate publishes
// there without --forge (as documented), and --forge local still means local.
TEST(ForgeConfigTest, GitHubRepositoryInTheEnvironmentChoosesGitHub) {
  auto actions =
      env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"}, {"GITHUB_REPOSITORY", "octo/kernels"}});
  auto forge = make_forge({.repo_dir = "/tmp/x"}, actions);
  ASSERT_TRUE(forge.ok()) << forge.error().message;
  EXPECT_EQ((*forge)->describe(), "GitHub octo/kernels (a token)");
  auto local = make_forge({.kind = "local", .repo_dir = "/tmp/x"}, actions);
  ASSERT_TRUE(local.ok());
  EXPECT_NE((*local)->describe().find("local forge"), std::string::npos);
  // Without credentials the choice is still GitHub, and the error says what to set.
  auto no_token =
      make_forge({.repo_dir = "/tmp/x"}, env_of({{"GITHUB_REPOSITORY", "octo/kernels"}}));
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(no_token.error().message.find("GITHUB_TOKEN"), std::string::npos);
}

TEST(ForgeConfigTest, BotUserIdMustBeANumber) {
  auto bad =
      make_forge({.github_repo = "octo/kernels"},
                 env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"}, {"KGATE_BOT_USER_ID", "kgate"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("KGATE_BOT_USER_ID"), std::string::npos);
  auto good =
      make_forge({.github_repo = "octo/kernels"}, env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"},
                                                          {"KGATE_BOT_USER_ID", "190874231"},
                                                          {"KGATE_BOT_LOGIN", "kgate[bot]"}}));
  ASSERT_TRUE(good.ok()) << good.error().message;
  auto id = (*good)->identity();  // no request needed: both are given
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(id->email, "190874231+kgate[bot]@users.noreply.github.com");
}

TEST(PrsCommandTest, ListsLocalPullRequests) {
  testing::BotRepo repo;
  LocalForge forge(repo.work, repo.work / ".kgate");
  PullRequestPublisher publisher(forge, repo.work);
  ASSERT_TRUE(publisher.propose(testing::sample_proposal(repo.base_sha, "// v2\n")).ok());
  auto out = testing::run_kgate({"prs", "--repo", repo.work.string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("kgate/optimize/rmsnorm"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("1.31x faster"), std::string::npos);
  auto shown = testing::run_kgate({"prs", "--repo", repo.work.string(), "--show", "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("## Per shape"), std::string::npos);
  auto json = testing::run_kgate({"prs", "--repo", repo.work.string(), "--json", "--all"});
  ASSERT_EQ(json.exit_code, 0);
  auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0]["labels"], nlohmann::json({"kgate", "performance"}));
  auto missing = testing::run_kgate({"prs", "--repo", repo.work.string(), "--show", "9"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace kgate::bot
