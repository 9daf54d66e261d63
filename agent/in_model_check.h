#pragma once
// Before an episode's best candidate becomes a proposal, it is validated
// inside the manifest's workload (gate/workload_validation.h): the manifest
// folder is copied twice to a scratch folder, the candidate's source (its
// tunables as #defines in front) replaces the kernel's source file in one
// copy, the original (with the manifest's default tunables) in the other.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "gate/workload_validation.h"

namespace kgate {

// `source` with "#define NAME VALUE" lines for every tunable of `impl`: the
// value from `tunables` (a JSON object) when given, else the manifest's
// default. What the workload's build sees, as kgate's compile passes -D.
std::string with_tunable_defines(const std::string& source, const Implementation& impl,
                                 const nlohmann::json& tunables);

// Copies a kernel repository's folder, leaving out .git, .kgate and `skip`.
Status copy_tree(const std::filesystem::path& from, const std::filesystem::path& to,
                 const std::filesystem::path& skip = {});

// Validates `candidate_source` (with `tunables`) for `kernel` inside the
// workload. Error: no workload section, no cuda implementation, or the base
// workload does not build or run.
Result<WorkloadValidation> validate_candidate_in_workload(const Manifest& manifest,
                                                          const Kernel& kernel,
                                                          const std::string& candidate_source,
                                                          const nlohmann::json& tunables,
                                                          const WorkloadValidationOptions& options,
                                                          const std::filesystem::path& state_dir);

}  // namespace kgate
