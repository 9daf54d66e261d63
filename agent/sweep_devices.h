#pragma once
// Which devices a sweep runs its episodes on (`kgate sweep --gpus`), and what
// each device's worker is confined to: its GPU alone (CUDA_VISIBLE_DEVICES
// set to the GPU's UUID, so everything the worker starts, measuring children,
// the profiler, the workload, sees that GPU as GPU 0) and, with more than one
// device, its share of the host's CPUs: the CPUs nearest its GPU (its NUMA
// node), split evenly between the selected GPUs that share them. A worker
// runs one step at a time (compile, host reference, timing), so with the
// CPUs split no compile or host reference of one worker runs on a core
// another worker's timing loop is using, and each worker's host threads
// (core/parallel.h counts the CPUs it may run on) stay within its share.
//
// Invariant: the devices of a sweep are distinct and, on CUDA, of one model:
// its results must not depend on which GPU ran a kernel.
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/cuda/gpu_inventory.h"

namespace kgate {

struct SweepDevice {
  int index = 0;      // as --gpus names it (CUDA's order after CUDA_VISIBLE_DEVICES)
  std::string name;   // "NVIDIA H200", "host"
  std::string label;  // "gpu 1", "host 1": prefixes its worker's lines
  std::string uuid;   // "GPU-5f2c...", "host"
  std::map<std::string, std::string> env;  // set in its worker
  std::vector<int> cpus;                   // its worker's CPUs; empty: not pinned
};

// --gpus: "all" (empty result) or indices and ranges, "0,2" or "0-3".
Result<std::vector<int>> parse_gpu_list(const std::string& text);

// The devices of a sweep on `backend` ("host" or "cuda") for --gpus `gpus`.
Result<std::vector<SweepDevice>> sweep_devices(const std::string& backend, const std::string& gpus);

// The same from an inventory and the CPUs this process may use, so the
// choice is testable without GPUs. `selected` empty: every GPU.
Result<std::vector<SweepDevice>> cuda_sweep_devices(const cuda::GpuInventory& inventory,
                                                    const std::vector<int>& selected,
                                                    const std::vector<int>& allowed_cpus);
// The host backend's indices are all the CPU; `selected` empty: index 0 alone.
Result<std::vector<SweepDevice>> host_sweep_devices(const std::vector<int>& selected,
                                                    const std::vector<int>& allowed_cpus);

// Gives each device its CPUs: those of `near[i]` it may use (all of
// `allowed` where that leaves none), split in equal contiguous parts between
// the devices with the same candidates; at least one each, shared round
// robin when there are more devices than CPUs. One device is not pinned.
void assign_cpus(std::vector<SweepDevice>& devices, const std::vector<std::vector<int>>& near,
                 const std::vector<int>& allowed);

// The CPUs this process may run on (sched_getaffinity).
std::vector<int> allowed_cpus();

}  // namespace kgate
