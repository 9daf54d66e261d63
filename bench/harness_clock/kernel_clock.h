// The GPU's own start and end timestamps of each kernel launch, read through
// CUPTI's activity records (libcupti opened at run time), for bench/ggml's
// and bench/candle's independent harnesses.
//
// Why: an A/B timed with CUDA events around one launch adds the events' own
// cost (a few microseconds) to both sides, which pulls the ratio of a short
// kernel toward 1: a 4 us kernel made 13% faster reads 6-7% faster that way.
// The kernel's duration on the GPU is what a change to its body moves.
//
// Invariant: records are returned in the order the kernels started on the
// GPU; a harness that launches on one stream gets them in launch order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace harness_clock {

struct KernelSpan {
  std::string name;  // the kernel's mangled symbol
  uint64_t start_ns = 0, end_ns = 0;
  double seconds() const { return double(end_ns - start_ns) * 1e-9; }
};

class KernelClock {
 public:
  // Loads CUPTI and starts recording kernel activity: "" when it records,
  // else why not (the harness then times with events only).
  std::string start();
  bool recording() const { return recording_; }
  // Every kernel that ended since the last call, in start order. The caller
  // synchronizes first: a kernel still running has no record yet.
  std::vector<KernelSpan> take();
  ~KernelClock();

 private:
  bool recording_ = false;
};

// Durations of the kernels named `symbols` in `spans` (others, such as a
// driver's own kernels, are left out), in order.
std::vector<double> durations_of(const std::vector<KernelSpan>& spans,
                                 const std::vector<std::string>& symbols);

}  // namespace harness_clock
