// Retries and rate limits against a real HTTP server on 127.0.0.1 that
// answers with GitHub's status codes, headers and messages.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <thread>

#include "bot/github_client.h"
#include "bot/link_header.h"
#include "core/retry_policy.h"

namespace kgate::bot {
namespace {

struct Scripted {
  int status;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Answers GET/POST /x with the scripted responses in order, then 200.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<Scripted> script) : script_(script.begin(), script.end()) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      ++hits_;
      last_authorization_ = req.get_header_value("Authorization");
      if (script_.empty()) {
        res.status = 200;
        res.set_content(R"({"ok":true})", "application/json");
        return;
      }
      Scripted s = script_.front();
      script_.pop_front();
      res.status = s.status;
      for (const auto& [k, v] : s.headers) res.set_header(k.c_str(), v);
      res.set_content(s.body, "application/json; charset=utf-8");
    };
    server_.Get("/x", handler);
    server_.Post("/x", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~ScriptedServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int hits() {
    std::lock_guard lock(mutex_);
    return hits_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  std::mutex mutex_;
  std::deque<Scripted> script_;
  int hits_ = 0;
  std::string last_authorization_;
  int port_ = 0;
};

constexpr std::time_t kNow = 1'800'000'000;

struct Harness {
  std::vector<double> waits;
  std::unique_ptr<GitHubClient> client;
  explicit Harness(const std::string& url, int max_attempts = 5) {
    GitHubClientOptions options;
    options.api_url = url;
    options.retry.max_attempts = max_attempts;
    options.sleep = [this](double s) { waits.push_back(s); };
    options.now = [] { return kNow; };
    client = std::make_unique<GitHubClient>(
        std::make_shared<TokenCredentials>("ghp_test_token_123456"), options);
  }
};

const std::string kPrimaryLimitBody =
    R"({"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"})";
const std::string kSecondaryLimitBody =
    R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 1234:5678.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})";

std::vector<std::pair<std::string, std::string>> primary_headers(std::time_t reset) {
  return {{"x-ratelimit-limit", "5000"},
          {"x-ratelimit-remaining", "0"},
          {"x-ratelimit-used", "5000"},
          {"x-ratelimit-reset", std::to_string(reset)},
          {"x-ratelimit-resource", "core"}};
}

TEST(GitHubClientTest, WaitsForThePrimaryRateLimitToReset) {
  ScriptedServer server({{403, primary_headers(kNow + 42), kPrimaryLimitBody}});
  Harness h(server.url());
  auto r = h.client->call("GET", "/x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(server.hits(), 2);
  ASSERT_EQ(h.waits.size(), 1u);
  EXPECT_DOUBLE_EQ(h.waits[0], 43);  // until the reset, plus a second
}

TEST(GitHubClientTest, HonoursRetryAfterOn429) {
  ScriptedServer server({{429, {{"retry-after", "7"}}, kSecondaryLimitBody}});
  Harness h(server.url());
  auto r = h.client->call("POST", "/x", nlohmann::json{{"a", 1}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(h.waits, std::vector<double>{7});
}

TEST(GitHubClientTest, BacksOffOnSecondaryLimitWithoutRetryAfter) {
  ScriptedServer server({{403, {{"x-ratelimit-remaining", "4000"}}, kSecondaryLimitBody},
                         {403, {{"x-ratelimit-remaining", "4000"}}, kSecondaryLimitBody}});
  Harness h(server.url());
  auto r = h.client->call("GET", "/x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(h.waits, (std::vector<double>{60, 120}));  // at least a minute, then doubling
}

TEST(GitHubClientTest, RetriesServerErrorsWithExponentialBackoff) {
  ScriptedServer server({{502, {}, "<html>Bad gateway</html>"}, {503, {}, ""}});
  Harness h(server.url());
  auto r = h.client->call("GET", "/x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  // Exponential with jitter: each wait in [d/2, d] for d = 1, 2.
  ASSERT_EQ(h.waits.size(), 2u);
  EXPECT_GE(h.waits[0], 0.5);
  EXPECT_LE(h.waits[0], 1);
  EXPECT_GE(h.waits[1], 1);
  EXPECT_LE(h.waits[1], 2);
  EXPECT_EQ(server.hits(), 3);
}

// A POST that reached GitHub and got a 5xx may have opened its pull request:
// sending it again could open a second one.
TEST(GitHubClientTest, APostAnswered502IsNotSentTwice) {
  ScriptedServer server({{502, {}, "<html>Bad gateway</html>"}});
  Harness h(server.url());
  auto r = h.client->call("POST", "/x", nlohmann::json{{"title", "kgate: faster"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitCode::kInfrastructure);
  EXPECT_NE(r.error().message.find("502"), std::string::npos) << r.error().message;
  EXPECT_EQ(server.hits(), 1);
  EXPECT_TRUE(h.waits.empty());
}

TEST(GitHubClientTest, GivesUpAfterMaxAttempts) {
  ScriptedServer server({{500, {}, "{}"}, {500, {}, "{}"}, {500, {}, "{}"}});
  Harness h(server.url(), 3);
  auto r = h.client->call("GET", "/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitCode::kInfrastructure);
  EXPECT_NE(r.error().message.find("gave up after 3 attempts"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.hits(), 3);
}

TEST(GitHubClientTest, RefusesToWaitHoursForAReset) {
  ScriptedServer server({{403, primary_headers(kNow + 3000), kPrimaryLimitBody}});
  Harness h(server.url());
  auto r = h.client->call("GET", "/x");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(h.waits.empty());
  EXPECT_NE(r.error().message.find("resets in 3001 s"), std::string::npos) << r.error().message;
  EXPECT_EQ(server.hits(), 1);
}

TEST(GitHubClientTest, PermissionErrorsAreNotRetried) {
  ScriptedServer server(
      {{403,
        {{"x-ratelimit-remaining", "4999"}},
        R"({"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/checks/runs#create-a-check-run"})"}});
  Harness h(server.url());
  auto r = h.client->call("POST", "/x", nlohmann::json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(h.waits.empty());
  EXPECT_EQ(server.hits(), 1);
  EXPECT_NE(r.error().message.find("Resource not accessible by integration"), std::string::npos);
  EXPECT_NE(r.error().message.find("permissions"), std::string::npos);
}

TEST(GitHubClientTest, UnreachableServerIsAnInfrastructureError) {
  GitHubClientOptions options;
  options.api_url = "http://127.0.0.1:1";
  options.retry.max_attempts = 2;
  std::vector<double> waits;
  options.sleep = [&](double s) { waits.push_back(s); };
  GitHubClient client(std::make_shared<TokenCredentials>("ghp_unreachable_token"), options);
  auto r = client.call("GET", "/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitCode::kInfrastructure);
  EXPECT_EQ(waits.size(), 1u);
}

TEST(LinkHeaderTest, FindsNextAmongOthers) {
  EXPECT_EQ(
      next_page_url(
          R"(<https://a/x?page=1>; rel="prev", <https://a/x?page=3>; rel="next", <https://a/x?page=5>; rel="last")"),
      "https://a/x?page=3");
  EXPECT_FALSE(
      next_page_url(R"(<https://a/x?page=1>; rel="first", <https://a/x?page=4>; rel="prev")")
          .has_value());
  EXPECT_FALSE(next_page_url("").has_value());
}

}  // namespace
}  // namespace kgate::bot
