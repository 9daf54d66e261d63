// Gates before long jobs, on the real SQLite queue and the real WorkerPool:
// a pull request's gate does not wait behind an hour-long optimize. The
// executor stands in for `kgate optimize` (runs until cancelled) and `kgate
// gate` (done at once), recording the order jobs ran in.
#include <gtest/gtest.h>

#include <mutex>

#include "serve_fixture.h"
#include "webhooks/worker_pool.h"

namespace kgate::webhooks {
namespace {

using kgate::testing::eventually;

class RecordingExecutor : public JobExecutor {
 public:
  JobResult execute(const StoredJob& job, const ExecutionContext& context) override {
    {
      std::lock_guard lock(mutex_);
      started_.push_back(job.spec.head);
    }
    JobResult result;
    bool long_job = job_priority(job.spec.kind) == kLongJobPriority;
    // A long job runs until cancelled, unless told to finish.
    while (long_job && !finish_long_ && !context.cancel->load())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (long_job && context.cancel->load()) {
      result.cancelled = true;
      result.outcome = "cancelled";
      return result;
    }
    result.ok = true;
    result.outcome = "passed";
    return result;
  }
  std::vector<std::string> started() {
    std::lock_guard lock(mutex_);
    return started_;
  }
  std::atomic<bool> finish_long_{false};

 private:
  std::mutex mutex_;
  std::vector<std::string> started_;
};

Routed job_named(const IncomingDelivery& d, RoutingContext&) {
  Routed r;
  r.routing.jobs.push_back(
      {.kind = *parse_job_kind(d.id.substr(0, d.id.find('-'))), .repository = "o/r", .head = d.id});
  return r;
}

class WorkerPriority : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = JobQueue::open(dir / "q.db", Durability::kNormal);
    ASSERT_TRUE(opened.ok());
    queue = std::move(*opened);
  }
  void queue_jobs(std::vector<std::string> ids) {
    std::vector<IncomingDelivery> deliveries;
    for (const auto& id : ids) deliveries.push_back({id, "x", "", "{}"});
    std::vector<const IncomingDelivery*> pointers;
    for (const auto& d : deliveries) pointers.push_back(&d);
    std::vector<std::pair<DeliveryOutcome, Routing>> results;
    ASSERT_TRUE(queue->accept_batch(pointers, job_named, results).ok());
  }
  std::string state_of(const std::string& head) {
    auto jobs = queue->jobs();
    for (const StoredJob& j : *jobs)
      if (j.spec.head == head) return j.state;
    return "";
  }
  int preemptions_of(const std::string& head) {
    auto jobs = queue->jobs();
    for (const StoredJob& j : *jobs)
      if (j.spec.head == head) return j.preemptions;
    return -1;
  }

  kgate::testing::TempDir dir;
  std::unique_ptr<JobQueue> queue;
  RecordingExecutor executor;
  Metrics metrics;
};

TEST_F(WorkerPriority, AGateStopsTheOptimizeOnTheOnlyWorker) {
  WorkerOptions options;
  options.workers = 1;
  WorkerPool pool(*queue, executor, metrics, options);
  queue_jobs({"optimize-1"});
  pool.start();
  ASSERT_TRUE(eventually([&] { return state_of("optimize-1") == "running"; }, 10));
  queue_jobs({"gate-1"});
  pool.wake();
  ASSERT_TRUE(eventually([&] { return state_of("gate-1") == "done"; }, 10));
  // The optimize went back to the queue, the attempt not counted, and runs again.
  EXPECT_EQ(preemptions_of("optimize-1"), 1);
  ASSERT_TRUE(eventually([&] { return executor.started().size() == 3u; }, 10));
  EXPECT_EQ(executor.started(), (std::vector<std::string>{"optimize-1", "gate-1", "optimize-1"}));
  executor.finish_long_ = true;
  ASSERT_TRUE(eventually([&] { return state_of("optimize-1") == "done"; }, 10));
  pool.stop();
}

TEST_F(WorkerPriority, WithTwoWorkersOneIsKeptForGates) {
  WorkerOptions options;
  options.workers = 2;  // long jobs take at most one
  WorkerPool pool(*queue, executor, metrics, options);
  queue_jobs({"optimize-1", "optimize-2"});
  pool.start();
  ASSERT_TRUE(eventually([&] { return state_of("optimize-1") == "running"; }, 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(state_of("optimize-2"), "queued");
  queue_jobs({"gate-1"});
  pool.wake();
  ASSERT_TRUE(eventually([&] { return state_of("gate-1") == "done"; }, 10));
  EXPECT_EQ(preemptions_of("optimize-1"), 0);  // the free worker took it
  EXPECT_EQ(state_of("optimize-1"), "running");
  executor.finish_long_ = true;
  ASSERT_TRUE(eventually([&] { return state_of("optimize-2") == "done"; }, 10));
  pool.stop();
}

TEST_F(WorkerPriority, PreemptionsAreBounded) {
  WorkerOptions options;
  options.workers = 1;
  options.max_preemptions = 1;
  WorkerPool pool(*queue, executor, metrics, options);
  queue_jobs({"optimize-1"});
  pool.start();
  ASSERT_TRUE(eventually([&] { return state_of("optimize-1") == "running"; }, 10));
  queue_jobs({"gate-1"});
  pool.wake();
  ASSERT_TRUE(eventually([&] { return state_of("gate-1") == "done"; }, 10));
  ASSERT_TRUE(eventually([&] { return state_of("optimize-1") == "running"; }, 10));
  // Stopped once already: the next gate waits for it.
  queue_jobs({"gate-2"});
  pool.wake();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(state_of("gate-2"), "queued");
  executor.finish_long_ = true;
  ASSERT_TRUE(eventually([&] { return state_of("gate-2") == "done"; }, 10));
  pool.stop();
}

}  // namespace
}  // namespace kgate::webhooks
