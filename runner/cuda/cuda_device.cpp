#include "runner/cuda/cuda_device.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>

#include "core/file_util.h"
#include "core/parallel.h"
#include "runner/cuda/cuda_driver.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/driver_calls.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/cuda/helper_kernels.h"
#include "runner/cuda/kernel_timestamps.h"

namespace kgate::cuda {
namespace {

constexpr uint64_t kWaitTimeoutNs = 2'000'000'000;  // the host releases within microseconds
constexpr uint64_t kClockSpinNs = 20'000;           // long against %globaltimer's 32 ns steps

// "580.159.04" from the kernel module, where the OS shows it.
std::string driver_release() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  std::smatch m;
  if (std::regex_search(line, m, std::regex("(\\d+\\.\\d+(\\.\\d+)?)"))) return m[1];
  return "";
}

std::string human_bytes(size_t bytes) {
  if (bytes >= (size_t{1} << 30)) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Touches every page of a large host destination on every thread before a
// download writes it. The driver copies pageable memory on one thread, and
// faulting fresh pages in there costs more than the copy: 940 MiB took
// 0.72 s into fresh memory and 0.055 s touch + 0.09 s copy when touched
// first (H200, docs/BENCHMARKS.md, "Fast checks").
void prefault(void* dst, size_t bytes) {
  constexpr size_t kWorthIt = size_t{8} << 20;
  if (bytes < kWorthIt) return;
  static const size_t page = static_cast<size_t>(std::max(4096L, sysconf(_SC_PAGESIZE)));
  auto* p = static_cast<volatile unsigned char*>(dst);
  const int64_t pages = static_cast<int64_t>((bytes + page - 1) / page);
  parallel_for(pages, 1024, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) p[i * page] = 0;
  });
}

}  // namespace

CudaKernel::~CudaKernel() {
  if (auto c = calls(); c.ok() && module_) (*c)->cuModuleUnload(module_);
}

Result<std::unique_ptr<CudaDevice>> CudaDevice::open(int gpu_index) {
  std::unique_ptr<CudaDevice> d(new CudaDevice());
  KGATE_RETURN_IF_ERROR(d->init(gpu_index));
  return d;
}

