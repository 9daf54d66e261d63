#include "webhooks/worker_pool.h"

#include <cmath>

#include "webhooks/json_log.h"

namespace kgate::webhooks {

WorkerPool::WorkerPool(JobQueue& queue, JobExecutor& executor, Metrics& metrics,
                       WorkerOptions options)
    : queue_(queue), executor_(executor), metrics_(metrics), options_(options) {}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::start() {
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this, i] { run(i); });
}

void WorkerPool::wake() {
  {
    std::lock_guard lock(mutex_);
    ++wake_generation_;
  }
  wake_.notify_all();
}

void WorkerPool::stop() {
  if (threads_.empty()) return;
  stopping_ = true;
  wake();
  // Give running jobs the drain time, then cancel them (their process groups are killed).
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(options_.drain_timeout_s));
  std::thread canceller([this, deadline] {
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, deadline, [this] { return cancel_.load(); });
    cancel_ = true;
  });
  for (auto& t : threads_) t.join();
  threads_.clear();
  {
    std::lock_guard lock(mutex_);
    cancel_ = true;
  }
  wake_.notify_all();
  canceller.join();
}

void WorkerPool::run(int worker) {
  ExecutionContext context{worker, std::nullopt, &cancel_};
  if (options_.pin_gpus) context.gpu = worker;
  while (!stopping_) {
    uint64_t generation;
    {
      std::lock_guard lock(mutex_);
      generation = wake_generation_;
    }
    auto claimed = queue_.claim(worker, unix_now());
    if (!claimed.ok()) {
      json_log({{"msg", "cannot claim a job"}, {"error", claimed.error().message}});
    }
    if (!claimed.ok() || !claimed->has_value()) {
      // Sleep until woken, or poll now and then for retries whose time has come.
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, std::chrono::milliseconds(500),
                     [&] { return stopping_.load() || wake_generation_ != generation; });
      continue;
    }
    StoredJob job = std::move(**claimed);
    std::string kind(to_string(job.spec.kind));
    json_log({{"msg", "job started"},
              {"job", job.id},
              {"kind", kind},
              {"attempt", job.attempts},
              {"worker", worker},
              {"spec", job.spec.to_json()}});
    JobResult result = executor_.execute(job, context);
    double now = unix_now();
    nlohmann::json line = {{"job", job.id},
                           {"kind", kind},
                           {"attempt", job.attempts},
                           {"seconds", result.seconds},
                           {"outcome", result.outcome},
                           {"worker", worker}};
    Status recorded;
    if (result.cancelled) {
      recorded = queue_.requeue(job.id);
      line["msg"] = "job interrupted by shutdown, queued again";
    } else if (result.ok) {
      recorded = queue_.complete(job.id, result.outcome, now);
      metrics_.job_finished(kind, result.outcome, result.seconds);
      line["msg"] = "job done";
    } else if (result.retryable && job.attempts < options_.max_attempts) {
      double wait =
          std::min(options_.retry_max_s, options_.retry_base_s * std::pow(2.0, job.attempts - 1));
      recorded = queue_.retry_later(job.id, result.outcome, now + wait);
      metrics_.job_finished(kind, "retried", result.seconds);
      metrics_.job_retried(kind);
      line["msg"] = "job attempt failed, retrying";
      line["retry_in_s"] = wait;
    } else {
      std::string reason = result.outcome + " (attempt " + std::to_string(job.attempts) + " of " +
                           std::to_string(options_.max_attempts) + ")";
      recorded = queue_.fail(job.id, reason, now);
      metrics_.job_finished(kind, "failed", result.seconds);
      line["msg"] = "job failed";
    }
    if (!recorded.ok()) line["queue_error"] = recorded.error().message;
    json_log(line);
  }
}

}  // namespace kgate::webhooks
