#pragma once
// What the profiler asks the driver about the runner's GPU and a loaded
// kernel, beyond what CudaDevice offers the harness: the per-SM limits the
// occupancy calculator needs, the blocks of a kernel one SM holds, and the
// resources the driver reports for a loaded function.
#include <cuda.h>

#include "core/status.h"
#include "runner/cuda/cuda_device.h"
#include "runner/profile/occupancy.h"

namespace kgate::profile {

Result<SmLimits> sm_limits(const cuda::CudaDevice& gpu);

// cuOccupancyMaxActiveBlocksPerMultiprocessor for `dims`' block.
Result<int> active_blocks(CUfunction function, const LaunchDims& dims);

// Registers, static shared and local memory as the driver reports them;
// fields it does not answer stay -1.
ResourceReport function_resources(CUfunction function);

}  // namespace kgate::profile
