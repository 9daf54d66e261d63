// --dispatch actions against a real HTTP server on 127.0.0.1 standing in for
// api.github.com: the job becomes a workflow_dispatch of the default
// branch's workflow asking for the run's details; a gate first queues the
// `kgate` check run on the pull request's head (not on the dispatch ref) and
// links it to the run; server errors are retried, refusals are not, and a
// failed dispatch never leaves its check run queued. Every request body is
// validated against GitHub's OpenAPI description (@octokit/openapi).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "bot/node_fixtures.h"
#include "bot/openapi_validator.h"
#include "serve_fixture.h"
#include "webhooks/actions_dispatcher.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

struct Request {
  std::string method, path;
  json body;
  std::string auth;
};

struct FakeActions {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::mutex mutex;
  std::vector<Request> requests;
  std::map<long long, json> check_runs;
  long long next_id = 7000;
  std::atomic<int> fail_first{0};
  std::atomic<int> status{200};
  std::atomic<int> check_status{201};  // 403: a token that cannot create check runs

  FakeActions() {
    auto record = [this](const httplib::Request& req) {
      std::lock_guard lock(mutex);
      requests.push_back({req.method, req.path, json::parse(req.body, nullptr, false),
                          req.get_header_value("Authorization")});
    };
    server.Post(
        R"(.*/dispatches)", [this, record](const httplib::Request& req, httplib::Response& res) {
          record(req);
          if (fail_first > 0) {
            --fail_first;
            res.status = 502;
            return;
          }
          res.status = status;
          if (res.status == 200)
            res.set_content(
                json{{"workflow_run_id", 4242},
                     {"run_url", "https://api.github.com/repos/o/r/actions/runs/4242"},
                     {"html_url", "https://github.com/Codertocat/Hello-World/actions/runs/4242"}}
                    .dump(),
                "application/json");
          else if (res.status != 204)
            res.set_content(R"({"message":"Unexpected inputs provided"})", "application/json");
        });
    server.Post(R"(.*/check-runs)",
                [this, record](const httplib::Request& req, httplib::Response& res) {
                  record(req);
                  res.status = check_status;
                  if (res.status != 201) {
                    res.set_content(R"({"message":"You must authenticate via a GitHub App."})",
                                    "application/json");
                    return;
                  }
                  std::lock_guard lock(mutex);
                  json run = json::parse(req.body);
                  run["id"] = next_id++;
                  check_runs[run["id"]] = run;
                  res.set_content(run.dump(), "application/json");
                });
    server.Patch(R"(.*/check-runs/(\d+))",
                 [this, record](const httplib::Request& req, httplib::Response& res) {
                   record(req);
                   std::lock_guard lock(mutex);
                   long long id = std::stoll(req.matches[1]);
                   json update = json::parse(req.body);
                   for (auto& [k, v] : update.items()) check_runs[id][k] = v;
                   res.set_content(check_runs[id].dump(), "application/json");
                 });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeActions() {
    server.stop();
    thread.join();
  }
  std::string api() const { return "http://127.0.0.1:" + std::to_string(port) + "/api/v3"; }
  std::vector<Request> all() {
    std::lock_guard lock(mutex);
    return requests;
  }
  std::vector<Request> dispatches() {
    std::vector<Request> out;
    for (const auto& r : all())
      if (r.path.ends_with("/dispatches")) out.push_back(r);
    return out;
  }
};

class ActionsDispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string missing = missing_npm_packages();
    if (!missing.empty()) GTEST_SKIP() << missing;
    openapi_ = OpenApiValidator::load(node_modules_dir());
    ASSERT_TRUE(openapi_);
  }
  webhooks::ActionsDispatcher dispatcher(const std::string& api) {
    webhooks::ActionsDispatchOptions options;
    options.api_url = api;
    options.credentials = std::make_shared<bot::TokenCredentials>("ghs_dispatchToken0123456789");
    options.on_request = [this](const std::string& method, const std::string& url,
                                const std::optional<json>& body) {
      if (!body) return;
      ++validated_;
      for (const auto& e : openapi_->validate(method, url, *body))
        ADD_FAILURE() << method << " " << url << ": " << e;
    };
    return webhooks::ActionsDispatcher(options);
  }
  static webhooks::StoredJob gate_job() {
    webhooks::StoredJob job;
    job.id = 17;
    job.spec = {.kind = webhooks::JobKind::kGate,
                .repository = "octo/kernels",
                .pull_number = 9,
                .base = std::string(40, 'b'),
                .head = std::string(40, 'h'),
                .reason = "/kgate approve by alice"};
    return job;
  }
  std::shared_ptr<OpenApiValidator> openapi_;
  int validated_ = 0;
};

