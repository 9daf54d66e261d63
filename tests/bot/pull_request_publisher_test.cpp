// Pull requests end to end on both forges: a branch written by libgit2 in a
// real repository, pushed over file:// to a bare repository (GitHub forge) or
// kept local (local forge); update-not-duplicate, close-superseded, and
// never re-proposing a closed result. Every request body sent to the GitHub
// double is validated against GitHub's OpenAPI description.
#include <gtest/gtest.h>

#include "bot/github_forge.h"
#include "bot/local_forge.h"
#include "bot/pull_request_body.h"
#include "bot/pull_request_publisher.h"
#include "bot_test_repo.h"
#include "fake_github.h"
#include "gate/git_branch_writer.h"
#include "node_fixtures.h"
#include "openapi_validator.h"

namespace kgate::bot {
namespace {

using testing::BotRepo;
using testing::git;
using testing::sample_proposal;

const std::string kCandidateA = "// rmsnorm v2: vector loads\n__global__ void rmsnorm() {}\n";
const std::string kCandidateB =
    "// rmsnorm v3: vector loads + unroll\n__global__ void rmsnorm() {}\n";

TEST(LocalForgePublisherTest, CreatesUpdatesWithdrawsAndNeverReproposesAClosedResult) {
  BotRepo repo;
  LocalForge forge(repo.work, repo.work / ".kgate");
  PullRequestPublisher publisher(forge, repo.work);

  auto first = publisher.propose(sample_proposal(repo.base_sha, kCandidateA));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->action, ProposalAction::kCreated);
  EXPECT_EQ(first->number, 1);
  EXPECT_EQ(first->branch, "kgate/optimize/rmsnorm");

  // The branch: the candidate at the source path and nothing else (the
  // chart is in the body: nothing of kgate's lands on main with a merge),
  // committed by kgate[bot] on top of the base; the work tree untouched.
  EXPECT_EQ(git(repo.work, {"show", "kgate/optimize/rmsnorm:csrc/rmsnorm.cu"}) + "\n", kCandidateA);
  EXPECT_EQ(git(repo.work, {"diff", "--name-only", "main", "kgate/optimize/rmsnorm"}),
            "csrc/rmsnorm.cu");
  EXPECT_EQ(git(repo.work, {"log", "-1", "--format=%an <%ae> %cn <%ce>", "kgate/optimize/rmsnorm"}),
            "kgate[bot] <kgate[bot]@users.noreply.github.com> kgate[bot] "
            "<kgate[bot]@users.noreply.github.com>");
  EXPECT_EQ(git(repo.work, {"rev-parse", "kgate/optimize/rmsnorm^"}), repo.base_sha);
  EXPECT_EQ(testing::read(repo.work / "csrc/rmsnorm.cu"),
            "// rmsnorm v1\n__global__ void rmsnorm() {}\n");
  EXPECT_EQ(git(repo.work, {"status", "--porcelain", "--untracked-files=no"}), "");

  auto prs = forge.all_pull_requests();
  ASSERT_TRUE(prs.ok());
  ASSERT_EQ(prs->size(), 1u);
  EXPECT_EQ((*prs)[0].labels, (std::vector<std::string>{"kgate", "performance"}));
  EXPECT_EQ((*prs)[0].title, "kgate: rmsnorm 1.31x faster on NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(std::filesystem::exists(repo.work / ".kgate/pulls/1.md"));
  // The chart is a Mermaid block in the body; the body records the pushed commit.
  EXPECT_NE((*prs)[0].body.find("```mermaid\nxychart-beta"), std::string::npos);
  EXPECT_EQ(result_head_in((*prs)[0].body), first->commit_sha);

  // The same result again: nothing changes.
  auto same = publisher.propose(sample_proposal(repo.base_sha, kCandidateA));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->action, ProposalAction::kUnchanged);

