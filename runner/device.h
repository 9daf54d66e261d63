#pragma once
// A place kernels run: the CPU (host backend) or one GPU (cuda backend).
// A Device lives only inside the isolated child process (isolated_measure.h),
// so a kernel that corrupts it cannot hurt the parent.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/arg_slot.h"
#include "core/status.h"
#include "runner/input_formula.h"
#include "runner/program.h"

namespace kgate {

struct LaunchDims {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t shared_bytes = 0;

  // A grid of 0 blocks (a shape with "allow_empty"): nothing to run. A
  // device does not launch it (launch returns ok) and refuses to time it.
  bool empty() const { return grid[0] == 0 || grid[1] == 0 || grid[2] == 0; }
};

// An opaque device address (a CUdeviceptr, or a host pointer).
using DeviceAddress = uint64_t;

// A program loaded into a device, ready to launch.
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
};

struct TimedSample {
  double seconds = 0;
  double sm_clock_mhz = 0;  // 0 where the backend cannot read it
};

struct DeviceInfo {
  std::string name;     // "NVIDIA H200", "host: <cpu model>"
  std::string driver;   // driver version, where there is one
  std::string runtime;  // CUDA version, compiler version
  std::string arch;     // "sm_90", "x86_64"
  int multiprocessors = 0;
  int64_t l2_bytes = 0;
  double peak_sm_clock_mhz = 0;
  // Which device measured it, so results from several GPUs of a host (or of
  // a fleet) name theirs. index: as the caller numbered it (`--gpu`, the
  // sweep's `--gpus`); uuid: the driver's ("GPU-5f2c...", "host" on the CPU);
  // pci_bus_id: its slot ("0000:18:00.0"; empty on the CPU).
  int index = 0;
  std::string uuid;
  std::string pci_bus_id;
  double peak_memory_clock_mhz = 0;  // 0 where unknown
  // What a timed sample is: "kernel durations (CUPTI)", "events" (and why),
  // "wall clock" on the host; empty where not said.
  std::string timer;

  nlohmann::json to_json() const;
  // Reads what to_json wrote; a missing or mistyped field is its default.
  static DeviceInfo from_json(const nlohmann::json& j);
  // "GPU 1, GPU-5f2c..., 0000:19:00.0", "host": which one, for people.
  std::string identity() const;
};

class Device {
 public:
  virtual ~Device() = default;

  virtual DeviceInfo info() const = 0;
  virtual Result<DeviceAddress> allocate(size_t bytes) = 0;
  virtual void release(DeviceAddress address) = 0;
  virtual Status upload(DeviceAddress dst, const void* src, size_t bytes) = 0;
  // Ordered after every launch on the timed stream: work left on another
  // stream is not waited for, so results written there are caught.
  virtual Status download(void* dst, DeviceAddress src, size_t bytes) = 0;
  virtual Status fill(DeviceAddress dst, uint8_t byte, size_t bytes) = 0;
  // Device-to-device copy, ordered like download (restores in/out buffers
  // from a pristine copy between timed samples, outside the timed region).
  virtual Status copy(DeviceAddress dst, DeviceAddress src, size_t bytes) = 0;

  // True when the `bytes` at `a` and at `b` are the same, ordered like
  // download. This default downloads both in pieces; a backend may compare
  // in place (the inputs-unchanged check runs it on every correctness run).
  virtual Result<bool> equal(DeviceAddress a, DeviceAddress b, size_t bytes);

  // Writes the `bytes` bytes of one input buffer at `dst`, element i as
  // input_formula::value(spec, i) stored in the buffer's type: what
  // make_input draws on the host. This default draws on the host and
  // uploads; a GPU draws in place (no host memory, no transfer), so the
  // gate's large shapes do not wait on the host (docs/BENCHMARKS.md, "Fast
  // checks").
  virtual Status draw(DeviceAddress dst, const input_formula::DrawSpec& spec, size_t bytes);

  virtual Result<std::unique_ptr<LoadedKernel>> load(const Program& program) = 0;
  // Launches and waits; any launch or execution error is returned.
  virtual Status launch(LoadedKernel& kernel, const LaunchDims& dims,
                        const std::vector<ArgSlot>& args) = 0;
  // Times one launch, caches flushed first where the backend can.
  virtual Result<TimedSample> time_launch(LoadedKernel& kernel, const LaunchDims& dims,
                                          const std::vector<ArgSlot>& args) = 0;
  // Times a launch of a kernel that does nothing, exactly as time_launch
  // times one: the least a sample costs (the launch floor, which the gate's
  // launch-floor rule compares medians with). An Error where the backend
  // cannot.
  virtual Result<TimedSample> time_empty_launch() {
    return Error::infrastructure("this device cannot time an empty launch");
  }
};

}  // namespace kgate
