// The CUDA driver API, loaded at run time (dlopen of libcuda.so.1), so the
// harness starts without a driver (--check-params) and needs no stub library.
// Each name is cuda.h's: where cuda.h maps a function to a versioned entry
// point (cuMemAlloc to cuMemAlloc_v2), the macro maps the pointer's name and
// the symbol looked up alike.
#pragma once
#include <cuda.h>
#include <dlfcn.h>

#include <string>

#define GGML_HARNESS_STR2(x) #x
#define GGML_HARNESS_STR(x) GGML_HARNESS_STR2(x)
#define GGML_HARNESS_DRIVER(X) \
  X(cuCtxGetDevice)            \
  X(cuCtxSetCurrent)           \
  X(cuDeviceGet)               \
  X(cuDeviceGetAttribute)      \
  X(cuDeviceGetName)           \
  X(cuDevicePrimaryCtxRetain)  \
  X(cuEventCreate)             \
  X(cuEventElapsedTime)        \
  X(cuEventRecord)             \
  X(cuEventSynchronize)        \
  X(cuFuncGetAttribute)        \
  X(cuFuncSetAttribute)        \
  X(cuGetErrorName)            \
  X(cuInit)                    \
  X(cuLaunchKernel)            \
  X(cuMemAlloc)                \
  X(cuMemFree)                 \
  X(cuMemcpyDtoH)              \
  X(cuMemcpyHtoD)              \
  X(cuMemsetD32Async)          \
  X(cuModuleGetFunction)       \
  X(cuModuleLoadData)          \
  X(cuModuleUnload)            \
  X(cuStreamCreate)            \
  X(cuStreamSynchronize)

namespace drv {

#define GGML_HARNESS_DECLARE(f) inline decltype(&::f) f = nullptr;
GGML_HARNESS_DRIVER(GGML_HARNESS_DECLARE)
#undef GGML_HARNESS_DECLARE

// "" when every function was found, else what is missing.
inline std::string load() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return std::string("cannot load libcuda.so.1 (no NVIDIA driver?): ") + dlerror();
  std::string missing;
#define GGML_HARNESS_RESOLVE(f)                                       \
  f = reinterpret_cast<decltype(f)>(dlsym(lib, GGML_HARNESS_STR(f))); \
  if (!f) missing += std::string(missing.empty() ? "" : ", ") + GGML_HARNESS_STR(f);
  GGML_HARNESS_DRIVER(GGML_HARNESS_RESOLVE)
#undef GGML_HARNESS_RESOLVE
  return missing.empty() ? "" : "libcuda.so.1 lacks " + missing;
}

}  // namespace drv
