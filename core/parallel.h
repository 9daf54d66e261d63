#pragma once
// Host-side data parallelism for the harness's bulk work (drawing inputs,
// running references on large shapes): plain threads over index ranges.
#include <cstdint>
#include <functional>

namespace kgate {

// Threads for host data work: KGATE_HOST_THREADS when set (>= 1), else the
// CPUs this process may run on.
int host_threads();

// Calls body(begin, end) on disjoint chunks covering [0, n), each at least
// `grain` long (but the last), on up to `threads` threads (0: host_threads()).
// Returns when every chunk is done. The body must not throw.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body,
                  int threads = 0);

}  // namespace kgate
