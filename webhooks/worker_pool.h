#pragma once
// Worker threads that take jobs from the queue and run them through a
// JobExecutor, one job per worker at a time (one worker per GPU on a GPU
// host, pinned with CUDA_VISIBLE_DEVICES). A failed attempt is retried with
// exponential backoff up to max_attempts, then the job is failed with the reason.
// Invariant: after stop() returns no job of this pool is "running".
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "webhooks/job_executor.h"
#include "webhooks/job_queue.h"
#include "webhooks/metrics.h"

namespace kgate::webhooks {

struct WorkerOptions {
  int workers = 1;
  bool pin_gpus = false;  // worker i gets CUDA_VISIBLE_DEVICES=i
  int max_attempts = 3;
  double retry_base_s = 10;  // waits base, 2*base, 4*base ... between attempts
  double retry_max_s = 600;
  double drain_timeout_s = 30;  // on stop: running jobs get this long, then are cancelled
};

class WorkerPool {
 public:
  WorkerPool(JobQueue& queue, JobExecutor& executor, Metrics& metrics, WorkerOptions options);
  ~WorkerPool();
  void start();
  void wake();  // new jobs were queued
  // Takes no new jobs; running ones finish within drain_timeout_s or are
  // cancelled and queued again.
  void stop();

 private:
  void run(int worker);

  JobQueue& queue_;
  JobExecutor& executor_;
  Metrics& metrics_;
  WorkerOptions options_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> cancel_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  uint64_t wake_generation_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace kgate::webhooks
