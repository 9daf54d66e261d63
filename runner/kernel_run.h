#pragma once
// Compiles one kernel of a manifest for a backend and measures it on its
// shapes, each shape in its own child process: what `kgate run` does.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "runner/backend.h"
#include "runner/measurement.h"

namespace kgate {

struct KernelRunOptions {
  std::string shape;  // empty: every shape
  uint64_t seed = 0;  // 0: drawn from the clock (recorded in the results)
  int gpu = 0;
  bool time = true;
};

struct KernelRunReport {
  std::string kernel, backend;
  bool compiled = false;
  std::string compile_error;  // digest when !compiled
  Program program;            // when compiled
  std::vector<ShapeMeasurement> shapes;

  bool passed() const;
  nlohmann::json to_json() const;
};

// An Error only for infrastructure or bad input (unknown shape, no such
// implementation); kernel failures are in the report.
Result<KernelRunReport> run_kernel(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                                   const KernelRunOptions& options);

}  // namespace kgate