  // A better candidate: the open pull request is updated, not duplicated,
  // and its single update comment is edited on the next update.
  auto second = publisher.propose(sample_proposal(repo.base_sha, kCandidateB));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->action, ProposalAction::kUpdated);
  EXPECT_EQ(second->number, 1);
  EXPECT_EQ(git(repo.work, {"show", "kgate/optimize/rmsnorm:csrc/rmsnorm.cu"}) + "\n", kCandidateB);
  auto third_candidate = sample_proposal(repo.base_sha, kCandidateB + "// tweak\n");
  ASSERT_TRUE(publisher.propose(third_candidate).ok());
  prs = forge.all_pull_requests();
  ASSERT_EQ(prs->size(), 1u);
  EXPECT_EQ(result_hash_in((*prs)[0].body), result_hash(third_candidate));
  auto comments = forge.comments(1);
  ASSERT_TRUE(comments.ok());
  ASSERT_EQ(comments->size(), 1u);
  EXPECT_NE((*comments)[0].find(kUpdateCommentMarker), std::string::npos);
  EXPECT_NE((*comments)[0].find(result_hash(third_candidate)), std::string::npos);

  // Superseded: withdrawn with a comment saying why.
  auto closed = publisher.withdraw("rmsnorm", "a faster rmsnorm landed on main.");
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(*closed, 1);
  comments = forge.comments(1);
  ASSERT_EQ(comments->size(), 2u);
  EXPECT_NE((*comments)[1].find("a faster rmsnorm landed on main."), std::string::npos);
  EXPECT_EQ(forge.all_pull_requests()->at(0).state, "closed");

  // The closed result is not proposed again...
  auto again = publisher.propose(third_candidate);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->action, ProposalAction::kDeclined);
  EXPECT_EQ(forge.all_pull_requests()->size(), 1u);
  // ...but a new result opens a new pull request.
  auto fresh = publisher.propose(sample_proposal(repo.base_sha, kCandidateA + "// new\n"));
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->action, ProposalAction::kCreated);
  EXPECT_EQ(fresh->number, 2);
}

TEST(LocalForgePublisherTest, ACandidateTheBaseAlreadyHasClosesTheOpenPullRequest) {
  BotRepo repo;
  LocalForge forge(repo.work, repo.work / ".kgate");
  PullRequestPublisher publisher(forge, repo.work);
  ASSERT_TRUE(publisher.propose(sample_proposal(repo.base_sha, kCandidateA)).ok());
  // Someone merges an equivalent change by hand.
  testing::write(repo.work / "csrc/rmsnorm.cu", kCandidateB);
  git(repo.work, {"commit", "-q", "-am", "hand-tuned"});
  std::string new_base = git(repo.work, {"rev-parse", "HEAD"});
  auto r = publisher.propose(sample_proposal(new_base, kCandidateB));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->action, ProposalAction::kAlreadyInBase);
  EXPECT_EQ(r->number, 1);
  EXPECT_EQ(forge.all_pull_requests()->at(0).state, "closed");
  EXPECT_NE(forge.comments(1)->back().find("already contains"), std::string::npos);
}

TEST(PullRequestBodyTest, CarriesTheEvidence) {
  auto p = sample_proposal(std::string(40, 'a'), kCandidateA);
  std::string body = pull_request_body(p, std::string(40, 'b'));
  for (const char* needle :
       {"| shape | phase | before | after | change [95% CI] | max error | verdict |",
        "| decode-b1 | decode | 12.00 us | 9.00 us | -25.0% [-27.0%, -22.0%] |", "odd\\|3x4097",
        "```mermaid\nxychart-beta\n", "x-axis [\"decode-b1\", \"prefill-8k\", \"odd|3x4097\"]",
        "bar [75.0, 77.6, 101.3]", "line [100, 100, 100]",
        "<details><summary>Iteration 1: accepted, \\-22%</summary>", "Bandwidth doubled",
        "## Roofline", "## Reproduce", "kgate gate --base aaaaaaaaaaaa", "| driver | 580.65 |",
        "registers/thread 48"})
    EXPECT_NE(body.find(needle), std::string::npos) << needle << "\n" << body;
  EXPECT_EQ(result_hash_in(body), result_hash(p));
  EXPECT_EQ(result_head_in(body), std::string(40, 'b'));
  EXPECT_EQ(result_kernel_in(body), "rmsnorm");
  // Every kgate pull request lists the commands people can give it.
  for (const char* command : {"<details><summary>kgate commands</summary>", "`/kgate rebase`",
                              "`/kgate ignore`", "`/kgate optimize rmsnorm`"})
    EXPECT_NE(body.find(command), std::string::npos) << command;
  // Huge evidence still fits GitHub's body limit and keeps the commands and the marker.
  p.profile_before = std::string(200000, 'x');
  body = pull_request_body(p, "");
  EXPECT_LE(body.size(), kGitHubBodyLimit);
  EXPECT_EQ(result_hash_in(body), result_hash(p));
  EXPECT_NE(body.find("`/kgate ignore`"), std::string::npos);
}

class GitHubPublisherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string missing = testing::missing_npm_packages();
    if (!missing.empty()) GTEST_SKIP() << missing;
    openapi_ = testing::OpenApiValidator::load(testing::node_modules_dir());
    ASSERT_TRUE(openapi_);
  }

  GitHubClientOptions validating_options(const std::string& url) {
    GitHubClientOptions options;
    options.api_url = url;
    options.retry.max_attempts = 1;
    options.on_request = [this](const std::string& method, const std::string& u,
                                const std::optional<nlohmann::json>& body) {
      if (!body) return;
      ++validated_;
      for (const auto& e : openapi_->validate(method, u, *body))
        ADD_FAILURE() << method << " " << u << " (" << openapi_->operation(method, u) << "): " << e;
    };
    return options;
  }

  std::shared_ptr<testing::OpenApiValidator> openapi_;
  int validated_ = 0;
};

TEST_F(GitHubPublisherTest, PushesOverLibgit2AndUpdatesInsteadOfDuplicating) {
  BotRepo repo;
  const std::string token = "ghp_publisherTestToken0123456789";
  testing::FakeGitHub github("octo", "kernels", token);
  auto client = std::make_shared<GitHubClient>(std::make_shared<TokenCredentials>(token),
                                               validating_options(github.url()));
  GitHubForge forge(client, {.owner = "octo", .repo = "kernels", .git_url = repo.bare_url()});
  PullRequestPublisher publisher(forge, repo.work);

  auto first = publisher.propose(sample_proposal(repo.base_sha, kCandidateA));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->action, ProposalAction::kCreated);
  // The push reached the bare repository.
  EXPECT_EQ(git(repo.tmp.path(),
                {"--git-dir", repo.bare.string(), "rev-parse", "kgate/optimize/rmsnorm"}),
            first->commit_sha);
  auto pulls = github.pulls();
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0]["head"]["ref"], "kgate/optimize/rmsnorm");
  EXPECT_EQ(pulls[0]["base"]["ref"], "main");
  EXPECT_EQ(pulls[0]["labels"].size(), 2u);
  EXPECT_NE(pulls[0]["body"].get<std::string>().find("```mermaid"), std::string::npos);
  // Committed as the App's bot user, with its numeric no-reply address (GET /users/kgate[bot]).
  EXPECT_EQ(git(repo.tmp.path(), {"--git-dir", repo.bare.string(), "log", "-1",
                                  "--format=%an <%ae>", "kgate/optimize/rmsnorm"}),
            "kgate[bot] <190874231+kgate[bot]@users.noreply.github.com>");
  EXPECT_EQ(git(repo.tmp.path(), {"--git-dir", repo.bare.string(), "ls-tree", "-r", "--name-only",
                                  "kgate/optimize/rmsnorm"}),
            "README.md\ncsrc/rmsnorm.cu");

  // Many earlier kgate pull requests on other branches: the listing pages.
  auto second = publisher.propose(sample_proposal(repo.base_sha, kCandidateB));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->action, ProposalAction::kUpdated);
  // Force-pushed: the new commit is not a descendant of the old one.
  EXPECT_EQ(git(repo.tmp.path(),
                {"--git-dir", repo.bare.string(), "rev-parse", "kgate/optimize/rmsnorm"}),
            second->commit_sha);
  auto third = publisher.propose(sample_proposal(repo.base_sha, kCandidateB + "// 3\n"));
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->action, ProposalAction::kUpdated);
  EXPECT_EQ(github.pulls().size(), 1u);
  auto comments = github.comments(1);
  ASSERT_EQ(comments.size(), 1u) << comments.dump();  // edited, not repeated

  auto closed = publisher.withdraw("rmsnorm", "superseded by a newer base.");
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_EQ(github.pulls()[0]["state"], "closed");
  EXPECT_EQ(github.comments(1).size(), 2u);
  auto declined = publisher.propose(sample_proposal(repo.base_sha, kCandidateB + "// 3\n"));
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(declined->action, ProposalAction::kDeclined);
  EXPECT_EQ(github.pulls().size(), 1u);
  EXPECT_GE(validated_, 8);
}

