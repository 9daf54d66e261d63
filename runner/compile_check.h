#pragma once
// Compiles every implementation of a manifest's kernels, their host
// references and reference kernels, without running anything: CUDA for named architectures (NVRTC
// and nvcc need no GPU), the host backend with the C++ compiler. What
// `kgate check` prints; CI without a GPU catches porting errors with it.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/program.h"

namespace kgate {

struct CompileCheckOptions {
  std::vector<std::string> cuda_archs;  // "sm_90"; empty: no CUDA compiles
  std::string kernel;                   // empty: every kernel
  std::string backend;                  // "host", "cuda"; empty: both
  bool all_tunables = false;            // every combination, not just the defaults
  bool references = true;               // also the host references and reference kernels
};

// One compile: a kernel for a target ("cuda sm_90", "host", "reference") with
// one setting of the tunables.
struct CompileCheck {
  std::string kernel;
  std::string target;
  Variables tunables;
  bool ok = false;
  std::string symbol;  // the entry's symbol in the artifact, when ok
  std::string digest;  // the compiler's errors, when not ok
  int registers = -1;  // cuda, when ok
  bool from_cache = false;

  nlohmann::json to_json() const;
};

// The settings to compile with: the defaults, or every combination (the
// defaults first).
std::vector<Variables> tunable_settings(const std::vector<Tunable>& tunables, bool all);

// Compiles as `options` says, calling `on_start(kernel, target, settings)`
// before each kernel-target. An Error only for infrastructure (a compiler
// missing) or a kernel named in options that the manifest lacks; a kernel
// that does not compile is a CompileCheck with ok == false.
Result<std::vector<CompileCheck>> check_compiles(
    const Manifest& manifest, const CompileCheckOptions& options,
    const std::function<void(const std::string&, const std::string&, size_t)>& on_start = {});

}  // namespace kgate
