// The CUDA driver API functions candle_ab calls, loaded from libcuda.so.1 at
// run time (dlopen), so that the program starts on a machine without a GPU
// driver (--describe, in CI) and needs no CUDA library to link.
#pragma once
#include <cuda.h>
#include <dlfcn.h>

#include <string>

namespace candle_ab {

// cuda.h maps some names to their versioned symbols (cuMemAlloc to
// cuMemAlloc_v2): XSTR expands the name before making it a string, so dlsym
// looks up the symbol cuda.h declares.
#define CANDLE_AB_STR(x) #x
#define CANDLE_AB_XSTR(x) CANDLE_AB_STR(x)
// One entry per line; clang-format reflows a long X-macro differently on every run.
// clang-format off
#define CANDLE_AB_DRIVER(X) \
  X(cuInit)                    \
  X(cuDeviceGet)               \
  X(cuDeviceGetName)           \
  X(cuDeviceGetAttribute)      \
  X(cuDevicePrimaryCtxRetain)  \
  X(cuCtxSetCurrent)           \
  X(cuDevicePrimaryCtxRelease) \
  X(cuDevicePrimaryCtxReset)   \
  X(cuGetErrorString)          \
  X(cuModuleLoadData)          \
  X(cuModuleGetFunction)       \
  X(cuModuleUnload)            \
  X(cuLaunchKernel)            \
  X(cuMemsetD8)                \
  X(cuMemsetD32Async)          \
  X(cuCtxSynchronize)          \
  X(cuMemcpyDtoH)              \
  X(cuMemcpyHtoD)              \
  X(cuMemAlloc)                \
  X(cuMemFree)                 \
  X(cuStreamCreate)            \
  X(cuStreamSynchronize)       \
  X(cuStreamDestroy)           \
  X(cuEventCreate)             \
  X(cuEventRecord)             \
  X(cuEventElapsedTime)        \
  X(cuEventQuery)              \
  X(cuEventDestroy)            \
  X(cuMemHostAlloc)            \
  X(cuMemHostGetDevicePointer) \
  X(cuMemFreeHost)             \
  X(cuStreamWaitValue32)
// clang-format on

struct Driver {
#define CANDLE_AB_MEMBER(fn) decltype(&::fn) fn = nullptr;
  CANDLE_AB_DRIVER(CANDLE_AB_MEMBER)
#undef CANDLE_AB_MEMBER

  // "" when every function was found, else what is missing.
  std::string load() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return std::string("cannot load libcuda.so.1: ") + dlerror();
#define CANDLE_AB_LOAD(fn)                                             \
  fn = reinterpret_cast<decltype(fn)>(dlsym(lib, CANDLE_AB_XSTR(fn))); \
  if (!fn) return std::string("libcuda.so.1 has no ") + CANDLE_AB_XSTR(fn);
    CANDLE_AB_DRIVER(CANDLE_AB_LOAD)
#undef CANDLE_AB_LOAD
    return "";
  }
};

inline Driver& driver() {
  static Driver d;
  return d;
}

}  // namespace candle_ab
