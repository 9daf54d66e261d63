// Bot pull requests that respect people, on real repositories (libgit2
// pushing over file:// to a bare "GitHub") and the GitHub double: kgate never
// writes over commits someone else pushed to its branch (it says so, once,
// and takes the branch over only on `/kgate rebase`); `/kgate ignore` holds
// until a new `/kgate optimize`; a marker in someone else's comment does not
// make it kgate's.
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

const std::string kToken = "ghp_branchRulesToken0123456789";
const std::string kV2 = "// rmsnorm v2\n__global__ void rmsnorm() {}\n";
const std::string kV3 = "// rmsnorm v3\n__global__ void rmsnorm() {}\n";
const std::string kV4 = "// rmsnorm v4\n__global__ void rmsnorm() {}\n";

class BotBranchRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string missing = testing::missing_npm_packages();
    if (!missing.empty()) GTEST_SKIP() << missing;
    openapi_ = testing::OpenApiValidator::load(testing::node_modules_dir());
    ASSERT_TRUE(openapi_);
    GitHubClientOptions options;
    options.api_url = github_.url();
    options.retry.max_attempts = 1;
    options.on_request = [this](const std::string& method, const std::string& u,
                                const std::optional<nlohmann::json>& body) {
      if (!body) return;
      for (const auto& e : openapi_->validate(method, u, *body))
        ADD_FAILURE() << method << " " << u << ": " << e;
    };
    auto client =
        std::make_shared<GitHubClient>(std::make_shared<TokenCredentials>(kToken), options);
    forge_ = std::make_unique<GitHubForge>(
        client, GitHubForgeConfig{.owner = "octo", .repo = "kernels", .git_url = repo_.bare_url()});
    github_.set_token_user("kgate[bot]");
  }

  // What the bare repository ("GitHub") has on kgate's branch.
  std::string remote_tip() {
    return git(repo_.tmp.path(),
               {"--git-dir", repo_.bare.string(), "rev-parse", "kgate/optimize/rmsnorm"});
  }

  // A maintainer clones the bare repository and pushes a commit to kgate's branch.
  void maintainer_pushes(const std::string& email, const std::string& name) {
    auto clone = repo_.tmp / "maintainer";
    git(repo_.tmp.path(), {"clone", "-q", repo_.bare.string(), clone.string()});
    git(clone, {"checkout", "-q", "kgate/optimize/rmsnorm"});
    testing::write(clone / "csrc/rmsnorm.cu", "// rmsnorm v2, fixed by hand\n");
    git(clone, {"-c", "user.email=" + email, "-c", "user.name=" + name, "commit", "-q", "-am",
                "fix the candidate"});
    git(clone, {"push", "-q", "origin", "kgate/optimize/rmsnorm"});
    std::filesystem::remove_all(clone);
  }

  std::vector<std::string> comment_bodies(int pr) {
    std::vector<std::string> out;
    for (const auto& c : github_.comments(pr)) out.push_back(c["body"]);
    return out;
  }

  BotRepo repo_;
  testing::FakeGitHub github_{"octo", "kernels", kToken};
  std::shared_ptr<testing::OpenApiValidator> openapi_;
  std::unique_ptr<GitHubForge> forge_;
};

