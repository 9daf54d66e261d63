#pragma once
// Reference sets (inputs and the reference's outputs) kept in this process
// across measurements, so an optimization episode that checks many
// candidates on the same shapes and seeds draws and computes them once.
//
// measure_shape looks sets up here in the parent before it forks the
// measuring child: the child reads the parent's pages (copy on write, and
// only read), so nothing is copied or recomputed per candidate. A set is
// added only after a child computed the same set and passed: the reference
// is deterministic, so running it in the parent then cannot crash kgate.
//
// Invariant: a set is found only under everything that determines its bytes:
// the reference program (its cache key), the kernel and shape, the seeds and
// every argument's element count and size. Entries are dropped least
// recently used first once their bytes pass the capacity.
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/launch_plan.h"
#include "runner/program.h"
#include "runner/reference.h"

namespace kgate {

using ReferenceSets = std::vector<ReferenceSet>;

class ReferenceCache {
 public:
  // capacity_bytes 0: a quarter of this machine's memory (at most 32 GiB).
  explicit ReferenceCache(size_t capacity_bytes = 0);

  // The sets for `seeds` on `plan` if kept, else null.
  std::shared_ptr<const ReferenceSets> find(const Program& reference, const Kernel& kernel,
                                            const Shape& shape, const LaunchPlan& plan,
                                            const std::vector<uint64_t>& seeds);
  // Draws and computes the sets (unless kept) and keeps them; outputs on
  // disk in `store` (when given) are read instead of computed.
  Result<std::shared_ptr<const ReferenceSets>> add(const Program& reference, const Kernel& kernel,
                                                   const Shape& shape, const LaunchPlan& plan,
                                                   const std::vector<uint64_t>& seeds,
                                                   const ReferenceStore* store = nullptr);

  size_t bytes() const;
  size_t capacity() const { return capacity_; }
  int hits() const;
  int misses() const;

 private:
  struct Entry {
    std::string key;
    size_t bytes = 0;
    std::shared_ptr<const ReferenceSets> sets;
  };
  std::shared_ptr<const ReferenceSets> find_locked(const std::string& key);

  size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  size_t bytes_ = 0;
  int hits_ = 0, misses_ = 0;
};

// Bytes a set of reference sets holds in memory (inputs and doubles).
size_t reference_sets_bytes(const ReferenceSets& sets);

}  // namespace kgate
