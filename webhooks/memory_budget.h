#pragma once
// A bound on the bytes of request bodies held at once. A request takes its
// share before reading its body and gives it back after the answer; when the
// budget is spent, later requests wait (their bytes stay in the socket).
// Invariant: the shares held never exceed capacity() (a share is capped at it).
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace kgate::webhooks {

class MemoryBudget {
 public:
  explicit MemoryBudget(size_t capacity) : capacity_(capacity) {}
  size_t capacity() const { return capacity_; }
  void acquire(size_t bytes);
  void release(size_t bytes);

 private:
  const size_t capacity_;
  size_t used_ = 0;
  std::mutex mutex_;
  std::condition_variable freed_;
};

// Holds a share of a MemoryBudget for its lifetime.
class MemoryHold {
 public:
  MemoryHold(MemoryBudget& budget, size_t bytes);
  ~MemoryHold();
  MemoryHold(const MemoryHold&) = delete;
  MemoryHold& operator=(const MemoryHold&) = delete;

 private:
  MemoryBudget& budget_;
  size_t bytes_;
};

}  // namespace kgate::webhooks
