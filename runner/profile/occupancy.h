#pragma once
// Theoretical occupancy of a launch from the compiler's resource report, the
// block size and the device's per-SM limits, with the resource that limits
// it. The same arithmetic as CUDA's occupancy calculator; a pure function so
// it is tested without a GPU.
#include <string>

#include "runner/device.h"
#include "runner/profile_model/profile_data.h"

namespace kgate::profile {

// Per-SM limits of one GPU model. Invariant: every field positive.
struct SmLimits {
  int max_warps_per_sm = 64;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int register_alloc_unit = 256;  // registers, allocated per warp
  int max_registers_per_thread = 255;
  int shared_per_sm = 233472;            // bytes usable by blocks (228 KiB on H100)
  int reserved_shared_per_block = 1024;  // the runtime's own use
  int shared_alloc_unit = 128;
  int max_threads_per_block = 1024;
  int multiprocessors = 132;

  static SmLimits h100_sxm();  // also H200: same SM
  static SmLimits a100();
};

// `resources.registers` < 0 (unknown) counts as no register limit.
profile_model::Occupancy theoretical_occupancy(const SmLimits& limits,
                                               const ResourceReport& resources,
                                               const LaunchDims& dims);

}  // namespace kgate::profile
