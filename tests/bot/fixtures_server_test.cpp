// The GitHub client and forge against recorded GitHub traffic
// (@octokit/fixtures-server): the server answers only requests that match
// the recording in method, path, headers and body, in order.
#include <gtest/gtest.h>

#include "bot/github_client.h"
#include "bot/github_forge.h"
#include "node_fixtures.h"
#include "openapi_validator.h"

namespace kgate::bot {
namespace {

using testing::FixturesServer;
using testing::OpenApiValidator;

// The token the recordings were normalised to.
const std::string kFixtureToken = "0000000000000000000000000000000000000001";

// The recordings use that same string as a commit SHA in request bodies, so
// it cannot be registered as a secret here (redact() would turn the SHA into
// "***" and the recording would no longer match). Tokens elsewhere are
// registered; this one is public test data.
class FixtureCredentials : public GitHubCredentials {
 public:
  Result<std::string> authorization() override { return "token " + kFixtureToken; }
  Result<std::string> git_password() override { return kFixtureToken; }
  std::string describe() const override { return "the fixtures token"; }
};

class FixturesServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    missing_ = testing::missing_npm_packages();
    if (!missing_.empty()) return;
    server_ = new FixturesServer();
    openapi_ = OpenApiValidator::load(testing::node_modules_dir());
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!missing_.empty()) GTEST_SKIP() << missing_;
    ASSERT_TRUE(server_->ready()) << "octokit-fixtures-server did not start";
  }

  // A client for one scenario; every body it sends is checked against OpenAPI.
  std::shared_ptr<GitHubClient> client_for(const std::string& scenario) {
    std::string base = server_->load(scenario);
    EXPECT_FALSE(base.empty()) << "cannot load scenario " << scenario;
    GitHubClientOptions options;
    options.api_url = base;
    options.retry.max_attempts = 1;
    options.on_request = [this](const std::string& method, const std::string& url,
                                const std::optional<nlohmann::json>& body) {
      if (body) {
        auto errors = openapi_->validate(method, url, *body);
        for (const auto& e : errors) ADD_FAILURE() << method << " " << url << ": " << e;
      }
    };
    return std::make_shared<GitHubClient>(std::make_shared<FixtureCredentials>(), options);
  }

  static inline std::string missing_;
  static inline FixturesServer* server_ = nullptr;
  static inline std::shared_ptr<OpenApiValidator> openapi_;
};

TEST_F(FixturesServerTest, CommitStatusesThroughTheForge) {
  auto client = client_for("create-status");
  GitHubForge forge(
      client,
      {.owner = "octokit-fixture-org", .repo = "create-status", .use_commit_statuses = true});
  const std::string sha = "0000000000000000000000000000000000000001";
  Status failure = forge.set_commit_status(sha, {.state = "failure",
                                                 .target_url = "https://example.com",
                                                 .description = "create-status failure test",
                                                 .context = "example/1"});
  ASSERT_TRUE(failure.ok()) << failure.error().message;
  Status success = forge.set_commit_status(sha, {.state = "success",
                                                 .target_url = "https://example.com",
                                                 .description = "create-status success test",
                                                 .context = "example/2"});
  ASSERT_TRUE(success.ok()) << success.error().message;
  auto statuses =
      client->get_all("/repos/octokit-fixture-org/create-status/commits/" + sha + "/statuses");
  ASSERT_TRUE(statuses.ok()) << statuses.error().message;
  EXPECT_EQ(statuses->size(), 2u);
  auto combined =
      client->call("GET", "/repos/octokit-fixture-org/create-status/commits/" + sha + "/status");
  ASSERT_TRUE(combined.ok()) << combined.error().message;
  EXPECT_EQ((*combined)["state"], "failure");
}

TEST_F(FixturesServerTest, GitRefs) {
  auto client = client_for("git-refs");
  const std::string base = "/repos/octokit-fixture-org/git-refs/git/refs";
  auto before = client->get_all(base + "/");
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(before->size(), 1u);
  auto created = client->call("POST", base,
                              nlohmann::json{{"ref", "refs/heads/test"},
                                             {"sha", "0000000000000000000000000000000000000002"}});
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ((*created)["ref"], "refs/heads/test");
  auto moved = client->call("PATCH", base + "/heads/test",
                            nlohmann::json{{"sha", "0000000000000000000000000000000000000001"}});
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  auto after = client->get_all(base + "/");
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->size(), 2u);
  auto deleted = client->send("DELETE", base + "/heads/test");
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(deleted->status, 204);
}

TEST_F(FixturesServerTest, Labels) {
  auto client = client_for("labels");
  const std::string base = "/repos/octokit-fixture-org/labels/labels";
  auto all = client->get_all(base);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->size(), 9u);
  auto created =
      client->call("POST", base, nlohmann::json{{"name", "test-label"}, {"color", "663399"}});
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto one = client->call("GET", base + "/test-label");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ((*one)["name"], "test-label");
  auto renamed =
      client->call("PATCH", base + "/test-label",
                   nlohmann::json{{"new_name", "test-label-updated"}, {"color", "BADA55"}});
  ASSERT_TRUE(renamed.ok()) << renamed.error().message;
  auto deleted = client->send("DELETE", base + "/test-label-updated");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->status, 204);
}

TEST_F(FixturesServerTest, AddLabelsToAnIssueThroughTheForge) {
  auto client = client_for("add-labels-to-issue");
  auto issue = client->call("POST", "/repos/octokit-fixture-org/add-labels-to-issue/issues",
                            nlohmann::json{{"title", "Issue without a label"}});
  ASSERT_TRUE(issue.ok()) << issue.error().message;
  GitHubForge forge(client, {.owner = "octokit-fixture-org", .repo = "add-labels-to-issue"});
  Status labelled = forge.add_labels((*issue)["number"].get<int>(), {"Foo", "bAr", "baZ"});
  EXPECT_TRUE(labelled.ok()) << labelled.error().message;
}

TEST_F(FixturesServerTest, ValidationErrorsBecomeActionableMessages) {
  auto client = client_for("errors");
  auto r = client->call("POST", "/repos/octokit-fixture-org/errors/labels",
                        nlohmann::json{{"name", "foo"}, {"color", "invalid"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitCode::kBadInput);
  EXPECT_NE(r.error().message.find("422"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("Validation Failed"), std::string::npos);
  EXPECT_NE(r.error().message.find("Label.color invalid"), std::string::npos) << r.error().message;
}

TEST_F(FixturesServerTest, PaginationFollowsLinkHeaders) {
  auto client = client_for("paginate-issues");
  std::vector<std::string> urls;
  auto r = client->get_all("/repos/octokit-fixture-org/paginate-issues/issues?per_page=3");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->size(), 13u);  // 3+3+3+3+1 over five pages
}

}  // namespace
}  // namespace kgate::bot
