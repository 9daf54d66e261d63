#include "core/parallel.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

namespace kgate {

int host_threads() {
  if (const char* env = std::getenv("KGATE_HOST_THREADS"); env && *env) {
    int n = std::atoi(env);
    if (n >= 1) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body,
                  int threads) {
  if (n <= 0) return;
  if (threads <= 0) threads = host_threads();
  grain = std::max<int64_t>(grain, 1);
  int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  if (chunks <= 1) {
    body(0, n);
    return;
  }
  // Equal contiguous chunks: each thread touches one range (first-touch
  // pages stay local, no false sharing between chunks).
  int64_t step = (n + chunks - 1) / chunks;
  std::vector<std::thread> workers;
  for (int64_t c = 1; c < chunks; ++c) {
    int64_t begin = c * step, end = std::min(n, begin + step);
    if (begin < end) workers.emplace_back(body, begin, end);
  }
  body(0, std::min(n, step));
  for (std::thread& t : workers) t.join();
}

}  // namespace kgate
