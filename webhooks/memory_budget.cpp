#include "webhooks/memory_budget.h"

#include <algorithm>

namespace kgate::webhooks {

bool MemoryBudget::acquire(size_t bytes, Deadline deadline) {
  std::unique_lock lock(mutex_);
  bytes = std::min(bytes, capacity_);
  if (!freed_.wait_until(lock, deadline, [&] { return used_ + bytes <= capacity_; })) return false;
  used_ += bytes;
  return true;
}

void MemoryBudget::release(size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    used_ -= std::min(bytes, used_);
  }
  freed_.notify_all();
}

size_t MemoryBudget::used() {
  std::lock_guard lock(mutex_);
  return used_;
}

bool MemoryHold::grow_to(size_t bytes, MemoryBudget::Deadline deadline) {
  bytes = std::min(bytes, budget_.capacity());
  if (bytes <= bytes_) return true;
  if (!budget_.acquire(bytes - bytes_, deadline)) return false;
  bytes_ = bytes;
  return true;
}

MemoryHold::~MemoryHold() {
  if (bytes_) budget_.release(bytes_);
}

}  // namespace kgate::webhooks
