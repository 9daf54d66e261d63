#include "runner/profile/profile_launch.h"

#include <nvrtc.h>

#include <cstring>
#include <functional>
#include <regex>

#include "runner/cuda/cuda_driver.h"
#include "runner/inputs.h"

namespace kgate::profile {
namespace {

// Driver entry points, resolved once per process (in the child).
struct Driver {
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice);
  CUresult (*cuCtxCreate)(CUcontext*, CUctxCreateParams*, unsigned int, CUdevice);
  CUresult (*cuCtxDestroy)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuStreamCreate)(CUstream*, unsigned int);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncGetAttribute)(int*, CUfunction_attribute, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned int);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t);
};

Result<const Driver*> driver() {
  static Result<Driver> loaded = []() -> Result<Driver> {
    if (Status s = cuda::probe_gpu(); !s.ok()) return s.error();
    Driver d{};
    Error missing = Error::infrastructure("");
    bool ok = true;
    auto get = [&](auto& fn, const char* name) {
      auto p = cuda::resolve(name);
      if (!p.ok()) {
        if (ok) missing = p.error();
        ok = false;
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(*p);
    };
#define KGATE_GET(name) get(d.name, #name)
    KGATE_GET(cuDeviceGet);
    KGATE_GET(cuDeviceGetName);
    KGATE_GET(cuDeviceGetAttribute);
    KGATE_GET(cuCtxCreate);
    KGATE_GET(cuCtxDestroy);
    KGATE_GET(cuCtxSynchronize);
    KGATE_GET(cuStreamCreate);
    KGATE_GET(cuStreamDestroy);
    KGATE_GET(cuStreamSynchronize);
    KGATE_GET(cuMemAlloc);
    KGATE_GET(cuMemFree);
    KGATE_GET(cuMemcpyHtoD);
    KGATE_GET(cuMemsetD8);
    KGATE_GET(cuMemcpyDtoDAsync);
    KGATE_GET(cuModuleLoadData);
    KGATE_GET(cuModuleUnload);
    KGATE_GET(cuModuleGetFunction);
    KGATE_GET(cuFuncGetAttribute);
    KGATE_GET(cuFuncSetAttribute);
    KGATE_GET(cuLaunchKernel);
    KGATE_GET(cuEventCreate);
    KGATE_GET(cuEventDestroy);
    KGATE_GET(cuEventRecord);
    KGATE_GET(cuEventSynchronize);
    KGATE_GET(cuEventElapsedTime);
    KGATE_GET(cuOccupancyMaxActiveBlocksPerMultiprocessor);
#undef KGATE_GET
    if (!ok) return missing;
    return d;
  }();
  if (!loaded.ok()) return loaded.error();
  return &loaded.value();
}

Status check(CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return {};
  return Error::infrastructure(what + " failed: " + cuda::describe(r));
}

// Only called after a session opened, so the driver is there.
const Driver& D() {
  return *driver().value();
}

}  // namespace

