#pragma once
// Wires one episode together: backend, the A/B evaluator, the provider, the
// experience store, the runner, and the proposal for the bot. What
// `kgate optimize`, `kgate sweep` and the service's optimize jobs call.
#include <filesystem>
#include <string>

#include "agent/ab_options.h"
#include "agent/agent_provider.h"
#include "agent/episode_runner.h"
#include "core/manifest.h"
#include "core/state_dir.h"
#include "gate/workload_validation.h"

namespace kgate {

struct OptimizeOptions {
  ProviderConfig provider;
  EpisodeOptions episode;  // backend, state_dir, limits, seed
  AbOptions ab;            // samples and budget per shape
  // "gate": agent/gate_evaluator.h on gate/ab_gate.h (the gate's own A/B,
  // paired interval, adaptive stop), the only one; the name stays so that
  // `--evaluator gate` keeps working.
  std::string evaluator = "gate";
  bool write_proposal = true;
  // Validate the best candidate inside the manifest's workload (cuda, when
  // the manifest has a workload section) before proposing it.
  bool in_model = true;
  WorkloadValidationOptions in_model_options;
  // Profile the original and each new best (episode_profile.h) in a child;
  // without counters: timing, occupancy and roofline only.
  bool profile = true;
  bool profile_counters = true;
  // A sweep's episodes read lessons up to this id (and their own kernel's),
  // so what they learn does not depend on how many GPUs ran the sweep
  // (ExperienceStore::read_up_to); -1: every lesson.
  int64_t lessons_up_to = -1;
};

struct OptimizeOutcome {
  EpisodeResult episode;
  std::filesystem::path proposal;      // empty when nothing was proposed
  nlohmann::json workload_validation;  // null when the in-model check did not run

  // What a sweep's worker sends back (agent/sweep_schedule.h): the record,
  // its folder, where it waits, the proposal; not the best's source text.
  nlohmann::json to_json() const;
  static Result<OptimizeOutcome> from_json(const nlohmann::json& j);
};

Result<OptimizeOutcome> optimize_kernel(const Manifest& manifest, const Kernel& kernel,
                                        OptimizeOptions options);

}  // namespace kgate
