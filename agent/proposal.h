#pragma once
// A proposal: an episode's accepted result, written where the bot picks it up
// (<state>/proposals/<kernel>.json) to open a pull request. The format is
// documented in docs/agent.md ("Proposal files"). Written only when the best
// version beat the original on the final A/B gate.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "agent/episode_runner.h"
#include "core/manifest.h"

namespace kgate {

// `workload_validation`: the in-model check (gate/workload_validation.h), null when not run.
nlohmann::json make_proposal(const Manifest& manifest, const Kernel& kernel,
                             const EpisodeResult& episode, const std::filesystem::path& state_dir,
                             const nlohmann::json& workload_validation = nullptr);

// Writes the proposal if the episode's final evaluation says the best is an
// improvement; returns the path written, or empty when there is nothing to propose.
Result<std::filesystem::path> write_proposal(const Manifest& manifest, const Kernel& kernel,
                                             const EpisodeResult& episode,
                                             const std::filesystem::path& state_dir,
                                             const nlohmann::json& workload_validation = nullptr);

}  // namespace kgate
