#pragma once
// What an episode observes by profiling a version of the kernel: the
// summary `kgate profile` prints (runner/profile_model/profile_summary.h, at most 600
// words: CUPTI counters on a GPU, the honest degraded one on the host), its
// numbers, its bottleneck class and the shape it was taken on. The original
// is profiled once, each new best once more; the prompt shows the current
// best's, the built-in tuner orders its moves by it, and a pull request shows
// the original's against the best's.
//
// Invariant: profiling never takes the episode down. It runs in a forked
// child under a time limit (the profiler's own children below it); a crash,
// a hang or an error is the observation's `error`, and the episode goes on
// with the timing summary.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/candidate_evaluator.h"
#include "core/manifest.h"
#include "runner/backend.h"
#include "runner/profile_model/profile_data.h"

namespace kgate {

struct ProfileObservation {
  int iteration = 0;       // the version's iteration; 0: the original
  std::string shape;       // the shape it was profiled on
  std::string summary;     // render_summary(); empty when there is no profile
  std::string bottleneck;  // the class (bottleneck.h to_string), "unknown" without one
  nlohmann::json data;     // summary_json(): ProfileData with derived numbers; null when none
  double seconds = 0;      // wall time the profile took (its cost to the episode)
  std::string error;       // why there is no profile; "" when there is

  bool ok() const { return error.empty() && !data.is_null(); }
  // The ProfileData back from `data`; nullopt when there is none or it is damaged.
  std::optional<profile_model::ProfileData> profile() const;
  nlohmann::json to_json() const;
  // Lenient: a damaged entry reads as an observation with an error.
  static ProfileObservation from_json(const nlohmann::json& j);
};

class EpisodeProfiler {
 public:
  virtual ~EpisodeProfiler() = default;
  // Profiles `version` of the kernel on `shape`, launched as `entry`
  // declares (a copy with the version's own launch, or the manifest's
  // kernel). Never fails: what went wrong is the observation's `error`.
  virtual ProfileObservation profile(const Candidate& version, const Kernel& entry,
                                     const std::string& shape) = 0;
};

struct ChildProfilerOptions {
  bool counters = true;       // CUPTI counters (GPU); false: timing, occupancy, roofline only
  double time_limit_s = 900;  // the whole profile's child
  uint64_t seed = 1;
  int gpu = 0;
};

// Profiles with runner/profile/kernel_profiler.h in a forked child.
class ChildProfiler : public EpisodeProfiler {
 public:
  // `manifest` and `backend` must outlive the profiler.
  ChildProfiler(const Manifest& manifest, Backend& backend, ChildProfilerOptions options);
  ProfileObservation profile(const Candidate& version, const Kernel& entry,
                             const std::string& shape) override;

 private:
  const Manifest& manifest_;
  Backend& backend_;
  ChildProfilerOptions options_;
};

// The shape an episode profiles: among the shapes timed (`timing`, the
// original's) whose time counts in the gate (where any does), those of the
// workload's phase that matters (`focus_phase`, when any is timed), else
// every one; of them the one moving the most bytes (the largest work, where
// counters say the most), ties by the longer time. Empty when nothing was
// timed.
std::string profile_shape(const std::vector<ShapeEvaluation>& timing,
                          const std::string& focus_phase);

// The section the prompt shows: the profile of the current best (or why
// there is none), then every shape's time and bandwidth in one line each.
std::string profile_section(const ProfileObservation* profile,
                            const std::vector<ShapeEvaluation>& timing,
                            const ResourceReport& resources, const std::string& backend);

}  // namespace kgate
