#pragma once
// Names the measuring child's current step on stderr ("kgate-phase: head
// check"), so the parent can attribute a crash or a hang to a step and a side
// (isolated_measure.cpp). With KGATE_PHASE_TIMES=FILE each finished step's
// wall time is appended to FILE ("KERNEL SHAPE STEP SECONDS").
#include <string>

namespace kgate {

void phase_marker(const char* phase);

// Opens KGATE_PHASE_TIMES for one measurement (labelled "KERNEL SHAPE") and
// closes it, the last step's time written, when it goes out of scope.
class PhaseTimes {
 public:
  explicit PhaseTimes(const std::string& label);
  ~PhaseTimes();
  PhaseTimes(const PhaseTimes&) = delete;
  PhaseTimes& operator=(const PhaseTimes&) = delete;
};

}  // namespace kgate