ResourceReport parse_ptxas_report(const std::string& log) {
  ResourceReport r;
  std::smatch m;
  if (std::regex_search(
          log, m,
          std::regex(
              R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    r.stack_bytes = std::stoi(m[1]);
    r.spill_store_bytes = std::stoi(m[2]);
    r.spill_load_bytes = std::stoi(m[3]);
  }
  if (std::regex_search(log, m, std::regex(R"(Used (\d+) registers)")))
    r.registers = std::stoi(m[1]);
  if (std::regex_search(log, m, std::regex(R"((\d+) bytes smem)")))
    r.shared_bytes = std::stoi(m[1]);
  return r;
}

Result<CudaImage> nvrtc_compile(const std::string& source, const std::string& name,
                                const std::string& arch, bool line_info,
                                const std::vector<std::string>& extra_options) {
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return Error::infrastructure("NVRTC could not create a program for " + name);
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-std=c++17",
                                      "--ptxas-options=-v"};
  if (line_info) options.push_back("-lineinfo");
  for (const std::string& o : extra_options) options.push_back(o);
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  nvrtcResult r = nvrtcCompileProgram(prog, int(opts.size()), opts.data());
  CudaImage image;
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  image.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(prog, image.log.data());
  if (r != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    return Error::bad_input(name + " does not compile: " + image.log);
  }
  size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  image.cubin.resize(size);
  nvrtcGetCUBIN(prog, image.cubin.data());
  nvrtcDestroyProgram(&prog);
  image.resources = parse_ptxas_report(image.log);
  return image;
}

Result<std::unique_ptr<GpuSession>> GpuSession::open(int gpu) {
  auto d = driver();
  if (!d.ok()) return d.error();
  std::unique_ptr<GpuSession> s(new GpuSession);
  KGATE_RETURN_IF_ERROR(check(D().cuDeviceGet(&s->device_, gpu), "cuDeviceGet"));
  char name[256] = {};
  KGATE_RETURN_IF_ERROR(
      check(D().cuDeviceGetName(name, sizeof name, s->device_), "cuDeviceGetName"));
  s->name_ = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    D().cuDeviceGetAttribute(&v, a, s->device_);
    return v;
  };
  s->cc_major_ = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  s->cc_minor_ = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  SmLimits& l = s->limits_;
  l.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  l.max_warps_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / 32;
  l.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  l.registers_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  l.shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  l.reserved_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  l.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  KGATE_RETURN_IF_ERROR(
      check(D().cuCtxCreate(&s->context_, nullptr, 0, s->device_), "cuCtxCreate"));
  KGATE_RETURN_IF_ERROR(
      check(D().cuStreamCreate(&s->stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  return s;
}

GpuSession::~GpuSession() {
  if (!context_) return;
  D().cuCtxSynchronize();
  for (CUmodule m : modules_) D().cuModuleUnload(m);
  if (stream_) D().cuStreamDestroy(stream_);
  D().cuCtxDestroy(context_);
}

std::string GpuSession::arch() const {
  return "sm_" + std::to_string(cc_major_) + std::to_string(cc_minor_);
}

Result<CUdeviceptr> GpuSession::allocate(size_t bytes) {
  CUdeviceptr p = 0;
  KGATE_RETURN_IF_ERROR(
      check(D().cuMemAlloc(&p, bytes), "cuMemAlloc of " + std::to_string(bytes) + " bytes"));
  return p;
}

void GpuSession::release(CUdeviceptr p) {
  if (p) D().cuMemFree(p);
}

Status GpuSession::upload(CUdeviceptr dst, const void* src, size_t bytes) {
  return check(D().cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

Status GpuSession::fill(CUdeviceptr dst, uint8_t byte, size_t bytes) {
  return check(D().cuMemsetD8(dst, byte, bytes), "cuMemsetD8");
}

Result<CUfunction> GpuSession::load(const std::string& cubin, const std::string& entry) {
  CUmodule m = nullptr;
  KGATE_RETURN_IF_ERROR(check(D().cuModuleLoadData(&m, cubin.data()), "cuModuleLoadData"));
  modules_.push_back(m);
  CUfunction f = nullptr;
  KGATE_RETURN_IF_ERROR(check(D().cuModuleGetFunction(&f, m, entry.c_str()),
                              "finding the kernel '" + entry + "' (cuModuleGetFunction)"));
  return f;
}

Status GpuSession::launch(CUfunction f, const LaunchDims& d, void** params) {
  KGATE_RETURN_IF_ERROR(enqueue(f, d, params));
  return synchronize();
}

Status GpuSession::synchronize() {
  return check(D().cuStreamSynchronize(stream_), "the kernel");
}

Status GpuSession::enqueue(CUfunction f, const LaunchDims& d, void** params) {
  if (d.shared_bytes > 48 * 1024)
    D().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(d.shared_bytes));
  KGATE_RETURN_IF_ERROR(
      check(D().cuLaunchKernel(f, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1],
                               d.block[2], d.shared_bytes, stream_, params, nullptr),
            "cuLaunchKernel"));
  return {};
}

Status GpuSession::copy_async(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return check(D().cuMemcpyDtoDAsync(dst, src, bytes, stream_), "cuMemcpyDtoDAsync");
}

Result<double> GpuSession::time(const std::function<Status()>& work) {
  CUevent a = nullptr, b = nullptr;
  KGATE_RETURN_IF_ERROR(check(D().cuEventCreate(&a, CU_EVENT_DEFAULT), "cuEventCreate"));
  KGATE_RETURN_IF_ERROR(check(D().cuEventCreate(&b, CU_EVENT_DEFAULT), "cuEventCreate"));
  float ms = 0;
  Status s = check(D().cuEventRecord(a, stream_), "cuEventRecord");
  if (s.ok()) s = work();
  if (s.ok()) s = check(D().cuEventRecord(b, stream_), "cuEventRecord");
  if (s.ok()) s = check(D().cuEventSynchronize(b), "cuEventSynchronize");
  if (s.ok()) s = check(D().cuEventElapsedTime(&ms, a, b), "cuEventElapsedTime");
  D().cuEventDestroy(a);
  D().cuEventDestroy(b);
  if (!s.ok()) return s.error();
  return ms * 1e-3;
}

Result<int> GpuSession::active_blocks(CUfunction f, const LaunchDims& d) {
  int blocks = 0;
  KGATE_RETURN_IF_ERROR(
      check(D().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, f, int(d.block[0] * d.block[1] * d.block[2]), d.shared_bytes),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  return blocks;
}

ResourceReport GpuSession::function_resources(CUfunction f) {
  ResourceReport r;
  auto get = [&](CUfunction_attribute a) {
    int v = -1;
    return D().cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS ? v : -1;
  };
  r.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  r.shared_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  r.local_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  r.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  return r;
}

Result<std::unique_ptr<LaunchArgs>> LaunchArgs::make(GpuSession& gpu, const LaunchPlan& plan,
                                                     uint64_t seed) {
  std::unique_ptr<LaunchArgs> a(new LaunchArgs);
  a->gpu_ = &gpu;
  a->slots_.resize(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& p = plan.args[i];
    if (!p.arg->is_buffer) {
      a->slots_[i] = p.scalar;
      continue;
    }
    auto buf = gpu.allocate(p.bytes);
    if (!buf.ok()) return buf.error();
    a->buffers_.push_back(*buf);
    if (p.arg->role == ArgRole::kOutput) {
      KGATE_RETURN_IF_ERROR(gpu.fill(*buf, kPoisonByte, p.bytes));
    } else {
      std::vector<unsigned char> host = make_input(p, seed, i);
      KGATE_RETURN_IF_ERROR(gpu.upload(*buf, host.data(), host.size()));
    }
    CUdeviceptr dp = *buf;
    std::memcpy(a->slots_[i].bytes, &dp, sizeof dp);
    a->slots_[i].size = sizeof dp;
  }
  for (ArgSlot& s : a->slots_) a->pointers_.push_back(s.bytes);
  return a;
}

LaunchArgs::~LaunchArgs() {
  for (CUdeviceptr p : buffers_) gpu_->release(p);
}

}  // namespace kgate::profile
