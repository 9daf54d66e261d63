// Redelivery recovery against GitHub's delivery log on 127.0.0.1 (its shapes
// and example item from @octokit/openapi): which deliveries are asked for,
// through which endpoints, and, end to end, that deliveries a power loss
// dropped from kgate serve's last commits come back and are queued once.
#include <gtest/gtest.h>

#include <set>

#include "bot/app_jwt_credentials.h"
#include "bot/github_client.h"
#include "bot/openapi_validator.h"
#include "bot/rsa_test_key.h"
#include "fake_hook_deliveries.h"
#include "serve_fixture.h"
#include "webhooks/delivery_recovery.h"

namespace kgate::testing {
namespace {

using nlohmann::json;
using webhooks::DeliveryRecovery;
using webhooks::RecoveryOptions;

const std::string kRepoHook = "/repos/octo-org/kernels/hooks/42";
const std::string kToken = "ghp_recoverytesttoken000000000000000";

std::shared_ptr<bot::GitHubClient> token_client(const std::string& url) {
  bot::GitHubClientOptions options;
  options.api_url = url;
  options.retry.max_attempts = 1;
  return std::make_shared<bot::GitHubClient>(std::make_shared<bot::TokenCredentials>(kToken),
                                             options);
}

class DeliveryRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    validator = OpenApiValidator::load(source_dir() / "tests/node_modules");
    ASSERT_TRUE(validator) << "run scripts/setup (npm ci in tests/) to install @octokit/openapi";
  }
  std::shared_ptr<OpenApiValidator> validator;
  std::time_t now = std::time(nullptr);
};

TEST_F(DeliveryRecoveryTest, AsksOnceOldestFirstForWhatIsMissingInTheWindowOnly) {
  FakeHookDeliveries github(
      kRepoHook, [](const std::string& a) { return a == "token " + kToken; }, kSecret);
  ASSERT_TRUE(github.have_template());
  // Before the window: missing here, but older than since - margin: left alone.
  for (int i = 0; i < 30; ++i)
    github.add("old-" + std::to_string(i), "push", "", "{}", now - 7200 + i, 0);
  // In the window (since = now - 1000, margin 300): a mix.
  github.add("stored-1", "pull_request", "opened", "{}", now - 1200, 202);  // inside the margin
  github.add("lost-2xx", "pull_request", "opened", "{}", now - 900, 202);   // power loss
  github.add("down-0", "pull_request", "synchronize", "{}", now - 800, 0);  // could not connect
  github.add("refused-401", "push", "", "{}", now - 700, 401);              // bad signature
  github.add("stopping-503", "issue_comment", "created", "{}", now - 600, 503);
  github.add("down-0", "pull_request", "synchronize", "{}", now - 500, 0, true);  // retried by hand
  for (int i = 0; i < 40; ++i)
    github.add("stored-" + std::to_string(i + 2), "push", "", "{}", now - 400 + i, 202);

  RecoveryOptions options{.hook_path = kRepoHook, .per_page = 10};
  DeliveryRecovery recovery(token_client(github.url()), options);
  std::set<std::string> asked_stored;
  auto sweep = recovery.sweep(static_cast<double>(now - 1000), [&](const std::string& guid) {
    asked_stored.insert(guid);
    return guid.rfind("stored-", 0) == 0;
  });
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  EXPECT_EQ(sweep->guids, (std::vector<std::string>{"lost-2xx", "down-0", "stopping-503"}));
  EXPECT_EQ(sweep->redelivered, 3);
  EXPECT_EQ(sweep->missing, 4);
  EXPECT_EQ(sweep->refused_before, 1);
  EXPECT_TRUE(sweep->failures.empty());
  for (const auto& guid : asked_stored) EXPECT_EQ(guid.rfind("old-", 0), std::string::npos) << guid;

  // Listing stopped at the first page reaching before the window: 77
  // attempts in pages of 10 newest first, the window's 47 end in page 5.
  int gets = 0, posts = 0;
  for (const auto& r : github.requests()) {
    EXPECT_EQ(validator->operation(r.method, r.path), r.method == "GET"
                                                          ? "repos/list-webhook-deliveries"
                                                          : "repos/redeliver-webhook-delivery")
        << r.method << " " << r.path;
    (r.method == "GET" ? gets : posts)++;
  }
  EXPECT_EQ(gets, 5);
  EXPECT_EQ(posts, 3);
}

