// --dispatch actions against a real HTTP server on 127.0.0.1 standing in for
// api.github.com: the job becomes a workflow_dispatch request with the right
// path, token and inputs; server errors are retried, refusals are not.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "serve_fixture.h"
#include "webhooks/actions_dispatcher.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

struct FakeGitHub {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::mutex mutex;
  std::vector<std::pair<std::string, json>> requests;  // path, body
  std::vector<std::string> auth;
  std::atomic<int> fail_first{0};
  std::atomic<int> status{204};

  FakeGitHub() {
    server.Post(R"(.*/dispatches)", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(mutex);
        requests.push_back({req.path, json::parse(req.body, nullptr, false)});
        auth.push_back(req.get_header_value("Authorization"));
      }
      if (fail_first > 0) {
        --fail_first;
        res.status = 502;
        return;
      }
      res.status = status;
      if (res.status != 204)
        res.set_content(R"({"message":"Unexpected inputs provided"})", "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~FakeGitHub() {
    server.stop();
    thread.join();
  }
  size_t count() {
    std::lock_guard lock(mutex);
    return requests.size();
  }
};

TEST(ActionsDispatch, ServeDispatchesJobsAsWorkflowDispatch) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  FakeGitHub github;
  github.fail_first = 1;  // the first attempt meets a 502 and is retried
  TempDir dir;
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  ServeProcess server(
      {"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(), "--state-dir",
       (dir / "state").string(), "--dispatch", "actions", "--retry-base", "0.1", "--dispatch-ref",
       "master"},
      {{"KGATE_WEBHOOK_SECRET", kSecret},
       {"KGATE_GITHUB_TOKEN", "ghs_test_token"},
       {"KGATE_GITHUB_API_URL", "http://127.0.0.1:" + std::to_string(github.port) + "/api/v3"}},
      dir / "serve.log");
  ASSERT_TRUE(server.start()) << server.log();
  httplib::Client client("127.0.0.1", server.port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "a-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='done'") == 1;
  })) << server.log();
  ASSERT_EQ(github.count(), 2u);
  EXPECT_EQ(github.requests[1].first,
            "/api/v3/repos/Codertocat/Hello-World/actions/workflows/kgate-gate.yml/dispatches");
  EXPECT_EQ(github.auth[1], "Bearer ghs_test_token");
  const json& body = github.requests[1].second;
  EXPECT_EQ(body["ref"], "master");
  EXPECT_EQ(body["inputs"]["command"], "gate");
  EXPECT_EQ(body["inputs"]["pr"], "2");
  EXPECT_EQ(body["inputs"]["head"], "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  EXPECT_FALSE(body["inputs"].value("base", "").empty());
  EXPECT_EQ(query_strings(db, "SELECT outcome FROM jobs"), std::vector<std::string>{"dispatched"});

  // A refusal (422) is a configuration error: failed at once, with GitHub's message.
  github.status = 422;
  json comment = example_payload("issue_comment", "created");
  comment["comment"]["body"] = "/kgate optimize rmsnorm";
  r = post_delivery(client, "issue_comment", comment.dump(), "a-2");
  ASSERT_TRUE(r);
  ASSERT_TRUE(eventually(
      [&] { return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1; }));
  EXPECT_EQ(github.count(), 3u);
  EXPECT_EQ(github.requests[2].first,
            "/api/v3/repos/Codertocat/Hello-World/actions/workflows/kgate-optimize.yml/dispatches");
  EXPECT_EQ(github.requests[2].second["inputs"]["kernel"], "rmsnorm");
  EXPECT_FALSE(github.requests[2].second["inputs"].contains("pr"));
  auto reason = query_strings(db, "SELECT last_error FROM jobs WHERE state='failed'");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_NE(reason[0].find("422"), std::string::npos);
  EXPECT_NE(reason[0].find("Unexpected inputs"), std::string::npos);
  EXPECT_EQ(server.terminate(), 0);
}

TEST(ActionsDispatch, WithoutTokenServeRefusesToStart) {
  TempDir dir;
  auto outcome = run_kgate(
      {"serve", "--listen", "127.0.0.1:0", "--repo", dir.path().string(), "--dispatch", "actions"},
      "", 30);
  // The secret is checked first; with one, the missing token is named.
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
}

}  // namespace
}  // namespace kgate::testing
