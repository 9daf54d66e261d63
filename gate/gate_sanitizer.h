#pragma once
// The gate's optional compute-sanitizer step ("sanitize" in the manifest's
// gate section, `kgate gate --sanitize-kernels`): after a shape's head passed
// its checks, each tool runs on a correctness-only check of that shape
// (runner/sanitizer_check.h); a finding makes the shape incorrect with the
// tool's first report as the reason. CUDA backend only.
#include <filesystem>
#include <string>
#include <vector>

#include "gate/ab_gate.h"
#include "runner/sanitizer_check.h"

namespace kgate {

// Invariant: once a tool cannot run (not installed, wrong backend), the
// kernel gets one note saying so and no further shape is sanitized.
class GateSanitizer {
 public:
  GateSanitizer(std::vector<std::string> tools, std::string backend,
                std::filesystem::path kgate_executable);

  bool active() const { return !tools_.empty() && !given_up_; }
  // Sanitizes `target` (a shape whose head passed) and updates `shape`'s
  // verdict; notes go to `notes`.
  void check(const SanitizeTarget& target, ShapeGate& shape, std::vector<std::string>& notes);

 private:
  std::vector<std::string> tools_;
  std::string backend_;
  std::filesystem::path executable_;
  bool given_up_ = false;
};

}  // namespace kgate
