// --dispatch actions against a real HTTP server on 127.0.0.1 standing in for
// api.github.com: the job becomes a workflow_dispatch of the default
// branch's workflow asking for the run's details; a gate first queues the
// `kgate` check run on the pull request's head (not on the dispatch ref) and
// links it to the run; a dispatch is never sent twice once it may have
// reached GitHub (a 5xx, a time-out), only one that never left is tried
// again; refusals are not retried, and a failed dispatch never leaves its
// check run queued. Every request body is validated against GitHub's OpenAPI
// description (@octokit/openapi).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <optional>

#include "bot/node_fixtures.h"
#include "bot/openapi_validator.h"
#include "serve_fixture.h"
#include "webhooks/actions_dispatcher.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

// A port of 127.0.0.1 nothing listens on: bound and closed again without a
// listen(), so a connection to it is refused before a byte is sent.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0)
    ADD_FAILURE() << "no free port on 127.0.0.1";
  ::close(fd);
  return ntohs(addr.sin_port);
}

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
  std::atomic<int> check_status{201};        // 403: a token that cannot create check runs
  std::atomic<int> check_lost{0};            // create this many check runs and answer 502
  std::atomic<int> list_status{200};         // the answer to a listing of a commit's check runs
  std::vector<std::string> looked_up_names;  // check_name of each check-run listing
  std::optional<json> dispatch_answer;       // instead of the run's details (a 200)
  std::optional<json> listing_answer;        // instead of the head's check runs
  std::atomic<int> dispatch_delay_ms{0};     // answer dispatches this late

  FakeActions() {
    auto record = [this](const httplib::Request& req) {
      std::lock_guard lock(mutex);
      requests.push_back({req.method, req.path, json::parse(req.body, nullptr, false),
                          req.get_header_value("Authorization")});
    };
    server.Post(
        R"(.*/dispatches)", [this, record](const httplib::Request& req, httplib::Response& res) {
          record(req);
          std::this_thread::sleep_for(std::chrono::milliseconds(dispatch_delay_ms.load()));
          if (fail_first > 0) {
            --fail_first;
            res.status = 502;
            return;
          }
          res.status = status;
          std::lock_guard lock(mutex);
          if (res.status == 200 && dispatch_answer)
            res.set_content(dispatch_answer->dump(), "application/json");
          else if (res.status == 200)
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
                  if (check_lost > 0) {  // created, but the answer is a gateway's error
                    --check_lost;
                    res.status = 502;
                    return;
                  }
                  res.set_content(run.dump(), "application/json");
                });
    // GitHub's listing of a commit's check runs, filtered by name as GitHub does.
    server.Get(R"(.*/commits/([^/]+)/check-runs)", [this, record](const httplib::Request& req,
                                                                  httplib::Response& res) {
      record(req);
      std::lock_guard lock(mutex);
      looked_up_names.push_back(req.get_param_value("check_name"));
      res.status = list_status;
      if (res.status != 200) return;
      if (listing_answer) {
        res.set_content(listing_answer->dump(), "application/json");
        return;
      }
      json listed = json::array();
      for (const auto& [id, run] : check_runs)
        if (run["head_sha"] == req.matches[1].str() &&
            run["name"] == req.get_param_value("check_name"))
          listed.push_back(run);
      res.set_content(json{{"total_count", listed.size()}, {"check_runs", listed}}.dump(),
                      "application/json");
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
  std::vector<Request> check_run_posts() {
    std::vector<Request> out;
    for (const auto& r : all())
      if (r.method == "POST" && r.path.ends_with("/check-runs")) out.push_back(r);
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
  webhooks::ActionsDispatcher dispatcher(const std::string& api, double timeout_s = 30,
                                         const std::string& check_name = "kgate") {
    webhooks::ActionsDispatchOptions options;
    options.api_url = api;
    options.timeout_s = timeout_s;
    options.check_name = check_name;
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
  ASSERT_EQ(requests.size(), 4u);
  // 1. No check run of this job is queued on the head yet (an earlier attempt's would be used).
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path,
            "/api/v3/repos/octo/kernels/commits/" + std::string(40, 'h') + "/check-runs");
  // 2. The check run, queued, on the pull request's head commit.
  EXPECT_EQ(requests[1].method, "POST");
  EXPECT_EQ(requests[1].path, "/api/v3/repos/octo/kernels/check-runs");
  EXPECT_EQ(requests[1].body["head_sha"], std::string(40, 'h'));
  EXPECT_EQ(requests[1].body["status"], "queued");
  EXPECT_EQ(requests[1].body["name"], "kgate");
  EXPECT_EQ(requests[1].body["external_id"], "kgate-job-17");
  // 3. The dispatch of the default branch's workflow, with the check run to complete.
  EXPECT_EQ(requests[2].path,
            "/api/v3/repos/octo/kernels/actions/workflows/kgate-gate.yml/dispatches");
  EXPECT_EQ(requests[2].body["ref"], "main");
  EXPECT_EQ(requests[2].body["return_run_details"], true);
  EXPECT_EQ(requests[2].body["inputs"]["check_run"], "7000");
  EXPECT_EQ(requests[2].body["inputs"]["head"], std::string(40, 'h'));
  EXPECT_EQ(requests[2].body["inputs"]["pr"], "9");
  // 4. The check run links to the Actions run.
  EXPECT_EQ(requests[3].method, "PATCH");
  EXPECT_EQ(github.check_runs[7000]["details_url"],
            "https://github.com/Codertocat/Hello-World/actions/runs/4242");
  EXPECT_EQ(github.check_runs[7000]["status"], "queued");
  EXPECT_NE(result.outcome.find("run 4242"), std::string::npos) << result.outcome;
  EXPECT_EQ(validated_, 3);
}

TEST_F(ActionsDispatcherTest, AFailedDispatchCompletesItsCheckRunAndIsNeverSentTwice) {
  FakeActions github;
  auto d = dispatcher(github.api());
  // A 502 may still have started the run: the dispatch is not sent again, by
  // the client or by the job, and the outcome says how to re-run it by hand.
  github.fail_first = 1;
  webhooks::JobResult answered_502 = d.execute(gate_job(), {});
  EXPECT_FALSE(answered_502.ok);
  EXPECT_FALSE(answered_502.retryable);
  EXPECT_EQ(github.dispatches().size(), 1u);
  EXPECT_NE(answered_502.outcome.find("workflow_dispatch of kgate-gate.yml answered 502; not sent "
                                      "again because GitHub may have started the run"),
            std::string::npos)
      << answered_502.outcome;
  EXPECT_NE(answered_502.outcome.find("with job_id 17 in octo/kernels's Actions"),
            std::string::npos)
      << answered_502.outcome;
  EXPECT_NE(answered_502.outcome.find("re-run with `gh workflow run kgate-gate.yml --repo "
                                      "octo/kernels --ref main -f base=" +
                                      std::string(40, 'b') + " -f command=gate"),
            std::string::npos)
      << answered_502.outcome;
  EXPECT_EQ(answered_502.outcome.find("check_run"), std::string::npos) << answered_502.outcome;
  EXPECT_EQ(github.check_runs[7000]["status"], "completed");
  EXPECT_EQ(github.check_runs[7000]["conclusion"], "neutral");
  EXPECT_NE(github.check_runs[7000]["output"]["summary"].get<std::string>().find("gh workflow run"),
            std::string::npos);

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

TEST_F(ActionsDispatcherTest, ACheckRunCreatedBehindA5xxIsUsedWhenTheJobIsTriedAgain) {
  // GitHub created the check run but a gateway answered 502: the job fails
  // retryably (nothing was dispatched), and its next attempt finds the run
  // by its external_id instead of queueing a second one on the head. The
  // name has characters a query must escape.
  FakeActions github;
  github.check_lost = 1;
  auto d = dispatcher(github.api(), 30, "kgate / H100 & A100");
  webhooks::JobResult lost = d.execute(gate_job(), {});
  EXPECT_FALSE(lost.ok);
  EXPECT_TRUE(lost.retryable) << lost.outcome;
  EXPECT_NE(lost.outcome.find("502"), std::string::npos) << lost.outcome;
  EXPECT_TRUE(github.dispatches().empty());
  ASSERT_EQ(github.check_runs.size(), 1u);

  webhooks::JobResult retried = d.execute(gate_job(), {});
  ASSERT_TRUE(retried.ok) << retried.outcome;
  EXPECT_EQ(github.check_run_posts().size(), 1u);
  EXPECT_EQ(github.check_runs.size(), 1u);
  auto dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_EQ(dispatches[0].body["inputs"]["check_run"], "7000");
  EXPECT_EQ(github.check_runs[7000]["details_url"],
            "https://github.com/Codertocat/Hello-World/actions/runs/4242");
  EXPECT_EQ(github.looked_up_names, std::vector<std::string>(2, "kgate / H100 & A100"));

  // Another job on the same head, and this job's own run once completed,
  // are not reused: each queues its own.
  webhooks::StoredJob other = gate_job();
  other.id = 18;
  ASSERT_TRUE(d.execute(other, {}).ok);
  EXPECT_EQ(github.check_run_posts().size(), 2u);
  github.check_runs[7000]["status"] = "completed";
  ASSERT_TRUE(d.execute(gate_job(), {}).ok);
  EXPECT_EQ(github.check_run_posts().size(), 3u);
}

TEST_F(ActionsDispatcherTest, AnswersWithoutTheFieldsGitHubDocumentsAreReadAsAbsent) {
  // A proxy or an older GitHub Enterprise: check runs without ids, a 200
  // dispatch without the run's details. Nothing is reused, nothing breaks.
  FakeActions github;
  github.listing_answer = json{
      {"check_runs",
       json::array(
           {json::object(), {{"id", "7000"}}, {{"external_id", "kgate-job-17"}}, 5, nullptr})}};
  github.dispatch_answer = json{{"workflow_run_id", "not a number"}};
  auto d = dispatcher(github.api());
  webhooks::JobResult result = d.execute(gate_job(), {});
  ASSERT_TRUE(result.ok) << result.outcome;
  EXPECT_EQ(result.outcome, "dispatched, check run 7000");
  EXPECT_EQ(github.check_run_posts().size(), 1u);
  github.dispatch_answer = json{{"html_url", "https://github.com/o/r/actions/runs/1"}};
  result = d.execute(gate_job(), {});
  ASSERT_TRUE(result.ok) << result.outcome;
  EXPECT_NE(result.outcome.find("dispatched run ? https://github.com/o/r/actions/runs/1"),
            std::string::npos)
      << result.outcome;
}

TEST_F(ActionsDispatcherTest, ACheckRunListingThatFailsIsTriedAgainBeforeAnythingIsCreated) {
  // A 5xx on the look-up: nothing was created, the job tries again later.
  FakeActions github;
  github.list_status = 503;
  auto d = dispatcher(github.api());
  webhooks::JobResult failed = d.execute(gate_job(), {});
  EXPECT_FALSE(failed.ok);
  EXPECT_TRUE(failed.retryable);
  EXPECT_NE(failed.outcome.find("503"), std::string::npos) << failed.outcome;
  EXPECT_TRUE(github.check_run_posts().empty());
  EXPECT_TRUE(github.dispatches().empty());
}

TEST_F(ActionsDispatcherTest, ADispatchThatTimedOutAfterSendingIsNotSentAgain) {
  // GitHub got the request and did not answer in time: it may be starting
  // the run, so the dispatch is not sent again.
  FakeActions github;
  github.dispatch_delay_ms = 3000;
  auto d = dispatcher(github.api(), /*timeout_s=*/0.5);
  webhooks::StoredJob job = gate_job();
  job.spec.kind = webhooks::JobKind::kSweep;
  webhooks::JobResult timed_out = d.execute(job, {});
  EXPECT_FALSE(timed_out.ok);
  EXPECT_FALSE(timed_out.retryable) << timed_out.outcome;
  EXPECT_NE(timed_out.outcome.find("not sent again because GitHub may have started the run"),
            std::string::npos)
      << timed_out.outcome;
  EXPECT_NE(timed_out.outcome.find("gh workflow run kgate-optimize.yml"), std::string::npos)
      << timed_out.outcome;
  EXPECT_EQ(github.dispatches().size(), 1u);
}

TEST_F(ActionsDispatcherTest, ADispatchThatNeverLeftIsTriedAgain) {
  // Nothing listens on the port: the connection is refused before a byte of
  // the request leaves, so no run can have started and the job may retry.
  const int port = closed_port();
  auto d = dispatcher("http://127.0.0.1:" + std::to_string(port) + "/api/v3");
  webhooks::StoredJob job = gate_job();
  job.spec.kind = webhooks::JobKind::kOptimize;  // no check run: the dispatch is the first request
  job.spec.kernel = "rmsnorm";
  webhooks::JobResult refused = d.execute(job, {});
  EXPECT_FALSE(refused.ok);
  EXPECT_TRUE(refused.retryable) << refused.outcome;
  EXPECT_EQ(refused.outcome.find("may have started"), std::string::npos) << refused.outcome;
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
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_EQ(dispatches[0].path,
            "/api/v3/repos/Codertocat/Hello-World/actions/workflows/kgate-gate.yml/dispatches");
  EXPECT_EQ(dispatches[0].auth, "token ghs_test_token");
  const json& body = dispatches[0].body;
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
  ASSERT_EQ(dispatches.size(), 2u);
  EXPECT_EQ(dispatches[1].path,
            "/api/v3/repos/Codertocat/Hello-World/actions/workflows/kgate-optimize.yml/dispatches");
  EXPECT_EQ(dispatches[1].body["inputs"]["kernel"], "rmsnorm");
  EXPECT_FALSE(dispatches[1].body["inputs"].contains("pr"));
  EXPECT_FALSE(dispatches[1].body["inputs"].value("requested_by", "").empty());
  auto reason = query_strings(db, "SELECT last_error FROM jobs WHERE state='failed'");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_NE(reason[0].find("422"), std::string::npos);
  EXPECT_NE(reason[0].find("Unexpected inputs"), std::string::npos);
  EXPECT_EQ(server.terminate(), 0);
}

// The job queue's side of "never sent twice": a 502 on the dispatch is one
// POST and a failed job saying why and how to re-run it, not a retried job
// (which could start a second workflow run); the queue retries only what
// never reached GitHub (a refused connection).
TEST(ActionsDispatch, ServeNeverSendsADispatchTwiceAfterA5xx) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  FakeActions github;
  github.fail_first = 1;      // the only dispatch is answered 502
  github.check_status = 403;  // a token: the gate's first POST is the dispatch
  TempDir dir;
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  ServeProcess server({"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(), "--state-dir",
                       (dir / "state").string(), "--dispatch", "actions", "--retry-base", "0.05",
                       "--max-attempts", "3", "--dispatch-ref", "master"},
                      {{"KGATE_WEBHOOK_SECRET", kSecret},
                       {"KGATE_GITHUB_TOKEN", "ghs_test_token"},
                       {"KGATE_GITHUB_API_URL", github.api()}},
                      dir / "serve.log");
  ASSERT_TRUE(server.start()) << server.log();
  httplib::Client client("127.0.0.1", server.port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "b-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1;
  })) << server.log();
  // Failed is final: no attempt is left queued to send the dispatch again.
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM jobs WHERE state!='failed'"), 0);
  EXPECT_EQ(query_int(db, "SELECT attempts FROM jobs"), 1);
  EXPECT_EQ(github.dispatches().size(), 1u);
  auto reason = query_strings(db, "SELECT last_error FROM jobs");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_EQ(reason[0].rfind("workflow_dispatch of kgate-gate.yml answered 502; not sent again "
                            "because GitHub may have started the run: look for a run of "
                            "kgate-gate.yml with job_id ",
                            0),
            0u)
      << reason[0];
  EXPECT_NE(reason[0].find("re-run with `gh workflow run kgate-gate.yml --repo "
                           "Codertocat/Hello-World --ref master "),
            std::string::npos)
      << reason[0];
  EXPECT_NE(reason[0].find("(attempt 1 of 3)"), std::string::npos) << reason[0];
  EXPECT_EQ(server.terminate(), 0);
  EXPECT_EQ(github.dispatches().size(), 1u);
}

// The job queue's side of "one check run per job": the check run's creation
// answered 502 after GitHub made it; the retried job uses that run.
TEST(ActionsDispatch, ServeQueuesOneCheckRunWhenItsCreationAnswered5xx) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  FakeActions github;
  github.check_lost = 1;
  TempDir dir;
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  ServeProcess server({"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(), "--state-dir",
                       (dir / "state").string(), "--dispatch", "actions", "--retry-base", "0.05",
                       "--max-attempts", "3", "--dispatch-ref", "master"},
                      {{"KGATE_WEBHOOK_SECRET", kSecret},
                       {"KGATE_GITHUB_TOKEN", "ghs_test_token"},
                       {"KGATE_GITHUB_API_URL", github.api()}},
                      dir / "serve.log");
  ASSERT_TRUE(server.start()) << server.log();
  httplib::Client client("127.0.0.1", server.port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "d-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='done'") == 1;
  })) << server.log();
  EXPECT_EQ(query_int(db, "SELECT attempts FROM jobs"), 2);
  EXPECT_EQ(github.check_run_posts().size(), 1u);
  auto dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_EQ(dispatches[0].body["inputs"]["check_run"], "7000");
  EXPECT_EQ(server.terminate(), 0);
}

