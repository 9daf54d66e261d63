// --dispatch actions against a real HTTP server on 127.0.0.1 standing in for
// api.github.com: the job becomes a workflow_dispatch of the default
// branch's workflow asking for the run's details; a gate first queues the
// `kgate` check run on the pull request's head (not on the dispatch ref) and
// links it to the run; a dispatch is never sent twice once it may have
// reached GitHub (a 5xx, a time-out), only one that never left is tried
// again; refusals are not retried, a failed dispatch never leaves its check
// run queued, and a retried job uses the check run it already queued. Every
// request body is validated against GitHub's OpenAPI description
// (@octokit/openapi). The same through `kgate serve` and its job queue:
// actions_dispatch_serve_test.cpp.
#include <gtest/gtest.h>

#include "bot/node_fixtures.h"
#include "bot/openapi_validator.h"
#include "fake_actions.h"
#include "webhooks/actions_dispatcher.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

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

}  // namespace
}  // namespace kgate::testing
