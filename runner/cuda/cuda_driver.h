#pragma once
// The CUDA driver API, loaded at run time (dlopen of libcuda.so.1) rather than
// linked, so kgate starts on machines with the toolkit but no driver or GPU
// and says so plainly when a CUDA kernel is asked for.
#include <cuda.h>

#include <string>

#include "core/status.h"

namespace kgate::cuda {

// Function pointers into the driver. Resolved once; see driver().
struct DriverApi {
  CUresult (*cuInit)(unsigned int) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetProcAddress)(const char*, void**, int, cuuint64_t,
                               CUdriverProcAddressQueryResult*) = nullptr;
};

// The loaded driver, or why there is none ("no GPU driver: libcuda.so.1 ...").
Result<const DriverApi*> driver();

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
std::string describe(CUresult result);

// Resolves a driver entry point by its base name ("cuMemAlloc") at the
// version of the toolkit kgate was built with.
Result<void*> resolve(const char* symbol);

// Success when at least one GPU is usable, else the reason in plain words.
// Initializes the driver in this process: call it in a child, never in a
// parent that will fork children that use CUDA (isolated_measure.h).
Status probe_gpu();

}  // namespace kgate::cuda
