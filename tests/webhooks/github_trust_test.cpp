// The service's GitHub glue against servers on 127.0.0.1: GitHubPermissions
// asks GET /repos/{owner}/{repo}/collaborators/{username}/permission (answers
// shaped like @octokit/openapi's example) and decides who may command kgate;
// ForgeNotifier turns notices into check runs and marked comments, with
// request bodies validated against GitHub's OpenAPI description.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "bot/fake_github.h"
#include "bot/forge_config.h"
#include "bot/node_fixtures.h"
#include "bot/openapi_validator.h"
#include "webhooks/forge_notifier.h"
#include "webhooks/github_permissions.h"
#include "webhooks/router.h"

namespace kgate::webhooks {
namespace {

const char* kToken = "ghp_trustTestToken0123456789abcdef";

// GitHub's example answer for the collaborator permission endpoint, from
// @octokit/openapi; null when the package is missing.
nlohmann::json openapi_permission_example() {
  std::ifstream in(testing::node_modules_dir() / "@octokit/openapi/generated/api.github.com.json");
  if (!in) return nullptr;
  auto spec = nlohmann::json::parse(in);
  // The example's name changed between versions of the package
  // ("repository-collaborator-permission", "...-response-if-user-has-admin-
  // permissions"): take the one whose name starts so. The package being
  // there without it is a failure, not a skip.
  for (const auto& [name, example] : spec["components"]["examples"].items())
    if (name.rfind("repository-collaborator-permission", 0) == 0) return example["value"];
  ADD_FAILURE() << "@octokit/openapi has no repository-collaborator-permission example";
  return nullptr;
}

// A GitHub that knows each user's role on octo/kernels; unknown users get
// GitHub's 404. `down` makes every answer a 502.
class PermissionServer {
 public:
  explicit PermissionServer(nlohmann::json example) : example_(std::move(example)) {
    server_.Get(R"(/repos/octo/kernels/collaborators/([^/]+)/permission)", [this](const httplib::
                                                                                      Request& req,
                                                                                  httplib::Response&
                                                                                      res) {
      std::lock_guard lock(mutex_);
      ++requests_;
      authorization_ = req.get_header_value("Authorization");
      if (down_) {
        res.status = 502;
        res.set_content(R"({"message":"Server Error"})", "application/json");
        return;
      }
      auto role = roles_.find(req.matches[1]);
      if (role == roles_.end()) {
        res.status = 404;
        res.set_content(
            R"({"message":"Not Found","documentation_url":"https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user","status":"404"})",
            "application/json");
        return;
      }
      nlohmann::json body = example_;
      body["user"]["login"] = req.matches[1];
      body["role_name"] = role->second.first;
      body["permission"] = role->second.second;
      res.set_content(body.dump(), "application/json; charset=utf-8");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~PermissionServer() {
    server_.stop();
    thread_.join();
  }
  // role_name and the legacy permission GitHub reports with it.
  void set_role(const std::string& user, const std::string& role, const std::string& legacy) {
    std::lock_guard lock(mutex_);
    roles_[user] = {role, legacy};
  }
  void set_down(bool down) {
    std::lock_guard lock(mutex_);
    down_ = down;
  }
  int requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::string authorization() {
    std::lock_guard lock(mutex_);
    return authorization_;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  nlohmann::json example_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, std::pair<std::string, std::string>> roles_;
  bool down_ = false;
  int requests_ = 0;
  std::string authorization_;
};

class GitHubTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    example = openapi_permission_example();
    if (example.is_null())
      GTEST_SKIP() << "npm package @octokit/openapi is missing from tests/node_modules (run "
                      "scripts/setup)";
    server = std::make_unique<PermissionServer>(example);
    server->set_role("alice", "admin", "admin");
    server->set_role("carol", "maintain", "write");
    server->set_role("bob", "read", "read");
    server->set_role("tess", "triage", "read");
    bot::GitHubClientOptions options;
    options.api_url = server->url();
    options.retry.max_attempts = 2;
    options.sleep = [](double) {};
    client = std::make_shared<bot::GitHubClient>(std::make_shared<bot::TokenCredentials>(kToken),
                                                 options);
  }
  GitHubPermissions permissions(double ttl_s = 60) {
    PermissionCacheOptions cache;
    cache.ttl_s = ttl_s;
    return GitHubPermissions(client, cache, [this] { return now; });
  }

  nlohmann::json example;
  std::unique_ptr<PermissionServer> server;
  std::shared_ptr<bot::GitHubClient> client;
  std::chrono::steady_clock::time_point now{};
};

TEST_F(GitHubTrust, ExampleAnswerHasTheFieldsRead) {
  ASSERT_TRUE(example.contains("permission")) << example.dump();
  ASSERT_TRUE(example.contains("role_name")) << example.dump();
  EXPECT_TRUE(GitHubPermissions::write_from_response(example).has_value());
}

TEST_F(GitHubTrust, GitHubsAnswerOverridesTheAssociation) {
  auto lookup = permissions();
  EXPECT_EQ(lookup.has_write("octo/kernels", "alice", "NONE"), true);
  EXPECT_EQ(lookup.has_write("octo/kernels", "carol", "CONTRIBUTOR"), true);  // maintain
  // An org member with read access only: the association says MEMBER, GitHub says read.
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", "MEMBER"), false);
  EXPECT_EQ(lookup.has_write("octo/kernels", "tess", "COLLABORATOR"), false);  // triage
  EXPECT_EQ(lookup.has_write("octo/kernels", "mallory", "OWNER"), false);      // 404
  EXPECT_EQ(server->authorization(), std::string("token ") + kToken);
}

TEST_F(GitHubTrust, ThePermissionFieldDecidesNotTheRoleName) {
  // GitHub's description of the endpoint: `permission` folds custom roles
  // into the base role they extend; `role_name` is the custom role's own name.
  server->set_role("cora", "kernel-maintainer", "write");
  server->set_role("ada", "auditor", "read");
  auto lookup = permissions();
  EXPECT_EQ(lookup.has_write("octo/kernels", "cora", "MEMBER"), true);
  EXPECT_EQ(lookup.has_write("octo/kernels", "ada", "MEMBER"), false);
  EXPECT_EQ(GitHubPermissions::write_from_response({{"role_name", "write"}}), std::nullopt);
  EXPECT_EQ(GitHubPermissions::write_from_response({{"permission", "none"}}), false);
}

TEST_F(GitHubTrust, AnswersAreCachedForTheirTime) {
  auto lookup = permissions(60);
  EXPECT_EQ(lookup.has_write("octo/kernels", "carol", ""), true);
  EXPECT_EQ(lookup.has_write("octo/kernels", "carol", ""), true);
  EXPECT_EQ(server->requests(), 1);
  // Carol loses write access; within the cache time the old answer stands,
  // after it GitHub is asked again.
  server->set_role("carol", "read", "read");
  now += std::chrono::seconds(30);
  EXPECT_EQ(lookup.has_write("octo/kernels", "carol", ""), true);
  now += std::chrono::seconds(31);
  EXPECT_EQ(lookup.has_write("octo/kernels", "carol", ""), false);
  EXPECT_EQ(server->requests(), 2);
}

TEST_F(GitHubTrust, NoAnswersAreCachedShorterThanYes) {
  auto lookup = permissions(60);
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", ""), false);
  server->set_role("bob", "write", "write");  // bob is given write access
  now += std::chrono::seconds(10);
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", ""), false);  // "no" still cached
  now += std::chrono::seconds(6);
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", ""), true);  // 15 s for a "no"
  EXPECT_EQ(server->requests(), 2);
}

TEST_F(GitHubTrust, GitHubDownIsUnknownNeverTheAssociation) {
  server->set_down(true);
  auto lookup = permissions();
  // An OWNER association used to stand in for GitHub's answer: it is unknown, so no.
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", "OWNER"), std::nullopt);
  EXPECT_FALSE(lookup.answer_at_hand("octo/kernels", "bob"));
  std::string why = lookup.why_unknown("octo/kernels", "bob", "OWNER");
  EXPECT_NE(why.find("did not answer for bob"), std::string::npos) << why;
  int asked = server->requests();
  EXPECT_GE(asked, 1);
  // The failure is remembered for a while: a burst of deliveries asks once.
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", "OWNER"), std::nullopt);
  EXPECT_EQ(server->requests(), asked);
  // After it, GitHub is asked again, and its answer counts once it is back.
  server->set_down(false);
  now += std::chrono::seconds(11);
  EXPECT_EQ(lookup.has_write("octo/kernels", "bob", "OWNER"), false);
  EXPECT_TRUE(lookup.answer_at_hand("octo/kernels", "bob"));
}

TEST_F(GitHubTrust, OddLoginsAreNotSentIntoTheUrl) {
  auto lookup = permissions();
  EXPECT_EQ(lookup.has_write("octo/kernels", "../../admin", "OWNER"), std::nullopt);
  EXPECT_EQ(server->requests(), 0);
}

TEST_F(GitHubTrust, RouterRefusesACommandFromAMemberWithReadAccess) {
  auto lookup = permissions();
  RoutingContext context;
  context.permissions = &lookup;
  context.known_pull = [](const std::string& repo, int64_t number) -> std::optional<PullState> {
    return PullState{repo, number, "1111111111111111111111111111111111111111",
                     "2222222222222222222222222222222222222222", false};
  };
  WebhookEvent event;
  event.name = "issue_comment";
  event.action = "created";
  event.repository = "octo/kernels";
  event.sender = "bob";
  CommentInfo comment;
  comment.body = "/kgate approve";
  comment.author = "bob";
  comment.author_association = "MEMBER";
  comment.issue_number = 12;
  comment.on_pull_request = true;
  event.comment = comment;
  Routing refused = route(event, context);
  EXPECT_TRUE(refused.jobs.empty());
  EXPECT_TRUE(refused.approvals.empty());
  ASSERT_EQ(refused.notices.size(), 1u);
  EXPECT_EQ(refused.notices[0].kind, "command-refused");

  event.sender = comment.author = "carol";  // maintain: may approve
  comment.author_association = "CONTRIBUTOR";
  event.comment = comment;
  Routing approved = route(event, context);
  ASSERT_EQ(approved.approvals.size(), 1u);
  EXPECT_EQ(approved.approvals[0].by, "carol");
  EXPECT_EQ(approved.jobs.size(), 1u);

  // GitHub down: alice's command is refused, and the refusal says why.
  server->set_down(true);
  event.sender = comment.author = "alice";
  comment.author_association = "OWNER";
  event.comment = comment;
  Routing down = route(event, context);
  EXPECT_TRUE(down.approvals.empty());
  ASSERT_EQ(down.notices.size(), 1u);
  EXPECT_NE(down.notices[0].message.find("did not answer"), std::string::npos)
      << down.notices[0].message;
}

class ForgeNotices : public ::testing::Test {
 protected:
  void SetUp() override {
    openapi = testing::OpenApiValidator::load(testing::node_modules_dir());
    if (!openapi)
      GTEST_SKIP() << "npm package @octokit/openapi is missing from tests/node_modules (run "
                      "scripts/setup)";
  }
  ForgeNotifier notifier_for(testing::FakeGitHub& github) {
    std::string url = github.url();
    return ForgeNotifier([url](const std::string& repository) {
      bot::ForgeConfig config;
      config.kind = "github";
      config.github_repo = repository;
      config.api_url = url;
      config.client.sleep = [](double) {};
      return bot::make_forge(config, [](const std::string& name) -> std::optional<std::string> {
        if (name == "GITHUB_TOKEN") return std::string(kToken);
        return std::nullopt;
      });
    });
  }
  void expect_valid_bodies(testing::FakeGitHub& github) {
    for (const auto& r : github.requests()) {
      if (r.body.empty()) continue;
      auto errors = openapi->validate(r.method, r.path, nlohmann::json::parse(r.body));
      EXPECT_TRUE(errors.empty()) << r.method << " " << r.path << ": " << errors.front();
    }
  }
  std::shared_ptr<testing::OpenApiValidator> openapi;
};

TEST_F(ForgeNotices, WaitingIsACheckRunOnTheHeadCommit) {
  testing::FakeGitHub github("octo", "kernels", kToken);
  ForgeNotifier notifier = notifier_for(github);
  std::string head = "3333333333333333333333333333333333333333";
  Status sent = notifier.notify(
      {"waiting-for-approval", "octo/kernels", 7, head, "waits for a maintainer's /kgate approve"});
  ASSERT_TRUE(sent.ok()) << sent.error().message;
  auto runs = github.check_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["head_sha"], head);
  EXPECT_EQ(runs[0]["name"], "kgate");
  EXPECT_EQ(runs[0]["conclusion"], "action_required");
  EXPECT_TRUE(github.comments(7).empty());
  expect_valid_bodies(github);
}

TEST_F(ForgeNotices, OtherNoticesAreOneCommentPerKindEditedInPlace) {
  testing::FakeGitHub github("octo", "kernels", kToken);
  ForgeNotifier notifier = notifier_for(github);
  ASSERT_TRUE(notifier.notify({"command-refused", "octo/kernels", 9, "", "first refusal"}).ok());
  ASSERT_TRUE(notifier.notify({"command-refused", "octo/kernels", 9, "", "second refusal"}).ok());
  ASSERT_TRUE(notifier.notify({"approved", "octo/kernels", 9, "4444", "approved by carol"}).ok());
  auto comments = github.comments(9);
  ASSERT_EQ(comments.size(), 2u);
  std::string refused = comments[0]["body"], approved = comments[1]["body"];
  EXPECT_NE(refused.find(ForgeNotifier::marker("command-refused")), std::string::npos);
  EXPECT_NE(refused.find("second refusal"), std::string::npos);
  EXPECT_EQ(refused.find("first refusal"), std::string::npos);
  EXPECT_NE(approved.find("approved by carol"), std::string::npos);
  expect_valid_bodies(github);
}

TEST_F(ForgeNotices, AForgeErrorLeavesTheNoticeUnsent) {
  testing::FakeGitHub github("octo", "kernels", "ghp_someOtherToken0123456789");
  ForgeNotifier notifier = notifier_for(github);  // wrong token: 401
  Status sent = notifier.notify({"command-refused", "octo/kernels", 3, "", "refused"});
  ASSERT_FALSE(sent.ok());
  EXPECT_NE(sent.error().message.find("#3"), std::string::npos) << sent.error().message;
  EXPECT_EQ(sent.error().message.find(kToken), std::string::npos);  // redacted
}

}  // namespace
}  // namespace kgate::webhooks