TEST_F(ActionsDispatcherTest, AGateQueuesTheCheckRunOnTheHeadAndLinksItToTheRun) {
  FakeActions github;
  auto d = dispatcher(github.api());
  webhooks::JobResult result = d.execute(gate_job(), {});
  ASSERT_TRUE(result.ok) << result.outcome;
  auto requests = github.all();
  ASSERT_EQ(requests.size(), 3u);
  // 1. The check run, queued, on the pull request's head commit.
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/api/v3/repos/octo/kernels/check-runs");
  EXPECT_EQ(requests[0].body["head_sha"], std::string(40, 'h'));
  EXPECT_EQ(requests[0].body["status"], "queued");
  EXPECT_EQ(requests[0].body["name"], "kgate");
  EXPECT_EQ(requests[0].body["external_id"], "kgate-job-17");
  // 2. The dispatch of the default branch's workflow, with the check run to complete.
  EXPECT_EQ(requests[1].path,
            "/api/v3/repos/octo/kernels/actions/workflows/kgate-gate.yml/dispatches");
  EXPECT_EQ(requests[1].body["ref"], "main");
  EXPECT_EQ(requests[1].body["return_run_details"], true);
  EXPECT_EQ(requests[1].body["inputs"]["check_run"], "7000");
  EXPECT_EQ(requests[1].body["inputs"]["head"], std::string(40, 'h'));
  EXPECT_EQ(requests[1].body["inputs"]["pr"], "9");
  // 3. The check run links to the Actions run.
  EXPECT_EQ(requests[2].method, "PATCH");
  EXPECT_EQ(github.check_runs[7000]["details_url"],
            "https://github.com/Codertocat/Hello-World/actions/runs/4242");
  EXPECT_EQ(github.check_runs[7000]["status"], "queued");
  EXPECT_NE(result.outcome.find("run 4242"), std::string::npos) << result.outcome;
  EXPECT_EQ(validated_, 3);
}

TEST_F(ActionsDispatcherTest, AFailedDispatchCompletesItsCheckRunAndRetriesOnlyServerErrors) {
  FakeActions github;
  auto d = dispatcher(github.api());
  github.fail_first = 1;
  webhooks::JobResult retry = d.execute(gate_job(), {});
  EXPECT_FALSE(retry.ok);
  EXPECT_TRUE(retry.retryable);
  EXPECT_EQ(github.check_runs[7000]["status"], "completed");
  EXPECT_EQ(github.check_runs[7000]["conclusion"], "neutral");

  github.status = 422;  // the workflow on the default branch does not declare an input
  webhooks::JobResult refused = d.execute(gate_job(), {});
  EXPECT_FALSE(refused.ok);
  EXPECT_FALSE(refused.retryable);
  EXPECT_NE(refused.outcome.find("Unexpected inputs"), std::string::npos);
  EXPECT_EQ(github.check_runs[7001]["conclusion"], "failure");
  EXPECT_NE(github.check_runs[7001]["output"]["summary"].get<std::string>().find("422"),
            std::string::npos);
  for (const auto& [id, run] : github.check_runs) EXPECT_EQ(run["status"], "completed") << id;
}

