#include "gate/gate_sanitizer.h"

#include "core/log.h"

namespace kgate {

GateSanitizer::GateSanitizer(std::vector<std::string> tools, std::string backend,
                             std::filesystem::path kgate_executable)
    : tools_(std::move(tools)),
      backend_(std::move(backend)),
      executable_(std::move(kgate_executable)) {
  if (executable_.empty()) {
    std::error_code ec;
    executable_ = std::filesystem::read_symlink("/proc/self/exe", ec);
  }
}

void GateSanitizer::check(const SanitizeTarget& target, ShapeGate& shape,
                          std::vector<std::string>& notes) {
  if (!active()) return;
  std::string list;
  for (const std::string& t : tools_) list += (list.empty() ? "" : ", ") + t;
  if (backend_ != "cuda") {
    notes.push_back("compute-sanitizer (" + list + ") not run: it checks CUDA kernels, and this " +
                    "gate ran on the " + backend_ + " backend (guard zones and input checks " +
                    "still ran on every correctness run)");
    given_up_ = true;
    return;
  }
  for (const std::string& tool : tools_) {
    progress("compute-sanitizer " + tool + " on " + target.kernel->name + " / " + target.shape);
    auto outcome = run_under_sanitizer(target, tool, executable_);
    if (!outcome.ok()) {
      notes.push_back("compute-sanitizer not run: " + outcome.error().message);
      given_up_ = true;
      return;
    }
    if (outcome->clean) continue;
    shape.verdict = Verdict::kIncorrect;
    shape.fails = true;
    shape.reason = outcome->finding;
    return;
  }
}

}  // namespace kgate
