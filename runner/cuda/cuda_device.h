#pragma once
// One GPU, driven through the driver API, inside the measuring child.
//
// Invariants: every call goes to the GPU's primary context, current on the
// calling thread; all work (copies, fills, launches, timing) is ordered on
// one non-blocking stream, the timed stream, and nothing ever synchronizes
// the whole device, so results that a kernel lands through other streams are
// not waited for and show up as unwritten outputs. Every driver result is
// checked; a sticky error (illegal address) fails every later call.
#include <cuda.h>

#include <memory>
#include <string>

#include "runner/device.h"

namespace kgate::cuda {

struct Calls;

class CudaKernel : public LoadedKernel {
 public:
  CudaKernel(CUmodule module, CUfunction function) : module_(module), function_(function) {}
  ~CudaKernel() override;
  CUfunction function() const { return function_; }

 private:
  CUmodule module_;
  CUfunction function_;
};

// How time_launch measures; the defaults are what the gate uses.
struct TimingOptions {
  bool flush_l2 = true;     // write a buffer of twice the L2 before each sample
  bool hide_launch = true;  // queue the launch behind a spinning kernel (see docs/cuda-backend.md)
  bool read_sm_clock = true;  // run the clock64/%globaltimer kernel after each sample
  // A sample is the kernel's own GPU duration (CUPTI activity records,
  // kernel_timestamps.h), not the events' span around it; events where CUPTI
  // cannot record, or with KGATE_TIMER=events in the environment.
  bool kernel_clock = true;
};

class CudaDevice : public Device {
 public:
  static Result<std::unique_ptr<CudaDevice>> open(int gpu_index);
  ~CudaDevice() override;

  DeviceInfo info() const override {
    DeviceInfo i = info_;
    i.timer = timer();
    return i;
  }
  Result<DeviceAddress> allocate(size_t bytes) override;
  void release(DeviceAddress address) override;
  Status upload(DeviceAddress dst, const void* src, size_t bytes) override;
  Status download(void* dst, DeviceAddress src, size_t bytes) override;
  Status fill(DeviceAddress dst, uint8_t byte, size_t bytes) override;
  Status copy(DeviceAddress dst, DeviceAddress src, size_t bytes) override;
  Result<bool> equal(DeviceAddress a, DeviceAddress b, size_t bytes) override;
  Status draw(DeviceAddress dst, const input_formula::DrawSpec& spec, size_t bytes) override;
  Result<std::unique_ptr<LoadedKernel>> load(const Program& program) override;
  Status launch(LoadedKernel& kernel, const LaunchDims& dims,
                const std::vector<ArgSlot>& args) override;
  Result<TimedSample> time_launch(LoadedKernel& kernel, const LaunchDims& dims,
                                  const std::vector<ArgSlot>& args) override;
  Result<TimedSample> time_empty_launch() override { return time_empty_kernel(); }

  // For benchmarks and tests.
  void set_timing_options(const TimingOptions& options) { options_ = options; }
  const TimingOptions& timing_options() const { return options_; }
  // What the samples are: "kernel durations (CUPTI)", or "events" and why.
  std::string timer() const {
    if (!options_.kernel_clock) return "events";
    return kernel_clock_error_.empty()
               ? "kernel durations (CUPTI)"
               : "events (kernel durations failed: " + kernel_clock_error_ + ")";
  }
  // Times the empty kernel: the launch overhead the current options leave in.
  Result<TimedSample> time_empty_kernel();
  // Times one device-to-device copy of `bytes` (the bandwidth ceiling).
  Result<double> time_copy(DeviceAddress dst, DeviceAddress src, size_t bytes);
  CUstream stream() const { return stream_; }
  // For the profiler: CUPTI works on the context and the device ordinal.
  CUcontext context() const { return context_; }
  CUdevice device() const { return device_; }
  // Loads a cubin or PTX image held in memory.
  Result<std::unique_ptr<CudaKernel>> load_image(const std::string& image,
                                                 const std::string& entry);

 private:
  CudaDevice() = default;
  Status init(int gpu_index);
  Status launch_async(CUfunction function, const LaunchDims& dims,
                      const std::vector<ArgSlot>& args);
  Result<TimedSample> time_function(CUfunction function, const LaunchDims& dims,
                                    const std::vector<ArgSlot>& args);
  Status sync(const char* what);

  const Calls* c_ = nullptr;
  DeviceInfo info_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  CUdeviceptr scratch_ = 0;  // L2 flush buffer
  size_t scratch_words_ = 0;
  uint32_t flush_value_ = 0;
  volatile uint32_t* host_words_ =
      nullptr;  // mapped: [0] flag, [1] wait timed out, [4..7] clock results
  CUdeviceptr host_words_device_ = 0;
  CUmodule helpers_ = nullptr;
  CUfunction wait_fn_ = nullptr, clock_fn_ = nullptr, empty_fn_ = nullptr, differ_fn_ = nullptr;
  std::string kernel_clock_error_;  // why samples are the events' span, once kernel_clock failed
  CUmodule draw_module_ = nullptr;  // loaded on the first draw
  CUfunction draw_fn_ = nullptr;
  TimingOptions options_;
};

}  // namespace kgate::cuda