TEST_F(GitHubPublisherTest, CheckRunsBatchAnnotationsAndFitTheSummary) {
  testing::FakeGitHub github("octo", "kernels", "ghp_checksToken0123456789");
  auto client = std::make_shared<GitHubClient>(
      std::make_shared<TokenCredentials>("ghp_checksToken0123456789"),
      validating_options(github.url()));
  GitHubForge forge(client, {.owner = "octo", .repo = "kernels"});
  CheckRunReport report;
  report.title = "rmsnorm: 1 shape slower";
  report.conclusion = "failure";
  report.summary_markdown = "| shape | change |\n|---|---|\n";
  for (int i = 0; i < 3000; ++i)
    report.summary_markdown +=
        "| shape-" + std::to_string(i) + " | -1.0% faster, well within noise bounds |\n";
  report.summary_markdown += "| odd | +9.0% slower |\n";
  for (int i = 0; i < 120; ++i)
    report.annotations.push_back({.path = "csrc/rmsnorm.cu",
                                  .line = i + 1,
                                  .level = "failure",
                                  .message = "slower on shape " + std::to_string(i)});
  const std::string sha(40, 'c');
  auto check = forge.start_check(sha, "kgate");
  ASSERT_TRUE(check.ok()) << check.error().message;
  Status done = forge.finish_check(*check, sha, report);
  ASSERT_TRUE(done.ok()) << done.error().message;
  auto runs = github.check_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["status"], "completed");
  EXPECT_EQ(runs[0]["conclusion"], "failure");
  EXPECT_EQ(runs[0]["annotations"].size(), 120u);
  EXPECT_EQ(runs[0]["updates"], 3);  // 50 + 50 + 20
  std::string summary = runs[0]["output_summary"];
  EXPECT_LE(summary.size(), 65535u);
  EXPECT_NE(summary.find("| odd | +9.0% slower |"), std::string::npos);
  EXPECT_NE(summary.find("passing rows omitted"), std::string::npos);
  EXPECT_EQ(validated_, 4);
}

TEST_F(GitHubPublisherTest, CommitStatusesWhenChecksAreNotAvailable) {
  testing::FakeGitHub github("octo", "kernels", "ghp_statusToken0123456789");
  auto client = std::make_shared<GitHubClient>(
      std::make_shared<TokenCredentials>("ghp_statusToken0123456789"),
      validating_options(github.url()));
  GitHubForge forge(client, {.owner = "octo", .repo = "kernels", .use_commit_statuses = true});
  CheckRunReport report{
      .name = "kgate/rmsnorm", .title = std::string(300, 'x'), .conclusion = "timed_out"};
  auto check = forge.start_check(std::string(40, 'd'), report.name);
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(forge.finish_check(*check, std::string(40, 'd'), report).ok());
  auto statuses = github.statuses();
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0]["state"], "pending");
  EXPECT_EQ(statuses[1]["state"], "error");
  EXPECT_EQ(statuses[1]["context"], "kgate/rmsnorm");
  EXPECT_EQ(statuses[1]["description"].get<std::string>().size(), 140u);
  EXPECT_TRUE(github.check_runs().empty());
}

}  // namespace
}  // namespace kgate::bot
