#pragma once
// The GPU's own start and end of each kernel a timed sample launches, read
// from CUPTI's activity records (kind CONCURRENT_KERNEL), so that a sample is
// the kernel's duration and not that plus the cost of the events recorded
// around it: about 1 us on the H200, the same on both sides of an A/B, which
// pulled a 1.4 us kernel's real 0.75 toward 0.86 (docs/cuda-backend.md,
// "Timing").
//
// Invariant: records are kept only between begin() and end(); end() returns
// the kernels that ran in between, in the order they started. CUPTI's
// activity buffers are process-wide: one instance per process.
#include <cstdint>
#include <vector>

#include "core/status.h"

namespace kgate::cuda {

struct KernelSpan {
  uint64_t start_ns = 0, end_ns = 0;
  double seconds() const { return static_cast<double>(end_ns - start_ns) * 1e-9; }
};

class KernelTimestamps {
 public:
  static KernelTimestamps& instance();
  // Starts keeping kernel records; an Error (the same on every later call)
  // when CUPTI cannot record activity here.
  Status begin();
  // Stops and returns the kernels recorded since begin(). The caller has
  // synchronized the work it launched: a kernel still running has no record.
  Result<std::vector<KernelSpan>> end();

 private:
  KernelTimestamps() = default;
  bool registered_ = false;
  std::string broken_;  // why CUPTI cannot record, once it failed
};

}  // namespace kgate::cuda
