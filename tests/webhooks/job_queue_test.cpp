// The SQLite queue on its own: dedupe, routing in the same transaction,
// claiming, retries and recovery after a crash.
#include "webhooks/job_queue.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace kgate::webhooks {
namespace {

Routing one_gate(const IncomingDelivery& d, RoutingContext&) {
  Routing r;
  r.jobs.push_back(
      {.kind = JobKind::kGate, .repository = "o/r", .pull_number = 1, .base = "b", .head = d.id});
  return r;
}

TEST(JobQueue, DeliveryStoredOnceAndRoutedOnce) {
  kgate::testing::TempDir dir;
  auto queue = JobQueue::open(dir / "q.db", Durability::kFull);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  IncomingDelivery a{"a", "pull_request", "opened", "{}"};
  IncomingDelivery b{"b", "pull_request", "opened", "{}"};
  std::vector<std::pair<DeliveryOutcome, Routing>> results;
  ASSERT_TRUE((*queue)->accept_batch({&a, &b, &a}, one_gate, results).ok());
  EXPECT_EQ(results[0].first, DeliveryOutcome::kQueued);
  EXPECT_EQ(results[1].first, DeliveryOutcome::kQueued);
  EXPECT_EQ(results[2].first, DeliveryOutcome::kDuplicate);
  ASSERT_TRUE((*queue)->accept_batch({&a}, one_gate, results).ok());
  EXPECT_EQ(results[0].first, DeliveryOutcome::kDuplicate);
  EXPECT_EQ(*(*queue)->delivery_count(), 2);
  EXPECT_EQ((*(*queue)->jobs()).size(), 2u);
}

TEST(JobQueue, ClaimRetryFailAndRecover) {
  kgate::testing::TempDir dir;
  {
    auto queue = JobQueue::open(dir / "q.db", Durability::kNormal);
    ASSERT_TRUE(queue.ok());
    IncomingDelivery a{"a", "pull_request", "opened", "{}"};
    std::vector<std::pair<DeliveryOutcome, Routing>> results;
    ASSERT_TRUE((*queue)->accept_batch({&a}, one_gate, results).ok());
    auto job = (*queue)->claim(0, 100);
    ASSERT_TRUE(job.ok() && job->has_value());
    EXPECT_EQ((*job)->attempts, 1);
    EXPECT_EQ((*job)->spec.head, "a");
    EXPECT_FALSE((*(*queue)->claim(1, 100)).has_value());  // one job, already running
    ASSERT_TRUE((*queue)->retry_later((*job)->id, "boom", 200).ok());
    EXPECT_FALSE((*(*queue)->claim(0, 150)).has_value());  // not before its retry time
    auto again = (*queue)->claim(0, 250);
    ASSERT_TRUE(again.ok() && again->has_value());
    EXPECT_EQ((*again)->attempts, 2);
    // The process dies here with the job running.
  }
  auto queue = JobQueue::open(dir / "q.db", Durability::kNormal);
  ASSERT_TRUE(queue.ok());
  EXPECT_EQ(*(*queue)->recover(), 1);
  auto job = (*queue)->claim(0, 300);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->attempts, 2);  // the interrupted attempt is not counted
  ASSERT_TRUE((*queue)->fail((*job)->id, "gave up", 400).ok());
  auto jobs = *(*queue)->jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, "failed");
  EXPECT_EQ(jobs[0].last_error, "gave up");
}

}  // namespace
}  // namespace kgate::webhooks