TEST(ActionsDispatch, ServeRetriesADispatchThatNeverReachedGitHub) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  const int port = closed_port();
  TempDir dir;
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  ServeProcess server(
      {"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(), "--state-dir",
       (dir / "state").string(), "--dispatch", "actions", "--retry-base", "0.05", "--max-attempts",
       "3", "--dispatch-ref", "master"},
      {{"KGATE_WEBHOOK_SECRET", kSecret},
       {"KGATE_GITHUB_TOKEN", "ghs_test_token"},
       {"KGATE_GITHUB_API_URL", "http://127.0.0.1:" + std::to_string(port) + "/api/v3"}},
      dir / "serve.log");
  ASSERT_TRUE(server.start()) << server.log();
  httplib::Client client("127.0.0.1", server.port());
  json comment = example_payload("issue_comment", "created");
  comment["comment"]["body"] = "/kgate optimize rmsnorm";  // no check run: the dispatch is first
  auto r = post_delivery(client, "issue_comment", comment.dump(), "c-1");
  ASSERT_TRUE(r);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1;
  })) << server.log();
  EXPECT_EQ(query_int(db, "SELECT attempts FROM jobs"), 3);
  auto reason = query_strings(db, "SELECT last_error FROM jobs");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_EQ(reason[0].find("may have started"), std::string::npos) << reason[0];
  EXPECT_NE(reason[0].find("(attempt 3 of 3)"), std::string::npos) << reason[0];
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
