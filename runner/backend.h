#pragma once
// A backend compiles kernels for one kind of device and opens that device.
// "host" (C++ on the CPU) is always there; "cuda" needs a driver and a GPU.
#include <memory>
#include <string>

#include "core/status.h"
#include "runner/device.h"
#include "runner/program.h"

namespace kgate {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Success, or a plain reason this backend cannot run here ("no GPU found: ...").
  virtual Status available() = 0;
  // An Error is an infrastructure failure (compiler missing); a kernel that
  // does not compile is a CompileOutcome with ok == false.
  virtual Result<CompileOutcome> compile(const CompileRequest& request) = 0;
  // Opens the device. Call only inside the isolated child process.
  virtual Result<std::unique_ptr<Device>> open_device(int gpu_index) = 0;
  // Whether timing on this backend must hold the per-device lock.
  virtual bool needs_device_lock() const { return false; }
  // The smallest change of a median, in seconds, this backend's timing can
  // tell from the timer and the launch: the gate's default min_change_s.
  virtual double timer_floor_s() const { return 0; }
  // What names GPU `gpu_index` for the per-device lock (gpu_lock.h): the same
  // string in every process on the host that would use that device.
  virtual Result<std::string> device_lock_name(int gpu_index) {
    return name() + "-" + std::to_string(gpu_index);
  }
};

// "host" or "cuda"; an unknown name is a bad-input error.
Result<std::unique_ptr<Backend>> make_backend(const std::string& name);

// "cuda" when a GPU is usable, else "host".
std::string default_backend_name();

}  // namespace kgate
