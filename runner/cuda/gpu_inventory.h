#pragma once
// What GPUs this process may use (after CUDA_VISIBLE_DEVICES), learned in a
// forked child: initializing CUDA in the parent would break every measuring
// child it forks later (a CUDA context does not survive fork).
//
// Invariant: a successful inventory lists at least one GPU, in the driver's
// order, so index i is the `--gpu i` a user names.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace kgate::cuda {

struct GpuDescription {
  std::string name;        // "NVIDIA H200"
  std::string arch;        // "sm_90"
  std::string pci_bus_id;  // "0000:18:00.0": names the GPU across processes
  int multiprocessors = 0;
  int64_t l2_bytes = 0;
};

struct GpuInventory {
  int driver_version = 0;  // 13000 for CUDA 13.0
  std::vector<GpuDescription> gpus;

  nlohmann::json to_json() const;
  static GpuInventory from_json(const nlohmann::json& j);
};

// Probes in a child the first time, then answers from memory. An Error says
// plainly why no GPU can be used ("no GPU found: ...").
Result<GpuInventory> gpu_inventory();

// The same probe, in this process (the child's side, and CudaDevice's).
Result<GpuInventory> probe_gpus_here();

}  // namespace kgate::cuda
