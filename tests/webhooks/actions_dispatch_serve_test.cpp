// --dispatch actions through `kgate serve` and its job queue, GitHub on
// 127.0.0.1 (fake_actions.h): deliveries become workflow dispatches; a
// dispatch that may have reached GitHub fails its job instead of being sent
// again, one that never left is retried; a check run whose creation was
// answered 5xx is used by the retried job, not queued twice. The dispatcher
// alone: actions_dispatch_test.cpp.
#include <gtest/gtest.h>

#include "fake_actions.h"
#include "serve_fixture.h"

namespace kgate::testing {
namespace {

// `kgate serve --dispatch actions` on a copy of the example in `dir`, with a
// token and GitHub at `api`; jobs are tried 3 times, 0.05 s apart at first.
std::unique_ptr<ServeProcess> serve_dispatching_to(const std::string& api, const TempDir& dir) {
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  return std::make_unique<ServeProcess>(
      std::vector<std::string>{"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(),
                               "--state-dir", (dir / "state").string(), "--dispatch", "actions",
                               "--retry-base", "0.05", "--max-attempts", "3", "--dispatch-ref",
                               "master"},
      std::map<std::string, std::string>{{"KGATE_WEBHOOK_SECRET", kSecret},
                                         {"KGATE_GITHUB_TOKEN", "ghs_test_token"},
                                         {"KGATE_GITHUB_API_URL", api}},
      dir / "serve.log");
}

TEST(ActionsDispatch, ServeDispatchesJobsAsWorkflowDispatch) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  FakeActions github;
  TempDir dir;
  auto server = serve_dispatching_to(github.api(), dir);
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "a-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='done'") == 1;
  })) << server->log();
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
  EXPECT_EQ(server->terminate(), 0);
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
  auto server = serve_dispatching_to(github.api(), dir);
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "b-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1;
  })) << server->log();
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
  EXPECT_EQ(server->terminate(), 0);
  EXPECT_EQ(github.dispatches().size(), 1u);
}

// The job queue's side of "one check run per job": the check run's creation
// answered 502 after GitHub made it; the retried job uses that run.
TEST(ActionsDispatch, ServeQueuesOneCheckRunWhenItsCreationAnswered5xx) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  FakeActions github;
  github.check_lost = 1;
  TempDir dir;
  auto server = serve_dispatching_to(github.api(), dir);
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "d-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='done'") == 1;
  })) << server->log();
  EXPECT_EQ(query_int(db, "SELECT attempts FROM jobs"), 2);
  EXPECT_EQ(github.check_run_posts().size(), 1u);
  auto dispatches = github.dispatches();
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_EQ(dispatches[0].body["inputs"]["check_run"], "7000");
  EXPECT_EQ(server->terminate(), 0);
}

TEST(ActionsDispatch, ServeRetriesADispatchThatNeverReachedGitHub) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup to install @octokit/webhooks-examples";
  const int port = closed_port();
  TempDir dir;
  auto server = serve_dispatching_to("http://127.0.0.1:" + std::to_string(port) + "/api/v3", dir);
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  json comment = example_payload("issue_comment", "created");
  comment["comment"]["body"] = "/kgate optimize rmsnorm";  // no check run: the dispatch is first
  auto r = post_delivery(client, "issue_comment", comment.dump(), "c-1");
  ASSERT_TRUE(r);
  auto db = dir / "state" / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1;
  })) << server->log();
  EXPECT_EQ(query_int(db, "SELECT attempts FROM jobs"), 3);
  auto reason = query_strings(db, "SELECT last_error FROM jobs");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_EQ(reason[0].find("may have started"), std::string::npos) << reason[0];
  EXPECT_NE(reason[0].find("(attempt 3 of 3)"), std::string::npos) << reason[0];
  EXPECT_EQ(server->terminate(), 0);
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
