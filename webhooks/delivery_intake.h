#pragma once
// Group commit for deliveries: request threads hand their delivery to one
// committer thread and wait; the committer stores everything waiting in one
// transaction (one fsync), then wakes them. Throughput grows with load while
// every delivery is still on disk before its answer.
// Invariant: submit() returns only after the delivery's transaction committed
// (or failed); after stop() it refuses new deliveries.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "webhooks/job_queue.h"

namespace kgate::webhooks {

struct IntakeResult {
  Status status;  // infrastructure error: nothing stored, answer 503
  DeliveryOutcome outcome = DeliveryOutcome::kDuplicate;
  Routing routing;
};

class DeliveryIntake {
 public:
  // `on_committed` runs on the committer thread after each batch (wakes workers).
  DeliveryIntake(JobQueue& queue, JobQueue::RouteFn router, std::function<void()> on_committed);
  ~DeliveryIntake();

  IntakeResult submit(const IncomingDelivery& delivery);
  void stop();  // stores what is waiting, then refuses new deliveries

 private:
  struct Pending {
    const IncomingDelivery* delivery;
    IntakeResult result;
    bool done = false;
  };
  void run();

  JobQueue& queue_;
  JobQueue::RouteFn router_;
  std::function<void()> on_committed_;
  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::deque<Pending*> pending_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kgate::webhooks
