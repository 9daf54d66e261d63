#include "runner/reference_cache.h"

#include <unistd.h>

#include <algorithm>

#include "runner/host/host_library.h"

namespace kgate {
namespace {

size_t default_capacity() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  size_t memory = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : (size_t{8} << 30);
  return std::min(memory / 4, size_t{32} << 30);
}

std::string key_of(const Program& reference, const Kernel& kernel, const Shape& shape,
                   const LaunchPlan& plan, const std::vector<uint64_t>& seeds) {
  std::string key = reference.cache_key + "|" + reference.artifact.string() + "|" + kernel.name +
                    "|" + shape.name;
  for (uint64_t s : seeds) key += "|s" + std::to_string(s);
  for (const ArgPlan& a : plan.args)
    key += "|" + std::to_string(a.count) + ":" + std::to_string(a.bytes);
  return key;
}

}  // namespace

size_t reference_sets_bytes(const ReferenceSets& sets) {
  size_t total = 0;
  for (const ReferenceSet& s : sets) {
    for (const auto& in : s.inputs) total += in.size();
    for (const auto& out : s.expected) total += out.size() * sizeof(double);
  }
  return total;
}

ReferenceCache::ReferenceCache(size_t capacity_bytes)
    : capacity_(capacity_bytes ? capacity_bytes : default_capacity()) {}

std::shared_ptr<const ReferenceSets> ReferenceCache::find_locked(const std::string& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->key == key) {
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().sets;
    }
  return nullptr;
}

std::shared_ptr<const ReferenceSets> ReferenceCache::find(const Program& reference,
                                                          const Kernel& kernel, const Shape& shape,
                                                          const LaunchPlan& plan,
                                                          const std::vector<uint64_t>& seeds) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto sets = find_locked(key_of(reference, kernel, shape, plan, seeds));
  ++(sets ? hits_ : misses_);
  return sets;
}

Result<std::shared_ptr<const ReferenceSets>> ReferenceCache::add(
    const Program& reference, const Kernel& kernel, const Shape& shape, const LaunchPlan& plan,
    const std::vector<uint64_t>& seeds, const ReferenceStore* store) {
  std::string key = key_of(reference, kernel, shape, plan, seeds);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto kept = find_locked(key)) return kept;
  auto library = HostLibrary::open(reference.artifact);
  if (!library.ok()) return library.error();
  auto sets = std::make_shared<const ReferenceSets>(
      prepare_reference_sets(**library, plan, seeds, {store, reference.cache_key}));
  size_t size = reference_sets_bytes(*sets);
  // A set larger than the whole capacity is handed out but not kept.
  if (size > capacity_) return sets;
  while (!entries_.empty() && bytes_ + size > capacity_) {
    bytes_ -= entries_.back().bytes;
    entries_.pop_back();
  }
  entries_.push_front({key, size, sets});
  bytes_ += size;
  return sets;
}

size_t ReferenceCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}
int ReferenceCache::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}
int ReferenceCache::misses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return misses_;
}

}  // namespace kgate
