#include "webhooks/memory_budget.h"

#include <algorithm>

namespace kgate::webhooks {

void MemoryBudget::acquire(size_t bytes) {
  bytes = std::min(bytes, capacity_);
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [&] { return used_ + bytes <= capacity_; });
  used_ += bytes;
}

void MemoryBudget::release(size_t bytes) {
  bytes = std::min(bytes, capacity_);
  {
    std::lock_guard lock(mutex_);
    used_ -= bytes;
  }
  freed_.notify_all();
}

MemoryHold::MemoryHold(MemoryBudget& budget, size_t bytes) : budget_(budget), bytes_(bytes) {
  budget_.acquire(bytes_);
}

MemoryHold::~MemoryHold() {
  budget_.release(bytes_);
}

}  // namespace kgate::webhooks