TEST_F(BotBranchRulesTest, NeverOverwritesAMaintainersCommitAndTakesOverOnlyWhenAsked) {
  PullRequestPublisher publisher(*forge_, repo_.work);
  auto first = publisher.propose(sample_proposal(repo_.base_sha, kV2));
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->action, ProposalAction::kCreated);

  maintainer_pushes("5829+alice@users.noreply.github.com", "Alice Liddell");
  const std::string alices = remote_tip();
  ASSERT_NE(alices, first->commit_sha);

  // A new result: kgate leaves the branch alone and says so, once.
  for (int round = 0; round < 2; ++round) {
    auto blocked = publisher.propose(sample_proposal(repo_.base_sha, kV3));
    ASSERT_TRUE(blocked.ok()) << blocked.error().message;
    EXPECT_EQ(blocked->action, ProposalAction::kBlocked);
    EXPECT_EQ(blocked->number, 1);
    EXPECT_EQ(remote_tip(), alices);
  }
  auto comments = comment_bodies(1);
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_NE(comments[0].find("kgate will not update this branch because it has commits by "
                             "@alice; comment `/kgate rebase` to let kgate take it over"),
            std::string::npos)
      << comments[0];
  EXPECT_NE(comments[0].find(alices.substr(0, 12)), std::string::npos);
  // The pull request still describes what is on the branch.
  EXPECT_EQ(result_head_in(github_.pulls()[0]["body"]), first->commit_sha);

  // `/kgate rebase`: the branch is recreated from the base, the comment says what was dropped.
  ProposeOptions take_over{.take_over = true, .unignore = true};
  auto rebased = publisher.propose(sample_proposal(repo_.base_sha, kV3), take_over);
  ASSERT_TRUE(rebased.ok()) << rebased.error().message;
  EXPECT_EQ(rebased->action, ProposalAction::kUpdated);
  EXPECT_EQ(remote_tip(), rebased->commit_sha);
  EXPECT_EQ(git(repo_.tmp.path(),
                {"--git-dir", repo_.bare.string(), "rev-parse", "kgate/optimize/rmsnorm^"}),
            repo_.base_sha);
  comments = comment_bodies(1);
  ASSERT_EQ(comments.size(), 2u);  // the blocked notice, edited; the update comment
  EXPECT_NE(comments[0].find("kgate took this branch over"), std::string::npos) << comments[0];
  EXPECT_NE(comments[0].find(alices.substr(0, 12)), std::string::npos);

  // kgate's own commits since: updated as before, no question asked.
  auto next = publisher.propose(sample_proposal(repo_.base_sha, kV4));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ(next->action, ProposalAction::kUpdated);
  EXPECT_EQ(remote_tip(), next->commit_sha);
}

TEST_F(BotBranchRulesTest, AnyoneElsesCommitCountsNotJustTheLast) {
  PullRequestPublisher publisher(*forge_, repo_.work);
  ASSERT_TRUE(publisher.propose(sample_proposal(repo_.base_sha, kV2)).ok());
  maintainer_pushes("bob@example.com", "Bob @everyone [x](https://evil.example)");
  // kgate's commit on top of Bob's (an older kgate that did not check) still leaves Bob's below.
  auto clone = repo_.tmp / "later";
  git(repo_.tmp.path(), {"clone", "-q", repo_.bare.string(), clone.string()});
  git(clone, {"checkout", "-q", "kgate/optimize/rmsnorm"});
  testing::write(clone / "README.md", "kernels, by the bot\n");
  git(clone, {"-c", "user.email=190874231+kgate[bot]@users.noreply.github.com", "-c",
              "user.name=kgate[bot]", "commit", "-q", "-am", "bot"});
  git(clone, {"push", "-q", "origin", "kgate/optimize/rmsnorm"});
  const std::string tip = remote_tip();
  auto blocked = publisher.propose(sample_proposal(repo_.base_sha, kV3));
  ASSERT_TRUE(blocked.ok()) << blocked.error().message;
  EXPECT_EQ(blocked->action, ProposalAction::kBlocked);
  EXPECT_EQ(remote_tip(), tip);
  auto comments = comment_bodies(1);
  ASSERT_EQ(comments.size(), 1u);
  // A name is shown, never interpreted: no mention, no HTML.
  EXPECT_NE(comments[0].find("Bob @\u200beveryone \\[x\\]"), std::string::npos) << comments[0];
  EXPECT_EQ(comments[0].find("@everyone"), std::string::npos) << comments[0];
  EXPECT_EQ(comments[0].find("[x]("), std::string::npos) << comments[0];
}

