// The contract between the service's jobs and the kgate subcommands: each
// job's exact command line (CommandJobExecutor::job_arguments) is run against
// the real kgate binary on a temporary git repository with a host kernel, so
// an option one side uses and the other lacks fails here, not in production.
// The working tree is left broken after the commits: jobs that name a
// revision must read that revision (through libgit2), not the checkout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "bot/local_forge.h"
#include "bot/pull_request_publisher.h"
#include "gate/git_fixture.h"
#include "gate/scale_fixture.h"
#include "support/test_support.h"
#include "webhooks/job_executor.h"

namespace kgate::testing {
namespace {

using webhooks::CommandExecutorOptions;
using webhooks::CommandJobExecutor;
using webhooks::ExecutionContext;
using webhooks::JobKind;
using webhooks::JobResult;
using webhooks::JobSpec;
using webhooks::StoredJob;

std::string kgate_binary() {
  const char* binary = std::getenv("KGATE_TEST_BINARY");
  return binary && *binary ? binary : KGATE_BINARY;
}

std::string slower_header(int passes) {
  return "#pragma once\n#define PASSES " + std::to_string(passes) + "\n";
}

class JobContract : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = std::make_unique<GitFixture>(dir / "repo");
    repo->write("kgate.json", kManifest);
    repo->write("src/scale.cpp", kKernel);
    repo->write("src/include/common.h", slower_header(1));
    repo->write("ref/scale_ref.cpp", kReference);
    base = repo->commit("kernels");
  }

  JobResult execute(const JobSpec& spec, int64_t id) {
    CommandExecutorOptions options;
    options.program = {kgate_binary()};
    options.repo = repo->path();
    options.state_dir = dir / "state";
    options.timeout_s = 600;
    // `kgate serve --backend host`: "auto" would pick CUDA on a GPU host, and
    // this repository has host kernels only.
    options.backend = "host";
    CommandJobExecutor executor(options);
    StoredJob job;
    job.id = id;
    job.delivery = "contract-" + std::to_string(id);
    job.spec = spec;
    job.attempts = 1;
    JobResult result = executor.execute(job, ExecutionContext{});
    last_stderr = read(dir / "state" / "jobs" / std::to_string(id) / "stderr.txt");
    return result;
  }
  nlohmann::json result_json(int64_t id) {
    return nlohmann::json::parse(read(dir / "state" / "jobs" / std::to_string(id) / "result.json"));
  }
  // Leaves the working tree unusable: only a job reading its revision works.
  void break_working_tree() {
    repo->write("kgate.json", "{ this is not the committed manifest");
    repo->write("src/scale.cpp", "not C++ at all");
  }

  TempDir dir;
  std::unique_ptr<GitFixture> repo;
  std::string base;
  std::string last_stderr;
};

TEST_F(JobContract, GateJobTagsThePullRequest) {
  repo->write("src/scale.cpp", std::string("// reformatted\n") + kKernel);
  std::string head = repo->commit("comment only");
  break_working_tree();
  JobSpec spec{.kind = JobKind::kGate,
               .repository = "octo/kernels",
               .pull_number = 17,
               .base = base,
               .head = head,
               .reason = "pull_request synchronize"};
  JobResult result = execute(spec, 1);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
  EXPECT_EQ(result.outcome, "passed") << last_stderr;
  auto report = result_json(1);
  EXPECT_EQ(report["pull_request"], 17);
  EXPECT_EQ(report["head_commit"], head);
  ASSERT_EQ(report["kernels"].size(), 1u);
  EXPECT_EQ(report["kernels"][0]["kernel"], "scale");
}

TEST_F(JobContract, AcceptRegressionJobPassesWhatTheGateJobFails) {
  repo->write("src/include/common.h", slower_header(4));  // 4x the work: clearly slower
  repo->write("src/scale.cpp", std::string("// touched\n") + kKernel);
  std::string head = repo->commit("slower");
  JobSpec spec{.kind = JobKind::kGate,
               .repository = "octo/kernels",
               .pull_number = 5,
               .base = base,
               .head = head,
               .reason = "pull_request synchronize"};
  JobResult gated = execute(spec, 2);
  ASSERT_TRUE(gated.ok) << gated.outcome << "\n" << last_stderr;
  ASSERT_EQ(gated.outcome, "check-failed") << last_stderr;
  bool slower_failed = false;
  const auto gated_report = result_json(2);  // a range-for over a temporary's member dangles
  for (const auto& shape : gated_report["kernels"][0]["shapes"])
    slower_failed |= shape["verdict"] == "slower" && shape["fails"] == true;
  ASSERT_TRUE(slower_failed) << result_json(2).dump(2);

  spec.kind = JobKind::kAcceptRegression;
  spec.reason = "/kgate accept-regression by alice";
  JobResult accepted = execute(spec, 3);
  ASSERT_TRUE(accepted.ok) << accepted.outcome << "\n" << last_stderr;
  EXPECT_EQ(accepted.outcome, "passed") << last_stderr;
  auto report = result_json(3);
  EXPECT_EQ(report["passed"], true);
  EXPECT_EQ(report["pull_request"], 5);
  int marked = 0;
  for (const auto& shape : report["kernels"][0]["shapes"]) {
    EXPECT_EQ(shape["fails"], false);
    if (shape["accepted_regression"] == true) {
      EXPECT_EQ(shape["verdict"], "slower");
      ++marked;
    }
  }
  EXPECT_GE(marked, 1);
  std::string notes = report["notes"].dump();
  EXPECT_NE(notes.find("/kgate accept-regression by alice"), std::string::npos) << notes;
}

