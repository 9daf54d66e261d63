#pragma once
// compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on the
// correctness check of one kernel on one shape. The check runs in a fresh
// kgate process that compute-sanitizer starts (the hidden `kgate
// sanitize-check FILE` subcommand), in that process itself: no forked child,
// so nothing depends on how the tool follows children, and without guard
// zones, so memcheck sees every buffer's exact size. CUDA backend only.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/backend.h"
#include "runner/harness.h"
#include "runner/program.h"

namespace kgate {

inline constexpr const char* kSanitizeCheckCommand = "sanitize-check";

// What the other process needs to check the head on one shape.
struct SanitizeTarget {
  std::filesystem::path manifest_root;
  const Kernel* kernel = nullptr;
  std::string backend;  // "cuda"
  std::string shape;
  Program head, reference;
  uint64_t seed = 1;
  int gpu = 0;
  double time_limit_s = 60;
};

nlohmann::json sanitize_target_to_json(const SanitizeTarget& target);

// The target read back in the sanitized process, owning what the request
// points to. Invariant: request's pointers point into this object.
struct LoadedSanitizeTarget {
  Manifest manifest;
  Program head, reference;
  std::unique_ptr<Backend> backend;
  MeasureRequest request;  // time = false, guard_zones = false
};
Result<std::unique_ptr<LoadedSanitizeTarget>> load_sanitize_target(const nlohmann::json& j);

struct SanitizerOutcome {
  bool clean = true;
  std::string finding;  // summarize_sanitizer_output's line when not clean
};

// Runs `tool` on the target's check. An Error when the tool or the check
// could not run at all (not installed, timed out, the check failed to start).
Result<SanitizerOutcome> run_under_sanitizer(const SanitizeTarget& target, const std::string& tool,
                                             const std::filesystem::path& kgate_executable);

}  // namespace kgate
