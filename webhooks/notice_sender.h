#pragma once
// Sends the queue's unsent notices through a Notifier, oldest first, on its
// own thread. A notice the forge keeps refusing (a deleted pull request, a
// missing permission) is given up after a few tries, so it cannot hold back
// the notices behind it; a forge that is down delays all of them instead.
// Invariant: a notice is marked sent only after the Notifier took it (or was
// given up on); stop(deadline) returns by the deadline plus at most one
// notify() call, and what is unsent then stays in the queue for the next start.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "webhooks/job_queue.h"
#include "webhooks/notifier.h"

namespace kgate::webhooks {

class NoticeSender {
 public:
  using Deadline = std::chrono::steady_clock::time_point;
  NoticeSender(JobQueue& queue, Notifier& notifier) : queue_(queue), notifier_(notifier) {}
  ~NoticeSender();
  void start();
  void wake();
  // Sends what is left until all is sent or `deadline` passes.
  void request_stop(Deadline deadline);
  void join();

 private:
  void run();
  bool past_deadline();

  JobQueue& queue_;
  Notifier& notifier_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool woken_ = false;
  Deadline deadline_ = Deadline::max();
  std::thread thread_;
};

}  // namespace kgate::webhooks