TEST_F(JobContract, AcceptRegressionDoesNotPassAWrongKernel) {
  repo->write("src/scale.cpp", kWrongKernel);
  std::string head = repo->commit("wrong");
  JobSpec spec{.kind = JobKind::kAcceptRegression,
               .repository = "octo/kernels",
               .pull_number = 6,
               .base = base,
               .head = head};
  JobResult result = execute(spec, 4);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
  EXPECT_EQ(result.outcome, "check-failed");
  EXPECT_EQ(result_json(4)["passed"], false);
}

TEST_F(JobContract, BaselineJobRecordsTheNamedCommit) {
  break_working_tree();
  JobSpec spec{.kind = JobKind::kBaseline,
               .repository = "octo/kernels",
               .head = base,
               .kernel = "scale",
               .reason = "push"};
  JobResult result = execute(spec, 5);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
  EXPECT_EQ(result.outcome, "passed");
  // Stored in the working tree's baselines/, stamped with the commit measured.
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(repo->path() / "baselines")) {
    if (entry.path().filename() != "scale.json") continue;
    ++files;
    auto stored = nlohmann::json::parse(read(entry.path()));
    EXPECT_NE(stored.dump().find(base), std::string::npos) << stored.dump(2);
  }
  EXPECT_EQ(files, 1);
}

TEST_F(JobContract, OptimizeJobWorksOnTheNamedCommit) {
  break_working_tree();
  JobSpec spec{.kind = JobKind::kOptimize,
               .repository = "octo/kernels",
               .head = base,
               .kernel = "scale",
               .reason = "push"};
  JobResult result = execute(spec, 6);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
  EXPECT_EQ(result.outcome, "passed") << last_stderr;
  // The episode's record stays in the repository's state folder, not in the
  // temporary checkout.
  EXPECT_TRUE(std::filesystem::exists(repo->path() / ".kgate")) << last_stderr;
}

TEST_F(JobContract, SweepJobRunsOnTheCheckout) {
  JobSpec spec{.kind = JobKind::kSweep, .repository = "octo/kernels", .reason = "schedule"};
  JobResult result = execute(spec, 7);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
  EXPECT_EQ(result.outcome, "passed") << last_stderr;
  EXPECT_TRUE(std::filesystem::exists(repo->path() / "baselines")) << last_stderr;
}

// `/kgate ignore` as the service runs it (`kgate prs --ignore`), on the
// local forge: kgate's pull request closed and marked; a second time is harmless.
TEST_F(JobContract, IgnoreJobClosesKgatesPullRequest) {
  bot::LocalForge forge(repo->path(), repo->path() / ".kgate");
  bot::PullRequestPublisher publisher(forge, repo->path());
  bot::PullRequestProposal p{.kernel = "scale",
                             .source_path = "src/scale.cpp",
                             .candidate_source = "// faster\n",
                             .base_branch = "main",
                             .base_rev = base};
  auto opened = publisher.propose(p);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  JobSpec spec{.kind = JobKind::kIgnore,
               .repository = "octo/kernels",
               .pull_number = opened->number,
               .kernel = "scale",
               .reason = "/kgate ignore by alice",
               .requested_by = "alice"};
  JobResult result = execute(spec, 9);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
  auto prs = forge.all_pull_requests();
  ASSERT_TRUE(prs.ok());
  EXPECT_EQ(prs->at(0).state, "closed");
  EXPECT_NE(prs->at(0).body.find(bot::kIgnoredMarker), std::string::npos);
  auto again = publisher.propose(p);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->action, bot::ProposalAction::kIgnored);
  // Not kgate's pull request for that kernel: bad input, not retried.
  spec.pull_number = 99;
  result = execute(spec, 10);
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.retryable) << result.outcome;
}

TEST_F(JobContract, RebaseJobRunsANewEpisodeThatMayTakeTheBranchOver) {
  std::vector<std::string> args =
      CommandJobExecutor::job_arguments(StoredJob{.id = 11,
                                                  .spec = {.kind = JobKind::kRebase,
                                                           .repository = "octo/kernels",
                                                           .pull_number = 4,
                                                           .base = "main",
                                                           .kernel = "scale",
                                                           .requested_by = "alice"}},
                                        repo->path(), dir / "job", "host", "github");
  std::string line;
  for (const auto& a : args) line += a + " ";
  for (const char* part : {"optimize scale ", "--new ", "--take-over ", "--unignore ",
                           "--forge github --github-repo octo/kernels "})
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  // An optimize nobody asked for by command keeps an ignored kernel ignored.
  args = CommandJobExecutor::job_arguments(
      StoredJob{.id = 12, .spec = {.kind = JobKind::kOptimize, .kernel = "scale"}}, repo->path(),
      dir / "job");
  EXPECT_EQ(std::find(args.begin(), args.end(), "--unignore"), args.end());
  // The real binary accepts the rebase job's command line (the local forge here).
  JobSpec spec{.kind = JobKind::kRebase,
               .repository = "octo/kernels",
               .head = base,
               .kernel = "scale",
               .reason = "/kgate rebase by alice",
               .requested_by = "alice"};
  JobResult result = execute(spec, 13);
  ASSERT_TRUE(result.ok) << result.outcome << "\n" << last_stderr;
}

TEST_F(JobContract, BadRevisionIsBadInputNotRetried) {
  JobSpec spec{.kind = JobKind::kBaseline,
               .repository = "octo/kernels",
               .head = "0123456789abcdef0123456789abcdef01234567",
               .kernel = "scale"};
  JobResult result = execute(spec, 8);
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.retryable) << result.outcome;
  EXPECT_NE(result.outcome.find("0123456789abcdef"), std::string::npos) << result.outcome;
}

}  // namespace
}  // namespace kgate::testing
