// Routing that waits for GitHub, on the real SQLite queue: a command whose
// author's permission is not cached is stored as pending at intake (nothing
// waits for GitHub there), then routed by the PendingRouter once GitHub
// answers, tried again while it does not, and refused with the reason when it
// never does. Real payloads from @octokit/webhooks-examples.
#include "webhooks/pending_router.h"

#include <gtest/gtest.h>

#include <atomic>

#include "serve_fixture.h"

namespace kgate::webhooks {
namespace {

using kgate::testing::eventually;
using kgate::testing::example_payload;
using nlohmann::json;

// GitHub's permission API that fails `failures` times, then says yes.
class FlakyPermissions : public PermissionLookup {
 public:
  explicit FlakyPermissions(int failures) : failures_(failures) {}
  std::optional<bool> has_write(const std::string&, const std::string&,
                                const std::string&) const override {
    ++asked;
    if (answered) return true;
    if (failures_-- > 0) return std::nullopt;
    answered = true;
    return true;
  }
  bool answer_at_hand(const std::string&, const std::string&) const override { return answered; }
  std::string why_unknown(const std::string&, const std::string& user,
                          const std::string&) const override {
    return "GitHub's permission API did not answer for " + user + " (502 Bad Gateway)";
  }
  mutable std::atomic<int> asked{0};
  mutable std::atomic<bool> answered{false};

 private:
  mutable std::atomic<int> failures_;
};

class PendingRouting : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kgate::testing::have_octokit_examples()) << "run scripts/setup";
    auto opened = JobQueue::open(dir / "q.db", Durability::kNormal);
    ASSERT_TRUE(opened.ok());
    queue = std::move(*opened);
  }
  // What the service's intake does (webhook_service.cpp): route with the
  // answers at hand, defer when one is not.
  Routed intake_route(const IncomingDelivery& d, RoutingContext& shared,
                      const PermissionLookup& permissions) {
    Routed out;
    auto event = parse_webhook_event(d.event, d.body);
    if (!event.ok()) return out;
    RoutingContext context = shared;
    context.known_pull = [&](const std::string& repo, int64_t number) {
      auto pull = shared.known_pull(repo, number);
      if (pull) out.pinned.push_back(*pull);
      return pull;
    };
    IntakePermissions intake(permissions);
    context.permissions = &intake;
    out.routing = route(*event, context);
    out.deferred = intake.waiting_for();
    return out;
  }
  DeliveryOutcome deliver(const std::string& id, const std::string& event, const json& payload,
                          const PermissionLookup& permissions) {
    std::string body = payload.dump();
    IncomingDelivery d{id, event, payload.value("action", ""), body};
    std::vector<std::pair<DeliveryOutcome, Routing>> results;
    Status s = queue->accept_batch(
        {&d},
        [&](const IncomingDelivery& in, RoutingContext& c) {
          return intake_route(in, c, permissions);
        },
        results);
    EXPECT_TRUE(s.ok());
    return results.empty() ? DeliveryOutcome::kDuplicate : results[0].first;
  }
  static json fork_pr(const std::string& action, const std::string& head) {
    json p = example_payload("pull_request", action);
    p["pull_request"]["head"]["repo"]["full_name"] = "stranger/Hello-World";
    p["pull_request"]["head"]["sha"] = head;
    return p;
  }
  static json approve_by(const std::string& user) {
    json p = example_payload("issue_comment", "created");
    p["comment"]["body"] = "/kgate approve";
    p["comment"]["user"]["login"] = user;
    p["comment"]["author_association"] = "MEMBER";
    p["issue"]["number"] = 2;
    p["issue"]["pull_request"] = {{"url", "https://api.github.com/repos/o/r/pulls/2"}};
    return p;
  }
  std::unique_ptr<PendingRouter> router(const PermissionLookup& permissions, int max_attempts) {
    PendingRouterOptions options;
    options.max_attempts = max_attempts;
    options.first_retry_s = 0.05;
    options.max_retry_s = 0.2;
    auto r = std::make_unique<PendingRouter>(
        *queue, permissions,
        [](const WebhookEvent& event, RoutingContext& context) { return route(event, context); },
        [this] { ++routed; }, options);
    r->start();
    return r;
  }

  kgate::testing::TempDir dir;
  std::unique_ptr<JobQueue> queue;
  std::atomic<int> routed{0};
  const std::string head_a = std::string(40, 'a');
  const std::string head_b = std::string(40, 'b');
};

