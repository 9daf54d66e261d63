#include "runner/profile/device_limits.h"

#include "runner/cuda/driver_calls.h"

namespace kgate::profile {

Result<SmLimits> sm_limits(const cuda::CudaDevice& gpu) {
  auto c = cuda::calls();
  if (!c.ok()) return c.error();
  SmLimits l;
  Status status;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    if (status.ok())
      status = cuda::check((*c)->cuDeviceGetAttribute(&v, a, gpu.device()), "cuDeviceGetAttribute");
    return v;
  };
  l.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  l.max_warps_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) / 32;
  l.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  l.registers_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  l.shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  l.reserved_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  l.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (!status.ok()) return status.error();
  return l;
}

Result<int> active_blocks(CUfunction function, const LaunchDims& d) {
  auto c = cuda::calls();
  if (!c.ok()) return c.error();
  int blocks = 0;
  KGATE_RETURN_IF_ERROR(
      cuda::check((*c)->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                      &blocks, function, static_cast<int>(d.block[0] * d.block[1] * d.block[2]),
                      d.shared_bytes),
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  return blocks;
}

ResourceReport function_resources(CUfunction function) {
  ResourceReport r;
  auto c = cuda::calls();
  if (!c.ok()) return r;
  auto get = [&](CUfunction_attribute a) {
    int v = -1;
    return (*c)->cuFuncGetAttribute(&v, a, function) == CUDA_SUCCESS ? v : -1;
  };
  r.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  r.shared_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  r.local_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  r.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  return r;
}

}  // namespace kgate::profile
