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
  EXPECT_EQ((*forge)->file_url("abc", ".kgate/x.svg"),
            "https://github.com/octo/kernels/blob/abc/.kgate/x.svg?raw=true");
}

TEST(ForgeConfigTest, EnterpriseUrlsFollowTheApiUrl) {
  auto forge =
      make_forge({.github_repo = "octo/kernels", .api_url = "https://ghe.example.com/api/v3"},
                 env_of({{"GITHUB_TOKEN", "ghp_abcdefgh12345"}}));
  ASSERT_TRUE(forge.ok());
  EXPECT_EQ((*forge)->file_url("abc", "f"),
            "https://ghe.example.com/octo/kernels/blob/abc/f?raw=true");
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