TEST_F(DeliveryRecoveryTest, ListedItemsWithoutGitHubsFieldsAreSkippedNotFatal) {
  // A proxy or a future GitHub: items that are not objects, lack a guid or an
  // id, or carry them with other types. Only a whole item is read.
  httplib::Server server;
  int posts = 0;
  server.Get(kRepoHook + "/deliveries", [&](const httplib::Request&, httplib::Response& res) {
    json items = json::array({json::object(), 7, nullptr, json{{"guid", 1}}, json{{"id", 5}},
                              json{{"guid", "g"}, {"id", "x"}},
                              json{{"guid", "whole"},
                                   {"id", 3},
                                   {"delivered_at", github_time(std::time(nullptr))},
                                   {"status_code", "500"}}});
    res.set_content(items.dump(), "application/json");
  });
  server.Post(R"(.*/attempts)", [&](const httplib::Request&, httplib::Response& res) {
    ++posts;
    res.status = 202;
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  RecoveryOptions options{.hook_path = kRepoHook, .per_page = 10};
  DeliveryRecovery recovery(token_client("http://127.0.0.1:" + std::to_string(port)), options);
  auto sweep =
      recovery.sweep(static_cast<double>(now - 1000), [](const std::string&) { return false; });
  server.stop();
  thread.join();
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  EXPECT_EQ(sweep->listed, 1);
  // The whole item, never stored here, is asked for; its unreadable status counts as none.
  EXPECT_EQ(sweep->guids, std::vector<std::string>{"whole"});
  EXPECT_EQ(posts, 1);
}

TEST_F(DeliveryRecoveryTest, AppWebhookUsesAJwtSignedWithTheAppKeyAndAListingFailureAsksNothing) {
  RsaKey key;
  FakeHookDeliveries github(
      "/app/hook",
      [&](const std::string& a) { return a.rfind("Bearer ", 0) == 0 && key.verify(a.substr(7)); },
      kSecret);
  github.add("lost", "pull_request", "opened", "{}", now - 10, 202);
  bot::GitHubClientOptions client;
  client.api_url = github.url();
  client.retry.max_attempts = 1;
  DeliveryRecovery recovery(
      std::make_shared<bot::GitHubClient>(
          std::make_shared<bot::AppJwtCredentials>("12345", key.pem()), client),
      RecoveryOptions{});
  auto sweep =
      recovery.sweep(static_cast<double>(now - 60), [](const std::string&) { return false; });
  ASSERT_TRUE(sweep.ok()) << sweep.error().message;
  EXPECT_EQ(sweep->redelivered, 1);
  auto requests = github.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(validator->operation("GET", requests[0].path), "apps/list-webhook-deliveries");
  EXPECT_EQ(validator->operation("POST", requests[1].path), "apps/redeliver-webhook-delivery");
  EXPECT_EQ(requests[0].path, "/app/hook/deliveries?per_page=100");

  RsaKey other;
  DeliveryRecovery wrong_key(
      std::make_shared<bot::GitHubClient>(
          std::make_shared<bot::AppJwtCredentials>("12345", other.pem()), client),
      RecoveryOptions{});
  auto refused =
      wrong_key.sweep(static_cast<double>(now - 60), [](const std::string&) { return false; });
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("401"), std::string::npos) << refused.error().message;
  EXPECT_EQ(refused.error().message.find("BEGIN"), std::string::npos);
  EXPECT_EQ(github.requests().size(), 3u) << "a failed listing must ask for nothing";
}

// End to end: kgate serve (default durability) takes deliveries; a power
// loss is simulated by deleting the last commits' rows while it is down (what
// synchronous=NORMAL can lose), and GitHub also failed two deliveries while
// it was down. At restart, the App's delivery log brings all of them back,
// each stored and queued exactly once.
TEST_F(DeliveryRecoveryTest, RestartRecoversDeliveriesLostToAPowerLossExactlyOnce) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup (npm ci in tests/)";
  TempDir dir;
  std::filesystem::path repo = dir / "repo", state = dir / "state", script = dir / "job.sh";
  std::filesystem::copy(example_dir(), repo, std::filesystem::copy_options::recursive);
  write(script, "#!/bin/sh\nexit 0\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  RsaKey key;
  FakeHookDeliveries github(
      "/app/hook",
      [&](const std::string& a) { return a.rfind("Bearer ", 0) == 0 && key.verify(a.substr(7)); },
      kSecret);
  write(dir / "app.pem", key.pem());
  auto make_server = [&] {
    return std::make_unique<ServeProcess>(
        std::vector<std::string>{"--listen", "127.0.0.1:0", "--repo", repo.string(), "--state-dir",
                                 state.string(), "--job-command", script.string(), "--workers", "1",
                                 "--recovery-interval", "0"},
        std::map<std::string, std::string>{
            {"KGATE_WEBHOOK_SECRET", kSecret},
            {"KGATE_APP_ID", "12345"},
            {"KGATE_APP_PRIVATE_KEY_FILE", (dir / "app.pem").string()},
            {"KGATE_GITHUB_API_URL", github.url()}},
        dir / "serve.log");
  };
  std::filesystem::path db = state / "queue.db";
  auto payload = [](int i) {
    json p = example_payload("pull_request", "synchronize");
    char sha[41];
    std::snprintf(sha, sizeof sha, "%040x", i + 1);
    p["pull_request"]["head"]["sha"] = sha;
    return p.dump();
  };

  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  // With recovery on, the default durability does not fsync each commit.
  EXPECT_NE(server->log().find("\"durability\":\"normal\""), std::string::npos) << server->log();
  const int kSent = 20, kLost = 5;
  httplib::Client client("127.0.0.1", server->port());
  for (int i = 0; i < kSent; ++i) {
    std::string guid = "guid-" + std::to_string(i), body = payload(i);
    auto r = post_delivery(client, "pull_request", body, guid);
    ASSERT_TRUE(r && r->status == 202) << (r ? r->body : "no answer");
    github.add(guid, "pull_request", "synchronize", body, std::time(nullptr), r->status);
  }
  server->kill_now();
  // The power loss: the last commits never reached the disk.
  std::string lost = "('guid-15','guid-16','guid-17','guid-18','guid-19')";
  {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(handle,
                           ("DELETE FROM jobs WHERE delivery IN " + lost +
                            "; DELETE FROM deliveries WHERE id IN " + lost)
                               .c_str(),
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(handle);
  }
  ASSERT_EQ(query_int(db, "SELECT count(*) FROM deliveries"), kSent - kLost);
  // While it was down GitHub could not deliver two more, and one delivery was
  // refused earlier with a bad signature (it stays refused).
  for (int i = kSent; i < kSent + 2; ++i)
    github.add("guid-" + std::to_string(i), "pull_request", "synchronize", payload(i),
               std::time(nullptr), 0);
  github.add("forged", "pull_request", "synchronize", payload(99), std::time(nullptr), 401);

  server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  github.set_target_port(server->port());
  ASSERT_TRUE(eventually(
      [&] {
        return query_int(db, "SELECT count(*) FROM deliveries") == kSent + 2 &&
               query_int(db, "SELECT count(*) FROM jobs WHERE state='done'") == kSent + 2;
      },
      30))
      << server->log();
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM jobs"), kSent + 2);
  EXPECT_EQ(query_int(db, "SELECT count(DISTINCT delivery) FROM jobs"), kSent + 2);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM deliveries WHERE id='forged'"), 0);
  auto redelivered = github.redelivered();
  EXPECT_EQ(std::set<std::string>(redelivered.begin(), redelivered.end()),
            (std::set<std::string>{"guid-15", "guid-16", "guid-17", "guid-18", "guid-19", "guid-20",
                                   "guid-21"}));
  EXPECT_EQ(redelivered.size(), 7u) << "each missing delivery asked for once";
  EXPECT_NE(server->log().find("\"redelivered\":7"), std::string::npos) << server->log();
  EXPECT_EQ(server->terminate(), 0);
}

}  // namespace
}  // namespace kgate::testing
