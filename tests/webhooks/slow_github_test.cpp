// A slow or unreachable GitHub against the built `kgate serve --forge
// github`: a permission lookup that takes seconds holds up no other delivery
// (it runs after the answer, off the intake's commit), and a shutdown with
// GitHub unreachable ends within --drain-timeout, leaving unsent notices in
// the queue for the next start.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include "serve_fixture.h"

namespace kgate::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const char* kToken = "ghp_slowGitHubTestToken0123456789abcdef";

// Answers every GitHub call kgate makes here; the permission lookup only
// after `permission_delay_s`.
class SlowGitHub {
 public:
  explicit SlowGitHub(double permission_delay_s) {
    server_.Get(R"(/repos/([^/]+/[^/]+)/collaborators/([^/]+)/permission)",
                [this, permission_delay_s](const httplib::Request& req, httplib::Response& res) {
                  ++lookups;
                  std::this_thread::sleep_for(std::chrono::duration<double>(permission_delay_s));
                  res.set_content(json{{"permission", "write"},
                                       {"role_name", "write"},
                                       {"user", {{"login", req.matches[2]}}}}
                                      .dump(),
                                  "application/json");
                });
    auto any = [](const httplib::Request& req, httplib::Response& res) {
      res.status = req.method == "POST" ? 201 : 200;
      res.set_content(req.method == "GET" ? "[]" : R"({"id": 1, "html_url": "https://x"})",
                      "application/json");
    };
    server_.Post(".*", any);
    server_.Patch(".*", any);
    server_.Get(".*", any);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~SlowGitHub() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::atomic<int> lookups{0};

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

// A GitHub that accepts connections into its backlog and never answers.
class BlackHole {
 public:
  BlackHole() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t size = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &size);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 64);
  }
  ~BlackHole() { close(fd_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

class SlowGitHubTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup";
    std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
    write(dir / "job.sh", "#!/bin/sh\nexit 0\n");
    std::filesystem::permissions(dir / "job.sh", std::filesystem::perms::owner_all);
  }
  std::unique_ptr<ServeProcess> serve(const std::string& api_url, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--listen",      "127.0.0.1:0",
                                     "--repo",        (dir / "repo").string(),
                                     "--state-dir",   (dir / "state").string(),
                                     "--job-command", (dir / "job.sh").string(),
                                     "--no-recovery", "--durability",
                                     "normal",        "--forge",
                                     "github"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<ServeProcess>(
        args,
        std::map<std::string, std::string>{{"KGATE_WEBHOOK_SECRET", kSecret},
                                           {"GITHUB_TOKEN", kToken},
                                           {"KGATE_GITHUB_API_URL", api_url}},
        dir / "serve.log");
  }
  static json fork_pr(int number) {
    json p = example_payload("pull_request", "opened");
    p["pull_request"]["head"]["repo"]["full_name"] = "stranger/Hello-World";
    p["pull_request"]["number"] = number;
    return p;
  }
  int64_t count(const std::string& sql) { return query_int(dir / "state/queue.db", sql); }

  TempDir dir;
};

TEST_F(SlowGitHubTest, ASlowPermissionLookupHoldsUpNoOtherDelivery) {
  SlowGitHub github(3.5);
  auto server = serve(github.url(), {});
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(10);
  ASSERT_EQ(post_delivery(client, "pull_request", fork_pr(2).dump(), "fork-2")->status, 202);

  // A maintainer's approval: their permission must be asked of GitHub.
  json approve = example_payload("issue_comment", "created");
  approve["comment"]["body"] = "/kgate approve";
  approve["comment"]["author_association"] = "MEMBER";
  approve["issue"]["number"] = 2;
  approve["issue"]["pull_request"] = {{"url", "https://api.github.com/repos/x/y/pulls/2"}};
  auto asked = Clock::now();
  auto r = post_delivery(client, "issue_comment", approve.dump(), "approve-1");
  double approve_s = std::chrono::duration<double>(Clock::now() - asked).count();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(json::parse(r->body).value("pending", false), true) << r->body;
  EXPECT_LT(approve_s, 1.0);

  // Pings while GitHub takes its time: each answered at once.
  double slowest = 0;
  httplib::Client pinger("127.0.0.1", server->port());
  pinger.set_read_timeout(10);
  for (int i = 0; i < 20; ++i) {
    auto start = Clock::now();
    auto ping = post_delivery(pinger, "ping", json{{"zen", "Speak like a human."}}.dump(),
                              "ping-" + std::to_string(i));
    ASSERT_TRUE(ping);
    EXPECT_EQ(ping->status, 202);
    slowest = std::max(slowest, std::chrono::duration<double>(Clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_LT(slowest, 1.0);  // a pending lookup held unrelated pings for 3.5 s

  // Once GitHub answered, the approval is routed: stored, and the gate queued.
  ASSERT_TRUE(eventually([&] { return count("SELECT count(*) FROM approvals") == 1; }, 20))
      << server->log();
  EXPECT_EQ(count("SELECT count(*) FROM pending"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM jobs WHERE kind='gate'"), 1);
  EXPECT_EQ(github.lookups, 1);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(SlowGitHubTest, ShutdownWithGitHubUnreachableEndsWithinTheDrainTimeout) {
  BlackHole github;
  auto server = serve(github.url(), {"--drain-timeout", "2"});
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  // Three fork pull requests: three "waiting for approval" notices GitHub never takes.
  for (int n = 2; n <= 4; ++n)
    ASSERT_EQ(post_delivery(client, "pull_request", fork_pr(n).dump(), "fork-" + std::to_string(n))
                  ->status,
              202);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the first notice is in flight
  auto asked = Clock::now();
  EXPECT_EQ(server->terminate(60), 0);
  double stop_s = std::chrono::duration<double>(Clock::now() - asked).count();
  // --drain-timeout 2, plus the one notice call in flight (5 s at most).
  EXPECT_LT(stop_s, 9.0) << server->log();
  EXPECT_EQ(count("SELECT count(*) FROM notices WHERE sent=0"), 3);  // kept for the next start
}

}  // namespace
}  // namespace kgate::testing