TEST_F(ActionsDispatcherTest, ATokenThatCannotCreateCheckRunsStillDispatches) {
  FakeActions github;
  github.check_status = 403;
  github.status = 204;  // a GitHub without return_run_details
  auto d = dispatcher(github.api());
  webhooks::JobResult result = d.execute(gate_job(), {});
  ASSERT_TRUE(result.ok) << result.outcome;
  EXPECT_NE(result.outcome.find("no queued check run"), std::string::npos) << result.outcome;
  auto dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_FALSE(dispatches[0].body["inputs"].contains("check_run"));
}

TEST_F(ActionsDispatcherTest, BotCommandsGoToTheWorkWorkflow) {
  FakeActions github;
  auto d = dispatcher(github.api());
  webhooks::StoredJob job;
  job.id = 3;
  job.spec = {.kind = webhooks::JobKind::kIgnore,
              .repository = "octo/kernels",
              .pull_number = 12,
              .kernel = "rmsnorm",
              .reason = "/kgate ignore by alice",
              .requested_by = "alice"};
  ASSERT_TRUE(d.execute(job, {}).ok);
  job.spec.kind = webhooks::JobKind::kRebase;
  ASSERT_TRUE(d.execute(job, {}).ok);
  auto dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 2u);
  ASSERT_EQ(github.all().size(), 2u);  // no check run for these
  EXPECT_EQ(dispatches[0].path,
            "/api/v3/repos/octo/kernels/actions/workflows/kgate-optimize.yml/dispatches");
  EXPECT_EQ(dispatches[0].body["inputs"], json({{"command", "ignore"},
                                                {"job_id", "3"},
                                                {"pr", "12"},
                                                {"kernel", "rmsnorm"},
                                                {"requested_by", "alice"}}));
  EXPECT_EQ(dispatches[1].body["inputs"]["command"], "rebase");
}

TEST(ActionsDispatch, ServeDispatchesJobsAsWorkflowDispatch) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  FakeActions github;
  github.fail_first = 1;  // the first attempt meets a 502 and is retried
  TempDir dir;
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  ServeProcess server({"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(), "--state-dir",
                       (dir / "state").string(), "--dispatch", "actions", "--retry-base", "0.1",
                       "--dispatch-ref", "master"},
                      {{"KGATE_WEBHOOK_SECRET", kSecret},
                       {"KGATE_GITHUB_TOKEN", "ghs_test_token"},
                       {"KGATE_GITHUB_API_URL", github.api()}},
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
  auto dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 2u);
  EXPECT_EQ(dispatches[1].path,
            "/api/v3/repos/Codertocat/Hello-World/actions/workflows/kgate-gate.yml/dispatches");
  EXPECT_EQ(dispatches[1].auth, "token ghs_test_token");
  const json& body = dispatches[1].body;
  EXPECT_EQ(body["ref"], "master");
  EXPECT_EQ(body["inputs"]["command"], "gate");
  EXPECT_EQ(body["inputs"]["pr"], "2");
  EXPECT_EQ(body["inputs"]["head"], "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  EXPECT_FALSE(body["inputs"].value("base", "").empty());
  auto outcomes = query_strings(db, "SELECT outcome FROM jobs");
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].rfind("dispatched run 4242", 0), 0u) << outcomes[0];

  // A refusal (422) is a configuration error: failed at once, with GitHub's message.
  github.status = 422;
  json comment = example_payload("issue_comment", "created");
  comment["comment"]["body"] = "/kgate optimize rmsnorm";
  r = post_delivery(client, "issue_comment", comment.dump(), "a-2");
  ASSERT_TRUE(r);
  ASSERT_TRUE(eventually(
      [&] { return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1; }));
  dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 3u);
  EXPECT_EQ(dispatches[2].path,
            "/api/v3/repos/Codertocat/Hello-World/actions/workflows/kgate-optimize.yml/dispatches");
  EXPECT_EQ(dispatches[2].body["inputs"]["kernel"], "rmsnorm");
  EXPECT_FALSE(dispatches[2].body["inputs"].contains("pr"));
  EXPECT_FALSE(dispatches[2].body["inputs"].value("requested_by", "").empty());
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
