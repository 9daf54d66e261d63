#pragma once
// A minimal CUDA context, module loader and launcher built on the driver API
// (resolved at run time through cuda_driver.h), for profiling in a child
// process. It stands in for the CUDA backend's device until that lands; the
// profiler itself needs only context(), device() and a launch callback, so
// swapping this file for the backend's CudaDevice changes nothing else.
//
// Also compiles CUDA C++ source strings with NVRTC, for the roofline's
// measuring kernels and for tests.
#include <cuda.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/launch_plan.h"
#include "runner/profile/occupancy.h"
#include "runner/program.h"

namespace kgate::profile {

// A compiled CUDA image and what the compiler said about it.
struct CudaImage {
  std::string cubin;
  std::string log;
  ResourceReport resources;  // from ptxas -v in the log
};

// NVRTC: `source` to a cubin for `arch` ("sm_90"). `line_info` adds -lineinfo.
Result<CudaImage> nvrtc_compile(const std::string& source, const std::string& name,
                                const std::string& arch, bool line_info,
                                const std::vector<std::string>& extra_options = {});

// Reads "Used N registers, ... spill stores ..." from ptxas -v output.
ResourceReport parse_ptxas_report(const std::string& log);

// Invariant: the context is current on the creating thread while alive.
class GpuSession {
 public:
  // Initializes the driver: call only in a child process (run_in_child).
  static Result<std::unique_ptr<GpuSession>> open(int gpu);
  ~GpuSession();
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;

  CUcontext context() const { return context_; }
  CUdevice device() const { return device_; }
  const std::string& name() const { return name_; }
  std::string arch() const;  // "sm_90"
  const SmLimits& limits() const { return limits_; }

  Result<CUdeviceptr> allocate(size_t bytes);
  void release(CUdeviceptr p);
  Status upload(CUdeviceptr dst, const void* src, size_t bytes);
  Status fill(CUdeviceptr dst, uint8_t byte, size_t bytes);

  // Loads a cubin (kept alive by the session) and finds `entry`.
  Result<CUfunction> load(const std::string& cubin, const std::string& entry);
  // `params` as cuLaunchKernel takes them; enqueues on the session's stream.
  Status enqueue(CUfunction f, const LaunchDims& dims, void** params);
  // Waits for the stream; a kernel's execution error surfaces here.
  Status synchronize();
  // enqueue + synchronize.
  Status launch(CUfunction f, const LaunchDims& dims, void** params);
  // Seconds of `work` between two events on the stream (work must use stream()).
  Result<double> time(const std::function<Status()>& work);
  // Device-to-device copy on the stream, not waited for.
  Status copy_async(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
  // Blocks of `f` one SM holds (cuOccupancyMaxActiveBlocksPerMultiprocessor).
  Result<int> active_blocks(CUfunction f, const LaunchDims& dims);
  // Compiler resources the driver reports for a loaded function.
  ResourceReport function_resources(CUfunction f);

 private:
  GpuSession() = default;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  std::string name_;
  int cc_major_ = 0, cc_minor_ = 0;
  SmLimits limits_;
  std::vector<CUmodule> modules_;
};

// The buffers and argument array of one manifest kernel launch on a shape:
// inputs drawn from `seed`, outputs poisoned.
class LaunchArgs {
 public:
  static Result<std::unique_ptr<LaunchArgs>> make(GpuSession& gpu, const LaunchPlan& plan,
                                                  uint64_t seed);
  ~LaunchArgs();
  void** params() { return pointers_.data(); }

 private:
  GpuSession* gpu_ = nullptr;
  std::vector<CUdeviceptr> buffers_;
  std::vector<ArgSlot> slots_;
  std::vector<void*> pointers_;
};

}  // namespace kgate::profile
