#include "webhooks/delivery_intake.h"

namespace kgate::webhooks {

DeliveryIntake::DeliveryIntake(JobQueue& queue, JobQueue::RouteFn router,
                               std::function<void()> on_committed)
    : queue_(queue), router_(std::move(router)), on_committed_(std::move(on_committed)) {
  thread_ = std::thread([this] { run(); });
}

DeliveryIntake::~DeliveryIntake() {
  stop();
}

void DeliveryIntake::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  work_.notify_all();
  if (thread_.joinable()) thread_.join();
}

IntakeResult DeliveryIntake::submit(const IncomingDelivery& delivery) {
  Pending pending{&delivery, {}, false};
  std::unique_lock lock(mutex_);
  if (stopping_) {
    pending.result.status = Error::infrastructure("the service is shutting down");
    return pending.result;
  }
  pending_.push_back(&pending);
  work_.notify_one();
  done_.wait(lock, [&] { return pending.done; });
  return std::move(pending.result);
}

void DeliveryIntake::run() {
  constexpr size_t kMaxBatch = 512;
  while (true) {
    std::vector<Pending*> batch;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping and nothing left
      while (!pending_.empty() && batch.size() < kMaxBatch) {
        batch.push_back(pending_.front());
        pending_.pop_front();
      }
    }
    std::vector<const IncomingDelivery*> deliveries;
    for (Pending* p : batch) deliveries.push_back(p->delivery);
    std::vector<std::pair<DeliveryOutcome, Routing>> results;
    Status stored = queue_.accept_batch(deliveries, router_, results);
    {
      std::lock_guard lock(mutex_);
      for (size_t i = 0; i < batch.size(); ++i) {
        batch[i]->result.status = stored;
        if (stored.ok()) {
          batch[i]->result.outcome = results[i].first;
          batch[i]->result.routing = std::move(results[i].second);
        }
        batch[i]->done = true;
      }
    }
    done_.notify_all();
    if (stored.ok() && on_committed_) on_committed_();
  }
}

}  // namespace kgate::webhooks
