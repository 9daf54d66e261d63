#pragma once
// The driver entry points the cuda backend uses beyond those cuda_driver.h
// loads, resolved once through cuGetProcAddress at the toolkit's version, and
// a helper that turns a CUresult into a Status naming the call that failed.
//
// Invariant: calls() succeeds only when every pointer below is non-null.
#include <cuda.h>

#include "core/status.h"

namespace kgate::cuda {

// cuda.h maps some names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2);
// decltype picks the signature of the version this build was made against.
// clang-format off
#define KGATE_CUDA_CALLS(X) \
  X(cuInit) \
  X(cuDriverGetVersion) \
  X(cuDeviceGet) \
  X(cuDeviceGetCount) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDeviceGetPCIBusId) \
  X(cuDeviceGetUuid) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) \
  X(cuStreamCreate) \
  X(cuStreamDestroy) \
  X(cuStreamSynchronize) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoDAsync) \
  X(cuMemcpyDtoHAsync) \
  X(cuMemcpyDtoDAsync) \
  X(cuMemsetD8Async) \
  X(cuMemsetD32Async) \
  X(cuModuleLoadDataEx) \
  X(cuModuleUnload) \
  X(cuModuleGetFunction) \
  X(cuFuncGetAttribute) \
  X(cuFuncSetAttribute) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuLaunchKernel) \
  X(cuEventCreate) \
  X(cuEventDestroy) \
  X(cuEventRecord) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuMemHostAlloc) \
  X(cuMemHostGetDevicePointer) \
  X(cuMemFreeHost)
// clang-format on

struct Calls {
#define KGATE_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  KGATE_CUDA_CALLS(KGATE_CUDA_MEMBER)
#undef KGATE_CUDA_MEMBER
};

// The resolved table, or why the driver cannot be used.
Result<const Calls*> calls();

// Success, or an infrastructure error "cuMemAlloc(1 GiB): CUDA_ERROR_OUT_OF_MEMORY: ...".
Status check(CUresult result, const char* what);

}  // namespace kgate::cuda
