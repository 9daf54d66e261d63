#include "runner/phase_marker.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace kgate {
namespace {

// Invariant: `phase` is the step running since `since`, empty when none.
struct PhaseClock {
  std::FILE* file = nullptr;
  std::string label, phase;
  std::chrono::steady_clock::time_point since;
  void finish() {
    if (file && !phase.empty())
      std::fprintf(file, "%s %s %.4f\n", label.c_str(), phase.c_str(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
    if (file) std::fflush(file);
    phase.clear();
  }
};
PhaseClock* phase_clock = nullptr;

}  // namespace

void phase_marker(const char* phase) {
  std::fprintf(stderr, "kgate-phase: %s\n", phase);
  std::fflush(stderr);
  if (phase_clock && phase_clock->file && phase_clock->phase != phase) {
    phase_clock->finish();
    phase_clock->phase = phase;
    phase_clock->since = std::chrono::steady_clock::now();
  }
}

PhaseTimes::PhaseTimes(const std::string& label) {
  if (const char* path = std::getenv("KGATE_PHASE_TIMES"); path && *path) {
    phase_clock = new PhaseClock;
    phase_clock->file = std::fopen(path, "a");
    phase_clock->label = label;
  }
}

PhaseTimes::~PhaseTimes() {
  if (!phase_clock) return;
  phase_clock->finish();
  if (phase_clock->file) std::fclose(phase_clock->file);
  delete phase_clock;
  phase_clock = nullptr;
}

}  // namespace kgate
