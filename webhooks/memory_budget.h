#pragma once
// A bound on the bytes of request bodies held at once. A request takes a
// share before reading its body (its Content-Length) or as the body arrives
// (a chunked body, whose size is not announced), and gives it back after the
// answer; when the budget is spent, later requests wait (their bytes stay in
// the socket) until their deadline, then are refused.
// Invariant: the shares held never exceed capacity() (a share is capped at it).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace kgate::webhooks {

class MemoryBudget {
 public:
  using Deadline = std::chrono::steady_clock::time_point;
  explicit MemoryBudget(size_t capacity) : capacity_(capacity) {}
  size_t capacity() const { return capacity_; }
  // Waits until `bytes` more fit or `deadline` passes (false, nothing taken).
  bool acquire(size_t bytes, Deadline deadline);
  void release(size_t bytes);
  size_t used();

 private:
  const size_t capacity_;
  size_t used_ = 0;
  std::mutex mutex_;
  std::condition_variable freed_;
};

// A share of a MemoryBudget that may grow, given back whole on destruction.
class MemoryHold {
 public:
  explicit MemoryHold(MemoryBudget& budget) : budget_(budget) {}
  ~MemoryHold();
  MemoryHold(const MemoryHold&) = delete;
  MemoryHold& operator=(const MemoryHold&) = delete;

  // Holds at least min(bytes, capacity); false when that did not fit by `deadline`.
  bool grow_to(size_t bytes, MemoryBudget::Deadline deadline);
  size_t held() const { return bytes_; }

 private:
  MemoryBudget& budget_;
  size_t bytes_ = 0;
};

}  // namespace kgate::webhooks