TEST_F(PendingRouting, ACommandWaitsForGitHubAndActsOnTheHeadItsAuthorSaw) {
  FlakyPermissions github(2);
  ASSERT_EQ(deliver("p-1", "pull_request", fork_pr("opened", head_a), github),
            DeliveryOutcome::kIgnored);  // a fork: waits for approval
  EXPECT_EQ(github.asked, 0);            // a pull request event asks nothing
  // carol's permission is not at hand: stored, answered, decided later.
  ASSERT_EQ(deliver("c-1", "issue_comment", approve_by("carol"), github),
            DeliveryOutcome::kPending);
  EXPECT_EQ(github.asked, 0);  // the intake never asked GitHub
  // The fork pushes again before GitHub answers.
  deliver("p-2", "pull_request", fork_pr("synchronize", head_b), github);

  auto pending = router(github, 6);
  ASSERT_TRUE(eventually([&] { return *queue->pending_count() == 0; }, 10));
  pending->stop();
  EXPECT_EQ(github.asked, 3);  // two failures, tried again, then the answer
  // The approval is for the commit carol looked at, not the one pushed since.
  auto context = queue->reading_context();
  EXPECT_TRUE(context.is_approved("Codertocat/Hello-World", head_a));
  EXPECT_FALSE(context.is_approved("Codertocat/Hello-World", head_b));
  auto jobs = *queue->jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].spec.head, head_a);
  EXPECT_EQ(context.known_pull("Codertocat/Hello-World", 2)->head_sha, head_b);
  EXPECT_GE(routed, 1);
}

TEST_F(PendingRouting, GitHubThatNeverAnswersMeansNoWithTheReason) {
  FlakyPermissions github(1000);
  deliver("p-1", "pull_request", fork_pr("opened", head_a), github);
  ASSERT_EQ(deliver("c-1", "issue_comment", approve_by("carol"), github),
            DeliveryOutcome::kPending);
  auto pending = router(github, 3);
  ASSERT_TRUE(eventually([&] { return *queue->pending_count() == 0; }, 10));
  pending->stop();
  EXPECT_EQ(github.asked, 3);
  EXPECT_TRUE(queue->jobs()->empty());
  EXPECT_FALSE(queue->reading_context().is_approved("Codertocat/Hello-World", head_a));
  auto notices = *queue->unsent_notices(10);
  ASSERT_FALSE(notices.empty());
  const Notice& refusal = notices.back().second;
  EXPECT_EQ(refusal.kind, "command-refused");
  EXPECT_NE(refusal.message.find("502"), std::string::npos) << refusal.message;
}

TEST_F(PendingRouting, AStoppedRouterLeavesPendingDeliveriesForTheNextStart) {
  FlakyPermissions github(1000);
  deliver("p-1", "pull_request", fork_pr("opened", head_a), github);
  deliver("c-1", "issue_comment", approve_by("carol"), github);
  {
    auto pending = router(github, 100);
    ASSERT_TRUE(eventually([&] { return github.asked >= 1; }, 10));
  }
  EXPECT_EQ(*queue->pending_count(), 1);
  FlakyPermissions back(0);
  auto pending = router(back, 3);
  ASSERT_TRUE(eventually([&] { return *queue->pending_count() == 0; }, 10));
  EXPECT_EQ(queue->jobs()->size(), 1u);
}

}  // namespace
}  // namespace kgate::webhooks
