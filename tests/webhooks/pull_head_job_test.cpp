// kgate serve's local gate jobs of a pull request whose head is not in the
// clone: the executor fetches refs/pull/<N>/head from origin (real libgit2
// repositories) and gates only the commit the event named.
#include <gtest/gtest.h>

#include "bot/forked_pull_repo.h"
#include "serve_fixture.h"
#include "webhooks/job_executor.h"

namespace kgate::testing {
namespace {

using webhooks::CommandExecutorOptions;
using webhooks::CommandJobExecutor;
using webhooks::JobKind;
using webhooks::StoredJob;

class PullHeadJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A folder of its own: with the queue hidden from jobs, the folders above
    // the state folder take no new entries from a job (core/file_shield.h).
    std::filesystem::create_directories(pr.tmp / "logs");
    // Stands in for `kgate gate`: refuses (exit 2) unless the head it is given is in the clone.
    write(script, "#!/bin/sh\necho \"$*\" >> '" + (pr.tmp / "logs" / "ran.log").string() +
                      "'\nwhile [ \"$1\" != --head ]; do shift; done\n"
                      "git cat-file -e \"$2^{commit}\" || exit 2\n");
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  }
  StoredJob gate_job(const std::string& head) {
    StoredJob job;
    job.id = 1;
    job.attempts = 1;
    job.spec = {.kind = JobKind::kGate,
                .repository = "octo-org/kernels",
                .pull_number = 7,
                .base = pr.base_sha,
                .head = head,
                .reason = "pull_request synchronize"};
    return job;
  }
  CommandJobExecutor executor() {
    CommandExecutorOptions options;
    options.program = {script.string()};
    options.repo = pr.clone;
    options.state_dir = pr.tmp / "state";
    options.timeout_s = 60;
    return CommandJobExecutor(options);
  }
  std::string ran() { return read(pr.tmp / "logs" / "ran.log"); }

  ForkedPull pr;
  std::filesystem::path script = pr.tmp / "gate.sh";
};

TEST_F(PullHeadJobTest, AForkHeadIsFetchedThenGated) {
  auto result = executor().execute(gate_job(pr.head_sha), {});
  EXPECT_TRUE(result.ok) << result.outcome;
  EXPECT_EQ(result.outcome, "passed");
  EXPECT_NE(ran().find("--head " + pr.head_sha), std::string::npos) << ran();
  EXPECT_EQ(git(pr.clone, {"rev-parse", "refs/kgate/pull/7/head"}), pr.head_sha);
}

TEST_F(PullHeadJobTest, ANewerPushFailsTheJobWithoutGatingAndWithoutRetry) {
  std::string old_head = pr.head_sha;
  std::string new_head = pr.push_fork_commit("// pushed after the event\n");
  auto result = executor().execute(gate_job(old_head), {});
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.outcome.find("head is now " + new_head.substr(0, 12)), std::string::npos)
      << result.outcome;
  EXPECT_NE(result.outcome.find("not gated"), std::string::npos) << result.outcome;
  EXPECT_EQ(ran(), "") << "nothing may be gated when the head moved";
}

TEST_F(PullHeadJobTest, FetchFailuresAreReportedRetryOnlyWhenTheyMayPass) {
  git(pr.clone, {"remote", "set-url", "origin", (pr.tmp / "unreachable.git").string()});
  auto unreachable = executor().execute(gate_job(pr.head_sha), {});
  EXPECT_FALSE(unreachable.ok);
  EXPECT_TRUE(unreachable.retryable);
  EXPECT_NE(unreachable.outcome.find("fetching the head of pull request #7"), std::string::npos)
      << unreachable.outcome;

  git(pr.clone, {"remote", "remove", "origin"});
  auto no_remote = executor().execute(gate_job(pr.head_sha), {});
  EXPECT_FALSE(no_remote.ok);
  EXPECT_FALSE(no_remote.retryable);
  EXPECT_NE(no_remote.outcome.find("no remote 'origin'"), std::string::npos) << no_remote.outcome;
  EXPECT_EQ(ran(), "");
}

// Through kgate serve: a synchronize event for pull request 7 whose head is
// only on origin is gated after the fetch; an event whose head was replaced
// by a newer push leaves its job failed with the reason in the queue.
TEST_F(PullHeadJobTest, ServeGatesAFetchedHeadAndFailsAStaleOneWithTheReason) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup (npm ci in tests/)";
  std::filesystem::path state = pr.tmp / "serve-state";
  ServeProcess server(
      {"--listen", "127.0.0.1:0", "--repo", pr.clone.string(), "--state-dir", state.string(),
       "--job-command", script.string(), "--workers", "1", "--max-attempts", "1", "--no-recovery"},
      {{"KGATE_WEBHOOK_SECRET", kSecret}}, pr.tmp / "serve.log");
  ASSERT_TRUE(server.start()) << server.log();
  // Without recovery the default durability fsyncs every commit.
  EXPECT_NE(server.log().find("\"durability\":\"full\""), std::string::npos) << server.log();
  auto event = [&](const std::string& head) {
    nlohmann::json p = example_payload("pull_request", "synchronize");
    p["number"] = 7;
    p["pull_request"]["number"] = 7;
    p["pull_request"]["head"]["sha"] = head;
    p["pull_request"]["base"]["sha"] = pr.base_sha;
    return p.dump();
  };
  httplib::Client client("127.0.0.1", server.port());
  std::string first = pr.head_sha;
  auto r = post_delivery(client, "pull_request", event(first), "fork-1");
  ASSERT_TRUE(r && r->status == 202) << (r ? r->body : "no answer");
  std::filesystem::path db = state / "queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state IN ('done','failed')") == 1;
  })) << server.log();
  EXPECT_EQ(query_strings(db, "SELECT outcome FROM jobs WHERE delivery='fork-1'"),
            std::vector<std::string>{"passed"});
  EXPECT_NE(ran().find("--head " + first), std::string::npos) << ran();

  // The event names a commit origin no longer has as the head.
  std::string stale = pr.push_fork_commit("// v3\n");
  std::string newest = pr.push_fork_commit("// v4\n");
  r = post_delivery(client, "pull_request", event(stale), "fork-2");
  ASSERT_TRUE(r && r->status == 202) << (r ? r->body : "no answer");
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state IN ('done','failed')") == 2;
  })) << server.log();
  EXPECT_EQ(query_strings(db, "SELECT state FROM jobs WHERE delivery='fork-2'"),
            std::vector<std::string>{"failed"});
  auto reason = query_strings(db, "SELECT last_error FROM jobs WHERE delivery='fork-2'");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_NE(reason[0].find("head is now " + newest.substr(0, 12)), std::string::npos) << reason[0];
  EXPECT_EQ(ran().find(stale), std::string::npos) << "the stale head was gated: " << ran();
  EXPECT_EQ(server.terminate(), 0);
}

}  // namespace
}  // namespace kgate::testing
