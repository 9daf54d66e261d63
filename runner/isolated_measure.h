#pragma once
// Runs measure_in_process in a child process under a time limit. A kernel
// that crashes, hangs or aborts becomes a failed measurement with its reason;
// the parent, its device and the next measurement are unaffected.
#include "runner/harness.h"

namespace kgate {

ShapeMeasurement measure_shape(const MeasureRequest& request);

}  // namespace kgate
