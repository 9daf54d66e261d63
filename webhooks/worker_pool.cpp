#include "webhooks/worker_pool.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/retry_policy.h"
#include "webhooks/json_log.h"

namespace kgate::webhooks {

WorkerPool::WorkerPool(JobQueue& queue, JobExecutor& executor, Metrics& metrics,
                       WorkerOptions options)
    : queue_(queue), executor_(executor), metrics_(metrics), options_(options) {
  options_.workers = std::max(1, options_.workers);
  if (options_.max_long_jobs <= 0) options_.max_long_jobs = std::max(1, options_.workers - 1);
  for (int i = 0; i < options_.workers; ++i)
    cancel_.push_back(std::make_unique<std::atomic<bool>>(false));
  running_.resize(options_.workers);
}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::start() {
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back([this, i] { run(i); });
  supervisor_ = std::thread([this] { supervise(); });
}

void WorkerPool::wake() {
  {
    std::lock_guard lock(mutex_);
    ++wake_generation_;
  }
  wake_.notify_all();
}

void WorkerPool::stop() {
  stop(std::chrono::steady_clock::now() +
       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
           std::chrono::duration<double>(options_.drain_timeout_s)));
}

void WorkerPool::stop(std::chrono::steady_clock::time_point deadline) {
  if (threads_.empty()) return;
  stopping_ = true;
  wake();
  if (supervisor_.joinable()) supervisor_.join();
  // Running jobs get until the deadline, then are cancelled (their process groups killed).
  bool done = false;
  std::thread canceller([this, deadline, &done] {
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, deadline, [&] { return done; });
    for (auto& c : cancel_) *c = true;
  });
  for (auto& t : threads_) t.join();
  threads_.clear();
  {
    std::lock_guard lock(mutex_);
    done = true;
  }
  wake_.notify_all();
  canceller.join();
}

void WorkerPool::supervise() {
  // Preemption: a due gate, no idle worker, and a long job running.
  while (!stopping_) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stopping_.load(); });
    }
    if (stopping_ || options_.max_preemptions <= 0) continue;
    {
      std::lock_guard lock(claim_mutex_);
      bool idle = std::any_of(running_.begin(), running_.end(),
                              [](const Running& r) { return r.job == 0; });
      if (idle || preempting_) continue;
    }
    auto gate_due = queue_.has_due(0, unix_now());
    if (!gate_due.ok() || !*gate_due) continue;
    std::lock_guard lock(claim_mutex_);
    int victim = -1;
    for (int i = 0; i < static_cast<int>(running_.size()); ++i) {
      const Running& r = running_[i];
      if (r.job == 0 || r.priority < kLongJobPriority || r.preemptions >= options_.max_preemptions)
        continue;
      if (victim < 0 || r.started > running_[victim].started) victim = i;
    }
    if (victim < 0) continue;
    running_[victim].preempted = true;
    preempting_ = true;
    *cancel_[victim] = true;
    json_log({{"msg", "long job stopped for a gate; queued again"},
              {"job", running_[victim].job},
              {"worker", victim}});
  }
}

void WorkerPool::run(int worker) {
  ExecutionContext context{worker, std::nullopt, cancel_[worker].get()};
  if (options_.pin_gpus) context.gpu = worker;
  while (!stopping_) {
    uint64_t generation;
    {
      std::lock_guard lock(mutex_);
      generation = wake_generation_;
    }
    Result<std::optional<StoredJob>> claimed = std::optional<StoredJob>();
    {
      std::lock_guard lock(claim_mutex_);
      int long_jobs =
          static_cast<int>(std::count_if(running_.begin(), running_.end(), [](const Running& r) {
            return r.job != 0 && r.priority >= kLongJobPriority;
          }));
      int max_priority =
          long_jobs >= options_.max_long_jobs ? kLongJobPriority - 1 : kLongJobPriority;
      claimed = queue_.claim(worker, unix_now(), max_priority);
      if (claimed.ok() && claimed->has_value())
        running_[worker] = {(*claimed)->id, (*claimed)->priority, (*claimed)->preemptions,
                            std::chrono::steady_clock::now(), false};
    }
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
    json_log({{"msg", "job started"},
              {"job", job.id},
              {"kind", std::string(to_string(job.spec.kind))},
              {"attempt", job.attempts},
              {"worker", worker},
              {"spec", job.spec.to_json()}});
    JobResult result = executor_.execute(job, context);
    record(worker, job, result);
    // A job that finished frees its worker: another may now take a long job.
    wake();
  }
}

void WorkerPool::record(int worker, const StoredJob& job, const JobResult& result) {
  bool preempted;
  {
    std::lock_guard lock(claim_mutex_);
    preempted = running_[worker].preempted;
    running_[worker] = {};
    if (preempted) preempting_ = false;
  }
  if (preempted && !stopping_) *cancel_[worker] = false;
  std::string kind(to_string(job.spec.kind));
  double now = unix_now();
  nlohmann::json line = {{"job", job.id},
                         {"kind", kind},
                         {"attempt", job.attempts},
                         {"seconds", result.seconds},
                         {"outcome", result.outcome},
                         {"worker", worker}};
  Status recorded;
  if (result.cancelled) {
    recorded = queue_.requeue(job.id, preempted);
    line["msg"] = preempted ? "job stopped for a gate, queued again"
                            : "job interrupted by shutdown, queued again";
  } else if (result.ok) {
    recorded = queue_.complete(job.id, result.outcome, now);
    metrics_.job_finished(kind, result.outcome, result.seconds);
    line["msg"] = "job done";
  } else if (result.retryable && job.attempts < options_.max_attempts) {
    // core/retry_policy.h's backoff, jittered: jobs that failed together
    // (GitHub down) do not all come back in the same second.
    thread_local std::mt19937_64 rng(std::random_device{}());
    double wait = backoff_delay(options_.retry_base_s, options_.retry_max_s, job.attempts,
                                /*jitter=*/0.5, &rng);
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

}  // namespace kgate::webhooks