TEST_F(BotBranchRulesTest, OnlyKgatesOwnCommentIsEditedNotAPlantedMarker) {
  PullRequestPublisher publisher(*forge_, repo_.work);
  ASSERT_TRUE(publisher.propose(sample_proposal(repo_.base_sha, kV2)).ok());
  long long planted = github_.plant_comment(
      1, "mallory", std::string(kUpdateCommentMarker) + "\nplease click https://evil.example");
  auto updated = publisher.propose(sample_proposal(repo_.base_sha, kV3));
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  ASSERT_EQ(updated->action, ProposalAction::kUpdated);
  auto comments = github_.comments(1);
  ASSERT_EQ(comments.size(), 2u) << comments.dump();
  for (const auto& c : comments) {
    if (c["id"] == planted) {
      EXPECT_EQ(c["body"],
                std::string(kUpdateCommentMarker) + "\nplease click https://evil.example");
    } else {
      EXPECT_EQ(c["user"]["login"], "kgate[bot]");
      EXPECT_NE(c["body"].get<std::string>().find("kgate updated this pull request"),
                std::string::npos);
    }
  }
  // No PATCH ever went to the planted comment.
  for (const auto& r : github_.requests())
    EXPECT_EQ(r.path.find("/issues/comments/" + std::to_string(planted)), std::string::npos)
        << r.method << " " << r.path;
}

TEST_F(BotBranchRulesTest, IgnoreHoldsUntilANewOptimizeAsks) {
  PullRequestPublisher publisher(*forge_, repo_.work);
  ASSERT_TRUE(publisher.propose(sample_proposal(repo_.base_sha, kV2)).ok());
  ASSERT_TRUE(publisher.ignore("rmsnorm", 1, "alice").ok());
  auto pulls = github_.pulls();
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0]["state"], "closed");
  EXPECT_NE(pulls[0]["body"].get<std::string>().find(kIgnoredMarker), std::string::npos);
  bool labelled = false;
  for (const auto& l : pulls[0]["labels"]) labelled |= l["name"] == kIgnoredLabel;
  EXPECT_TRUE(labelled);
  EXPECT_NE(comment_bodies(1).back().find("@alice commented `/kgate ignore`"), std::string::npos);

  // Other results for the kernel (a push, the nightly sweep): nothing.
  auto quiet = publisher.propose(sample_proposal(repo_.base_sha, kV3));
  ASSERT_TRUE(quiet.ok()) << quiet.error().message;
  EXPECT_EQ(quiet->action, ProposalAction::kIgnored);
  EXPECT_EQ(github_.pulls().size(), 1u);
  // A pull request that is not kgate's for the kernel is refused.
  EXPECT_FALSE(publisher.ignore("rmsnorm", 42, "alice").ok());

  // `/kgate optimize rmsnorm`: asked for again, proposed again.
  auto asked = publisher.propose(sample_proposal(repo_.base_sha, kV3), {.unignore = true});
  ASSERT_TRUE(asked.ok()) << asked.error().message;
  EXPECT_EQ(asked->action, ProposalAction::kCreated);
  EXPECT_EQ(asked->number, 2);
  // From then on the newest pull request is not ignored.
  auto later = publisher.propose(sample_proposal(repo_.base_sha, kV4));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->action, ProposalAction::kUpdated);
}

TEST(LocalBranchRulesTest, ALocalCommitOnTheBranchIsNotOverwrittenEither) {
  BotRepo repo;
  LocalForge forge(repo.work, repo.work / ".kgate");
  PullRequestPublisher publisher(forge, repo.work);
  ASSERT_TRUE(publisher.propose(sample_proposal(repo.base_sha, kV2)).ok());
  git(repo.work, {"checkout", "-q", "kgate/optimize/rmsnorm"});
  testing::write(repo.work / "csrc/rmsnorm.cu", "// by hand\n");
  git(repo.work, {"commit", "-q", "-am", "by hand"});
  git(repo.work, {"checkout", "-q", "main"});
  const std::string mine = git(repo.work, {"rev-parse", "kgate/optimize/rmsnorm"});
  auto blocked = publisher.propose(sample_proposal(repo.base_sha, kV3));
  ASSERT_TRUE(blocked.ok()) << blocked.error().message;
  EXPECT_EQ(blocked->action, ProposalAction::kBlocked);
  EXPECT_EQ(git(repo.work, {"rev-parse", "kgate/optimize/rmsnorm"}), mine);
  auto comments = forge.comments(1);
  ASSERT_TRUE(comments.ok());
  ASSERT_EQ(comments->size(), 1u);
  EXPECT_NE(comments->front().find("commits by Test"), std::string::npos) << comments->front();
}

}  // namespace
}  // namespace kgate::bot