Status CudaDevice::init(int gpu_index) {
  // cuInit through the symbol dlsym found, before any cuGetProcAddress: in a
  // forked child (where this runs) the entry points resolved before cuInit
  // answered CUDA_ERROR_NOT_INITIALIZED on the H200 machine.
  KGATE_RETURN_IF_ERROR(probe_gpu());
  // The escape hatch and the A/B of the two timers (bench/, docs/cuda-backend.md).
  if (const char* timer = std::getenv("KGATE_TIMER"); timer && std::string(timer) == "events")
    options_.kernel_clock = false;
  auto api = calls();
  if (!api.ok()) return api.error();
  c_ = *api;
  int count = 0;
  KGATE_RETURN_IF_ERROR(check(c_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (gpu_index < 0 || gpu_index >= count)
    return Error::bad_input("there is no GPU " + std::to_string(gpu_index) + " (" +
                            std::to_string(count) +
                            " visible; CUDA_VISIBLE_DEVICES applies first)");
  KGATE_RETURN_IF_ERROR(check(c_->cuDeviceGet(&device_, gpu_index), "cuDeviceGet"));
  KGATE_RETURN_IF_ERROR(
      check(c_->cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain"));
  KGATE_RETURN_IF_ERROR(check(c_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
  KGATE_RETURN_IF_ERROR(
      check(c_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  KGATE_RETURN_IF_ERROR(check(c_->cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate"));
  KGATE_RETURN_IF_ERROR(check(c_->cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate"));

  char name[256] = {};
  KGATE_RETURN_IF_ERROR(check(c_->cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName"));
  int major = 0, minor = 0, sms = 0, l2 = 0, clock_khz = 0, version = 0;
  auto attr = [&](int& out, CUdevice_attribute a) {
    return check(c_->cuDeviceGetAttribute(&out, a, device_), "cuDeviceGetAttribute");
  };
  KGATE_RETURN_IF_ERROR(attr(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  KGATE_RETURN_IF_ERROR(attr(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  KGATE_RETURN_IF_ERROR(attr(sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  KGATE_RETURN_IF_ERROR(attr(l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  KGATE_RETURN_IF_ERROR(attr(clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
  KGATE_RETURN_IF_ERROR(check(c_->cuDriverGetVersion(&version), "cuDriverGetVersion"));
  info_.name = name;
  std::string release = driver_release();
  info_.driver = (release.empty() ? "" : release + ", ") + "CUDA " +
                 std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  // Not nvrtc_version(): that forks, and this process now holds a context.
  info_.runtime = "CUDA toolkit " + std::to_string(CUDA_VERSION / 1000) + "." +
                  std::to_string(CUDA_VERSION % 1000 / 10);
  info_.arch = "sm_" + std::to_string(major) + std::to_string(minor);
  info_.multiprocessors = sms;
  info_.l2_bytes = l2;
  info_.peak_sm_clock_mhz = clock_khz / 1000.0;
  // Which GPU measured it (index, UUID, slot), for every result (gpu_inventory.h).
  auto described = describe_gpu(*c_, gpu_index);
  if (!described.ok()) return described.error();
  info_.uuid = described->uuid;
  info_.pci_bus_id = described->pci_bus_id;
  info_.peak_memory_clock_mhz = described->peak_memory_clock_mhz;
  info_.index = recorded_gpu_index(gpu_index, count);

  // Writing twice the L2 evicts everything a previous sample left there.
  size_t scratch_bytes = std::max<size_t>(2 * static_cast<size_t>(l2), 8u << 20);
  scratch_words_ = scratch_bytes / 4;
  KGATE_RETURN_IF_ERROR(
      check(c_->cuMemAlloc(&scratch_, scratch_words_ * 4), "cuMemAlloc (L2 flush buffer)"));

  void* host = nullptr;
  KGATE_RETURN_IF_ERROR(
      check(c_->cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
            "cuMemHostAlloc"));
  host_words_ = static_cast<volatile uint32_t*>(host);
  for (int i = 0; i < 16; ++i) host_words_[i] = 0;
  KGATE_RETURN_IF_ERROR(check(c_->cuMemHostGetDevicePointer(&host_words_device_, host, 0),
                              "cuMemHostGetDevicePointer"));

  KGATE_RETURN_IF_ERROR(
      check(c_->cuModuleLoadDataEx(&helpers_, kHelperKernelsPtx, 0, nullptr, nullptr),
            "cuModuleLoadDataEx (timing helpers)"));
  KGATE_RETURN_IF_ERROR(check(c_->cuModuleGetFunction(&wait_fn_, helpers_, "kgate_wait_flag"),
                              "cuModuleGetFunction"));
  KGATE_RETURN_IF_ERROR(check(c_->cuModuleGetFunction(&clock_fn_, helpers_, "kgate_sm_clock"),
                              "cuModuleGetFunction"));
  KGATE_RETURN_IF_ERROR(
      check(c_->cuModuleGetFunction(&empty_fn_, helpers_, "kgate_empty"), "cuModuleGetFunction"));
  KGATE_RETURN_IF_ERROR(check(c_->cuModuleGetFunction(&differ_fn_, helpers_, "kgate_words_differ"),
                              "cuModuleGetFunction"));
  return {};
}

CudaDevice::~CudaDevice() {
  if (!c_) return;
  // Best effort: after a sticky error these fail, and the process ends anyway.
  if (helpers_) c_->cuModuleUnload(helpers_);
  if (draw_module_) c_->cuModuleUnload(draw_module_);
  if (host_words_) c_->cuMemFreeHost(const_cast<uint32_t*>(host_words_));
  if (scratch_) c_->cuMemFree(scratch_);
  if (start_) c_->cuEventDestroy(start_);
  if (stop_) c_->cuEventDestroy(stop_);
  if (stream_) c_->cuStreamDestroy(stream_);
  if (context_) c_->cuDevicePrimaryCtxRelease(device_);
}

Status CudaDevice::sync(const char* what) {
  return check(c_->cuStreamSynchronize(stream_), what);
}

Result<DeviceAddress> CudaDevice::allocate(size_t bytes) {
  CUdeviceptr p = 0;
  // The exact size (the harness adds its own guard zones), so compute-sanitizer's
  // memcheck sees an overrun of a buffer whose size is not a multiple of 256.
  CUresult r = c_->cuMemAlloc(&p, std::max<size_t>(bytes, 1));
  if (r != CUDA_SUCCESS)
    return Error::infrastructure("cuMemAlloc(" + human_bytes(bytes) + "): " + describe(r));
  return static_cast<DeviceAddress>(p);
}

void CudaDevice::release(DeviceAddress address) {
  c_->cuMemFree(static_cast<CUdeviceptr>(address));
}

Status CudaDevice::upload(DeviceAddress dst, const void* src, size_t bytes) {
  KGATE_RETURN_IF_ERROR(
      check(c_->cuMemcpyHtoDAsync(dst, src, bytes, stream_), "cuMemcpyHtoDAsync"));
  return sync("uploading inputs");
}

Status CudaDevice::download(void* dst, DeviceAddress src, size_t bytes) {
  prefault(dst, bytes);
  // Ordered after the timed stream only: a device-wide sync here would wait
  // for work a kernel left on other streams and hide that it did.
  KGATE_RETURN_IF_ERROR(
      check(c_->cuMemcpyDtoHAsync(dst, src, bytes, stream_), "cuMemcpyDtoHAsync"));
  return sync("downloading outputs");
}

Status CudaDevice::fill(DeviceAddress dst, uint8_t byte, size_t bytes) {
  KGATE_RETURN_IF_ERROR(check(c_->cuMemsetD8Async(dst, byte, bytes, stream_), "cuMemsetD8Async"));
  return sync("poisoning outputs");
}

Status CudaDevice::copy(DeviceAddress dst, DeviceAddress src, size_t bytes) {
  KGATE_RETURN_IF_ERROR(
      check(c_->cuMemcpyDtoDAsync(dst, src, bytes, stream_), "cuMemcpyDtoDAsync"));
  return sync("restoring a buffer");
}

Result<bool> CudaDevice::equal(DeviceAddress a, DeviceAddress b, size_t bytes) {
  if (a % 4 != 0 || b % 4 != 0) return Device::equal(a, b, bytes);
  const size_t words = bytes / 4, tail = bytes % 4;
  if (words > 0) {
    // The flag is a word of mapped host memory: read right after the sync, no copy.
    constexpr size_t kFlagWord = 8;
    host_words_[kFlagWord] = 0;
    uint64_t left = a, right = b, count = words, flag = host_words_device_ + 4 * kFlagWord;
    void* params[] = {&left, &right, &count, &flag};
    const auto blocks = static_cast<unsigned>(std::min<size_t>((words + 255) / 256, 8192));
    KGATE_RETURN_IF_ERROR(
        check(c_->cuLaunchKernel(differ_fn_, blocks, 1, 1, 256, 1, 1, 0, stream_, params, nullptr),
              "cuLaunchKernel (buffer comparison)"));
    KGATE_RETURN_IF_ERROR(sync("comparing buffers"));
    if (host_words_[kFlagWord] != 0) return false;
  }
  if (tail > 0) return Device::equal(a + 4 * words, b + 4 * words, tail);
  return true;
}

Status CudaDevice::draw(DeviceAddress dst, const input_formula::DrawSpec& spec, size_t bytes) {
  if (spec.count <= 0) return {};
  if (!draw_fn_) {
    KGATE_RETURN_IF_ERROR(
        check(c_->cuModuleLoadDataEx(&draw_module_, kInputDrawImage, 0, nullptr, nullptr),
              "cuModuleLoadDataEx (input draw)"));
    KGATE_RETURN_IF_ERROR(
        check(c_->cuModuleGetFunction(&draw_fn_, draw_module_, "kgate_draw_input"),
              "cuModuleGetFunction (input draw)"));
  }
  (void)bytes;  // spec.count elements of the buffer's type are exactly its bytes
  input_formula::DrawSpec s = spec;
  uint64_t out = dst;
  void* params[] = {&s, &out};
  const auto blocks = static_cast<unsigned>(std::min<int64_t>((spec.count + 255) / 256, 132 * 32));
  KGATE_RETURN_IF_ERROR(
      check(c_->cuLaunchKernel(draw_fn_, blocks, 1, 1, 256, 1, 1, 0, stream_, params, nullptr),
            "cuLaunchKernel (input draw)"));
  return sync("drawing inputs");
}

Result<std::unique_ptr<CudaKernel>> CudaDevice::load_image(const std::string& image,
                                                           const std::string& entry) {
  CUmodule module = nullptr;
  KGATE_RETURN_IF_ERROR(check(c_->cuModuleLoadDataEx(&module, image.data(), 0, nullptr, nullptr),
                              "cuModuleLoadData"));
  CUfunction function = nullptr;
  CUresult r = c_->cuModuleGetFunction(&function, module, entry.c_str());
  if (r != CUDA_SUCCESS) {
    c_->cuModuleUnload(module);
    return Error::bad_input("the compiled module has no kernel '" + entry + "' (" + describe(r) +
                            "); is it declared extern \"C\" __global__?");
  }
  return std::make_unique<CudaKernel>(module, function);
}

Result<std::unique_ptr<LoadedKernel>> CudaDevice::load(const Program& program) {
  auto image = read_file(program.artifact);
  if (!image.ok()) return image.error();
  auto kernel = load_image(*image, program.entry);
  if (!kernel.ok()) return kernel.error();
  return std::unique_ptr<LoadedKernel>(std::move(kernel.value()));
}

namespace {

// "grid 64x2x1, block 1024x1x1, 0 bytes shared": with the error, what a launch
// the kernel did not expect (a stale launch beside a new kernel) looks like.
std::string launch_text(const LaunchDims& d) {
  return "grid " + std::to_string(d.grid[0]) + "x" + std::to_string(d.grid[1]) + "x" +
         std::to_string(d.grid[2]) + ", block " + std::to_string(d.block[0]) + "x" +
         std::to_string(d.block[1]) + "x" + std::to_string(d.block[2]) + ", " +
         std::to_string(d.shared_bytes) + " bytes shared";
}

}  // namespace

Status CudaDevice::launch_async(CUfunction function, const LaunchDims& d,
                                const std::vector<ArgSlot>& args) {
  if (d.shared_bytes > 48 * 1024)
    KGATE_RETURN_IF_ERROR(
        check(c_->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(d.shared_bytes)),
              "cuFuncSetAttribute (dynamic shared memory)"));
  std::vector<void*> params;
  params.reserve(args.size());
  for (const ArgSlot& a : args) params.push_back(const_cast<unsigned char*>(a.data()));
  CUresult r = c_->cuLaunchKernel(function, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1],
                                  d.block[2], d.shared_bytes, stream_,
                                  params.empty() ? nullptr : params.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return Error::infrastructure("cuLaunchKernel (" + launch_text(d) + "): " + describe(r));
  return {};
}

Status CudaDevice::launch(LoadedKernel& kernel, const LaunchDims& dims,
                          const std::vector<ArgSlot>& args) {
  // cuLaunchKernel refuses a grid of 0 blocks; an empty shape's launch does nothing.
  if (dims.empty()) return {};
  KGATE_RETURN_IF_ERROR(launch_async(static_cast<CudaKernel&>(kernel).function(), dims, args));
  CUresult r = c_->cuStreamSynchronize(stream_);
  if (r == CUDA_SUCCESS) return {};
  std::string why = "running the kernel (" + launch_text(dims) + "): " + describe(r);
  if (r == CUDA_ERROR_ASSERT)
    why +=
        "; an assert in the kernel failed: check that this launch is the one the kernel "
        "assumes (block size, grid order, shared memory)";
  return Error::infrastructure(why);
}

Result<TimedSample> CudaDevice::time_function(CUfunction function, const LaunchDims& dims,
                                              const std::vector<ArgSlot>& args) {
  // The kernels this sample launches, in order: the wait kernel, the timed
  // one, the clock kernel (kernel_timestamps.h); the L2 flush (a memset, no
  // kernel record) runs between the first two.
  bool kernel_clock = options_.kernel_clock && kernel_clock_error_.empty();
  if (kernel_clock) {
    if (Status s = KernelTimestamps::instance().begin(); !s.ok()) {
      kernel_clock_error_ = s.error().message;
      kernel_clock = false;
    }
  }
  if (options_.hide_launch) {
    // The GPU holds at the wait kernel while the host queues the flush, the
    // events and the launch; released, it runs them back to back, so neither
    // the host's launch latency nor its CUPTI bookkeeping (hundreds of
    // microseconds after a flush of the records) separates the flush from the
    // kernel. A kernel that met L2 that long after the flush ran up to 16%
    // faster than one right behind it (docs/cuda-backend.md, "Timing").
    host_words_[0] = 0;
    host_words_[1] = 0;
    uint64_t flag = host_words_device_, timeout = kWaitTimeoutNs,
             timed_out = host_words_device_ + 4;
    void* params[] = {&flag, &timeout, &timed_out};
    KGATE_RETURN_IF_ERROR(
        check(c_->cuLaunchKernel(wait_fn_, 1, 1, 1, 1, 1, 1, 0, stream_, params, nullptr),
              "cuLaunchKernel (wait kernel)"));
  }
  auto release = [&] {
    if (options_.hide_launch)
      __atomic_store_n(const_cast<uint32_t*>(&host_words_[0]), 1u, __ATOMIC_SEQ_CST);
  };
  Status queued;
  if (options_.flush_l2)
    queued = check(c_->cuMemsetD32Async(scratch_, ++flush_value_, scratch_words_, stream_),
                   "cuMemsetD32Async (L2 flush)");
  if (queued.ok()) queued = check(c_->cuEventRecord(start_, stream_), "cuEventRecord");
  if (queued.ok()) queued = launch_async(function, dims, args);
  if (queued.ok()) queued = check(c_->cuEventRecord(stop_, stream_), "cuEventRecord");
  release();
  KGATE_RETURN_IF_ERROR(queued);
  if (options_.read_sm_clock) {
    uint64_t out = host_words_device_ + 16, spin = kClockSpinNs;
    void* params[] = {&out, &spin};
    KGATE_RETURN_IF_ERROR(
        check(c_->cuLaunchKernel(clock_fn_, 1, 1, 1, 1, 1, 1, 0, stream_, params, nullptr),
              "cuLaunchKernel (clock kernel)"));
  }
  KGATE_RETURN_IF_ERROR(sync("running the timed kernel"));
  float ms = 0;
  KGATE_RETURN_IF_ERROR(check(c_->cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime"));
  TimedSample sample;
  sample.seconds = ms * 1e-3;
  if (kernel_clock) {
    auto spans = KernelTimestamps::instance().end();
    const size_t timed = options_.hide_launch ? 1 : 0;
    const size_t expected = timed + 1 + (options_.read_sm_clock ? 1 : 0);
    if (spans.ok() && spans->size() == expected &&
        (*spans)[timed].end_ns > (*spans)[timed].start_ns)
      sample.seconds = (*spans)[timed].seconds();
    else  // events for this sample and every later one of this device
      kernel_clock_error_ = spans.ok() ? std::to_string(spans->size()) + " kernel records for " +
                                             std::to_string(expected) + " launches"
                                       : spans.error().message;
  }
  if (options_.read_sm_clock) {
    const volatile uint64_t* clock = reinterpret_cast<const volatile uint64_t*>(host_words_ + 4);
    uint64_t cycles = clock[0], ns = clock[1];
    if (ns > 0) sample.sm_clock_mhz = static_cast<double>(cycles) / static_cast<double>(ns) * 1e3;
  }
  if (options_.hide_launch && host_words_[1] != 0)
    return Error::infrastructure(
        "the timing wait kernel was not released within 2 s (host stalled?)");
  return sample;
}

Result<TimedSample> CudaDevice::time_launch(LoadedKernel& kernel, const LaunchDims& dims,
                                            const std::vector<ArgSlot>& args) {
  if (dims.empty())
    return Error::bad_input("a grid of 0 blocks is not timed (an empty shape is checked only)");
  return time_function(static_cast<CudaKernel&>(kernel).function(), dims, args);
}

Result<TimedSample> CudaDevice::time_empty_kernel() {
  return time_function(empty_fn_, LaunchDims{}, {});
}

Result<double> CudaDevice::time_copy(DeviceAddress dst, DeviceAddress src, size_t bytes) {
  if (options_.flush_l2)
    KGATE_RETURN_IF_ERROR(
        check(c_->cuMemsetD32Async(scratch_, ++flush_value_, scratch_words_, stream_),
              "cuMemsetD32Async (L2 flush)"));
  KGATE_RETURN_IF_ERROR(check(c_->cuEventRecord(start_, stream_), "cuEventRecord"));
  KGATE_RETURN_IF_ERROR(
      check(c_->cuMemcpyDtoDAsync(dst, src, bytes, stream_), "cuMemcpyDtoDAsync"));
  KGATE_RETURN_IF_ERROR(check(c_->cuEventRecord(stop_, stream_), "cuEventRecord"));
  KGATE_RETURN_IF_ERROR(sync("copying"));
  float ms = 0;
  KGATE_RETURN_IF_ERROR(check(c_->cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime"));
  return ms * 1e-3;
}

}  // namespace kgate::cuda
