// The SQLite queue on its own: dedupe, routing in the same transaction,
// claiming, retries and recovery after a crash.
#include "webhooks/job_queue.h"

#include <gtest/gtest.h>

#include "support/test_support.h"
#include "webhooks/job.h"

namespace kgate::webhooks {
namespace {

Routed one_gate(const IncomingDelivery& d, RoutingContext&) {
  Routed r;
  r.routing.jobs.push_back(
      {.kind = JobKind::kGate, .repository = "o/r", .pull_number = 1, .base = "b", .head = d.id});
  return r;
}

// Queues one job of the kind named by the delivery id's first word.
Routed job_named(const IncomingDelivery& d, RoutingContext&) {
  Routed r;
  JobKind kind = *parse_job_kind(d.id.substr(0, d.id.find('-')));
  r.routing.jobs.push_back({.kind = kind, .repository = "o/r", .head = d.id});
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

TEST(JobQueue, GatesAreClaimedBeforeLongJobs) {
  kgate::testing::TempDir dir;
  auto queue = JobQueue::open(dir / "q.db", Durability::kNormal);
  ASSERT_TRUE(queue.ok());
  std::vector<std::pair<DeliveryOutcome, Routing>> results;
  // An hour of optimize work arrives first, then a baseline, then a pull request's gate.
  IncomingDelivery o1{"optimize-1", "push", "", "{}"}, o2{"optimize-2", "push", "", "{}"};
  IncomingDelivery b{"baseline-1", "push", "", "{}"}, s{"sweep-1", "push", "", "{}"};
  IncomingDelivery g{"gate-1", "pull_request", "opened", "{}"};
  ASSERT_TRUE((*queue)->accept_batch({&o1, &o2, &b, &s}, job_named, results).ok());
  ASSERT_TRUE((*queue)->accept_batch({&g}, job_named, results).ok());
  EXPECT_TRUE(*(*queue)->has_due(0, 100));
  std::vector<std::string> order;
  while (true) {
    auto job = (*queue)->claim(0, 100);
    ASSERT_TRUE(job.ok());
    if (!job->has_value()) break;
    order.push_back((*job)->spec.head);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"gate-1", "baseline-1", "optimize-1", "optimize-2",
                                             "sweep-1"}));
  EXPECT_FALSE(*(*queue)->has_due(2, 100));
}

TEST(JobQueue, AClaimCanLeaveLongJobsQueued) {
  kgate::testing::TempDir dir;
  auto queue = JobQueue::open(dir / "q.db", Durability::kNormal);
  ASSERT_TRUE(queue.ok());
  std::vector<std::pair<DeliveryOutcome, Routing>> results;
  IncomingDelivery o{"optimize-1", "push", "", "{}"};
  ASSERT_TRUE((*queue)->accept_batch({&o}, job_named, results).ok());
  EXPECT_FALSE((*(*queue)->claim(0, 100, kLongJobPriority - 1)).has_value());
  auto job = (*queue)->claim(0, 100);
  ASSERT_TRUE(job.ok() && job->has_value());
  // Stopped for a gate: queued again, the attempt not counted, the stop counted.
  ASSERT_TRUE((*queue)->requeue((*job)->id, true).ok());
  auto again = (*queue)->claim(0, 100);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 1);
  EXPECT_EQ((*again)->preemptions, 1);
}

TEST(JobQueue, AQueueOfTheFirstSchemaGetsPriorities) {
  kgate::testing::TempDir dir;
  {
    // The jobs table as the first version created it, with two queued jobs.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "q.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT "
                           "NOT NULL, kind TEXT NOT NULL, spec TEXT NOT NULL, state TEXT NOT NULL, "
                           "attempts INTEGER NOT NULL DEFAULT 0, not_before REAL NOT NULL DEFAULT "
                           "0, created_at REAL NOT NULL, started_at REAL, finished_at REAL, worker "
                           "INTEGER, last_error TEXT, outcome TEXT);"
                           "INSERT INTO jobs(delivery, kind, spec, state, created_at) VALUES"
                           "('a','optimize','{\"kind\":\"optimize\",\"repository\":\"o/r\"}',"
                           "'queued',0),"
                           "('b','gate','{\"kind\":\"gate\",\"repository\":\"o/r\"}','queued',0);",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto queue = JobQueue::open(dir / "q.db", Durability::kNormal);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  auto job = (*queue)->claim(0, 100);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->spec.kind, JobKind::kGate);
}

TEST(JobQueue, APendingDeliveryIsRoutedOnceWithThePullRequestsPinned) {
  kgate::testing::TempDir dir;
  auto queue = JobQueue::open(dir / "q.db", Durability::kFull);
  ASSERT_TRUE(queue.ok());
  std::vector<std::pair<DeliveryOutcome, Routing>> results;
  PullState pinned{"o/r", 7, "aaaa", "bbbb", false};
  auto defer = [&](const IncomingDelivery&, RoutingContext&) {
    Routed r;
    r.deferred = "GitHub's answer on carol's write access";
    r.pinned = {pinned};
    r.routing.jobs.push_back({.kind = JobKind::kGate, .repository = "o/r"});  // not stored
    return r;
  };
  IncomingDelivery c{"c", "issue_comment", "created", "{\"x\":1}"};
  ASSERT_TRUE((*queue)->accept_batch({&c}, defer, results).ok());
  EXPECT_EQ(results[0].first, DeliveryOutcome::kPending);
  EXPECT_TRUE((*(*queue)->jobs()).empty());
  EXPECT_EQ(*(*queue)->pending_count(), 1);
  // A redelivery while it is pending is a duplicate.
  ASSERT_TRUE((*queue)->accept_batch({&c}, defer, results).ok());
  EXPECT_EQ(results[0].first, DeliveryOutcome::kDuplicate);

  auto due = (*queue)->due_pending(unix_now(), 10);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].body, "{\"x\":1}");
  ASSERT_EQ((*due)[0].pinned.size(), 1u);
  EXPECT_EQ((*due)[0].pinned[0].head_sha, "aaaa");
  ASSERT_TRUE((*queue)->postpone_pending("c", unix_now() + 1000).ok());
  EXPECT_TRUE((*(*queue)->due_pending(unix_now(), 10)).empty());

  Routing routing;
  routing.jobs.push_back(
      {.kind = JobKind::kGate, .repository = "o/r", .pull_number = 7, .head = "aaaa"});
  routing.approvals.push_back({"o/r", 7, "aaaa", "carol"});
  routing.pull_update = PullState{"o/r", 7, "old", "old", true};  // never applied later
  ASSERT_TRUE((*queue)->finish_pending("c", routing).ok());
  ASSERT_TRUE((*queue)->finish_pending("c", routing).ok());  // a second time: nothing
  EXPECT_EQ((*(*queue)->jobs()).size(), 1u);
  EXPECT_EQ(*(*queue)->pending_count(), 0);
  RoutingContext context = (*queue)->reading_context();
  EXPECT_TRUE(context.is_approved("o/r", "aaaa"));
  EXPECT_FALSE(context.known_pull("o/r", 7).has_value());
}

}  // namespace
}  // namespace kgate::webhooks
