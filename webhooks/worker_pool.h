#pragma once
// Worker threads that take jobs from the queue and run them through a
// JobExecutor, one job per worker at a time (one worker per GPU on a GPU
// host, pinned with CUDA_VISIBLE_DEVICES). A failed attempt is retried with
// exponential backoff up to max_attempts, then the job is failed with the
// reason; an attempt the executor marks not retryable (a refusal, or a
// request that must not be sent twice and may have reached the server) fails
// the job at once.
//
// Priorities: the queue hands out gates first (JobQueue::claim). Long jobs
// (optimize, sweep) take at most max_long_jobs workers, so with two workers
// or more one is always free for gates; when every worker is busy with long
// jobs and a gate is due, the most recently started long job is stopped and
// queued again (its attempt not counted), at most max_preemptions times per
// job, so that a gate does not wait behind an hour-long optimize.
// Invariant: after stop() returns no job of this pool is "running".
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
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
  double retry_base_s = 10;  // waits up to base, 2*base, 4*base ... (jittered) between attempts
  double retry_max_s = 600;
  double drain_timeout_s = 30;  // on stop: running jobs get this long, then are cancelled
  int max_long_jobs = 0;        // optimize/sweep at once; 0: workers - 1, at least 1
  int max_preemptions = 2;      // times a long job may be stopped for a gate; 0: never
};

class WorkerPool {
 public:
  WorkerPool(JobQueue& queue, JobExecutor& executor, Metrics& metrics, WorkerOptions options);
  ~WorkerPool();
  void start();
  void wake();  // new jobs were queued
  // Takes no new jobs; running ones finish by `deadline` or are cancelled
  // and queued again.
  void stop(std::chrono::steady_clock::time_point deadline);
  void stop();  // deadline: drain_timeout_s from now

 private:
  struct Running {
    int64_t job = 0;  // 0: idle
    int priority = 0;
    int preemptions = 0;
    std::chrono::steady_clock::time_point started;
    bool preempted = false;
  };
  void run(int worker);
  void supervise();
  void record(int worker, const StoredJob& job, const JobResult& result);

  JobQueue& queue_;
  JobExecutor& executor_;
  Metrics& metrics_;
  WorkerOptions options_;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<std::atomic<bool>>> cancel_;  // per worker
  std::mutex mutex_;
  std::condition_variable wake_;
  uint64_t wake_generation_ = 0;
  std::mutex claim_mutex_;  // a claim and the record of what runs are one step
  std::vector<Running> running_;
  bool preempting_ = false;
  std::vector<std::thread> threads_;
  std::thread supervisor_;
};

}  // namespace kgate::webhooks
