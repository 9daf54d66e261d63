#pragma once
// Profiles one launch: times it first (CUDA events, apart from profiling),
// then reads hardware counters through CUPTI, computes theoretical occupancy
// and attaches the roofline ceilings. Whatever cannot be read is recorded in
// ProfileData::missing with the reason, never guessed.
//
// profile_kernel() does it for a manifest kernel, each shape in a forked
// child so the parent never initializes CUDA.
#include <optional>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "runner/backend.h"
#include "runner/cuda/cuda_device.h"
#include "runner/profile/roofline.h"
#include "runner/profile_model/profile_data.h"

namespace kgate::profile {

struct ProfileOptions {
  int timed_samples = 20;     // after 3 warm-up launches
  bool counters = true;       // read CUPTI counters
  bool roofline = true;       // attach (and measure once) the ceilings
  bool hot_regions = true;    // PC sampling, else SASS instruction counts
  bool sass_branches = true;  // with counters: branch counts via the SASS API (own children)
  std::string ceiling_file;   // empty: CeilingStore::default_store()
  std::string fma_cubin;      // compile_fma_peak: measures ceilings not yet stored
  double time_limit_s = 300;  // per shape child
};

// In-process (child side), on the runner's own device: times `kernel` with
// the gate's timing (CudaDevice::time_launch), then reads occupancy,
// ceilings, counters and hot regions. `cubin` (may be empty) maps hot PCs to
// source lines; with `entry` (the symbol `kernel` was loaded by) PC sampling
// runs a copy of it loaded after sampling is enabled (pc_sampling.h says why).
profile_model::ProfileData profile_launch(cuda::CudaDevice& gpu, cuda::CudaKernel& kernel,
                                          const LaunchDims& dims, const std::vector<ArgSlot>& args,
                                          const ResourceReport& resources, const std::string& cubin,
                                          const ProfileOptions& options,
                                          const std::string& entry = "");

struct KernelProfileRequest {
  const Manifest* manifest = nullptr;
  // The manifest entry the launch is planned from (an episode passes a copy
  // with a candidate's own launch).
  const Kernel* kernel = nullptr;
  Backend* backend = nullptr;
  std::vector<std::string> shapes;  // empty: every shape that runs on the backend
  int gpu = 0;
  uint64_t seed = 1;
  ProfileOptions options;
  // Another version than the repository's file (an episode's candidate):
  // its source text, tunables (missing names take their defaults) and extra
  // compiler flags.
  std::optional<std::string> source_text;
  Variables tunables;
  std::vector<std::string> extra_flags;
};

// Compiles the kernel (with line info) and profiles each shape: one child
// times and profiles it, two more count its branches through the SASS
// metrics API (sass_branches.h). On the host backend there are no counters:
// each shape is checked and timed by the harness in a measuring child
// (kgate run's timing), the compiler report added, the missing numbers named. An Error is bad input
// or infrastructure; a kernel that fails in a shape's child is a ProfileData whose
// `missing` says so.
Result<std::vector<profile_model::ProfileData>> profile_kernel(const KernelProfileRequest& request);

}  // namespace kgate::profile
