#pragma once
// What the host reference will cost on each shape, known before it is paid
// (a 4096^3 GEMM reference in double takes tens of seconds per input set).
//
// Measured, not guessed: the reference function is timed in CPU time (in a
// forked child, so a crash cannot take the caller down) on the calibration
// shapes: the largest shape of the kernel with at most kCalibrationElements
// buffer elements, and the largest with at most a quarter as many where
// there is one. Its time is scaled to every other shape by a power of the
// ratio of buffer elements, the power fitted to the two timed shapes (1 for
// a row-wise reference, 1.5 for a square GEMM's n^3 work over n^2
// elements), clamped to [1, 1.5] (a tiny shape's noise must not square a
// huge ratio); with one timed shape, 1. Scaling by the shapes' variables instead would count
// sizes that are no work (a rotary cache's max_pos).
#include <cstdint>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/program.h"

namespace kgate {

struct ReferenceCost {
  std::string shape;
  double seconds = 0;  // per input set
  std::string basis;   // "timed 12 ms on shape 'small', elements x2300, power 1.5"
};

inline constexpr int64_t kCalibrationElements = int64_t{1} << 16;

// The power p with t_a / t_b = (e_a / e_b)^p, clamped to [1, 1.5]; 1 where the
// times or element counts cannot give one.
double work_exponent(double t_a, int64_t e_a, double t_b, int64_t e_b);

// Estimates for the shapes named in `shapes` (every shape if empty), from
// one timed run of `reference` (the compiled host reference) on the
// calibration shape. An Error when that run fails (crash, hang past
// `limit_s`): then nothing is known.
Result<std::vector<ReferenceCost>> estimate_reference_costs(const Kernel& kernel,
                                                            const Program& reference,
                                                            const std::vector<std::string>& shapes,
                                                            double limit_s = 60);

// The warning for one estimate, or "" when it is below the threshold: the
// smaller of kSlowReferenceS and a quarter of the per-shape time limit.
// Names the kernel, the shape and the estimate, says whether it exceeds the
// time limit, and gives the remedies.
inline constexpr double kSlowReferenceS = 10;
std::string reference_cost_warning(const Kernel& kernel, const ReferenceCost& cost,
                                   double time_limit_s);

// The names of the shapes the host reference may judge (oracle_choice.h):
// those small enough for it, and larger ones where no reference kernel
// exists for the backend; `only` non-empty: that shape alone.
std::vector<std::string> host_judged_shapes(const Kernel& kernel, const GatePolicy& policy,
                                            const std::string& backend, bool device_reference,
                                            const std::string& only = "");

// Estimates and warns (core/log.h) for `shapes`, the shapes the host
// reference will judge (none: nothing is run); an estimate that cannot be
// made is a progress note, never an error.
void warn_slow_references(const Kernel& kernel, const Program& reference,
                          const std::vector<std::string>& shapes, double time_limit_s);

}  // namespace kgate
