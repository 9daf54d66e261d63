#pragma once
// What GPUs this process may use (after CUDA_VISIBLE_DEVICES), learned in a
// forked child: initializing CUDA in the parent would break every measuring
// child it forks later (a CUDA context does not survive fork).
//
// Invariant: a successful inventory lists at least one GPU, in the driver's
// order, so index i is the `--gpu i` a user names.
#include <string>
#include <vector>

#include <cuda.h>
#include <nlohmann/json.hpp>

#include "core/status.h"
#include "runner/cuda/driver_calls.h"

namespace kgate::cuda {

struct GpuDescription {
  std::string name;        // "NVIDIA H200"
  std::string arch;        // "sm_90"
  std::string pci_bus_id;  // "0000:18:00.0": names the GPU across processes
  int multiprocessors = 0;
  int64_t l2_bytes = 0;
  int index = 0;                     // the driver's ordinal in this process
  std::string uuid;                  // "GPU-5f2c1ab4-...": what CUDA_VISIBLE_DEVICES accepts
  double peak_sm_clock_mhz = 0;      // the driver's CLOCK_RATE
  double peak_memory_clock_mhz = 0;  // MEMORY_CLOCK_RATE
  std::vector<int> local_cpus;       // the CPUs nearest it (sysfs local_cpulist); empty: unknown
};

struct GpuInventory {
  int driver_version = 0;  // 13000 for CUDA 13.0
  std::vector<GpuDescription> gpus;

  nlohmann::json to_json() const;
  static GpuInventory from_json(const nlohmann::json& j);
};

// Probes in a child the first time, then answers from memory while
// CUDA_VISIBLE_DEVICES stays what it was (a sweep's worker narrows it to its
// GPU and gets that GPU alone as GPU 0). An Error says plainly why no GPU can
// be used ("no GPU found: ...").
Result<GpuInventory> gpu_inventory();

// The same probe, in this process (the child's side, and CudaDevice's).
Result<GpuInventory> probe_gpus_here();

// One GPU as the driver describes it (ordinal `index` of this process).
Result<GpuDescription> describe_gpu(const Calls& calls, int index);

// The index a result records for ordinal `ordinal` of `visible` GPUs:
// KGATE_GPU_INDEX where a sweep confined this process to its one GPU
// (CUDA_VISIBLE_DEVICES=<uuid> makes that GPU ordinal 0; the sweep sets both),
// else the ordinal, which is what `--gpu` names.
int recorded_gpu_index(int ordinal, int visible);

// 16 bytes as nvidia-smi and CUDA_VISIBLE_DEVICES write them:
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string format_uuid(const CUuuid& uuid);

// "0-7,16-23" (sysfs's cpulist format) -> {0..7, 16..23}; empty for text it cannot read.
std::vector<int> parse_cpu_list(const std::string& text);

}  // namespace kgate::cuda
