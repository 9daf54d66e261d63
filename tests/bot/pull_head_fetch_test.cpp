// Fetching a pull request's head that is not in the clone (a fork's commit)
// from the base repository's refs/pull/<N>/head, with real repositories:
// a bare "origin" holding the pull request ref and a clone that lacks it.
#include <gtest/gtest.h>

#include "bot_test_repo.h"
#include "forked_pull_repo.h"
#include "gate/pull_head_fetch.h"

namespace kgate::bot {
namespace {

using testing::ForkedPull;
using testing::git;

TEST(PullHeadFetchTest, FetchesAForkHeadIntoAKgateRef) {
  ForkedPull pr;
  ASSERT_FALSE(pr.clone_has(pr.head_sha)) << "the clone must not have the fork's commit yet";
  auto head = ensure_pull_head(pr.request(pr.head_sha));
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_TRUE(head->fetched);
  EXPECT_EQ(head->commit, pr.head_sha);
  EXPECT_EQ(head->ref, "refs/kgate/pull/7/head");
  EXPECT_TRUE(pr.clone_has(pr.head_sha));
  EXPECT_EQ(git(pr.clone, {"rev-parse", "refs/kgate/pull/7/head"}), pr.head_sha);
  // The user's branches are untouched.
  EXPECT_EQ(git(pr.clone, {"rev-parse", "main"}), pr.base_sha);

  // Present now: nothing is fetched (a broken remote does not matter).
  git(pr.clone, {"remote", "set-url", "origin", (pr.tmp / "gone.git").string()});
  auto again = ensure_pull_head(pr.request(pr.head_sha));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->fetched);
}

TEST(PullHeadFetchTest, ANewerPushReportsTheCommitTheRefHoldsNow) {
  ForkedPull pr;
  std::string old_head = pr.head_sha;
  std::string new_head = pr.push_fork_commit("// v3, force-pushed\n");
  ASSERT_NE(old_head, new_head);
  auto head = ensure_pull_head(pr.request(old_head));
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_TRUE(head->fetched);
  EXPECT_EQ(head->commit, new_head);
}

TEST(PullHeadFetchTest, ErrorsSayWhatIsMissing) {
  ForkedPull pr;
  git(pr.clone, {"remote", "remove", "origin"});
  auto no_remote = ensure_pull_head(pr.request(pr.head_sha));
  ASSERT_FALSE(no_remote.ok());
  EXPECT_EQ(no_remote.error().kind, ExitCode::kBadInput);
  EXPECT_NE(no_remote.error().message.find("no remote 'origin'"), std::string::npos)
      << no_remote.error().message;

  git(pr.clone, {"remote", "add", "origin", (pr.tmp / "gone.git").string()});
  auto unreachable = ensure_pull_head(pr.request(pr.head_sha));
  ASSERT_FALSE(unreachable.ok());
  EXPECT_EQ(unreachable.error().kind, ExitCode::kInfrastructure);
  EXPECT_NE(unreachable.error().message.find("fetching refs/pull/7/head from origin"),
            std::string::npos)
      << unreachable.error().message;

  git(pr.clone, {"remote", "set-url", "origin", pr.origin.string()});
  PullHeadRequest other = pr.request(pr.head_sha);
  other.pull_number = 8;
  auto no_pull = ensure_pull_head(other);
  ASSERT_FALSE(no_pull.ok());
  EXPECT_EQ(no_pull.error().kind, ExitCode::kInfrastructure);
  EXPECT_NE(no_pull.error().message.find("refs/pull/8/head"), std::string::npos)
      << no_pull.error().message;

  auto malformed = ensure_pull_head(pr.request("not-a-sha"));
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().kind, ExitCode::kBadInput);
  EXPECT_FALSE(pr.clone_has(pr.head_sha)) << "no failed attempt may leave the commit behind";
}

}  // namespace
}  // namespace kgate::bot
