#pragma once
// Runs a sweep's jobs (a baseline, an episode: one per kernel) over its
// devices (agent/sweep_devices.h): one job per device at a time, each in a
// worker forked from this process and confined to its device, so a job
// measures under the GPU lock of its GPU alone (runner/gpu_lock.h) while the
// other devices' workers run theirs. This process stays single-threaded and
// never touches CUDA, so forking it is safe (core/subprocess.h); a worker
// inherits everything it has in memory (the manifest, the options).
//
// Jobs start in their order and finish in any; `done` is called in their
// order (job i's after every job before it), so what it publishes, and in
// which order, does not depend on how many devices ran the jobs.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "agent/sweep_devices.h"

namespace kgate {

struct JobOutcome {
  bool completed = false;  // the body returned and its worker exited cleanly
  std::string payload;     // what the body (or a job done without a worker) returned
  std::string failure;     // otherwise: "exit code 70", "killed by signal 9 (Killed)"
  std::string err_tail;    // the worker's last lines on stderr, where they were captured
  const SweepDevice* device = nullptr;  // where it ran; null: done without a worker
  double seconds = 0;                   // its worker's wall time
};

struct JobStart {
  // Runs in the worker; its return travels back as the payload. Empty: the
  // job needs no worker, and `payload` is its outcome.
  std::function<std::string()> body;
  std::string payload;
};

class SweepSchedule {
 public:
  explicit SweepSchedule(std::vector<SweepDevice> devices);

  // Called in this process when a device is free and `job` is next, just
  // before its worker is forked (what it writes, the body sees); `running`
  // lists the jobs whose workers are still running.
  using Start = std::function<JobStart(size_t job, const SweepDevice& device,
                                       const std::vector<size_t>& running)>;
  using Done = std::function<void(size_t job, const JobOutcome& outcome)>;

  // Runs jobs 0 .. count-1 and returns when every one is done.
  void run(size_t count, const Start& start, const Done& done);

  const std::vector<SweepDevice>& devices() const { return devices_; }

 private:
  std::vector<SweepDevice> devices_;
};

// `kgate sweep --shard J/K` (a fleet's nightly, workflows/kgate-nightly.yml):
// shard J of K takes the kernels at positions J, J+K, J+2K, ... of the
// sweep's order, so the hottest kernels spread over the shards. Every shard
// must see the same kgate.json (and task list) to split alike.
struct SweepShard {
  int index = 0, count = 1;
  bool takes(size_t position) const {
    return static_cast<int>(position % static_cast<size_t>(count)) == index;
  }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};
// "J/K" with 0 <= J < K; empty: the whole sweep (0/1).
Result<SweepShard> parse_shard(const std::string& text);

// GPU-seconds a total budget has left for the jobs not started yet: every
// device's time to the end (`total_s - elapsed_s` each) less what the
// running jobs may still use (`running_left_s`, each at least 0). With one
// device and nothing running it is `total_s - elapsed_s`.
double sweep_time_left(double total_s, double elapsed_s, size_t devices,
                       const std::vector<double>& running_left_s);

}  // namespace kgate
